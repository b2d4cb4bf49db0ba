package vendi

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// symmetrizeKNNAppend is SymmetrizeKNN as it was before the two-pass
// rewrite (rows grown by append, sorted by sort.Slice): the reference the
// rewrite must reproduce bit for bit on graphs where no entry has more
// than two contributions.
func symmetrizeKNNAppend(n int, nbr [][]int32, w [][]float64) *Sparse {
	type entry struct {
		j int32
		v float64
	}
	rows := make([][]entry, n)
	for i := 0; i < n; i++ {
		for k, j := range nbr[i] {
			v := w[i][k]
			if int(j) == i || v == 0 {
				continue
			}
			rows[i] = append(rows[i], entry{j, v / 2})
			rows[j] = append(rows[j], entry{int32(i), v / 2})
		}
	}
	s := &Sparse{N: n, Ptr: make([]int, n+1)}
	for i, r := range rows {
		sort.Slice(r, func(a, b int) bool { return r[a].j < r[b].j })
		for k := 0; k < len(r); k++ {
			if k > 0 && r[k].j == r[k-1].j {
				s.Vals[len(s.Vals)-1] += r[k].v
				continue
			}
			s.Cols = append(s.Cols, r[k].j)
			s.Vals = append(s.Vals, r[k].v)
		}
		s.Ptr[i+1] = len(s.Cols)
	}
	return s
}

// randomKNNGraph is a graph of n items with k distinct neighbours each (self
// loops and zero weights sprinkled in), so many pairs list each other.
func randomKNNGraph(rng *rand.Rand, n, k int) ([][]int32, [][]float64) {
	nbr := make([][]int32, n)
	w := make([][]float64, n)
	for i := range nbr {
		seen := map[int32]bool{}
		for len(nbr[i]) < k {
			j := int32(rng.IntN(min(n, 3*k)) + max(0, min(i-k, n-3*k)))
			if seen[j] {
				continue
			}
			seen[j] = true
			v := rng.Float64()
			if rng.IntN(20) == 0 {
				v = 0
			}
			nbr[i] = append(nbr[i], j)
			w[i] = append(w[i], v)
		}
	}
	return nbr, w
}

func TestSymmetrizeKNNMatchesAppendVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for _, sz := range [][2]int{{1, 0}, {2, 1}, {50, 7}, {5000, 12}} {
		nbr, w := randomKNNGraph(rng, sz[0], sz[1])
		want := symmetrizeKNNAppend(sz[0], nbr, w)
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			got, err := SymmetrizeKNN(sz[0], nbr, w)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Ptr, want.Ptr) || !slices.Equal(got.Cols, want.Cols) {
				t.Fatalf("n=%d procs=%d: structure differs", sz[0], procs)
			}
			for i := range got.Vals {
				if math.Float64bits(got.Vals[i]) != math.Float64bits(want.Vals[i]) {
					t.Fatalf("n=%d procs=%d: value %d = %v, want %v", sz[0], procs, i, got.Vals[i], want.Vals[i])
				}
			}
		}
	}
}

// TestSymmetrizeKNNDuplicates: repeated neighbours in a row are summed,
// against the dense (W + Wᵀ)/2 built entry by entry.
func TestSymmetrizeKNNDuplicates(t *testing.T) {
	nbr := [][]int32{{1, 1, 2, 0}, {0, 2, 2, 2}, {1, 0}}
	w := [][]float64{{0.5, 0.25, 0.125, 9}, {1, 0.5, 0.25, 0.125}, {2, 4}}
	n := 3
	dense := make([]float64, n*n)
	for i := range nbr {
		for k, j := range nbr[i] {
			if int(j) != i {
				dense[i*n+int(j)] += w[i][k] / 2
				dense[int(j)*n+i] += w[i][k] / 2
			}
		}
	}
	s, err := SymmetrizeKNN(n, nbr, w)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		cols, vals := s.Row(i)
		if !slices.IsSorted(cols) {
			t.Fatalf("row %d: columns %v not ascending", i, cols)
		}
		var nz int
		for j := 0; j < n; j++ {
			if j != i && dense[i*n+j] != 0 {
				nz++
			}
		}
		if len(cols) != nz {
			t.Fatalf("row %d: %d entries, want %d", i, len(cols), nz)
		}
		for k, j := range cols {
			if int(j) == i || math.Abs(vals[k]-dense[i*n+int(j)]) > 1e-15 {
				t.Fatalf("row %d col %d: %v, want %v", i, j, vals[k], dense[i*n+int(j)])
			}
		}
	}
	for _, tc := range []struct {
		nbr  [][]int32
		w    [][]float64
		want string
	}{
		{[][]int32{{3}}, [][]float64{{1}}, "out of range"},
		{[][]int32{{0}}, [][]float64{{math.NaN()}}, "not finite"},
		{[][]int32{{0, 0}}, [][]float64{{1}}, "2 neighbours and 1 weights"},
	} {
		if _, err := SymmetrizeKNN(1, tc.nbr, tc.w); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.nbr, err, tc.want)
		}
	}
}

// BenchmarkSymmetrizeKNN: a Fashion-sized graph, 70,000 items x 200
// neighbours.
func BenchmarkSymmetrizeKNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	nbr, w := randomKNNGraph(rng, 70000, 200)
	for b.Loop() {
		if _, err := SymmetrizeKNN(len(nbr), nbr, w); err != nil {
			b.Fatal(err)
		}
	}
}
