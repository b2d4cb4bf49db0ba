package vendi

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// reverseKNN is the reverse lists, built the plain way: rev[j] gets i
// once per occurrence of j in i's list, i ascending, with the weight i
// gives j.
func reverseKNN(nbr [][]int32, w [][]float64) ([][]int32, [][]float64) {
	rev, revW := make([][]int32, len(nbr)), make([][]float64, len(nbr))
	for i, row := range nbr {
		for t, j := range row {
			rev[j] = append(rev[j], int32(i))
			revW[j] = append(revW[j], w[i][t])
		}
	}
	return rev, revW
}

// reverseOf is NewKNNReverse(nbr), checked against reverseKNN: the same
// items in the same order, and positions that give the same weights.
func reverseOf(t *testing.T, nbr [][]int32, w [][]float64) *KNNReverse {
	t.Helper()
	r := NewKNNReverse(nbr)
	rev, revW := reverseKNN(nbr, w)
	longest := 0
	for _, row := range nbr {
		longest = max(longest, len(row))
	}
	if (r.wide != nil) != (longest > 256) || (r.narrow == nil) != (longest > 256) {
		t.Fatalf("rows of up to %d entries: wide positions %v", longest, r.wide != nil)
	}
	for j := range nbr {
		items, pos := r.Of(j)
		if pos.Len() != len(items) {
			t.Fatalf("reverse list of %d: %d items, %d positions", j, len(items), pos.Len())
		}
		if !slices.Equal(items, rev[j]) && len(items)+len(rev[j]) > 0 {
			t.Fatalf("reverse list of %d: %v, want %v", j, items, rev[j])
		}
		for u, i := range items {
			if at := pos.At(u); nbr[i][at] != int32(j) || math.Float64bits(w[i][at]) != math.Float64bits(revW[j][u]) {
				t.Fatalf("reverse list of %d, entry %d: position %d of row %d is not %d's weight", j, u, pos.At(u), i, j)
			}
		}
	}
	return r
}

// sameKernel fails unless every row and every entry of k equals s's bit
// for bit.
func sameKernel(t *testing.T, name string, k *KNNKernel, s *Sparse) {
	t.Helper()
	if k.Len() != s.Len() {
		t.Fatalf("%s: %d items, want %d", name, k.Len(), s.Len())
	}
	for i := 0; i < s.Len(); i++ {
		gc, gv := k.Row(i)
		wc, wv := s.Row(i)
		if !slices.Equal(gc, wc) {
			t.Fatalf("%s: row %d columns %v, want %v", name, i, gc, wc)
		}
		for e := range gv {
			if math.Float64bits(gv[e]) != math.Float64bits(wv[e]) {
				t.Fatalf("%s: row %d column %d: %v, want %v", name, i, gc[e], gv[e], wv[e])
			}
		}
	}
	for i := 0; i < min(s.Len(), 60); i++ {
		for j := 0; j < min(s.Len(), 60); j++ {
			if math.Float64bits(k.At(i, j)) != math.Float64bits(s.At(i, j)) {
				t.Fatalf("%s: At(%d, %d) = %v, want %v", name, i, j, k.At(i, j), s.At(i, j))
			}
		}
	}
}

// TestKNNKernelMatchesSymmetrizeKNN: the lazy kernel's rows equal
// SymmetrizeKNN's bit for bit on random graphs (pairs listing each other,
// self-loops and zero weights), n = 1, rows listing one neighbour several
// times (sums of three and more halves, whose order matters), and k >= n
// (every other item listed, some twice).
func TestKNNKernelMatchesSymmetrizeKNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	check := func(name string, nbr [][]int32, w [][]float64) {
		t.Helper()
		s, err := SymmetrizeKNN(len(nbr), nbr, w)
		if err != nil {
			t.Fatal(err)
		}
		sameKernel(t, name, NewKNNKernel(nbr, w, reverseOf(t, nbr, w)), s)
	}
	// {400, 300}: rows longer than 256, positions of 4 bytes.
	for _, sz := range [][2]int{{1, 0}, {2, 1}, {50, 7}, {3000, 12}, {400, 300}} {
		nbr, w := randomKNNGraph(rng, sz[0], sz[1])
		check("random", nbr, w)
	}
	check("duplicates", [][]int32{{1, 1, 2, 0}, {0, 2, 2, 2}, {1, 0}}, [][]float64{{0.5, 0.25, 0.125, 9}, {1, 0.5, 0.25, 0.125}, {2, 4}})
	// k >= n: 6 items, 8 neighbours each drawn with repeats, weights whose
	// halves do not sum exactly in every order.
	n := 6
	nbr, w := make([][]int32, n), make([][]float64, n)
	for i := range n {
		for range 8 {
			j := int32(rng.IntN(n - 1))
			if int(j) >= i {
				j++
			}
			nbr[i] = append(nbr[i], j)
			w[i] = append(w[i], rng.Float64()*math.Pow(10, float64(rng.IntN(9)-4)))
		}
	}
	check("k >= n", nbr, w)
}

// TestKNNKernelConcurrent: rows asked for from several goroutines at once
// are built once and agree.
func TestKNNKernelConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 6))
	nbr, w := randomKNNGraph(rng, 400, 9)
	k := NewKNNKernel(nbr, w, reverseOf(t, nbr, w))
	s, err := SymmetrizeKNN(len(nbr), nbr, w)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 400 {
				k.Row((i + 97*g) % 400)
			}
		}()
	}
	wg.Wait()
	sameKernel(t, "concurrent", k, s)
}

// BenchmarkKNNKernelRows: the rows of 100 picks of a 1,000,000-item, k =
// 20 graph (what a suggestion reads), against BenchmarkSymmetrizeKNN's
// whole kernel.
func BenchmarkKNNKernelRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	nbr, w := randomKNNGraph(rng, 1_000_000, 20)
	rev := NewKNNReverse(nbr)
	for b.Loop() {
		k := NewKNNKernel(nbr, w, rev)
		for i := range 100 {
			k.Row(i * 9973)
		}
	}
}
