package search

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

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
	rows, err := readItemFile(path, pool, true)
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
	rows, err := readItemFile(path, pool, false)
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

// itemRow is one row of an item file: the line, the key as written, the
// pool index and (label files) the label.
type itemRow struct {
	line     int
	key      string
	index    int
	positive bool
}

// CheckObservedFile checks the labels file of ParseObserved as far as it
// can without the pool: the file opens (a regular file), is CSV, has the
// header (index,label or id,label), every row has the header's fields and
// a label 1/true or 0/false. Commands call it before loading the pool, so
// a mistyped path or header is reported before minutes of graph building.
func CheckObservedFile(path string) error {
	_, err := readItemRecords(path, true)
	return err
}

// CheckPendingFile is CheckObservedFile for ParsePending's file (header
// index or id, no label).
func CheckPendingFile(path string) error {
	_, err := readItemRecords(path, false)
	return err
}

// itemRecords is an item file read and checked without the pool: its
// records (header first), the key and label columns (-1: none) and whether
// the key is an id.
type itemRecords struct {
	recs             [][]string
	keyCol, labelCol int
	idCol            int // the id column when the index is the key too (-1: none)
	byID             bool
}

// readItemRecords reads and checks an item file (see CheckObservedFile).
func readItemRecords(path string, withLabel bool) (*itemRecords, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	expected := "index or id"
	if withLabel {
		expected = "index,label or id,label"
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
	f := &itemRecords{recs: recs, keyCol: -1, labelCol: -1, idCol: -1}
	for j, h := range recs[0] {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "index":
			f.keyCol = j
		case "id":
			f.idCol = j
		case "label":
			f.labelCol = j
		}
	}
	// With both, the index is the key and the id must name the same item
	// (checked by readItemFile); with the id alone, the id is the key.
	f.byID = f.keyCol < 0 && f.idCol >= 0
	if f.byID {
		f.keyCol = f.idCol
	}
	if f.keyCol < 0 || (withLabel && f.labelCol < 0) {
		return nil, fmt.Errorf("%s: header %s: expected columns %s%s", path, fileio.ExcerptCells(recs[0]), expected, fileio.SeparatorHint(recs[0]...))
	}
	for k, rec := range recs[1:] {
		line := k + 2
		if len(rec) != len(recs[0]) {
			return nil, fmt.Errorf("%s line %d: %d fields, the header has %d", path, line, len(rec), len(recs[0]))
		}
		if _, ok := parseLabel(rec, f.labelCol, withLabel); !ok {
			return nil, fmt.Errorf("%s line %d: label %s: expected 1 (positive) or 0 (negative)", path, line, fileio.Excerpt(rec[f.labelCol]))
		}
	}
	return f, nil
}

// parseLabel reads the label of rec (false, true without a label column).
func parseLabel(rec []string, labelCol int, withLabel bool) (positive, ok bool) {
	if !withLabel {
		return false, true
	}
	switch strings.ToLower(strings.TrimSpace(rec[labelCol])) {
	case "1", "true":
		return true, true
	case "0", "false":
		return false, true
	}
	return false, false
}

// readItemFile reads a CSV file naming pool items by an index or id column
// and, if withLabel, labelled by a label column (see ParseObserved).
func readItemFile(path string, pool *datasets.Pool, withLabel bool) ([]itemRow, error) {
	f, err := readItemRecords(path, withLabel)
	if err != nil {
		return nil, err
	}
	recs, keyCol, labelCol, byID := f.recs, f.keyCol, f.labelCol, f.byID
	idCol := -1
	if !byID {
		idCol = f.idCol
	}
	var idIndex map[string]int
	if byID {
		idIndex = make(map[string]int, pool.Len())
		for i := 0; i < pool.Len(); i++ {
			idIndex[poolID(pool, i)] = i
		}
	}
	seen := make(map[int]bool, len(recs)-1)
	out := make([]itemRow, 0, len(recs)-1)
	for k, rec := range recs[1:] {
		line := k + 2
		key := strings.TrimSpace(rec[keyCol])
		var i int
		if byID {
			var ok bool
			var amb error
			if i, _, ok, amb = fileio.LookupID(idIndex, rec[keyCol]); amb != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, line, amb)
			} else if !ok {
				return nil, fmt.Errorf("%s line %d: id %q is not in pool %s", path, line, key, pool.Name)
			}
		} else {
			i, err = strconv.Atoi(key)
			if err != nil || i < 0 || i >= pool.Len() {
				return nil, fmt.Errorf("%s line %d: index %q: expected an integer in [0, %d)", path, line, key, pool.Len())
			}
			if idCol >= 0 {
				if id := poolID(pool, i); !fileio.IDMatches(rec[idCol], id) {
					return nil, fmt.Errorf("%s line %d: index %d is item %q but column \"id\" says %q; correct one of them", path, line, i, id, rec[idCol])
				}
			}
		}
		y, _ := parseLabel(rec, labelCol, withLabel) // checked by readItemRecords
		if seen[i] {
			return nil, fmt.Errorf("%s line %d: item %d (%s) is listed twice", path, line, i, key)
		}
		seen[i] = true
		out = append(out, itemRow{line: line, key: key, index: i, positive: y})
	}
	return out, nil
}

// poolID is item i's id: the pool's, or its index when it has none.
func poolID(pool *datasets.Pool, i int) string {
	if pool.IDs != nil {
		return pool.IDs[i]
	}
	return strconv.Itoa(i)
}
