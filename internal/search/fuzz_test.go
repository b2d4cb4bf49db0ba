package search

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParsePrior: any text is a prior or an error, never a panic; a
// parsed prior gives pseudo-counts that sum to 1 with a1 in (0, 1) and
// round-trips through String.
func FuzzParsePrior(f *testing.F) {
	for _, s := range []string{"prevalence", "estimate", "0.05", "1", "0", "-1", "NaN", "1e-320", "0x1p-3", " 0.5 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrior(s)
		if err != nil {
			return
		}
		again, err := ParsePrior(p.String())
		if err != nil || again != p {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, p, p.String(), again, err)
		}
		a0, a1, err := p.PseudoCounts(100, 3, 1, 0.25)
		if err != nil || !(a1 > 0 && a1 < 1) || math.Abs(a0+a1-1) > 1e-15 {
			t.Fatalf("%q: a0 %g, a1 %g, %v", s, a0, a1, err)
		}
	})
}

// FuzzParseObserved: any file is a list of distinct in-range observations
// or an error naming the file, never a panic.
func FuzzParseObserved(f *testing.F) {
	for _, s := range []string{"index,label\n0,1\n3,0\n", "id,label\n2,true\n", "label,index,x\n1,9,a\n", "index,label\n0,1\n0,0\n", "index\n1\n", "", "index,label\n\"1,0\n"} {
		f.Add(s)
	}
	pool := linePool(rand.New(rand.NewPCG(1, 1)), 10, 3)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "obs.csv")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		obs, err := ParseObserved(path, pool)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, o := range obs {
			if o.Index < 0 || o.Index >= pool.Len() || seen[o.Index] {
				t.Fatalf("%q: observation %+v out of range or repeated", body, o)
			}
			seen[o.Index] = true
		}
	})
}
