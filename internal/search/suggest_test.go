package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/vendi"
)

func TestParsePrior(t *testing.T) {
	for s, want := range map[string]Prior{
		"prevalence": {Rule: PriorPrevalence}, " Estimate ": {Rule: PriorEstimate}, "0.05": {A1: 0.05}, "1e-3": {A1: 0.001},
	} {
		if got, err := ParsePrior(s); err != nil || got != want {
			t.Errorf("ParsePrior(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "1", "-0.1", "1.5", "NaN", "inf", "true", "prevalance"} {
		if _, err := ParsePrior(s); err == nil || !strings.Contains(err.Error(), "prior") {
			t.Errorf("ParsePrior(%q): error %v, want one naming prior", s, err)
		}
	}
	if p, _ := ParsePrior("0.25"); p.String() != "0.25" {
		t.Errorf("String %q", p.String())
	}
}

// looLogLikelihood is FitPrior's objective written out: the
// leave-one-out log-likelihood of the observed labels at a1 from
// directProbability (the model's formula from scratch), plus the two
// pseudo-labels log a1 + log(1 - a1).
func looLogLikelihood(m *Model, a1 float64) float64 {
	c := m.Clone()
	c.Alpha0, c.Alpha1 = 1-a1, a1
	ll := math.Log(a1) + math.Log(1-a1)
	for l := range c.Len() {
		if !c.Observed(l) {
			continue
		}
		// l is never its own neighbour, so this leaves l out.
		p := directProbability(c, l)
		if c.Positive(l) {
			ll += math.Log(p)
		} else {
			ll += math.Log(1 - p)
		}
	}
	return ll
}

// TestFitPrior checks FitPrior against closed forms and a brute-force
// maximisation of the leave-one-out likelihood (grid of 10^4 points, then
// golden-section search).
func TestFitPrior(t *testing.T) {
	const tol = 1e-9 // bisection to 1e-12; golden section to ~1e-10
	nbr, w := [][]int32{{}, {}, {}, {}, {}}, [][]float64{{}, {}, {}, {}, {}}
	m, err := NewModel(nbr, w, 0.5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// No label: 1/2. Isolated labels only: Laplace, (pos + 1)/(labels + 2).
	if f := FitPrior(m); math.Abs(f.A1-0.5) > tol || f.Labels != 0 {
		t.Errorf("no label: %+v, want a1 = 1/2", f)
	}
	m.Observe(0, true)
	if f := FitPrior(m); math.Abs(f.A1-2.0/3) > tol || f.Isolated != 1 || f.IsolatedPositives != 1 {
		t.Errorf("one positive: %+v, want a1 = 2/3", f)
	}
	m.Observe(1, false)
	m.Observe(2, false)
	m.Observe(3, false)
	if f := FitPrior(m); math.Abs(f.A1-2.0/6) > tol || f.Labels != 4 || f.Positives != 1 {
		t.Errorf("1 of 4 isolated: %+v, want a1 = 2/6", f)
	}

	// Random graphs and labels: the brute-force maximiser.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		m := randomModel(t, rng, 60, 1+rng.IntN(6), rng.IntN(50), trial%2 == 0)
		got := FitPrior(m).A1
		best, arg := math.Inf(-1), 0.0
		for k := 1; k < 10000; k++ {
			if v := looLogLikelihood(m, float64(k)/10000); v > best {
				best, arg = v, float64(k)/10000
			}
		}
		lo, hi := max(arg-1e-4, 1e-12), min(arg+1e-4, 1-1e-12)
		const phi = 0.6180339887498949
		for hi-lo > 1e-11 {
			a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
			if looLogLikelihood(m, a) < looLogLikelihood(m, b) {
				lo = a
			} else {
				hi = b
			}
		}
		// Near its maximum the log-likelihood is flat to rounding over
		// ~sqrt(machine epsilon) in a1, which bounds the brute force's
		// precision; FitPrior must also score at least as well.
		const argTol = 1e-6
		want := (lo + hi) / 2
		if math.Abs(got-want) > argTol || looLogLikelihood(m, got) < looLogLikelihood(m, want)-1e-12*math.Abs(best) {
			t.Errorf("trial %d (%d labels): FitPrior %.12f (log-likelihood %.15g), brute force %.12f (%.15g)", trial, m.NumObserved(), got, looLogLikelihood(m, got), want, looLogLikelihood(m, want))
		}
	}

	// The pool's size plays no part (the old rule printed 0.004
	// for 200 random labels, 10 % positive, in 100,000 items): 200 labels,
	// 20 positive, on a ring of 200 items, alone or inside a pool of
	// 100,000 whose other items are unlabelled, give the same a1.
	ring := func(n int) *Model {
		nb, wt := make([][]int32, n), make([][]float64, n)
		for i := range n {
			nb[i] = []int32{int32((i + 1) % n), int32((i + n - 1) % n)}
			wt[i] = []float64{0.5, 0.5}
		}
		m, _ := NewModel(nb, wt, 0.5, 0.5)
		return m
	}
	small, big := ring(200), ring(100000)
	for i := range 200 {
		pos := i%10 == 0
		small.Observe(i, pos)
		big.Observe(i, pos)
	}
	if a, b := FitPrior(small).A1, FitPrior(big).A1; math.Abs(a-b) > 1e-9 || !(a > 0.05 && a < 0.2) {
		t.Errorf("a1 %g in a pool of 200, %g in 100,000; want equal and near the labels' 10 %%", a, b)
	}

	// Positives found next to positives barely move a1; isolated ones do.
	// A line 0-1-2-...-19 (each item's neighbours: i-1, i+1, weight 1)
	// with 6 isolated negatives; adding 3 adjacent positives raises a1 far
	// less than adding 3 scattered (isolated) positives.
	line := func() *Model {
		nb, wt := make([][]int32, 40), make([][]float64, 40)
		for i := range 40 {
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < 40 {
					nb[i], wt[i] = append(nb[i], int32(j)), append(wt[i], 1)
				}
			}
		}
		m, _ := NewModel(nb, wt, 0.5, 0.5)
		for _, i := range []int{0, 5, 10, 15, 20, 25} {
			m.Observe(i, false)
		}
		return m
	}
	adj, iso := line(), line()
	for _, i := range []int{30, 31, 32} {
		adj.Observe(i, true)
	}
	for _, i := range []int{28, 33, 38} {
		iso.Observe(i, true)
	}
	base := line()
	a0, aAdj, aIso := FitPrior(base).A1, FitPrior(adj).A1, FitPrior(iso).A1
	if !(aAdj-a0 < (aIso-a0)/2) || math.Abs(aIso-4.0/11) > tol {
		t.Errorf("a1: no positive %g, 3 adjacent %g, 3 isolated %g (want the adjacent rise under half the isolated, isolated = 4/11)", a0, aAdj, aIso)
	}
}

// suggestPool is a 40-item pool on a line: item i's neighbours are i-1
// and i+1 (weight 1), items 10 and 11 positive.
func suggestPool(t *testing.T) *Pool {
	t.Helper()
	const n = 40
	p := &datasets.Pool{Name: "line40", Metric: knn.MetricEuclidean}
	for i := 0; i < n; i++ {
		var nb []int32
		var w []float64
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < n {
				nb, w = append(nb, int32(j)), append(w, 1)
			}
		}
		p.Neighbors, p.Weights = append(p.Neighbors, nb), append(p.Weights, w)
		p.Dense = append(p.Dense, []float64{float64(i)})
		p.Labels = append(p.Labels, i == 10 || i == 11)
	}
	sp, err := NewPool(p)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestSuggestIgnoresUnobservedLabels is a regression test: marking
// unobserved items positive moved the prior (it was the
// pool's prevalence) and changed the batch. With the default prior the
// suggestion depends on the observed labels only.
func TestSuggestIgnoresUnobservedLabels(t *testing.T) {
	pool := suggestPool(t)
	req := SuggestRequest{
		Observed: []Observation{{10, true}, {20, false}}, Prior: Prior{Rule: PriorEstimate},
		Ties: "random", Seed: 1, Method: "qvs", Settings: PolicySettings{Q: 1}, Batch: 4, Workers: 1,
	}
	base, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	// Two isolated labels (the line's items 10 and 20 have no labelled
	// neighbour), 1 positive: Laplace's (1 + 1)/(2 + 2).
	if want := 0.5; math.Abs(base.A1-want) > 1e-12 || math.Abs(base.A0+base.A1-1) > 1e-15 {
		t.Errorf("a0 %g, a1 %g, want a1 %g", base.A0, base.A1, want)
	}
	for _, i := range []int{0, 1, 2, 3, 30, 31, 32} {
		pool.Labels[i] = true
	}
	again, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(base.Picks, again.Picks) || base.A1 != again.A1 {
		t.Errorf("unobserved labels changed the suggestion: %v (a1 %g) -> %v (a1 %g)", base.Picks, base.A1, again.Picks, again.A1)
	}
	// The authors' rule reads them (7 + 2 positives of 40).
	req.Prior = Prior{Rule: PriorPrevalence}
	prev, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	if prev.A1 != 0.225 {
		t.Errorf("prevalence prior %g, want 9/40 = 0.225", prev.A1)
	}
	// Unlabelled pool: the estimate works, the authors' rule cannot.
	pool.Unlabeled = true
	if _, err := Suggest(pool, req); err == nil || !strings.Contains(err.Error(), "needs the pool's labels") {
		t.Errorf("prevalence prior on an unlabelled pool: %v", err)
	}
}

// TestSuggestValues checks the probabilities and the eq. 7 values of a
// suggestion against a model and kernel built from scratch in pool order
// (both are invariant under the tie-breaking relabelling).
func TestSuggestValues(t *testing.T) {
	pool := suggestPool(t)
	obs := []Observation{{10, true}, {12, false}, {25, true}}
	s, err := Suggest(pool, SuggestRequest{Observed: obs, Prior: Prior{A1: 0.1}, Ties: "random", Seed: 7,
		Method: "qvs", Settings: PolicySettings{Q: 2}, Batch: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(pool.Neighbors, pool.Weights, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		m.Observe(o.Index, o.Positive)
	}
	items, quality := []int{10, 25}, []float64{1, 1}
	const tol = 1e-12 // eigenvalue rounding
	for r, x := range s.Picks {
		if m.Observed(x) || math.Abs(s.Probabilities[r]-m.Probability(x)) > tol {
			t.Fatalf("pick %d: item %d, probability %g, model %g", r, x, s.Probabilities[r], m.Probability(x))
		}
		items, quality = append(items, x), append(quality, m.Probability(x))
		kernel := pool.Kernel()
		want, err := vendi.QualityWeighted(vendi.Submatrix(kernel, items), quality, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Values[r]-want) > tol {
			t.Errorf("pick %d: qvs %g, eq. 7 %g", r, s.Values[r], want)
		}
	}
	if _, err := Suggest(pool, SuggestRequest{Observed: obs, Prior: Prior{A1: 0.1}, Ties: "random", Method: "qvs", Batch: 38}); err == nil || !strings.Contains(err.Error(), "only 37") {
		t.Errorf("batch larger than the unlabelled items: %v", err)
	}
}

// TestSuggestColdStartTies is a regression test: with
// nothing near the labels every far item ties, and the batch was the first
// rows of the file whatever the seed. Now ties fall in the seed's random
// order; ties: index keeps the lowest index.
func TestSuggestColdStartTies(t *testing.T) {
	pool := suggestPool(t)
	req := SuggestRequest{Observed: []Observation{{20, true}}, Prior: Prior{Rule: PriorEstimate},
		Method: "one-step", Batch: 3, Workers: 1}
	req.Ties = "index"
	idx, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	// 19 and 21 touch the positive; then every other item ties at a1.
	if !slices.Equal(idx.Picks, []int{19, 21, 0}) {
		t.Errorf("ties index: %v, want [19 21 0]", idx.Picks)
	}
	req.Ties = "random"
	thirds := map[int]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		req.Seed = seed
		s, err := Suggest(pool, req)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := Suggest(pool, req); !slices.Equal(s.Picks, again.Picks) {
			t.Fatalf("seed %d: %v then %v", seed, s.Picks, again.Picks)
		}
		if !slices.Equal(s.Picks[:2], []int{19, 21}) && !slices.Equal(s.Picks[:2], []int{21, 19}) {
			t.Fatalf("seed %d: %v, want 19 and 21 first", seed, s.Picks)
		}
		if s.Probabilities[2] != s.A1 {
			t.Fatalf("seed %d: third pick %d has probability %g, not the tie value a1 = %g", seed, s.Picks[2], s.Probabilities[2], s.A1)
		}
		thirds[s.Picks[2]] = true
	}
	// 20 seeds over 37 tied items: the chance that they all pick one item
	// is 37^-19; fewer than 8 distinct would be very unlikely too.
	if len(thirds) < 8 {
		t.Errorf("20 seeds broke the tie towards only %d items: %v", len(thirds), thirds)
	}
}
