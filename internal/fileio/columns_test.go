package fileio

import (
	"fmt"
	"strings"
	"testing"
)

// TestResolveColumns: roles, defaults and refusals of the column rules,
// each case against the columns chosen by hand.
func TestResolveColumns(t *testing.T) {
	spec := func(mod func(*ColumnSpec)) ColumnSpec {
		s := ColumnSpec{IDFlag: "--id-column", LabelFlag: "--label", QualityFlag: "--quality-column", FingerprintFlag: "--fingerprint-column",
			FeaturesFlag: "--feature-columns", PrefixFlag: "--feature-prefix", ExcludeFlag: "--exclude-columns"}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	for _, c := range []struct {
		header []string
		mod    func(*ColumnSpec)
		want   string // fmt of Features and Unnamed, or an error substring
	}{
		{[]string{"", "e1", "e2"}, nil, "[1 2] [0]"},
		{[]string{"Unnamed: 0", "id", "e1"}, func(s *ColumnSpec) { s.ID = "id" }, "[2] [0]"},
		{[]string{"x", "y", "z"}, nil, "[0 1 2] []"}, // y beside x is a coordinate
		{[]string{"a", "y"}, nil, `column "y" looks like a label or target`},
		{[]string{"a", "is_toxic"}, nil, `leave it out with --exclude-columns is_toxic`},
		{[]string{"a", "target"}, func(s *ColumnSpec) { s.Exclude = []string{"target"} }, "[0] []"},
		{[]string{"a", "target"}, func(s *ColumnSpec) { s.Features = []string{"a", "target"} }, "[0 1] []"},
		{[]string{"a", "label"}, func(s *ColumnSpec) { s.Label = "label" }, "[0] []"},
		{[]string{"x1", "x2", "class", "w"}, func(s *ColumnSpec) { s.Prefix = "x" }, "[0 1] []"},
		{[]string{"id", "fp", "e1"}, func(s *ColumnSpec) { s.ID, s.Fingerprint = "id", "fp" }, "[] []"},
		{[]string{"id", "fp"}, func(s *ColumnSpec) { s.Fingerprint, s.Features = "fp", []string{"id"} }, "give --fingerprint-column or feature columns"},
		{[]string{"q", "e1"}, func(s *ColumnSpec) { s.Quality, s.Features = "q", []string{"q", "e1"} }, `column "q" is both the quality column and a feature column`},
		{[]string{"", "e1"}, func(s *ColumnSpec) { s.Features = []string{""} }, "column 1 has no name (a row index): it is never a feature"},
		{[]string{"id", "e1"}, func(s *ColumnSpec) { s.ID, s.Quality = "id", "id" }, `column "id" is both the id column and the quality column`},
		{[]string{"e1"}, func(s *ColumnSpec) { s.Exclude = []string{"e2"} }, `--exclude-columns: no column "e2"`},
		{[]string{"id", "label"}, func(s *ColumnSpec) { s.ID, s.Label = "id", "label" }, "no feature columns left"},
	} {
		cols, err := ResolveColumns("f.csv", c.header, spec(c.mod))
		got := ""
		if err != nil {
			got = err.Error()
			if !strings.HasPrefix(got, "f.csv: ") {
				t.Errorf("%q: error %q does not name the file", c.header, got)
			}
		} else {
			got = fmt.Sprint(cols.Features, " ", cols.Unnamed)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: %s, want %s", c.header, got, c.want)
		}
	}
}

// TestResolveUnnamed: 0..n-1 is the row index, unique values the ids (or
// row labels beside an id column), anything else an error.
func TestResolveUnnamed(t *testing.T) {
	header := []string{"", "id", "e1"}
	for _, c := range []struct {
		vals   []string
		id     int
		wantID int
		want   string
	}{
		{[]string{"0", "1", "2"}, -1, -1, "holds 0..2: read as the row index"},
		{[]string{"a", "b", "c"}, -1, 0, "holds unique values: read as the item ids"},
		{[]string{"a", "b", "c"}, 1, 1, `read as row labels (the ids come from column "id")`},
		{[]string{"1", "2", "3"}, -1, 0, "read as the item ids"}, // not 0..n-1: ids
		{[]string{"0", "0", "1"}, -1, -1, "is neither a row index (0..n-1) nor unique ids"},
		{[]string{"a", "", "c"}, -1, -1, "is neither a row index"},
	} {
		cols := &Columns{ID: c.id, Unnamed: []int{0}}
		notes, err := ResolveUnnamed("f.csv", header, cols, [][]string{c.vals})
		got := strings.Join(notes, "\n")
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) || cols.ID != c.wantID || !strings.HasPrefix(got, "f.csv: ") {
			t.Errorf("%q: %q (id column %d), want %q (%d)", c.vals, got, cols.ID, c.want, c.wantID)
		}
	}
}
