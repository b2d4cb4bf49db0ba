package discrete

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var evalIDs = []string{"a", "b", "c", "d"}

func TestParseEvaluations(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []Evaluation
	}{
		{"by index, any order", "index,value\n2,1.5\n0,-3\n", []Evaluation{{Index: 2, Value: 1.5}, {Index: 0, Value: -3}}},
		{"by id, extra columns", "\ufeffnote,ID,Value\nx,d,7\ny,a,1e-3\n", []Evaluation{{Index: 3, Value: 7}, {Index: 0, Value: 1e-3}}},
		{"both, consistent", "rank,index,id,value\n1,1,b,2\n", []Evaluation{{Index: 1, Value: 2}}},
		{"header only", "index,value\n", nil},
		{"blank lines and spaces", "index , value\n\n 3 , 4 \n\n", []Evaluation{{Index: 3, Value: 4}}},
	} {
		got, err := parseEvaluations(strings.NewReader(c.in), "e.csv", evalIDs)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseEvaluationsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "e.csv: empty file; expected a header index,value or id,value"},
		{"index,score\n1,2\n", `e.csv: line 1: header "index,score": expected columns index,value or id,value`},
		{"value\n1\n", "expected columns index,value or id,value"},
		{"index,value,value\n1,2,3\n", `line 1: column "value" appears twice`},
		{"index,value\n1,2\n4,1\n", `e.csv: line 3, column "index": "4" is not an item index in [0, 4)`},
		{"index,value\n-1,2\n", `line 2, column "index": "-1"`},
		{"index,value\n1.0,2\n", `line 2, column "index": "1.0"`},
		{"id,value\nb,2\nz,1\n", `e.csv: line 3, column "id": "z" is not the id of a candidate`},
		{"index,id,value\n1,c,2\n", `e.csv: line 2: index 1 is item "b" but column "id" says "c"`},
		{"index,value\n1,inf\n", `line 2, column "value": "inf"`},
		{"index,value\n1,abc\n", `line 2, column "value": "abc"`},
		{"index,value\n1,2\n\n2,3\n1,4\n", `e.csv: line 5: item 1 (id "b") was already evaluated on line 2`},
		{"index,value\n1,failed\n1,2\n1,nan\n", `e.csv: line 4: item 1 (id "b") was already evaluated on line 3`},
		{"index,value\n1,-inf\n", `line 2, column "value": "-inf"`},
		{"index,value\n1,2,3\n", "e.csv: line 2: 3 cells, expected 2 like the header"},
		{"index,value\n\"1,2\n", "e.csv: "},
	} {
		_, err := parseEvaluations(strings.NewReader(c.in), "e.csv", evalIDs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

// FuzzParseEvaluations: any input either fails with an error naming the
// file, or gives valid evaluations (known items, none listed after its
// successful row, a finite value exactly for the rows not failed),
// no more than the file has lines.
func FuzzParseEvaluations(f *testing.F) {
	for _, s := range []string{"index,value\n2,1.5\n0,-3\n", "id,value\nd,7\n", "rank,index,id,value\n1,1,b,2\n", "index,value\n1,1\n1,2\n", "", "\"", "index,value\n1e400,1\n", "index,value,status\n1,2,FAIL\n1,,\n1,nan,ok\n1,3,ok\n", "id,value\nb,failed\nb,1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseEvaluations(strings.NewReader(in), "f.csv", evalIDs)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(got) > strings.Count(in, "\n")+strings.Count(in, "\r")+1 {
			t.Fatalf("%d evaluations from %d lines", len(got), strings.Count(in, "\n")+1)
		}
		seen := map[int]bool{}
		for _, e := range got {
			if e.Index < 0 || e.Index >= len(evalIDs) || seen[e.Index] || math.IsNaN(e.Value) != e.Failed || math.IsInf(e.Value, 0) {
				t.Fatalf("invalid evaluations %v", got)
			}
			seen[e.Index] = !e.Failed
		}
	})
}

// TestReadIDs: indices without a file; a file must name every kernel row
// once, in order.
func TestReadIDs(t *testing.T) {
	if ids, err := ReadIDs("", 3, "K.npy"); err != nil || !slices.Equal(ids, []string{"0", "1", "2"}) {
		t.Errorf("no file: %v %v", ids, err)
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if ids, err := ReadIDs(write("ok.csv", "id\na\nb\n"), 2, "K.npy"); err != nil || !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("ok.csv: %v %v", ids, err)
	}
	for name, c := range map[string]struct{ content, want string }{
		"short.csv": {"a\n", "1 ids but the kernel K.npy is 2 x 2"},
		"dup.csv":   {"a\na\n", `id "a" is given for rows 1 and 2`},
	} {
		if _, err := ReadIDs(write(name, c.content), 2, "K.npy"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestSolutions: on a kernel where every pair is dissimilar the band rule
// keeps the m best successes (by sign x value), never a failed one, and
// their VS_1 is m.
func TestSolutions(t *testing.T) {
	K := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		K.SetSym(i, i, 1)
	}
	all := []Evaluation{{Index: 0, Value: 5}, {Index: 1, Value: 1}, {Index: 2, Value: 3}, {Index: 3, Value: math.NaN(), Failed: true}, {Index: 4, Value: 2}}
	for _, c := range []struct {
		sign float64
		want []int
	}{{1, []int{0, 2}}, {-1, []int{1, 4}}} {
		chosen, vs, failed, err := Solutions(K, all, 2, 1, c.sign)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, e := range chosen {
			got = append(got, e.Index)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || math.Abs(vs-2) > 1e-12 || failed != 1 {
			t.Errorf("sign %v: chosen %v (want %v), vs %v (want 2), failed %d (want 1)", c.sign, got, c.want, vs, failed)
		}
	}
}
