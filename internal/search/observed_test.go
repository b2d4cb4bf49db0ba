package search

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
)

func TestReadObserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 10, 3)
	write, model := obsFile(t), func() *Model { return testModelOf(t, pool) }

	// By index, columns in any order, extra columns ignored, true/false allowed.
	m := model()
	if err := readObserved(write("note,label,index\na,1,3\nb,false,7\nc,TRUE,0\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 3 || !m.Positive(3) || !m.Observed(7) || m.Positive(7) || !m.Positive(0) {
		t.Errorf("observed %d items; 3: %v, 7: %v/%v, 0: %v", m.NumObserved(), m.Positive(3), m.Observed(7), m.Positive(7), m.Positive(0))
	}

	// By id: the pool's identifiers.
	pool.IDs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	m = model()
	if err := readObserved(write("id,label\nc,1\nj,0\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 2 || !m.Positive(2) || !m.Observed(9) {
		t.Errorf("by id: observed %d items", m.NumObserved())
	}
	// A spreadsheet's byte-order mark and CRLF line ends (the BOM used to
	// make the header "\ufeffid" unrecognised).
	m = model()
	if err := readObserved(write("\ufeffid,label\r\nc,1\r\nj,0\r\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 2 || !m.Positive(2) || !m.Observed(9) {
		t.Errorf("with a BOM: observed %d items", m.NumObserved())
	}

	for name, tc := range map[string]struct{ body, want string }{
		"empty":      {"", "empty file"},
		"header":     {"item,label\n3,1\n", "expected columns index,label or id,label"},
		"short row":  {"index,label\n3\n", "line 2: 1 fields, the header has 2"},
		"bad label":  {"index,label\n3,maybe\n", `line 2, column 2 (label): label "maybe"`},
		"range":      {"index,label\n10,1\n", `line 2, column 1 (index): index "10": expected an integer in [0, 10)`},
		"not an int": {"index,label\nx,1\n", `line 2, column 1 (index): index "x"`},
		"twice":      {"index,label\n3,1\n3,0\n", "line 3, column 1 (index): item 3 (3) is listed twice"},
		"unknown id": {"label,id\n1,zz\n", `line 2, column 2 (id): id "zz" is not in pool line`},
		// Binary files say what they are, not "header [\x93NUMPY ...]".
		"npy":    {"\x93NUMPY\x01\x00v\x00{'descr': '<f8'}", "a NumPy .npy array, not CSV text"},
		"utf-16": {"\xff\xfei\x00d\x00,\x00", "binary data (a NUL byte at offset 3)"},
	} {
		err := readObserved(write(tc.body), pool, model())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "obs.csv") {
			t.Errorf("%s: error %v, want one naming obs.csv and %q", name, err, tc.want)
		}
	}
}

// TestObservedIndexAndID: a file with both index and id columns is keyed
// by the index and its id must name the same item (the id used to be
// ignored: the wrong item labelled); an id that names one item as written
// and another as qvs prints ids for spreadsheets is refused naming both,
// while an index beside it settles which.
func TestObservedIndexAndID(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 6, 3)
	pool.IDs = []string{"a", "=x", "'=x", "-y", "'-y", "f"}
	write, model := obsFile(t), func() *Model { return testModelOf(t, pool) }
	for name, tc := range map[string]struct{ body, want string }{
		"mismatch":   {"index,id,label\n0,f,1\n", `line 2, column 2 (id): index 0 is item "a" but column "id" says "f"`},
		"ambiguous":  {"id,label\n'=x,1\n", `line 2, column 1 (id): id "'=x" is ambiguous`},
		"ambiguous-": {"id,label\n'-y,1\n", `is ambiguous`},
	} {
		err := readObserved(write(tc.body), pool, model())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	// As qvs prints them (index, spreadsheet-safe id): each names its item.
	m := model()
	if err := readObserved(write("index,id,label\n1,'=x,1\n2,''=x,0\n3,'-y,1\n5,f,0\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if !m.Positive(1) || !m.Observed(2) || m.Positive(2) || !m.Positive(3) || m.Observed(4) || m.NumObserved() != 4 {
		t.Errorf("index and id: observed %d; 1 %v, 2 %v/%v, 3 %v, 4 %v", m.NumObserved(), m.Positive(1), m.Observed(2), m.Positive(2), m.Positive(3), m.Observed(4))
	}
	// The id alone, unambiguous: "''=x" is only "'=x".
	m = model()
	if err := readObserved(write("id,label\n''=x,1\n=x,0\n"), pool, m); err != nil || !m.Positive(2) || !m.Observed(1) || m.Positive(1) {
		t.Errorf("ids alone: %v", err)
	}
}

func TestParsePending(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 10, 3)
	pool.IDs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "pending.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	observed := []Observation{{Index: 2, Positive: true}, {Index: 9}}
	// By id or index, file order kept, a label column and others ignored.
	for body, want := range map[string][]int{
		"id\nh\nb\n":             {7, 1},
		"note,index\nx,4\ny,0\n": {4, 0},
		"id,label\ne,1\n":        {4},
		"\ufeffid\r\nd\r\n":      {3},
		"id\n":                   {},
		"index,id\n5,f\n6,g\n":   {5, 6}, // the index is the key, the id agrees
	} {
		got, err := ParsePending(write(body), pool, observed, "obs.csv")
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", body, got, err, want)
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"index and id differ": {"index,id\n5,zz\n", `index 5 is item "f" but column "id" says "zz"`},
		"empty":               {"", "empty file; expected a header index or id"},
		"header":              {"item\n3\n", "expected columns index or id"},
		"twice":               {"id\nd\nd\n", "line 3, column 1 (id): item 3 (d) is listed twice"},
		"unknown id":          {"id\nzz\n", `line 2, column 1 (id): id "zz" is not in pool line`},
		"range":               {"index\n10\n", `line 2, column 1 (index): index "10": expected an integer in [0, 10)`},
		"observed":            {"id\nd\nj\n", "line 3: item 9 (j) is also labelled in obs.csv"},
	} {
		_, err := ParsePending(write(tc.body), pool, observed, "obs.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "pending.csv") {
			t.Errorf("%s: error %v, want one naming pending.csv and %q", name, err, tc.want)
		}
	}
}

// TestParseScoresBadInput: every bad scores file is an error naming the
// file, the line and the column to blame (an unknown id used to name the
// line alone).
func TestParseScoresBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 10, 3)
	pool.IDs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	write := obsFile(t)
	for name, tc := range map[string]struct{ body, want string }{
		"non-numeric":   {"id,value\na,1\nb,abc\n", `obs.csv: line 3, column 2 (value): "abc": expected a finite number`},
		"infinite":      {"id,value\na,inf\n", `obs.csv: line 2, column 2 (value): "inf": expected a finite number`},
		"unknown id":    {"value,id\n1,zz\n", `obs.csv: line 2, column 2 (id): id "zz" is not in pool`},
		"unknown index": {"index,score\n10,1\n", `obs.csv: line 2, column 1 (index): index "10": expected an integer in [0, 10)`},
		"twice":         {"id,value\na,1\na,2\n", "obs.csv: line 3, column 1 (id): item 0 (a) is listed twice"},
		"wide row":      {"id,value\na,1,2\n", "obs.csv: line 2: 3 fields, the header has 2"},
	} {
		_, err := ParseScores(write(tc.body), pool)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// A scores file's items (a failed score included) are "scored", not
// "labelled", in the message; the others pass.
func TestParsePendingScored(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 10, 3)
	pool.IDs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	p := filepath.Join(t.TempDir(), "pending.csv")
	scored := []Score{{Index: 2, Value: 1.5, Line: 2}, {Index: 9, Value: math.NaN(), Line: 3}}
	for body, want := range map[string]string{
		"id\nd\nj\n": "pending.csv: line 3: item 9 (j) is also scored in scores.csv: an item is pending until its score is known",
		"id\nc\n":    "pending.csv: line 2: item 2 (c) is also scored in scores.csv",
		"id\nd\ne\n": "",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ParsePendingScored(p, pool, scored, "scores.csv")
		switch {
		case want == "" && (err != nil || !slices.Equal(got, []int{3, 4})):
			t.Errorf("%q: %v, %v; want [3 4]", body, got, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "labelled")):
			t.Errorf("%q: error %v, want one containing %q", body, err, want)
		}
	}
}

// obsFile returns a function writing an observed file obs.csv in a
// temporary folder and returning its path.
func obsFile(t *testing.T) func(body string) string {
	dir := t.TempDir()
	return func(body string) string {
		p := filepath.Join(dir, "obs.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// testModelOf is the kNN model of pool with no label, the tests' priors.
func testModelOf(t *testing.T, pool *datasets.Pool) *Model {
	m, err := NewModel(pool.Neighbors, pool.Weights, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
