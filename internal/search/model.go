package search

import (
	"fmt"
	"math"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// Model is the k-nearest-neighbour (kNN) model of active search (Garnett
// et al. 2012, as the authors' code runs it): for an item x with directed neighbour
// weights w(x, ·),
//
//	Pr(y = 1 | x, D) = (a1 + Σ_{l ∈ D, y_l = 1} w(x, l)) /
//	                   ((a0 + Σ_{l ∈ D, y_l = 0} w(x, l)) + (a1 + Σ_{l ∈ D, y_l = 1} w(x, l)))
//
// where the sums run over x's own neighbour list (the DIRECTED graph: row x of
// W) and a1 + a0 = 1 are pseudo-counts. The model keeps, for every item, the
// two sums over its observed neighbours; observing item l touches only the
// items whose neighbour lists contain l (its reverse neighbours), so an
// update costs O(in-degree of l).
//
// A Model is not safe for concurrent mutation; Clone gives an independent
// copy that shares the (read-only) graph.
type Model struct {
	Alpha0, Alpha1 float64 // pseudo-counts of the negative and positive class

	g        *graph
	pos, neg []float64 // per item: summed weight to observed positives / negatives
	observed []bool
	positive []bool // label of observed items (false when not observed)
	count    int    // number of observed items
}

// graph holds the directed kNN graph and its reverse lists, shared by clones.
type graph struct {
	nbr  [][]int32
	w    [][]float64
	rev  *vendi.KNNReverse // rev.Of(l): the items j listing l, and l's positions t in their lists (w[j][t])
	wmax []float64         // wmax[i] = largest weight in row i (0 if the row is empty)
}

// priorFromPrevalence returns the pseudo-counts (a0, a1) the authors use:
// a1 = prevalence rounded to 3 decimals (half to even, as numpy.round), a0 = 1 - a1.
// The prevalence is the pool's true fraction of positives, as in the
// authors' experiments (their batch_run.py reads it from the full label
// vector); a real campaign uses FitPrior instead (Prior).
func priorFromPrevalence(prevalence float64) (a0, a1 float64) {
	a1 = math.RoundToEven(prevalence*1000) / 1000
	return 1 - a1, a1
}

// NewModel builds the kNN model on the directed graph nbr/w (row i: the
// neighbours of item i, never i itself, with weights >= 0) with pseudo-counts
// a0, a1 >= 0, not both 0 (a1 = 0 gives probability 0 far from positives).
// The graph slices are not copied and must not be modified afterwards.
func NewModel(nbr [][]int32, w [][]float64, a0, a1 float64) (*Model, error) {
	n := len(nbr)
	if len(w) != n {
		return nil, fmt.Errorf("search: kNN graph has %d neighbour rows but %d weight rows", n, len(w))
	}
	if !(a0 >= 0 && a1 >= 0 && a0+a1 > 0) || math.IsInf(a0+a1, 0) {
		return nil, fmt.Errorf("search: kNN model pseudo-counts a0=%g, a1=%g must be finite, >= 0 and not both 0", a0, a1)
	}
	for i, row := range nbr {
		if len(w[i]) != len(row) {
			return nil, fmt.Errorf("search: kNN graph row %d has %d neighbours but %d weights", i, len(row), len(w[i]))
		}
		for t, j := range row {
			if j < 0 || int(j) >= n {
				return nil, fmt.Errorf("search: kNN graph row %d: neighbour %d out of range [0, %d)", i, j, n)
			}
			if int(j) == i {
				return nil, fmt.Errorf("search: kNN graph row %d lists itself as a neighbour", i)
			}
			if v := w[i][t]; !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("search: kNN graph row %d: weight %g of neighbour %d is not finite and >= 0", i, v, j)
			}
		}
	}
	g := &graph{nbr: nbr, w: w, rev: vendi.NewKNNReverse(nbr), wmax: make([]float64, n)}
	for i, row := range w {
		for _, v := range row {
			g.wmax[i] = max(g.wmax[i], v)
		}
	}
	return &Model{
		Alpha0: a0, Alpha1: a1, g: g,
		pos: make([]float64, n), neg: make([]float64, n),
		observed: make([]bool, n), positive: make([]bool, n),
	}, nil
}

// Len is the number of items in the pool.
func (m *Model) Len() int { return len(m.pos) }

// NumObserved is the number of observed items.
func (m *Model) NumObserved() int { return m.count }

// Observed reports whether item i has been labelled (really or in a fantasy).
func (m *Model) Observed(i int) bool { return m.observed[i] }

// Positive reports whether item i was observed with a positive label.
func (m *Model) Positive(i int) bool { return m.positive[i] }

// Observe conditions the model on item i having label positive. Observing an
// item twice is a programmer error and panics.
func (m *Model) Observe(i int, positive bool) {
	if m.observed[i] {
		panic(fmt.Sprintf("search: item %d observed twice", i))
	}
	m.observed[i] = true
	m.positive[i] = positive
	m.count++
	acc := m.neg
	if positive {
		acc = m.pos
	}
	rev, at := m.g.rev.Of(i)
	for u, j := range rev {
		acc[j] += m.g.w[j][at.At(u)]
	}
}

// Probability is Pr(y_i = 1 | D) under the kNN model.
func (m *Model) Probability(i int) float64 {
	return prob(m.Alpha0, m.Alpha1, m.pos[i], m.neg[i])
}

// prob is the model's formula; every code path (incremental updates, ENS
// fantasies, tests) goes through it so equal sums give bitwise equal values.
func prob(a0, a1, pos, neg float64) float64 {
	p1 := a1 + pos
	return p1 / ((a0 + neg) + p1)
}

// FantasyProbability is the probability of item j after additionally
// observing a neighbour of j with weight w (w(j, ·) of that neighbour) and
// label positive, without changing the model.
func (m *Model) FantasyProbability(j int, w float64, positive bool) float64 {
	if positive {
		return prob(m.Alpha0, m.Alpha1, m.pos[j]+w, m.neg[j])
	}
	return prob(m.Alpha0, m.Alpha1, m.pos[j], m.neg[j]+w)
}

// Probabilities writes Pr(y = 1 | D) of every item into dst (allocated when
// too short) and returns it. Observed items get their model value as well.
func (m *Model) Probabilities(dst []float64) []float64 {
	n := m.Len()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = prob(m.Alpha0, m.Alpha1, m.pos[i], m.neg[i])
	}
	return dst
}

// Neighbors returns item i's directed neighbour list and weights (shared;
// do not modify).
func (m *Model) Neighbors(i int) ([]int32, []float64) { return m.g.nbr[i], m.g.w[i] }

// Influenced returns the items whose neighbour lists contain i and i's
// positions in those lists (InfluenceWeight gives the weight): exactly the
// items whose probability changes when i is observed (shared; do not
// modify).
func (m *Model) Influenced(i int) (rev []int32, at vendi.Positions) { return m.g.rev.Of(i) }

// InfluenceWeight is the weight item j gives its t-th neighbour, w[j][t]
// (t from Influenced).
func (m *Model) InfluenceWeight(j, t int32) float64 { return m.g.w[j][t] }

// Unobserved returns the unlabelled items in increasing order.
func (m *Model) Unobserved() []int {
	out := make([]int, 0, m.Len()-m.count)
	for i, o := range m.observed {
		if !o {
			out = append(out, i)
		}
	}
	return out
}

// Clone returns an independent copy of the model's state sharing the graph,
// used to fantasise labels while building a batch.
func (m *Model) Clone() *Model {
	c := *m
	c.pos = append([]float64(nil), m.pos...)
	c.neg = append([]float64(nil), m.neg...)
	c.observed = append([]bool(nil), m.observed...)
	c.positive = append([]bool(nil), m.positive...)
	return &c
}
