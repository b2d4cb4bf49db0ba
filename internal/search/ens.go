package search

import (
	"math"
	"slices"
	"sort"
)

// ENS is efficient nonmyopic search (Jiang et al. 2017) in the batch form
// the authors run (reference notes §2). With t queries left after this batch
// (Remaining - b) and p = Pr(y_x = 1 | D), a candidate scores
//
//	ENS(x) = p (1 + T_1(x)) + (1 - p) T_0(x),
//
// where T_y(x) is the sum of the t - 1 largest probabilities among the other
// unlabelled items after observing x with label y: the expected number of
// positives found if x is queried now and the rest of the budget is spent
// greedily in one batch. With t <= 0 (the last batch) the policy is
// one-step (top-b probabilities); with t = 1 ENS(x) = p. A batch is built
// greedily, fantasising each pick's label; t is fixed for the whole batch.
//
// Computation: only x and its reverse neighbours change when x is observed,
// so T_y(x) merges the presorted probabilities of the other items with the
// few changed ones in O(in-degree + log) time from prefix sums. Because
// prefix sums round differently from a plain sum, every candidate whose fast
// score is within a relative 1e-9 of the best is rescored exactly by summing
// the t - 1 values in descending order — the definition — and the pick is
// the argmax of those exact scores (ties to the lowest index). So the fast
// path never changes a pick.
type ENS struct {
	Fantasy Fantasy
}

func (ENS) Name() string     { return "ens" }
func (e ENS) Params() string { return "fantasy=" + e.Fantasy.String() }

// Horizon is t - 1, the number of future positives ENS looks ahead over,
// for a batch of b with remaining queries (this batch included); < 0 means
// the batch is the last one.
func Horizon(remaining, b int) int { return remaining - b - 1 }

func (e ENS) Batch(st *State, b int) ([]int, error) {
	m := st.Model
	if err := checkBatch(b, m.Len()-m.NumObserved()); err != nil {
		return nil, err
	}
	k := Horizon(st.Remaining, b)
	if k < 0 {
		return topProbabilities(m, b)
	}
	fm := m.Clone()
	picks := make([]int, 0, b)
	for len(picks) < b {
		score := e.scores(fm, k, st.Workers)
		x, err := argmaxUnobserved(score, fm)
		if err != nil {
			return nil, err
		}
		picks = append(picks, x)
		fm.Observe(x, bool(e.Fantasy))
	}
	return picks, nil
}

// Scores returns ENS(x) for every item (labelled items get -Inf) with
// lookahead k = t - 1 >= 0. Near-best candidates carry exact values; the
// others are within rounding of them.
func (e ENS) Scores(m *Model, k, workers int) []float64 {
	return e.scores(m, k, workers)
}

// ensTable is the presorted state shared by all candidates of one step.
type ensTable struct {
	m      *Model
	p      []float64 // probability of every item
	order  []int32   // unlabelled items, probability descending, index ascending
	rank   []int32   // rank[i] = position of unlabelled item i in order
	sorted []float64 // sorted[r] = p[order[r]]
	prefix []float64 // prefix[r] = Σ sorted[:r]
}

func newENSTable(m *Model) *ensTable {
	n := m.Len()
	t := &ensTable{m: m, p: m.Probabilities(nil), rank: make([]int32, n)}
	t.order = make([]int32, 0, n-m.NumObserved())
	for i := 0; i < n; i++ {
		if !m.Observed(i) {
			t.order = append(t.order, int32(i))
		}
	}
	slices.SortFunc(t.order, func(a, b int32) int {
		switch pa, pb := t.p[a], t.p[b]; {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		}
		return int(a - b)
	})
	t.sorted = make([]float64, len(t.order))
	t.prefix = make([]float64, len(t.order)+1)
	for r, i := range t.order {
		t.rank[i] = int32(r)
		t.sorted[r] = t.p[i]
		t.prefix[r+1] = t.prefix[r] + t.p[i]
	}
	return t
}

// scratch holds per-goroutine buffers.
type ensScratch struct {
	removed []int32   // ranks of x and its changed neighbours, ascending
	newVals []float64 // fantasised probabilities of the changed neighbours, descending
	newPref []float64
}

// changed collects the ranks of x and its unlabelled reverse neighbours and
// those neighbours' probabilities after observing x with label y.
func (t *ensTable) changed(x int, y bool, s *ensScratch) {
	s.removed = append(s.removed[:0], t.rank[x])
	s.newVals = s.newVals[:0]
	rev, revW := t.m.Influenced(x)
	for u, j := range rev {
		if t.m.Observed(int(j)) {
			continue
		}
		s.removed = append(s.removed, t.rank[j])
		s.newVals = append(s.newVals, t.m.FantasyProbability(int(j), revW[u], y))
	}
	slices.Sort(s.removed)
	sort.Sort(sort.Reverse(sort.Float64Slice(s.newVals)))
}

// fastTop is the sum of the k largest values of (sorted minus removed) ∪
// newVals from prefix sums: the max over j of top_{k-j}(rest) + top_j(new),
// which is exact in real arithmetic because all values are >= 0.
func (t *ensTable) fastTop(k int, s *ensScratch) float64 {
	J := min(len(s.newVals), k)
	s.newPref = append(s.newPref[:0], 0)
	for j := 0; j < J; j++ {
		s.newPref = append(s.newPref, s.newPref[j]+s.newVals[j])
	}
	n := len(t.sorted)
	idx, sub := 0, 0.0
	best := math.Inf(-1)
	for j := J; j >= 0; j-- { // m = k - j increases
		m := k - j
		c := m + idx
		for idx < len(s.removed) && int(s.removed[idx]) < c {
			sub += t.sorted[s.removed[idx]]
			idx++
			c = m + idx
		}
		c = min(c, n)
		if v := t.prefix[c] - sub + s.newPref[j]; v > best {
			best = v
		}
	}
	return best
}

// exactTop sums the k largest values of (sorted minus removed) ∪ newVals in
// descending order, the definition.
func (t *ensTable) exactTop(k int, s *ensScratch) float64 {
	sum := 0.0
	r, ri, v := 0, 0, 0
	n := len(t.sorted)
	for taken := 0; taken < k; taken++ {
		for ri < len(s.removed) && r < n && int(s.removed[ri]) == r {
			r++
			ri++
		}
		switch {
		case r < n && (v >= len(s.newVals) || t.sorted[r] >= s.newVals[v]):
			sum += t.sorted[r]
			r++
		case v < len(s.newVals):
			sum += s.newVals[v]
			v++
		default:
			return sum
		}
	}
	return sum
}

func (e ENS) candidateScore(t *ensTable, x, k int, s *ensScratch, exact bool) float64 {
	top := t.fastTop
	if exact {
		top = t.exactTop
	}
	var t1, t0 float64
	if k > 0 {
		t.changed(x, true, s)
		t1 = top(k, s)
		t.changed(x, false, s)
		t0 = top(k, s)
	}
	p := t.p[x]
	return p*(1+t1) + (1-p)*t0
}

func (e ENS) scores(m *Model, k, workers int) []float64 {
	t := newENSTable(m)
	score := make([]float64, m.Len())
	parallelFor(len(score), workers, func(lo, hi int) {
		var s ensScratch
		for x := lo; x < hi; x++ {
			if m.Observed(x) {
				score[x] = math.Inf(-1)
				continue
			}
			score[x] = e.candidateScore(t, x, k, &s, false)
		}
	})
	best := math.Inf(-1)
	for x, v := range score {
		if !m.Observed(x) && v > best {
			best = v
		}
	}
	// Rescore the contenders exactly; fast scores differ from exact ones by
	// rounding only (~1e-15 relative), far below this margin.
	const margin = 1e-9
	cut := best - margin*(1+math.Abs(best))
	var s ensScratch
	for x, v := range score {
		if !m.Observed(x) && v >= cut {
			score[x] = e.candidateScore(t, x, k, &s, true)
		}
	}
	return score
}
