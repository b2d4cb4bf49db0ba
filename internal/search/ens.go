package search

import (
	"fmt"
	"math"
	"slices"

	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ens is efficient nonmyopic search (Jiang et al. 2017) in the batch form
// the authors run. With t queries left after this batch
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
// few changed ones in O(in-degree log in-degree) time from prefix sums.
// Candidates are visited in decreasing order of a cheap upper bound on their
// score (see upperBound) and the scan stops once the bound falls below the
// best score found, so most of a large pool is never scored; candidates
// whose bound is below the best fast score of the 32 largest bounds are
// dropped before the scan's sort, as the scan would never reach them. The
// presorted table is built once per batch and updated after each fantasy by
// merging x's reverse neighbours back in at their new probabilities. The bound's
// loop over reverse neighbours runs only for the candidates gainers marks
// (the others' bound is bitwise p + topMinus), and a fast score merges only
// the ranks and fantasised values that can reach the top k (changedTop).
// Because prefix
// sums round differently from a plain sum, every candidate whose fast score
// is within a relative 1e-9 of the best is rescored exactly by summing the
// t - 1 values in descending order — the definition — and the pick is the
// argmax of those exact scores (ties to the lowest index). So neither the
// bound nor the prefix sums ever change a pick.
type ens struct {
	Fantasy Fantasy
}

func (ens) Name() string     { return "ens" }
func (e ens) Params() string { return "fantasy=" + e.Fantasy.String() }

// horizon is t - 1, the number of future positives ENS looks ahead over,
// for a batch of b with remaining queries (this batch included); < 0 means
// the batch is the last one.
func horizon(remaining, b int) int { return remaining - b - 1 }

func (e ens) Batch(st *State, b int) ([]int, error) {
	if err := st.checkBatch(b); err != nil {
		return nil, err
	}
	k := horizon(st.Remaining, b)
	if k < 0 {
		return topProbabilities(st, b)
	}
	k = clampHorizon(k, st.Model.Len())
	fm := st.fantasyModel(e.Fantasy)
	t := newENSTable(fm)
	picks := make([]int, 0, b)
	for len(picks) < b {
		x := e.argmax(t, k, st.Workers)
		picks = append(picks, x)
		if len(picks) < b {
			fm.Observe(x, bool(e.Fantasy))
			t.observe(x)
		}
	}
	return picks, nil
}

// Scores returns ENS(x) for every item (labelled items get -Inf) with
// lookahead k = t - 1 >= 0. Near-best candidates carry exact values; the
// others are within rounding of them.
func (e ens) Scores(m *Model, k, workers int) []float64 {
	return e.scores(m, clampHorizon(k, m.Len()), workers)
}

// clampHorizon is the lookahead k capped at the n items of the pool: a
// top-k sum over at most n values is the sum of them all for every k >= n,
// so the scores are the same, and k + in-degree (changedTop) cannot
// overflow (`--remaining 9223372036854775807` panicked).
func clampHorizon(k, n int) int { return min(k, n) }

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
	slices.SortFunc(t.order, t.byProbability)
	t.sorted = make([]float64, 0, len(t.order))
	t.prefix = make([]float64, 0, len(t.order)+1)
	t.index()
	return t
}

// observe updates the table after t.m observed x: x leaves the order and
// its unlabelled reverse neighbours, whose probabilities changed, are merged
// back at their new places. The order is total (probability descending,
// index ascending), so the table is bitwise the one newENSTable builds on
// the updated model.
func (t *ensTable) observe(x int) {
	m := t.m
	rev, _ := m.Influenced(x)
	moved := make([]int32, 0, len(rev))
	out := make([]bool, m.Len()) // x and the moved items, to drop from the order
	out[x] = true
	for _, j := range rev {
		t.p[j] = m.Probability(int(j))
		if !m.Observed(int(j)) && !out[j] {
			out[j] = true
			moved = append(moved, j)
		}
	}
	slices.SortFunc(moved, t.byProbability)
	order := make([]int32, 0, len(t.order)-1)
	v := 0
	for _, i := range t.order {
		if out[i] {
			continue
		}
		for v < len(moved) && t.byProbability(moved[v], i) < 0 {
			order = append(order, moved[v])
			v++
		}
		order = append(order, i)
	}
	t.order = append(order, moved[v:]...)
	t.index()
}

// byProbability orders items by probability descending, index ascending.
func (t *ensTable) byProbability(a, b int32) int {
	switch pa, pb := t.p[a], t.p[b]; {
	case pa > pb:
		return -1
	case pa < pb:
		return 1
	}
	return int(a - b)
}

// index fills rank, sorted and prefix from order.
func (t *ensTable) index() {
	t.sorted = t.sorted[:0]
	t.prefix = append(t.prefix[:0], 0)
	for r, i := range t.order {
		t.rank[i] = int32(r)
		t.sorted = append(t.sorted, t.p[i])
		t.prefix = append(t.prefix, t.prefix[r]+t.p[i])
	}
}

// scratch holds per-goroutine buffers.
type ensScratch struct {
	removed []int32      // ranks of x and its changed neighbours, ascending
	newVals [2][]float64 // fantasised probabilities of the changed neighbours under y = 0, 1, descending
	newPref []float64
}

// changed collects the ranks of x and its unlabelled reverse neighbours and
// those neighbours' probabilities after observing x with either label.
func (t *ensTable) changed(x int, s *ensScratch) {
	s.removed = append(s.removed[:0], t.rank[x])
	s.newVals[0], s.newVals[1] = s.newVals[0][:0], s.newVals[1][:0]
	rev, at := t.m.Influenced(x)
	for u, j := range rev {
		if t.m.Observed(int(j)) {
			continue
		}
		w := t.m.InfluenceWeight(j, at.At(u))
		s.removed = append(s.removed, t.rank[j])
		s.newVals[0] = append(s.newVals[0], t.m.FantasyProbability(int(j), w, false))
		s.newVals[1] = append(s.newVals[1], t.m.FantasyProbability(int(j), w, true))
	}
	slices.Sort(s.removed)
	for _, v := range s.newVals {
		slices.Sort(v)
		slices.Reverse(v)
	}
}

// changedTop is changed restricted to what can reach a top-k sum, for the
// fast scores. Let R be the removed ranks (x and its unlabelled reverse
// neighbours, |R| <= 1 + in-degree) and lim = k + in-degree. fastTop
// consumes a removed rank only while it is below k + (ranks consumed before
// it) <= k + |R| - 1 <= lim, so ranks >= lim never matter. The k-th largest
// remaining value sits at a rank <= k - 1 + |R| <= lim, so it is >= sorted[lim],
// and a new value <= sorted[lim] cannot raise the sum of the k largest. So
// keeping the ranks below lim and the new values above sorted[lim] gives the
// same top-k sums in real arithmetic, from far fewer values to sort (the
// fast score stays within rounding of the exact one; contenders are
// rescored from changed).
func (t *ensTable) changedTop(x, k int, s *ensScratch) {
	rev, at := t.m.Influenced(x)
	lim := k + len(rev)
	thr := math.Inf(-1)
	if lim < len(t.sorted) {
		thr = t.sorted[lim]
	}
	s.removed = s.removed[:0]
	if int(t.rank[x]) < lim {
		s.removed = append(s.removed, t.rank[x])
	}
	s.newVals[0], s.newVals[1] = s.newVals[0][:0], s.newVals[1][:0]
	for u, j := range rev {
		if t.m.Observed(int(j)) {
			continue
		}
		if int(t.rank[j]) < lim {
			s.removed = append(s.removed, t.rank[j])
		}
		w := t.m.InfluenceWeight(j, at.At(u))
		if v := t.m.FantasyProbability(int(j), w, false); v > thr {
			s.newVals[0] = append(s.newVals[0], v)
		}
		if v := t.m.FantasyProbability(int(j), w, true); v > thr {
			s.newVals[1] = append(s.newVals[1], v)
		}
	}
	slices.Sort(s.removed)
	for _, v := range s.newVals {
		slices.Sort(v)
		slices.Reverse(v)
	}
}

// upperBound bounds ENS(x) from above without sorting. Let s_k be the
// (k+1)-th largest probability (0 if there are at most k) and top the sum of
// the k largest. Removing x leaves top_k = top - (p_x - s_k) if x is among
// the k largest, else top (call it topMinus). With y = 0, x's reverse
// neighbours only lose probability, so T_0(x) <= topMinus. With y = 1 they
// rise from p_j to p'_j, and raising values of a vector v raises its top-k
// sum by at most Σ_j max(0, p'_j - max(p_j, t)), t its k-th largest value
// (each raised value either was in the top k and adds its rise, or enters it
// above t); here t >= s_k, so T_1(x) <= topMinus + G with
// G = Σ_j max(0, p'_j - max(p_j, s_k)). Hence ENS(x) <= p + topMinus + p G.
func (t *ensTable) upperBound(x, k int, top, sk float64) float64 {
	gain := 0.0
	rev, at := t.m.Influenced(x)
	for u, j := range rev {
		if !t.m.Observed(int(j)) {
			gain += max(0, t.m.FantasyProbability(int(j), t.m.InfluenceWeight(j, at.At(u)), true)-max(t.p[j], sk))
		}
	}
	return t.bound(x, k, top, sk, gain)
}

// bound is p + topMinus + p gain (upperBound).
func (t *ensTable) bound(x, k int, top, sk, gain float64) float64 {
	p := t.p[x]
	topMinus := top
	if int(t.rank[x]) < k {
		topMinus = top - (p - sk)
	}
	return p + topMinus + p*gain
}

// gainers marks the candidates whose upperBound may have a nonzero gain
// term: those listed by an unlabelled item j (x in j's neighbour list, so j
// among x's reverse neighbours) whose positive fantasy with the largest
// weight of its row comes within 1e-12 of max(p_j, s_k). For any other j
// and any weight w of its row, the computed p'_j(w) exceeds the computed
// p'_j(w_max) by a few ulps at most (the formula is increasing in w), so
// p'_j(w) - max(p_j, s_k) < 0 and j adds exactly 0 to the gain: an
// unmarked candidate's bound is bitwise p + topMinus, as upperBound gives.
func (t *ensTable) gainers(sk float64) []bool {
	m := t.m
	mark := make([]bool, m.Len())
	for j := range mark {
		if m.Observed(j) {
			continue
		}
		if m.FantasyProbability(j, m.g.wmax[j], true)+1e-12 > max(t.p[j], sk) {
			for _, x := range m.g.nbr[j] {
				mark[x] = true
			}
		}
	}
	return mark
}

// fastTop is the sum of the k largest values of (sorted minus removed) ∪
// newVals from prefix sums: the max over j of top_{k-j}(rest) + top_j(new),
// which is exact in real arithmetic because all values are >= 0.
func (t *ensTable) fastTop(k int, newVals []float64, s *ensScratch) float64 {
	J := min(len(newVals), k)
	s.newPref = append(s.newPref[:0], 0)
	for j := 0; j < J; j++ {
		s.newPref = append(s.newPref, s.newPref[j]+newVals[j])
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
func (t *ensTable) exactTop(k int, newVals []float64, s *ensScratch) float64 {
	sum := 0.0
	r, ri, v := 0, 0, 0
	n := len(t.sorted)
	for taken := 0; taken < k; taken++ {
		for ri < len(s.removed) && r < n && int(s.removed[ri]) == r {
			r++
			ri++
		}
		switch {
		case r < n && (v >= len(newVals) || t.sorted[r] >= newVals[v]):
			sum += t.sorted[r]
			r++
		case v < len(newVals):
			sum += newVals[v]
			v++
		default:
			return sum
		}
	}
	return sum
}

func (e ens) candidateScore(t *ensTable, x, k int, s *ensScratch, exact bool) float64 {
	top := t.fastTop
	if exact {
		top = t.exactTop
	}
	var t1, t0 float64
	if k > 0 {
		if exact {
			t.changed(x, s)
		} else {
			t.changedTop(x, k, s)
		}
		t1 = top(k, s.newVals[1], s)
		t0 = top(k, s.newVals[0], s)
	}
	p := t.p[x]
	return p*(1+t1) + (1-p)*t0
}

func (e ens) scores(m *Model, k, workers int) []float64 {
	t := newENSTable(m)
	score := make([]float64, m.Len())
	parallel.Split(len(score), workers, minChunk, func(lo, hi int) {
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
	cut := best - ensMargin*(1+math.Abs(best))
	var s ensScratch
	for x, v := range score {
		if !m.Observed(x) && v >= cut {
			score[x] = e.candidateScore(t, x, k, &s, true)
		}
	}
	return score
}

// ensMargin is the relative distance to the best fast score within which
// candidates are rescored exactly; rounding differences are ~1e-15.
const ensMargin = 1e-9

// argmax returns the pick of one ENS step: the unobserved item of largest
// exact score, lowest index on ties, scoring candidates in decreasing order
// of their upper bound until no unscored one can come within ensMargin.
func (e ens) argmax(t *ensTable, k, workers int) int {
	m := t.m
	top := t.prefix[min(k, len(t.sorted))]
	sk := 0.0
	if k < len(t.sorted) {
		sk = t.sorted[k]
	}
	n := m.Len()
	ub := make([]float64, n)
	gainer := t.gainers(sk)
	parallel.Split(n, workers, minChunk, func(lo, hi int) {
		for x := lo; x < hi; x++ {
			switch {
			case m.Observed(x):
			case gainer[x]:
				ub[x] = t.upperBound(x, k, top, sk)
			default:
				ub[x] = t.bound(x, k, top, sk, 0)
			}
		}
	})
	// A lower bound on the best fast score, from the candidates of largest
	// bound, leaves out of the scan (and its sort) every candidate whose
	// bound is below it by two margins: such a candidate is never scored by
	// a scan in bound order either, since that scan's best only grows.
	lower := math.Inf(-1)
	var s ensScratch
	for _, x := range topBounds(t.order, ub, 32) {
		lower = math.Max(lower, e.candidateScore(t, int(x), k, &s, false))
	}
	floor := lower - 2*ensMargin*(1+math.Abs(lower))
	order := make([]int32, 0, 1024)
	for _, x := range t.order {
		if ub[x] >= floor {
			order = append(order, x)
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		switch {
		case ub[a] > ub[b]:
			return -1
		case ub[a] < ub[b]:
			return 1
		}
		return int(a - b)
	})
	fast := make([]float64, len(order))
	best := math.Inf(-1)
	scored := 0
	const chunk = 4096 // candidates scored between checks of the bound
	for scored < len(order) {
		// The bound and the fast score are both within rounding of their
		// exact values; two margins keep every possible contender.
		if ub[order[scored]] < best-2*ensMargin*(1+math.Abs(best)) {
			break
		}
		lo, hi := scored, min(scored+chunk, len(order))
		parallel.Split(hi-lo, workers, minChunk, func(a, b int) {
			var s ensScratch
			for i := lo + a; i < lo+b; i++ {
				fast[i] = e.candidateScore(t, int(order[i]), k, &s, false)
			}
		})
		for i := lo; i < hi; i++ {
			best = math.Max(best, fast[i])
		}
		scored = hi
	}
	cut := best - ensMargin*(1+math.Abs(best))
	arg, argScore := -1, math.Inf(-1)
	for i := 0; i < scored; i++ {
		if fast[i] < cut {
			continue
		}
		x := int(order[i])
		v := e.candidateScore(t, x, k, &s, true)
		if v > argScore || (v == argScore && x < arg) {
			arg, argScore = x, v
		}
	}
	return arg
}

// topBounds returns up to m of the candidates of largest ub (any of them on
// ties), in no particular order.
func topBounds(cand []int32, ub []float64, m int) []int32 {
	top := make([]int32, 0, m)
	low := 0 // position in top of its smallest bound, once top is full
	for _, x := range cand {
		switch {
		case len(top) < m:
			top = append(top, x)
		case ub[x] > ub[top[low]]:
			top[low] = x
		default:
			continue
		}
		if len(top) == m {
			low = 0
			for i, y := range top {
				if ub[y] < ub[top[low]] {
					low = i
				}
			}
		}
	}
	return top
}

// ensMethod is ENS in a campaign: one run, with ens.fantasy.
var ensMethod = Method{
	Name: "ens",
	New:  func(s PolicySettings, _ vendi.Kernel) Policy { return ens{Fantasy: s.Fantasy} },
	Settings: func(p Protocol) ([]Setting, error) {
		fan, err := ParseFantasy(p.ENS.Fantasy)
		if err != nil {
			return nil, fmt.Errorf("ens.fantasy: %w", err)
		}
		return []Setting{{Labels: []string{fan.String()}, Settings: PolicySettings{Fantasy: fan}}}, nil
	},
}
