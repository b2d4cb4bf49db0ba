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
// with Wᵀ's (rev.Of(i), the items listing i in ascending order, each once
// per listing, with the weights they give i, halved) by mergeRow, which sums
// equal columns in the order SymmetrizeKNN does.
type KNNKernel struct {
	n         int
	nbr       [][]int32
	w         [][]float64
	rev       *KNNReverse
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
// are rev (NewKNNReverse(nbr)). The slices are shared and must not be
// modified.
func NewKNNKernel(nbr [][]int32, w [][]float64, rev *KNNReverse) *KNNKernel {
	return &KNNKernel{n: len(nbr), nbr: nbr, w: w, rev: rev, rows: map[int]knnRow{}}
}

// KNNReverse is the transpose of a directed kNN graph's pattern in CSR
// form: Of(j) lists every i whose neighbour list contains j, i ascending
// (once per occurrence, in list order), and the position t of j in i's
// list, so that the weight i gives j is w[i][t]. Positions instead of a
// copy of the weights: 5 bytes an edge (a byte a position when every row
// has at most 256 entries, as kNN graphs with k <= 256 do; else 4) where
// items and float64 weights in per-item slices took 12 plus 48 bytes of
// slice headers an item (a pool of 10^7 items and k = 20: 1.08 GB instead
// of 2.9 GB).
type KNNReverse struct {
	start  []int   // Of(j) is item[start[j]:start[j+1]]
	item   []int32 // the listing items
	narrow []uint8 // j's position in the listing item's row (rows of <= 256)
	wide   []int32 // the same when a row is longer (narrow nil)
}

// Positions are an item's positions in the rows listing it, as
// KNNReverse.Of returns them: At(u) is its position in the row of the u-th
// listing item.
type Positions struct {
	narrow []uint8
	wide   []int32
}

// At is the position in the u-th listing item's row.
func (p Positions) At(u int) int32 {
	if p.wide != nil {
		return p.wide[u]
	}
	return int32(p.narrow[u])
}

// Len is the number of listing items.
func (p Positions) Len() int { return len(p.narrow) + len(p.wide) }

// NewKNNReverse builds the reverse lists of nbr (indices in [0, len(nbr)),
// which the caller has checked).
func NewKNNReverse(nbr [][]int32) *KNNReverse {
	n := len(nbr)
	r := &KNNReverse{start: make([]int, n+1)}
	longest := 0
	for _, row := range nbr {
		longest = max(longest, len(row))
		for _, j := range row {
			r.start[j+1]++
		}
	}
	for j := 0; j < n; j++ {
		r.start[j+1] += r.start[j]
	}
	r.item = make([]int32, r.start[n])
	if longest <= 1<<8 {
		r.narrow = make([]uint8, r.start[n])
	} else {
		r.wide = make([]int32, r.start[n])
	}
	fill := make([]int, n)
	copy(fill, r.start[:n])
	for i, row := range nbr {
		for t, j := range row {
			r.item[fill[j]] = int32(i)
			if r.narrow != nil {
				r.narrow[fill[j]] = uint8(t)
			} else {
				r.wide[fill[j]] = int32(t)
			}
			fill[j]++
		}
	}
	return r
}

// Of returns the items listing j and j's positions in their lists (shared:
// do not modify).
func (r *KNNReverse) Of(j int) (items []int32, pos Positions) {
	a, b := r.start[j], r.start[j+1]
	if r.wide != nil {
		return r.item[a:b:b], Positions{wide: r.wide[a:b:b]}
	}
	return r.item[a:b:b], Positions{narrow: r.narrow[a:b:b]}
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
	revI, revT := k.rev.Of(i)
	cols := make([]int32, 0, len(own)+len(revI))
	vals := make([]float64, 0, cap(cols))
	for _, e := range own {
		cols, vals = append(cols, e.c), append(vals, e.v)
	}
	for u, r := range revI {
		if v := k.w[r][revT.At(u)]; int(r) != i && v != 0 {
			cols, vals = append(cols, r), append(vals, v/2)
		}
	}
	m := k.mergeBufs.mergeRow(int32(i), cols, vals, len(own))
	r := knnRow{cols[:m:m], vals[:m:m]}
	k.rows[i] = r
	return r.cols, r.vals
}
