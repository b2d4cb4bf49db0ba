package replay

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var scoreIDs = []string{"a", "b", "=c"}

func TestReadScores(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.csv")
	os.WriteFile(p, []byte("id,value\nb,-9.5\n'=c,2\na, 1e1\n"), 0o644)
	got, err := ReadScores(p, scoreIDs)
	if err != nil || !slices.Equal(got, []float64{10, -9.5, 2}) {
		t.Fatalf("%v %v", got, err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("id,value\na,1\nb,2\n=c,3\n"))
	w.Close()
	gz := filepath.Join(dir, "s.csv.gz")
	os.WriteFile(gz, z.Bytes(), 0o644)
	if got, err := ReadScores(gz, scoreIDs); err != nil || !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("gzip: %v %v", got, err)
	}
	for name, c := range map[string]struct{ body, want string }{
		"empty":   {"", "empty file"},
		"header":  {"id,score\na,1\n", "expected columns index,value or id,value"},
		"unknown": {"id,value\na,1\nzz,2\n", `line 3, column "id": "zz" is not the id`},
		"twice":   {"id,value\na,1\na,2\n", "already evaluated on line 2"},
		"failed":  {"id,value\na,nan\nb,1\n=c,2\n", `item "a" has a failed score: a replay needs every item's score (scripts/fingerprints.py --scored-only`},
		"word":    {"id,value\na,high\n", "line 2"},
		"cells":   {"id,value\na,1,2\n", "3 cells"},
		"missing": {"id,value\na,1\nb,2\n", `1 of the pool's 3 items have no score (the first: "=c"); a replay needs every item's score (scripts/fingerprints.py --scored-only`},
	} {
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadScores(p, scoreIDs)
		if err == nil || !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// FuzzReadScores: never panics; an error names the file; scores returned
// are finite, one per item, each the value of the item's row.
func FuzzReadScores(f *testing.F) {
	for _, s := range []string{"id,value\na,1\nb,2\n=c,3\n", "id,value\nb,-9.5\n'=c,2\na, 1e1\n", "id,value\na,1\n", "id,value\na,\"1\n\"\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "s.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadScores(p, scoreIDs)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(got) != len(scoreIDs) {
			t.Fatalf("%d scores", len(got))
		}
		for _, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("score %v", v)
			}
		}
	})
}
