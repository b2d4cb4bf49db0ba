package surrogate

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// bruteWeightedVS2 is VS_2 of hits (weight 1) ∪ the members in set
// (member m at weight w[m], the last one at weight last when last >= 0)
// from the eigenvalues of diag(√w) K diag(√w) (testutil.BruteVS normalises
// them), 0 when every weight is 0.
func bruteWeightedVS2(kern featureKernel, members []int, w []float64, set, hits []int, last float64) float64 {
	items := append([]int(nil), hits...)
	wt := make([]float64, len(hits))
	for i := range wt {
		wt[i] = 1
	}
	for _, m := range set {
		items = append(items, members[m])
		wt = append(wt, w[m])
	}
	if last >= 0 {
		wt[len(wt)-1] = last
	}
	var sum float64
	for _, v := range wt {
		sum += v
	}
	if sum == 0 {
		return 0
	}
	g := gram(kern, items, 1)
	n := len(items)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, math.Sqrt(wt[i]*wt[j])*g[i*n+j])
		}
	}
	return testutil.BruteVS(K, 2)
}

// bruteStep is the value of adding member c to set, computed directly:
// HistoryExpected's mean quality of set ∪ {c} times VS_2^w of hits ∪ set ∪
// {c}; HistoryGain's quality of c times the gain in VS_2^w when c joins
// at weight 1.
func bruteStep(hist string, kern featureKernel, members []int, quality, w []float64, set []int, c int, hits []int) float64 {
	with := append(slices.Clone(set), c)
	if hist == HistoryGain {
		return quality[c] * (bruteWeightedVS2(kern, members, w, with, hits, 1) - bruteWeightedVS2(kern, members, w, set, hits, -1))
	}
	var q float64
	for _, m := range with {
		q += quality[m]
	}
	return q / float64(len(with)) * bruteWeightedVS2(kern, members, w, with, hits, -1)
}

// Suggest under HistoryExpected and HistoryGain against the objective
// composed by hand: the GP's hit probabilities as weights and (HitPower)
// quality factors, the scored hits at weight 1, and at each step the
// candidate of largest bruteStep (the first of ties). Weighting the picks by 1 instead of
// p, leaving the hits out, or dropping the p^a factor changes the picks.
func TestExpectedHitsMatchesBrute(t *testing.T) {
	for _, c := range []struct {
		hist, acq string
		hp        float64
	}{{HistoryExpected, acqUCB, 0}, {HistoryExpected, acqUCB, 1}, {HistoryExpected, acqPHit, 0}, {HistoryExpected, acqUCB, 0.5}, {HistoryGain, acqUCB, 1}, {HistoryGain, acqPHit, 0}} {
		pool, obs, y, _ := scoredPool(11, 40, 14)
		free := slices.DeleteFunc(seq(40), func(i int) bool { return slices.Contains(obs, i) })
		pending := free[:2]
		free = free[2:]
		const b = 5
		hp := c.hp
		if hp == 0 {
			hp = NoHitPower
		}
		req := Request{Observed: obs, Values: y, Pending: pending, Batch: b, Acquisition: c.acq, History: c.hist, HitPower: hp, HitTopFraction: 0.3, Candidates: len(free), Seed: 3, Workers: 2}
		res, err := Suggest(context.Background(), pool, req)
		if err != nil {
			t.Fatal(err)
		}
		kern, m := suggestModel(t, pool, obs, y)
		tau := hitThreshold(y, Request{HitTopFraction: 0.3})
		var hits []int
		for k, v := range y {
			if v >= tau {
				hits = append(hits, obs[k])
			}
		}
		if len(hits) < 3 {
			t.Fatalf("%d scored hits: the test needs several", len(hits))
		}
		a := acquirer{kind: c.acq, sqrtBeta: 1, tau: (tau - m.YMean) / m.YScale, sdMax: math.Sqrt(m.Hyper.SignalVar)}
		members := append(append([]int(nil), pending...), free...)
		acq, w := bruteAcquisition(m, a, members)
		quality := a.quality(acq)
		pmax := slices.Max(w)
		for i := range quality {
			quality[i] *= math.Pow(w[i]/pmax, c.hp)
		}
		set := []int{0, 1}
		var want []int
		var wantV []float64
		for step := 0; step < b; step++ {
			best, bestV := -1, math.Inf(-1)
			for cm := 2; cm < len(members); cm++ {
				if slices.Contains(set, cm) {
					continue
				}
				v := bruteStep(c.hist, kern, members, quality, w, set, cm, hits)
				if best < 0 || v > bestV+vendi.TieTol*math.Abs(bestV) {
					best, bestV = cm, v
				}
			}
			set = append(set, best)
			want = append(want, members[best])
			// the value reported is J (HistoryExpected's), under gain too
			wantV = append(wantV, bruteStep(HistoryExpected, kern, members, quality, w, set[:len(set)-1], best, hits))
		}
		if !slices.Equal(res.Picks, want) {
			t.Errorf("%s %s hp=%v: picks %v, brute force %v", c.hist, c.acq, c.hp, res.Picks, want)
			continue
		}
		for k := range want {
			if !(math.Abs(res.Values[k]-wantV[k]) <= 1e-9*wantV[k]) {
				t.Errorf("%s %s hp=%v: value %d = %v, brute force %v", c.hist, c.acq, c.hp, k, res.Values[k], wantV[k])
			}
		}
	}
}

// seq is 0, 1, ..., n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// greedyHitsQ2 with zero weights: an item of weight 0 leaves VS_2^w as it
// is, and a set whose weights are all 0 scores 0 (no NaN), so the first
// pick of an empty start with all weights 0 is the first candidate.
func TestGreedyHitsZeroWeights(t *testing.T) {
	pool, _, _, _ := scoredPool(2, 10, 1)
	kern := newTanimotoKernel(pool.Bits)
	members := []int{0, 1, 2, 3}
	quality := []float64{1, 0.5, 0.9, 0.2}
	picks, values := greedyHitsQ2(kern, members, quality, make([]float64, 4), 0, 2, nil, false)
	if picks[0] != 0 || values[0] != 0 || math.IsNaN(values[1]) {
		t.Errorf("all weights 0: picks %v values %v, want member 0 first and values 0", picks, values)
	}
	// one hit at weight 1: VS stays 1 with zero-weight members, the mean
	// quality decides
	picks, values = greedyHitsQ2(kern, members, quality, make([]float64, 4), 0, 2, []int{5}, false)
	if !slices.Equal(picks, []int{0, 2}) || values[0] != 1 || math.Abs(values[1]-0.95) > 1e-15 {
		t.Errorf("one hit, zero weights: picks %v values %v, want [0 2] [1 0.95]", picks, values)
	}
}

// The zero Request's History and HitPower are DefaultHistory and
// DefaultHitPower under MethodQVS with q = 2 on the dense kernel (the same
// picks as asking for them), none off it (q = 1: the same picks as
// History none), and NoHitPower is the hit power 0 (the acquisition's
// quality alone: the picks' qualities differ).
func TestHistoryDefaults(t *testing.T) {
	pool, obs, y, _ := scoredPool(11, 40, 14)
	run := func(r Request) *Result {
		r.Observed, r.Values, r.Batch, r.HitTopFraction, r.Seed, r.Workers = obs, y, 5, 0.3, 3, 2
		res, err := Suggest(context.Background(), pool, r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	suggest := func(r Request) []int { return run(r).Picks }
	def := suggest(Request{})
	if want := suggest(Request{History: DefaultHistory, HitPower: DefaultHitPower}); !slices.Equal(def, want) {
		t.Errorf("default picks %v, History %s HitPower %v %v", def, DefaultHistory, DefaultHitPower, want)
	}
	if none := suggest(Request{History: historyNone}); slices.Equal(def, none) {
		t.Errorf("the default's picks are History none's (%v): the test cannot tell them apart", def)
	}
	if a, b := run(Request{}).Quality, run(Request{HitPower: NoHitPower}).Quality; slices.Equal(a, b) {
		t.Errorf("NoHitPower: the default's qualities %v", a)
	}
	if q1, none1 := suggest(Request{Q: 1}), suggest(Request{Q: 1, History: historyNone}); !slices.Equal(q1, none1) {
		t.Errorf("q = 1: default picks %v, History none %v", q1, none1)
	}
	if _, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 5, Q: 1, History: HistoryExpected}); err == nil {
		t.Error("History expected with q = 1: no error")
	}
}

// A hit threshold beyond every score makes every hit probability tiny
// (here below 1e-80, whose 4th power is 0 in float64): the batch is still
// the greedy of J with the qualities times (p/p_max)^4 (brute force), not
// the members in order, which is what qualities that all underflow to 0
// would give.
func TestExpectedHitsFarThreshold(t *testing.T) {
	pool, obs, y, _ := scoredPool(11, 40, 14)
	free := slices.DeleteFunc(seq(40), func(i int) bool { return slices.Contains(obs, i) })
	const b = 5
	thr := slices.Max(y) + 80
	res, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: b, HitThreshold: thr, HasHitThreshold: true, Candidates: len(free), Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	kern, m := suggestModel(t, pool, obs, y)
	a := acquirer{kind: acqUCB, sqrtBeta: 1, tau: (thr - m.YMean) / m.YScale, sdMax: math.Sqrt(m.Hyper.SignalVar)}
	acq, w := bruteAcquisition(m, a, free)
	pmax := slices.Max(w)
	if !(pmax > 0 && math.Pow(pmax, DefaultHitPower) == 0) {
		t.Fatalf("largest hit probability %v: the test needs p > 0 with p^%v = 0", pmax, DefaultHitPower)
	}
	quality := a.quality(acq)
	for i := range quality {
		quality[i] *= math.Pow(w[i]/pmax, DefaultHitPower)
	}
	// the members in the order Suggest ranks them (decreasing ucb)
	order := seq(len(free))
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(acq[j], acq[i]) })
	members := make([]int, len(free))
	q, ww := make([]float64, len(free)), make([]float64, len(free))
	for k, i := range order {
		members[k], q[k], ww[k] = free[i], quality[i], w[i]
	}
	var set, want []int
	for step := 0; step < b; step++ {
		best, bestV := -1, math.Inf(-1)
		for c := range members {
			if slices.Contains(set, c) {
				continue
			}
			if v := bruteStep(HistoryExpected, kern, members, q, ww, set, c, nil); best < 0 || v > bestV+vendi.TieTol*math.Abs(bestV) {
				best, bestV = c, v
			}
		}
		set = append(set, best)
		want = append(want, members[best])
	}
	if !slices.Equal(res.Picks, want) {
		t.Errorf("picks %v, brute force %v", res.Picks, want)
	}
	if slices.Equal(res.Picks, members[:b]) {
		t.Errorf("picks %v are the members in ucb order: no diversity", res.Picks)
	}
	for k, v := range res.Quality {
		if !(v > 0) {
			t.Errorf("pick %d: quality %v", k, v)
		}
	}
}

// bruteAcquisition is a's acquisition of items under m's posterior, and
// their hit probabilities Pr(f >= a.tau) from the normal CDF.
func bruteAcquisition(m *Model, a acquirer, items []int) (acq, w []float64) {
	mu, sd := make([]float64, len(items)), make([]float64, len(items))
	m.Predict(items, mu, sd)
	acq, w = make([]float64, len(items)), make([]float64, len(items))
	for i := range acq {
		acq[i] = a.value(mu[i], sd[i])
		w[i] = 0.5 * math.Erfc(-(mu[i]-a.tau)/sd[i]/math.Sqrt2)
	}
	return acq, w
}

// suggestModel is the Tanimoto kernel of pool and the GP Suggest fits to
// the scores y of obs under Seed 3 (what the brute-force tests rebuild).
func suggestModel(t *testing.T, pool *datasets.Pool, obs []int, y []float64) (featureKernel, *Model) {
	t.Helper()
	kern := newTanimotoKernel(pool.Bits)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: defaultMaxExact, inducing: 14, fitSubset: defaultFitSubset, seed: 3, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return kern, m
}
