package search

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
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

func TestEstimatePrior(t *testing.T) {
	const tol = 1e-15 // a few roundings of a square root
	for _, tc := range []struct {
		n, observed, positives int
		want                   float64
	}{
		// Worked examples of the doc comment: sqrt(L U), L = (p+1)/(n+2),
		// U = (p+1)/(m+2).
		{4000, 0, 0, math.Sqrt(1.0 / 4002 * 1.0 / 2)},
		{4000, 1, 1, math.Sqrt(2.0 / 4002 * 2.0 / 3)},
		{4000, 100, 30, math.Sqrt(31.0 / 4002 * 31.0 / 102)},
		// Every item labelled and positive: L = U = (n+1)/(n+2).
		{5, 5, 5, 6.0 / 7},
	} {
		got := EstimatePrior(tc.n, tc.observed, tc.positives)
		if math.Abs(got-tc.want) > tol {
			t.Errorf("EstimatePrior(%d, %d, %d) = %.17g, want %.17g", tc.n, tc.observed, tc.positives, got, tc.want)
		}
	}
	if a := EstimatePrior(4000, 0, 0); math.Abs(a-0.0112) > 5e-5 {
		t.Errorf("doc example: %g, documented 0.0112", a)
	}
	if a := EstimatePrior(4000, 1, 1); math.Abs(a-0.0183) > 5e-5 {
		t.Errorf("doc example: %g, documented 0.0183", a)
	}
	if a := EstimatePrior(4000, 100, 30); math.Abs(a-0.0485) > 5e-5 {
		t.Errorf("doc example: %g, documented 0.0485", a)
	}
	// Between the bounds, and more positives (same labelled count) never
	// lower it.
	for m := 0; m <= 20; m++ {
		prev := 0.0
		for p := 0; p <= m; p++ {
			a := EstimatePrior(50, m, p)
			lo, hi := float64(p+1)/52, float64(p+1)/float64(m+2)
			if !(a > 0 && a < 1 && a >= lo-1e-15 && a <= hi+1e-15 && a > prev) {
				t.Fatalf("EstimatePrior(50, %d, %d) = %g outside (%g, %g) or not above %g", m, p, a, lo, hi, prev)
			}
			prev = a
		}
	}
}

// suggestPool is a 40-item pool on a line: item i's neighbours are i-1
// and i+1 (weight 1), items 10 and 11 positive.
func suggestPool(t *testing.T) *Pool {
	t.Helper()
	const n = 40
	p := &datasets.Pool{Name: "line40", Metric: datasets.MetricEuclidean}
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
	// sqrt(2/42 x 2/4), from the 2 labels (1 positive) and n = 40 only.
	if want := math.Sqrt(2.0 / 42 * 2.0 / 4); math.Abs(base.A1-want) > 1e-15 || math.Abs(base.A0+base.A1-1) > 1e-15 {
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
		want, err := vendi.QualityWeighted(vendi.Submatrix(pool.Kernel, items), quality, 2)
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
