package search

import (
	"bytes"
	"fmt"
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

// ReadObserved reads the labels observed so far from the CSV file at path
// (see ParseObserved) and observes every row on m (a model of pool, in
// pool indices).
func ReadObserved(path string, pool *datasets.Pool, m *Model) error {
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
	rows, err := readItemFile(path, pool, itemsOnly)
	if err != nil {
		return nil, err
	}
	labelled := make(map[int]bool, len(observed))
	for _, o := range observed {
		labelled[o.Index] = true
	}
	out := make([]int, len(rows))
	for k, r := range rows {
		if labelled[r.index] {
			return nil, fmt.Errorf("%s line %d: item %d (%s) is also labelled in %s: an item is pending until its label is known; remove it from one of the files", path, r.line, r.index, r.key, observedPath)
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
		return false, fmt.Errorf("%s line 1: columns %d (%s) and %d (%s): give scores (a value column) or 0/1 labels (a label column), not both", path, value+1, strings.TrimSpace(head[value]), label+1, strings.TrimSpace(head[label]))
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
	obs := make([]Observation, len(scored))
	for k, s := range scored {
		obs[k] = Observation{Index: s.Index}
	}
	return ParsePending(path, pool, obs, observedPath)
}

// CheckItemHeader reads the header of the item file at path and checks it
// names an item column (index or id) and, if scored, a value column: what
// a command checks of its files before loading the pool.
func CheckItemHeader(path string, scored bool) error {
	head, err := readHeader(path)
	if err != nil || head == nil {
		return err // nil: an empty or unreadable header, which the parser reports
	}
	mode := itemsOnly
	if scored {
		mode = withValue
	}
	_, _, _, _, err = itemColumns(path, head, mode)
	return err
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
	r := fileio.NewCSVReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, nil
	}
	return head, nil
}

// Item file kinds of readItemFile.
const (
	itemsOnly = iota // an item column (pending files)
	withLabel        // and a 0/1 label column
	withValue        // and a value column (scores), optional status
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

// itemColumns finds the item column (byID: the id column) and the label or
// value column (-1 for itemsOnly) of an item file's header, and the status
// column of a score file (-1 if none).
func itemColumns(path string, head []string, mode int) (keyCol, dataCol, statusCol int, byID bool, err error) {
	keyCol, dataCol, statusCol = -1, -1, -1
	labelCol, valueCol, scoreCol := -1, -1, -1
	for j, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "index":
			keyCol = j
		case "id":
			if keyCol < 0 {
				keyCol, byID = j, true
			}
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
			statusCol = j
		}
	}
	expected := "index or id"
	switch mode {
	case withLabel:
		expected, dataCol = "index,label or id,label", labelCol
	case withValue:
		expected, dataCol = "index,value or id,value", valueCol
		if dataCol < 0 {
			dataCol = scoreCol
		}
	}
	if keyCol < 0 || (mode != itemsOnly && dataCol < 0) {
		return 0, 0, 0, false, fmt.Errorf("%s: header %s: expected columns %s%s", path, fileio.ExcerptCells(head), expected, fileio.SeparatorHint(head...))
	}
	if mode != withValue {
		statusCol = -1
	}
	return keyCol, dataCol, statusCol, byID, nil
}

// readItemFile reads a CSV file naming pool items by an index or id column
// and, by mode, labelled by a label column (see ParseObserved) or scored
// by a value column (see ParseScores).
func readItemFile(path string, pool *datasets.Pool, mode int) ([]itemRow, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	expected := "index or id"
	switch mode {
	case withLabel:
		expected = "index,label or id,label"
	case withValue:
		expected = "index,value or id,value"
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
		return nil, fmt.Errorf("%s: empty file; expected a header %s", path, expected)
	}
	keyCol, dataCol, statusCol, byID, err := itemColumns(path, recs[0], mode)
	if err != nil {
		return nil, err
	}
	var idIndex map[string]int
	if byID {
		idIndex = make(map[string]int, pool.Len())
		for i := 0; i < pool.Len(); i++ {
			id := strconv.Itoa(i)
			if pool.IDs != nil {
				id = pool.IDs[i]
			}
			idIndex[id] = i
		}
	}
	seen := make(map[int]bool, len(recs)-1)
	out := make([]itemRow, 0, len(recs)-1)
	for k, rec := range recs[1:] {
		line := k + 2
		if len(rec) != len(recs[0]) {
			return nil, fmt.Errorf("%s line %d: %d fields, the header has %d", path, line, len(rec), len(recs[0]))
		}
		key := strings.TrimSpace(rec[keyCol])
		var i int
		if byID {
			var ok bool
			if i, _, ok = fileio.LookupID(idIndex, rec[keyCol]); !ok {
				return nil, fmt.Errorf("%s line %d: id %q is not in pool %s", path, line, key, pool.Name)
			}
		} else {
			i, err = strconv.Atoi(key)
			if err != nil || i < 0 || i >= pool.Len() {
				return nil, fmt.Errorf("%s line %d: index %q: expected an integer in [0, %d)", path, line, key, pool.Len())
			}
		}
		var y bool
		var v float64
		switch mode {
		case withLabel:
			switch strings.ToLower(strings.TrimSpace(rec[dataCol])) {
			case "1", "true":
				y = true
			case "0", "false":
			default:
				return nil, fmt.Errorf("%s line %d: label %s: expected 1 (positive) or 0 (negative)", path, line, fileio.Excerpt(rec[dataCol]))
			}
		case withValue:
			cell := rec[dataCol]
			switch {
			case bayesopt.IsFailedCell(cell) || (statusCol >= 0 && bayesopt.IsFailedStatus(rec[statusCol])):
				v = math.NaN()
			default:
				v, err = strconv.ParseFloat(strings.TrimSpace(cell), 64)
				if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
					return nil, fmt.Errorf("%s line %d column %d (%s): %s: expected a finite number, or nan, failed or an empty cell for a failed measurement", path, line, dataCol+1, strings.TrimSpace(recs[0][dataCol]), fileio.Excerpt(cell))
				}
			}
		}
		if seen[i] {
			return nil, fmt.Errorf("%s line %d: item %d (%s) is listed twice", path, line, i, key)
		}
		seen[i] = true
		out = append(out, itemRow{line: line, key: key, index: i, positive: y, value: v})
	}
	return out, nil
}
