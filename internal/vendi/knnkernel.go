package vendi

import (
	"slices"
	"sync"
)

// KNNKernel is SymmetrizeKNN's kernel (W + Wᵀ)/2 with unit diagonal,
// computed row by row when a row is first asked for and kept: the same
// entries, bit for bit, without storing the n rows. A search reads the
// rows of the few items it picks (Greedy lists the candidates similar to
// the chosen set through their rows: the kernel is symmetric) and the
// diagonal, so a pool of a million items never builds the 40 million
// entries SymmetrizeKNN stores. Safe for concurrent use.
//
// Row i is built as SymmetrizeKNN builds it: W's run (i's list without
// self-loops and zero weights, halved, stably sorted by column) merged
// with Wᵀ's (rev[i], the items listing i in ascending order, each once per
// listing, with the weights they give i, halved) by mergeRow, which sums
// equal columns in the order SymmetrizeKNN does.
type KNNKernel struct {
	n         int
	nbr       [][]int32
	w         [][]float64
	rev       [][]int32
	revW      [][]float64
	mu        sync.Mutex
	rows      map[int]knnRow
	mergeBufs mergeBuf
}

type knnRow struct {
	cols []int32
	vals []float64
}

// NewKNNKernel returns the lazy kernel of the directed kNN graph nbr, w
// (row i: i's neighbours and their weights, finite) whose reverse lists
// are rev, revW: rev[j] lists, in ascending order, every i whose list
// contains j (once per occurrence, in list order), revW[j] the matching
// weights w(i, j). The slices are shared and must not be modified.
func NewKNNKernel(nbr [][]int32, w [][]float64, rev [][]int32, revW [][]float64) *KNNKernel {
	return &KNNKernel{n: len(nbr), nbr: nbr, w: w, rev: rev, revW: revW, rows: map[int]knnRow{}}
}

// Len is the number of items.
func (k *KNNKernel) Len() int { return k.n }

// At returns entry (i, j): 1 on the diagonal, else the symmetrised weight
// or 0.
func (k *KNNKernel) At(i, j int) float64 {
	if i == j {
		return 1
	}
	cols, vals := k.Row(i)
	return rowAt(cols, vals, j)
}

// Row returns row i's off-diagonal nonzeros, columns ascending (shared:
// do not modify).
func (k *KNNKernel) Row(i int) ([]int32, []float64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.rows[i]; ok {
		return r.cols, r.vals
	}
	type entry struct {
		c int32
		v float64
	}
	var own []entry
	for t, j := range k.nbr[i] {
		if v := k.w[i][t]; int(j) != i && v != 0 {
			own = append(own, entry{j, v / 2})
		}
	}
	slices.SortStableFunc(own, func(a, b entry) int { return int(a.c) - int(b.c) })
	cols := make([]int32, 0, len(own)+len(k.rev[i]))
	vals := make([]float64, 0, cap(cols))
	for _, e := range own {
		cols, vals = append(cols, e.c), append(vals, e.v)
	}
	for t, r := range k.rev[i] {
		if v := k.revW[i][t]; int(r) != i && v != 0 {
			cols, vals = append(cols, r), append(vals, v/2)
		}
	}
	m := k.mergeBufs.mergeRow(int32(i), cols, vals, len(own))
	r := knnRow{cols[:m:m], vals[:m:m]}
	k.rows[i] = r
	return r.cols, r.vals
}
