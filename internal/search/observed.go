package search

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Observation is one labelled item: its pool index and label.
type Observation struct {
	Index    int
	Positive bool
}

// readObserved reads the labels observed so far from the CSV file at path
// (see ParseObserved) and observes every row on m (a model of pool, in
// pool indices).
func readObserved(path string, pool *datasets.Pool, m *Model) error {
	obs, err := ParseObserved(path, pool)
	if err != nil {
		return err
	}
	for _, o := range obs {
		m.Observe(o.Index, o.Positive)
	}
	return nil
}

// ParseObserved reads the labels observed so far from the CSV file at path,
// in file order. The file
// has a header naming an item column, index (0-based pool index) or id (the
// pool's item identifier; the index when the pool has none), and a label
// column, 1/true for a positive and 0/false for a negative. An item listed
// twice, an unknown item or label and a short row are errors naming the
// file and line.
func ParseObserved(path string, pool *datasets.Pool) ([]Observation, error) {
	rows, err := readItemFile(path, pool, withLabel)
	if err != nil {
		return nil, err
	}
	out := make([]Observation, len(rows))
	for k, r := range rows {
		out[k] = Observation{Index: r.index, Positive: r.positive}
	}
	return out, nil
}

// ParsePending reads the items whose experiments are still running from
// the CSV file at path, in file order: a header naming an item column,
// index or id, resolved as by ParseObserved; other columns (a label column
// included) are ignored. An item listed twice, an unknown item, and an item
// that is also in observed (read from observedPath: its label is known, so
// it is not pending; remove it from one of the files) are errors naming
// the file and line.
func ParsePending(path string, pool *datasets.Pool, observed []Observation, observedPath string) ([]int, error) {
	known := make([]int, len(observed))
	for k, o := range observed {
		known[k] = o.Index
	}
	return parsePending(path, pool, known, observedPath, "labelled", "label")
}

// parsePending is ParsePending with the items known (labelled or scored:
// verb, and what is known of them: noun) given by their indices.
func parsePending(path string, pool *datasets.Pool, known []int, observedPath, verb, noun string) ([]int, error) {
	rows, err := readItemFile(path, pool, itemsOnly)
	if err != nil {
		return nil, err
	}
	seen := make(map[int]bool, len(known))
	for _, i := range known {
		seen[i] = true
	}
	out := make([]int, len(rows))
	for k, r := range rows {
		if seen[r.index] {
			return nil, fileio.LineErrorf(path, r.line, "item %d (%s) is also %s in %s: an item is pending until its %s is known; remove it from one of the files", r.index, r.key, verb, observedPath, noun)
		}
		out[k] = r.index
	}
	return out, nil
}

// Score is one scored item: its pool index and measured value (NaN for a
// failed measurement), with the line of the file it was read from.
type Score struct {
	Index int
	Value float64
	Line  int
}

// ObservedHasScores reads the header of the observed file at path and
// reports whether it holds scores (a value or score column) rather than
// labels (a label column); see ParseScores. A header with both a value and
// a label column is an error naming the file and both columns. Any other
// problem of the file is left to the parser of its kind.
func ObservedHasScores(path string) (bool, error) {
	head, err := readHeader(path)
	if err != nil || head == nil {
		return false, err // an unreadable header: the parser reports it
	}
	return headerHasScores(path, head)
}

// headerHasScores is ObservedHasScores on the header head of path.
func headerHasScores(path string, head []string) (bool, error) {
	value, label := -1, -1
	for j, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "value", "score":
			if value < 0 {
				value = j
			}
		case "label":
			label = j
		}
	}
	if value >= 0 && label >= 0 {
		return false, fileio.LineErrorf(path, 1, "columns %d (%s) and %d (%s): give scores (a value column) or 0/1 labels (a label column), not both", value+1, strings.TrimSpace(head[value]), label+1, strings.TrimSpace(head[label]))
	}
	return value >= 0, nil
}

// ParseScores reads the scores measured so far from the CSV file at path,
// in file order. The header names an item column, index or id, resolved as
// by ParseObserved, and a value column (value, else score; header names
// are case-insensitive), and optionally a status column. A failed
// measurement, as `qvs bayesopt suggest` reads one, is a row whose value
// cell is empty, nan or failed (any case; bayesopt.IsFailedCell) or whose
// status says failed or fail (bayesopt.IsFailedStatus): its Value is NaN.
// An item listed twice, an unknown item, a short row and a value that is
// neither a finite number nor a failure are errors naming the file, line
// and column.
func ParseScores(path string, pool *datasets.Pool) ([]Score, error) {
	rows, err := readItemFile(path, pool, withValue)
	if err != nil {
		return nil, err
	}
	out := make([]Score, len(rows))
	for k, r := range rows {
		out[k] = Score{Index: r.index, Value: r.value, Line: r.line}
	}
	return out, nil
}

// ParsePendingScored is ParsePending for a search whose observed file
// (observedPath) holds scores: an item both scored (failed included) and
// pending is an error.
func ParsePendingScored(path string, pool *datasets.Pool, scored []Score, observedPath string) ([]int, error) {
	known := make([]int, len(scored))
	for k, s := range scored {
		known[k] = s.Index
	}
	return parsePending(path, pool, known, observedPath, "scored", "score")
}

// readHeader returns the first record of the CSV file at path, reading no
// further (nil when the file is empty or its first line is not a CSV
// record: the file's parser names the problem); an error only when the
// file cannot be opened.
func readHeader(path string) ([]string, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The first line alone, read raw up to fileio.MaxCSVLine: a longer one
	// (a file without line breaks) is left to the parser, which names it,
	// and costs no more here than the bound.
	br := bufio.NewReader(io.LimitReader(f, fileio.MaxCSVLine+1))
	line, err := br.ReadBytes('\n')
	if err != nil && (err != io.EOF || len(line) > fileio.MaxCSVLine) {
		return nil, nil
	}
	r := fileio.NewCSVReader(bytes.NewReader(line))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, nil
	}
	return head, nil
}

// Item file kinds of readItemFile.
const (
	itemsOnly    = iota // an item column (pending files)
	withLabel           // and a 0/1 label column
	withValue           // and a value column (scores), optional status
	labelOrValue        // withValue if the header has a value column, else withLabel
)

// itemRow is one row of an item file: the line, the key as written, the
// pool index and the label or value.
type itemRow struct {
	line     int
	key      string
	index    int
	positive bool
	value    float64
}

// itemColumns finds the item column (byID: the id column), the label or
// value column (-1 for itemsOnly) of an item file's header, the status
// column of a score file (-1 if none), and the id column when the index is
// the key too (-1: none; the id must then name the same item).
func itemColumns(path string, head []string, mode int) (c itemCols, err error) {
	c = itemCols{keyCol: -1, dataCol: -1, statusCol: -1, idCol: -1}
	labelCol, valueCol, scoreCol := -1, -1, -1
	for j, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "index":
			c.keyCol = j
		case "id":
			c.idCol = j
		case "label":
			labelCol = j
		case "value":
			if valueCol < 0 {
				valueCol = j
			}
		case "score":
			if scoreCol < 0 {
				scoreCol = j
			}
		case "status":
			c.statusCol = j
		}
	}
	// With both, the index is the key and the id must name the same item
	// (checked by readItemFile); with the id alone, the id is the key.
	c.byID = c.keyCol < 0 && c.idCol >= 0
	if c.byID {
		c.keyCol, c.idCol = c.idCol, -1
	}
	expected := itemHeader(mode)
	switch mode {
	case withLabel:
		c.dataCol = labelCol
	case withValue:
		c.dataCol = valueCol
		if c.dataCol < 0 {
			c.dataCol = scoreCol
		}
	}
	if c.keyCol < 0 || (mode != itemsOnly && c.dataCol < 0) {
		return c, fmt.Errorf("%s: header %s: expected columns %s%s", path, fileio.ExcerptCells(head), expected, fileio.SeparatorHint(head...))
	}
	if mode != withValue {
		c.statusCol = -1
	}
	return c, nil
}

// itemCols are the columns of an item file (see itemColumns).
type itemCols struct {
	keyCol, dataCol, statusCol, idCol int
	byID                              bool
}

// itemHeader is the header an item file of the mode needs, for messages.
func itemHeader(mode int) string {
	switch mode {
	case withLabel:
		return "index,label or id,label"
	case withValue:
		return "index,value or id,value"
	case labelOrValue:
		return "index,label or id,label (0/1 labels), or index,value or id,value (scores)"
	}
	return "index or id"
}

// CheckObservedFile checks the observed file of ParseObserved or
// ParseScores (by its header: ObservedHasScores) as far as it can without
// the pool: the file opens (a regular file), is CSV, has the header, every
// row has the header's fields and a label 1/true or 0/false, or a value
// that is a finite number or a failure. Commands call it before loading
// the pool, so a mistyped path, header or cell is reported before minutes
// of graph building.
func CheckObservedFile(path string) error {
	_, err := readItemRecords(path, labelOrValue)
	return err
}

// CheckPendingFile is CheckObservedFile for ParsePending's file (header
// index or id; other columns ignored).
func CheckPendingFile(path string) error {
	_, err := readItemRecords(path, itemsOnly)
	return err
}

// itemRecords is an item file read and checked without the pool: its
// records (header first) and columns.
type itemRecords struct {
	recs [][]string
	itemCols
}

// readItemRecords reads and checks an item file of the mode (see
// CheckObservedFile).
func readItemRecords(path string, mode int) (*itemRecords, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	// A UTF-8 byte-order mark (spreadsheets write one) is not part of the
	// first column's name; binary input is an error saying what it is.
	r := fileio.NewCSVReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file; expected a header %s", path, itemHeader(mode))
	}
	if mode == labelOrValue {
		scored, err := headerHasScores(path, recs[0])
		if err != nil {
			return nil, err
		}
		mode = withLabel
		if scored {
			mode = withValue
		}
	}
	c, err := itemColumns(path, recs[0], mode)
	if err != nil {
		return nil, err
	}
	for k, rec := range recs[1:] {
		line := k + 2
		if len(rec) != len(recs[0]) {
			return nil, fileio.LineErrorf(path, line, "%d fields, the header has %d", len(rec), len(recs[0]))
		}
		if _, _, err := parseItemData(path, line, recs[0], rec, c, mode); err != nil {
			return nil, err
		}
	}
	return &itemRecords{recs: recs, itemCols: c}, nil
}

// parseItemData reads the label (withLabel) or value (withValue; NaN for a
// failed measurement) of rec, line line of path.
func parseItemData(path string, line int, head, rec []string, c itemCols, mode int) (positive bool, value float64, err error) {
	switch mode {
	case withLabel:
		switch strings.ToLower(strings.TrimSpace(rec[c.dataCol])) {
		case "1", "true":
			return true, 0, nil
		case "0", "false":
			return false, 0, nil
		}
		return false, 0, cellErrorf(path, line, head, c.dataCol, "label %s: expected 1 (positive) or 0 (negative)", fileio.Excerpt(rec[c.dataCol]))
	case withValue:
		cell := rec[c.dataCol]
		if bayesopt.IsFailedCell(cell) || (c.statusCol >= 0 && bayesopt.IsFailedStatus(rec[c.statusCol])) {
			return false, math.NaN(), nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return false, 0, cellErrorf(path, line, head, c.dataCol, "%s: expected a finite number, or nan, failed or an empty cell for a failed measurement", fileio.Excerpt(cell))
		}
		return false, v, nil
	}
	return false, 0, nil
}

// readItemFile reads a CSV file naming pool items by an index or id column
// and, by mode, labelled by a label column (see ParseObserved) or scored
// by a value column (see ParseScores).
func readItemFile(path string, pool *datasets.Pool, mode int) ([]itemRow, error) {
	f, err := readItemRecords(path, mode)
	if err != nil {
		return nil, err
	}
	recs, c := f.recs, f.itemCols
	var idIndex map[string]int
	if c.byID {
		idIndex = make(map[string]int, pool.Len())
		for i := 0; i < pool.Len(); i++ {
			idIndex[poolID(pool, i)] = i
		}
	}
	seen := make(map[int]bool, len(recs)-1)
	out := make([]itemRow, 0, len(recs)-1)
	for k, rec := range recs[1:] {
		line := k + 2
		key := strings.TrimSpace(rec[c.keyCol])
		keyErr := func(format string, args ...any) error {
			return cellErrorf(path, line, recs[0], c.keyCol, format, args...)
		}
		var i int
		if c.byID {
			var ok bool
			var amb error
			if i, _, ok, amb = fileio.LookupID(idIndex, rec[c.keyCol]); amb != nil {
				return nil, keyErr("%w", amb)
			} else if !ok {
				return nil, keyErr("id %q is not in pool %s", key, pool.Name)
			}
		} else {
			i, err = strconv.Atoi(key)
			if err != nil || i < 0 || i >= pool.Len() {
				return nil, keyErr("index %q: expected an integer in [0, %d)", key, pool.Len())
			}
			if c.idCol >= 0 {
				if id := poolID(pool, i); !fileio.IDMatches(rec[c.idCol], id) {
					return nil, cellErrorf(path, line, recs[0], c.idCol, "index %d is item %q but column \"id\" says %q; correct one of them", i, id, rec[c.idCol])
				}
			}
		}
		y, v, _ := parseItemData(path, line, recs[0], rec, c, mode) // checked by readItemRecords
		if seen[i] {
			return nil, keyErr("item %d (%s) is listed twice", i, key)
		}
		seen[i] = true
		out = append(out, itemRow{line: line, key: key, index: i, positive: y, value: v})
	}
	return out, nil
}

// cellErrorf is a fileio.ReadError at line of path in column col
// (0-based) of the header head, named by its number and name.
func cellErrorf(path string, line int, head []string, col int, format string, args ...any) error {
	return &fileio.ReadError{File: path, Line: line, Column: col + 1, Field: strings.TrimSpace(head[col]), Err: fmt.Errorf(format, args...)}
}

// poolID is item i's id: the pool's, or its index when it has none.
func poolID(pool *datasets.Pool, i int) string {
	if pool.IDs != nil {
		return pool.IDs[i]
	}
	return strconv.Itoa(i)
}
