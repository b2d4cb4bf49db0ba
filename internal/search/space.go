package search

import (
	"fmt"
	"math/rand/v2"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// Space is the search space one run sees: the pool's directed kNN graph,
// labels and diversity kernel with the items relabelled by a permutation.
//
// Why relabel: every policy breaks ties towards the lowest index, which
// makes a run deterministic and testable. But ties are common — every
// unexplored item far from the labelled ones has the prior probability and
// adds the same Vendi score — and a pool file is often sorted (the BMG table
// alphabetically by formula), so "lowest index" would mean "first in the
// file" in every repeat. The authors break ties uniformly at random
// (tiebreak_max); a campaign gets the same effect reproducibly by giving
// each repeat its own random order (randomOrder), in which the lowest view
// index is a uniformly random item. Every Vendi score, probability and
// metric is invariant under relabelling; only the tie choice changes.
type Space struct {
	Prior  *Model           // the kNN model with no observations, in view indices
	Kernel *vendi.KNNKernel // (W + Wᵀ)/2 with unit diagonal, in view indices
	Labels []bool           // the hidden labels, in view indices

	toOrig   []int32 // toOrig[v] = original item at view index v
	fromOrig []int32 // fromOrig[i] = view index of original item i
}

// randomOrder is a uniformly random order of n items drawn from rng.
func randomOrder(n int, rng *rand.Rand) []int { return rng.Perm(n) }

// newSpace relabels the pool so that view index v holds original item
// order[v] (order nil: the identity) and builds the kNN model with
// pseudo-counts a0, a1 and the diversity kernel on it.
func newSpace(nbr [][]int32, w [][]float64, labels []bool, a0, a1 float64, order []int) (*Space, error) {
	s, err := newOrder(nbr, w, labels, order)
	if err != nil {
		return nil, err
	}
	vn, vw := nbr, w
	s.Labels = labels
	if order != nil {
		n := len(labels)
		vn = make([][]int32, n)
		vw = make([][]float64, n)
		s.Labels = make([]bool, n)
		edges := 0
		for _, row := range nbr {
			edges += len(row)
		}
		back := make([]int32, edges) // one allocation for every row
		for v, i := range s.toOrig {
			row := back[:len(nbr[i]):len(nbr[i])]
			back = back[len(nbr[i]):]
			for t, j := range nbr[i] {
				if j < 0 || int(j) >= n {
					return nil, fmt.Errorf("search: kNN graph row %d: neighbour %d out of range [0, %d)", i, j, n)
				}
				row[t] = s.fromOrig[j]
			}
			vn[v], vw[v] = row, w[i] // weights keep their order; shared, never modified
			s.Labels[v] = labels[i]
		}
	}
	return s.finish(vn, vw, a0, a1)
}

// newSpaceInPlace is newSpace without a relabelled copy of the graph: nbr's
// rows are rewritten into view indices in place and the row slices of nbr
// and w reordered in place (slot v receives the rows of order[v]); w's
// values are not changed. The Space is the one newSpace returns (the same
// model and kernel, bit for bit); the caller must not use nbr and w
// afterwards except through it. A pool of 10^7 items and k = 20 saves 1.3
// GB, the relabelled rows and their slice headers. nbr's rows must not
// share memory. Even on an error, nbr and w must not be used afterwards.
func newSpaceInPlace(nbr [][]int32, w [][]float64, labels []bool, a0, a1 float64, order []int) (*Space, error) {
	s, err := newOrder(nbr, w, labels, order)
	if err != nil {
		return nil, err
	}
	if order == nil {
		s.Labels = labels
		return s.finish(nbr, w, a0, a1)
	}
	n := len(labels)
	for i, row := range nbr {
		for _, j := range row {
			if j < 0 || int(j) >= n {
				return nil, fmt.Errorf("search: kNN graph row %d: neighbour %d out of range [0, %d)", i, j, n)
			}
		}
	}
	for _, row := range nbr {
		for t, j := range row {
			row[t] = s.fromOrig[j]
		}
	}
	// Slot v receives the rows of toOrig[v], along the permutation's
	// cycles (a bit per slot).
	done := make([]uint64, (n+63)/64)
	for start := range n {
		if done[start/64]&(1<<(start%64)) != 0 {
			continue
		}
		rn, rw := nbr[start], w[start]
		v := start
		for {
			done[v/64] |= 1 << (v % 64)
			i := int(s.toOrig[v])
			if i == start {
				nbr[v], w[v] = rn, rw
				break
			}
			nbr[v], w[v] = nbr[i], w[i]
			v = i
		}
	}
	s.Labels = make([]bool, n)
	for v, i := range s.toOrig {
		s.Labels[v] = labels[i]
	}
	return s.finish(nbr, w, a0, a1)
}

// newOrder checks the graph's shape and the order and returns a Space
// holding the relabelling only (toOrig, fromOrig).
func newOrder(nbr [][]int32, w [][]float64, labels []bool, order []int) (*Space, error) {
	n := len(labels)
	if len(nbr) != n || len(w) != n {
		return nil, fmt.Errorf("search: %d labels but %d neighbour rows and %d weight rows", n, len(nbr), len(w))
	}
	s := &Space{toOrig: make([]int32, n), fromOrig: make([]int32, n)}
	if order == nil {
		for i := range s.toOrig {
			s.toOrig[i], s.fromOrig[i] = int32(i), int32(i)
		}
		return s, nil
	}
	if len(order) != n {
		return nil, fmt.Errorf("search: order of %d items for a pool of %d", len(order), n)
	}
	for i := range s.fromOrig {
		s.fromOrig[i] = -1
	}
	for v, i := range order {
		if i < 0 || i >= n || s.fromOrig[i] >= 0 {
			return nil, fmt.Errorf("search: order is not a permutation of 0..%d (item %d)", n-1, i)
		}
		s.toOrig[v], s.fromOrig[i] = int32(i), int32(v)
	}
	return s, nil
}

// finish builds the kNN model and the kernel on the graph in view indices.
func (s *Space) finish(vn [][]int32, vw [][]float64, a0, a1 float64) (*Space, error) {
	var err error
	if s.Prior, err = NewModel(vn, vw, a0, a1); err != nil {
		return nil, err
	}
	// The kernel's rows are built when read, from the model's graph and
	// reverse lists: a run reads the rows of its picks only.
	g := s.Prior.g
	s.Kernel = vendi.NewKNNKernel(g.nbr, g.w, g.rev)
	return s, nil
}

// Len is the number of items.
func (s *Space) Len() int { return len(s.Labels) }

// Orig is the original index of view item v.
func (s *Space) Orig(v int) int { return int(s.toOrig[v]) }

// View is the view index of original item i.
func (s *Space) View(i int) int { return int(s.fromOrig[i]) }
