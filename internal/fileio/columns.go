package fileio

import "strings"

// ColumnIndex is the index of the column named name in t's header
// (names compared trimmed, as written otherwise), or -1 when t has no
// header or no such column.
func (t *Table) ColumnIndex(name string) int {
	for j, h := range t.Header {
		if strings.TrimSpace(h) == strings.TrimSpace(name) {
			return j
		}
	}
	return -1
}

// Select returns a new table of t's columns cols, in that order (header
// included when t has one). cols must be valid column indices.
func (t *Table) Select(cols []int) *Table {
	out := &Table{Path: t.Path, Rows: t.Rows, Cols: len(cols), Data: make([]float64, 0, t.Rows*len(cols))}
	if t.Header != nil {
		for _, j := range cols {
			out.Header = append(out.Header, t.Header[j])
		}
	}
	for i := 0; i < t.Rows; i++ {
		for _, j := range cols {
			out.Data = append(out.Data, t.At(i, j))
		}
	}
	return out
}
