package search

import (
	"fmt"
	"math"
	"strconv"
)

// ECI is expected coverage improvement (Malkomes et al. 2021), as the
// authors run it on a kNN graph (reference notes §2). The neighbourhood of an
// item x is x itself plus the neighbours j in x's own kNN list with
// similarity w(x, j) > Threshold (strictly, as the authors' code: a
// neighbour exactly at the threshold is out; about 2 % of photoswitch edges
// sit exactly at 0.75). Every item in the neighbourhood of a
// labelled item is covered. The score of an unlabelled candidate x is the
// summed probability of the uncovered, unlabelled items of its neighbourhood:
//
//	ECI(x) = Σ_{j ∈ N(x), j uncovered, unlabelled} Pr(y_j = 1 | D).
//
// A batch is built greedily: after each pick its label is fantasised
// (Fantasy) and the pick covers its neighbourhood.
//
// Deviation from the authors' code, on purpose: their reverse index is
// filled with 0 instead of -1, so a labelled neighbour is read as the
// probability of the first unlabelled item. Here a labelled neighbour
// contributes 0. Their nearest-neighbour lists start with the item itself;
// our graphs omit self, so x is added explicitly.
type ECI struct {
	Threshold float64
	Fantasy   Fantasy
}

func (ECI) Name() string { return "eci" }

func (e ECI) Params() string {
	return "threshold=" + strconv.FormatFloat(e.Threshold, 'g', -1, 64) + " fantasy=" + e.Fantasy.String()
}

// Batch picks b items greedily under fantasised labels.
func (e ECI) Batch(st *State, b int) ([]int, error) {
	if math.IsNaN(e.Threshold) {
		return nil, fmt.Errorf("search: ECI threshold is NaN")
	}
	m := st.Model
	if err := checkBatch(b, m.Len()-m.NumObserved()); err != nil {
		return nil, err
	}
	fm := m.Clone()
	covered := e.Covered(fm)
	p := fm.Probabilities(nil)
	score := make([]float64, fm.Len())
	e.scores(fm, covered, p, score, st.Workers)
	picks := make([]int, 0, b)
	var changed []int32
	for len(picks) < b {
		x, err := argmaxUnobserved(score, fm)
		if err != nil {
			return nil, err
		}
		picks = append(picks, x)
		if len(picks) == b {
			break
		}
		fm.Observe(x, bool(e.Fantasy))
		// The fantasy changes the open mass of x, of its reverse neighbours
		// (probability) and of its close neighbours (now covered). Only the
		// candidates whose neighbourhood holds one of them are rescored, by
		// the same sum as a full pass, so the scores are bitwise those of
		// a full recomputation.
		changed = append(changed[:0], int32(x))
		changed = append(changed, fm.g.rev[x]...)
		nbr, w := fm.Neighbors(x)
		for t, j := range nbr {
			if w[t] > e.Threshold {
				changed = append(changed, j)
			}
		}
		e.cover(fm, x, covered)
		for _, j := range fm.g.rev[x] {
			p[j] = fm.Probability(int(j))
		}
		for _, j := range changed {
			e.scoreOne(fm, covered, p, score, int(j))
			rev, revW := fm.Influenced(int(j))
			for u, y := range rev {
				if revW[u] > e.Threshold {
					e.scoreOne(fm, covered, p, score, int(y))
				}
			}
		}
	}
	return picks, nil
}

// Scores returns ECI(x) for every item under the current model (labelled
// items get -Inf), the first step of Batch.
func (e ECI) Scores(m *Model, workers int) []float64 {
	score := make([]float64, m.Len())
	e.scores(m, e.Covered(m), m.Probabilities(nil), score, workers)
	return score
}

// Covered marks the items in the neighbourhood of some labelled item.
func (e ECI) Covered(m *Model) []bool {
	covered := make([]bool, m.Len())
	for l := range covered {
		if m.Observed(l) {
			e.cover(m, l, covered)
		}
	}
	return covered
}

func (e ECI) cover(m *Model, l int, covered []bool) {
	covered[l] = true
	nbr, w := m.Neighbors(l)
	for t, j := range nbr {
		if w[t] > e.Threshold {
			covered[j] = true
		}
	}
}

func (e ECI) scores(m *Model, covered []bool, p, score []float64, workers int) {
	parallelFor(len(score), workers, func(lo, hi int) {
		for x := lo; x < hi; x++ {
			e.scoreOne(m, covered, p, score, x)
		}
	})
}

// scoreOne sets score[x]: -Inf if x is labelled, else the open probability
// mass of its neighbourhood, where an item contributes p unless it is
// labelled or covered.
func (e ECI) scoreOne(m *Model, covered []bool, p, score []float64, x int) {
	open := func(j int) float64 {
		if covered[j] || m.Observed(j) {
			return 0
		}
		return p[j]
	}
	if m.Observed(x) {
		score[x] = math.Inf(-1)
		return
	}
	s := open(x)
	nbr, w := m.Neighbors(x)
	for t, j := range nbr {
		if w[t] > e.Threshold {
			s += open(int(j))
		}
	}
	score[x] = s
}
