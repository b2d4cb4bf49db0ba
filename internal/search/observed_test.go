package search

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadObserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	pool := linePool(rng, 10, 3)
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "obs.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := func() *Model {
		m, err := NewModel(pool.Neighbors, pool.Weights, 0.9, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	// By index, columns in any order, extra columns ignored, true/false allowed.
	m := model()
	if err := ReadObserved(write("note,label,index\na,1,3\nb,false,7\nc,TRUE,0\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 3 || !m.Positive(3) || !m.Observed(7) || m.Positive(7) || !m.Positive(0) {
		t.Errorf("observed %d items; 3: %v, 7: %v/%v, 0: %v", m.NumObserved(), m.Positive(3), m.Observed(7), m.Positive(7), m.Positive(0))
	}

	// By id: the pool's identifiers.
	pool.IDs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	m = model()
	if err := ReadObserved(write("id,label\nc,1\nj,0\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 2 || !m.Positive(2) || !m.Observed(9) {
		t.Errorf("by id: observed %d items", m.NumObserved())
	}
	// A spreadsheet's byte-order mark and CRLF line ends (the BOM used to
	// make the header "\ufeffid" unrecognised).
	m = model()
	if err := ReadObserved(write("\ufeffid,label\r\nc,1\r\nj,0\r\n"), pool, m); err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 2 || !m.Positive(2) || !m.Observed(9) {
		t.Errorf("with a BOM: observed %d items", m.NumObserved())
	}

	for name, tc := range map[string]struct{ body, want string }{
		"empty":      {"", "empty file"},
		"header":     {"item,label\n3,1\n", "expected columns index,label or id,label"},
		"short row":  {"index,label\n3\n", "line 2: 1 fields, the header has 2"},
		"bad label":  {"index,label\n3,maybe\n", `line 2: label "maybe"`},
		"range":      {"index,label\n10,1\n", `line 2: index "10": expected an integer in [0, 10)`},
		"not an int": {"index,label\nx,1\n", `line 2: index "x"`},
		"twice":      {"index,label\n3,1\n3,0\n", "line 3: item 3 (3) is listed twice"},
		"unknown id": {"id,label\nzz,1\n", `line 2: id "zz" is not in pool line`},
		// Binary files say what they are, not "header [\x93NUMPY ...]".
		"npy":    {"\x93NUMPY\x01\x00v\x00{'descr': '<f8'}", "a NumPy .npy array, not CSV text"},
		"utf-16": {"\xff\xfei\x00d\x00,\x00", "binary data (a NUL byte at offset 3)"},
	} {
		err := ReadObserved(write(tc.body), pool, model())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "obs.csv") {
			t.Errorf("%s: error %v, want one naming obs.csv and %q", name, err, tc.want)
		}
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
		"index,id\n5,zz\n6,yy\n": {5, 6}, // index wins over id, as in --observed
	} {
		got, err := ParsePending(write(body), pool, observed, "obs.csv")
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", body, got, err, want)
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"empty":      {"", "empty file; expected a header index or id"},
		"header":     {"item\n3\n", "expected columns index or id"},
		"twice":      {"id\nd\nd\n", "line 3: item 3 (d) is listed twice"},
		"unknown id": {"id\nzz\n", `line 2: id "zz" is not in pool line`},
		"range":      {"index\n10\n", `line 2: index "10": expected an integer in [0, 10)`},
		"observed":   {"id\nd\nj\n", "line 3: item 9 (j) is also labelled in obs.csv"},
	} {
		_, err := ParsePending(write(tc.body), pool, observed, "obs.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "pending.csv") {
			t.Errorf("%s: error %v, want one naming pending.csv and %q", name, err, tc.want)
		}
	}
}
