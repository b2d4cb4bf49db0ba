package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// randomSuggestPool is a pool of n items on a random directed kNN graph
// with k neighbours per row (coarse weights: ties are common), labels
// unknown.
func randomSuggestPool(t *testing.T, rng *rand.Rand, n, k int, coarse bool) *Pool {
	t.Helper()
	nbr, w := randomGraph(rng, n, k, coarse)
	p := &datasets.Pool{Name: "random", Metric: knn.MetricEuclidean, Neighbors: nbr, Weights: w, Labels: make([]bool, n), Unlabeled: true}
	for i := 0; i < n; i++ {
		p.Dense = append(p.Dense, []float64{float64(i)})
	}
	sp, err := NewPool(p)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestSuggestPendingContinuesBatch: a batch asked with the first j picks
// of a batch of b pending (and ENS's remaining reduced by j, as those
// queries are spent) is the rest of that batch, with the same
// probabilities and qvs values, for every method, both tie rules and
// pools with and without ties. This is what a lab with experiments still
// running needs: the batch the greedy would have continued with.
func TestSuggestPendingContinuesBatch(t *testing.T) {
	const b = 6
	const valueTol = 1e-12 // relative: Values grow the set by different block merges
	type method struct {
		name      string
		s         PolicySettings
		remaining int
	}
	methods := []method{
		{"random", PolicySettings{Q: 1}, b},
		{"one-step", PolicySettings{Q: 1}, b},
		{"eci", PolicySettings{Threshold: 0.5, Fantasy: pessimistic, Q: 1}, b},
		{"eci", PolicySettings{Threshold: 0.3, Fantasy: optimistic, Q: 1}, b},
		{"select", PolicySettings{Beta: 1, Lambda: 0.5, Fantasy: pessimistic, Q: 1}, b},
		{"select", PolicySettings{Beta: 0.5, Lambda: 0.2, Fantasy: optimistic, Q: 1}, b},
		{"ens", PolicySettings{Fantasy: pessimistic, Q: 1}, 30},
		{"ens", PolicySettings{Fantasy: optimistic, Q: 1}, 30},
		{"ens", PolicySettings{Q: 1}, b}, // the last batch: one-step
		{"qvs", PolicySettings{Q: 0}, b},
		{"qvs", PolicySettings{Q: 1}, b},
		{"qvs", PolicySettings{Q: 2}, b},
		{"qvs", PolicySettings{Q: vendi.OrderInf}, b},
		{"qvs", PolicySettings{Q: 1, AuthorsShortcut: true}, b},
	}
	checked := 0
	for seed := uint64(1); seed <= 3; seed++ {
		for _, coarse := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(seed, 7))
			pool := randomSuggestPool(t, rng, 60, 5, coarse)
			var obs []Observation
			for t, i := range rng.Perm(60)[:8] {
				obs = append(obs, Observation{Index: i, Positive: t < 3})
			}
			for _, ties := range []string{"random", "index"} {
				for _, me := range methods {
					name := fmt.Sprintf("seed=%d coarse=%v ties=%s %s %+v", seed, coarse, ties, me.name, me.s)
					req := SuggestRequest{
						Observed: obs, Prior: Prior{A1: 0.1}, Ties: ties, Seed: seed, Method: me.name,
						Settings: me.s, Batch: b, Remaining: me.remaining, Workers: 1,
					}
					full, err := Suggest(pool, req)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for j := 1; j < b; j++ {
						r := req
						r.Pending, r.Batch, r.Remaining = full.Picks[:j], b-j, me.remaining-j
						got, err := Suggest(pool, r)
						if err != nil {
							t.Fatalf("%s pending %d: %v", name, j, err)
						}
						if !slices.Equal(got.Picks, full.Picks[j:]) {
							t.Fatalf("%s pending %v: picks %v, want the batch's rest %v", name, full.Picks[:j], got.Picks, full.Picks[j:])
						}
						if !slices.Equal(got.Probabilities, full.Probabilities[j:]) {
							t.Errorf("%s pending %d: probabilities %v, want %v", name, j, got.Probabilities, full.Probabilities[j:])
						}
						for r, v := range got.Values {
							if want := full.Values[j+r]; math.Abs(v-want) > valueTol*math.Abs(want) {
								t.Errorf("%s pending %d: value %d = %.17g, want %.17g", name, j, r, v, want)
							}
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d continuations checked", checked)
}

// TestSuggestPendingNeverSuggested: pending items that are not the
// policy's own picks (here: the items it would pick first) are skipped
// by every method, and the batch is the one of a model where they are
// fantasised (batch policies) or absent (one-step).
func TestSuggestPendingNeverSuggested(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	pool := randomSuggestPool(t, rng, 50, 4, false)
	obs := []Observation{{Index: 0, Positive: true}, {Index: 1, Positive: false}, {Index: 2, Positive: true}}
	for _, me := range Methods {
		req := SuggestRequest{Observed: obs, Prior: Prior{A1: 0.2}, Ties: "index", Seed: 1, Method: me,
			Settings: PolicySettings{Threshold: 0.5, Beta: 1, Lambda: 0.5, Q: 1}, Batch: 5, Remaining: 20, Workers: 1}
		first, err := Suggest(pool, req)
		if err != nil {
			t.Fatal(err)
		}
		// Pending: the policy's 2nd and 4th picks and an item it did not pick.
		other := 49
		for slices.Contains(first.Picks, other) {
			other--
		}
		req.Pending = []int{first.Picks[1], first.Picks[3], other}
		got, err := Suggest(pool, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Picks) != 5 {
			t.Fatalf("%s: %d picks", me, len(got.Picks))
		}
		for _, x := range got.Picks {
			if slices.Contains(req.Pending, x) {
				t.Errorf("%s: pending item %d suggested (%v)", me, x, got.Picks)
			}
		}
	}
	// One-step has no fantasy: the batch is the top 5 of the rest.
	req := SuggestRequest{Observed: obs, Prior: Prior{A1: 0.2}, Ties: "index", Method: "one-step", Batch: 48 - 3 - 3, Workers: 1}
	all, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Pending, req.Batch = []int{all.Picks[0], all.Picks[2], all.Picks[7]}, 5
	got, err := Suggest(pool, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{all.Picks[1], all.Picks[3], all.Picks[4], all.Picks[5], all.Picks[6]}
	if !slices.Equal(got.Picks, want) {
		t.Errorf("one-step with pending: %v, want %v", got.Picks, want)
	}
}

func TestSuggestPendingErrors(t *testing.T) {
	pool := suggestPool(t)
	base := SuggestRequest{Observed: []Observation{{10, true}, {20, false}}, Prior: Prior{A1: 0.1}, Ties: "index", Method: "qvs", Settings: PolicySettings{Q: 1}, Batch: 2, Workers: 1}
	for _, tc := range []struct {
		pending []int
		batch   int
		want    string
	}{
		{[]int{20}, 2, "both labelled and pending"},
		{[]int{3, 3}, 2, "listed twice"},
		{[]int{40}, 2, "expected an index in [0, 40)"},
		{[]int{-1}, 2, "expected an index in [0, 40)"},
		{[]int{0, 1, 2}, 36, "only 35 items are neither labelled nor pending"},
	} {
		r := base
		r.Pending, r.Batch = tc.pending, tc.batch
		if _, err := Suggest(pool, r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("pending %v batch %d: error %v, want %q", tc.pending, tc.batch, err, tc.want)
		}
	}
}
