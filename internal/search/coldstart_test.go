package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// coldPool is an unlabelled pool of n items on a random directed kNN graph
// (k neighbours, weights uniform in (0, 1]) and its diversity kernel
// (W + Wᵀ)/2 with unit diagonal, built here from the definition.
func coldPool(t *testing.T, rng *rand.Rand, n, k int) (*Pool, *mat.SymDense) {
	t.Helper()
	nbr, w := randomGraph(rng, n, k, false)
	p := &datasets.Pool{Name: "cold", Metric: knn.MetricEuclidean, Neighbors: nbr, Weights: w,
		Labels: make([]bool, n), Unlabeled: true}
	K := mat.NewSymDense(n, nil)
	for i := range n {
		p.Dense = append(p.Dense, []float64{float64(i)})
		K.SetSym(i, i, 1)
		for e, j := range nbr[i] {
			K.SetSym(i, int(j), K.At(i, int(j))+w[i][e]/2)
		}
	}
	sp, err := NewPool(p)
	if err != nil {
		t.Fatal(err)
	}
	return sp, K
}

// bruteGreedyVS is the greedy maximisation of VS_q by brute force: prefix
// first, then b picks, each the item whose addition gives the largest
// BruteVS, ties (relative tieTol) to the lowest index.
func bruteGreedyVS(K *mat.SymDense, prefix []int, b int, q float64) []int {
	const tieTol = 1e-9 // above vendi.TieTol (1e-10), far below the gaps of a random kernel
	set := slices.Clone(prefix)
	for range b {
		vals := testutil.BruteVSAdded(K, set, q)
		best := -1
		for c, v := range vals {
			if !math.IsNaN(v) && (best < 0 || v > vals[best]*(1+tieTol)) {
				best = c
			}
		}
		set = append(set, best)
	}
	return set[len(prefix):]
}

// TestSuggestColdStart: with no label, every method but random returns the
// greedy maximisation of VS_q on the symmetrised kNN kernel (brute force:
// eigenvalues of each candidate set), pending items first, whatever the
// prior; every probability is a1 and the qvs column is a1 x VS_q (eq. 7
// with constant quality). Random stays random; one label ends the cold
// start.
func TestSuggestColdStart(t *testing.T) {
	const tol = 1e-9 // secular-equation greedy against dense eigenvalues
	rng := rand.New(rand.NewPCG(3, 4))
	// k = 4: most candidates are far from the set and tie (lowest index);
	// k = 12: most are linked to it and differ.
	sparse, sparseK := coldPool(t, rng, 24, 4)
	dense, denseK := coldPool(t, rng, 24, 12)
	const b = 5
	for _, c := range []struct {
		pool    *Pool
		K       *mat.SymDense
		q       vendi.Order
		prior   Prior
		pending []int
	}{
		{sparse, sparseK, 1, Prior{Rule: PriorEstimate}, nil},
		{sparse, sparseK, 2, Prior{A1: 0.2}, nil},
		{sparse, sparseK, vendi.Order(math.Inf(1)), Prior{Rule: PriorEstimate}, nil},
		{sparse, sparseK, 1, Prior{A1: 0.05}, []int{5, 17}},
		{dense, denseK, 1, Prior{Rule: PriorEstimate}, nil},
		{dense, denseK, 2, Prior{Rule: PriorEstimate}, []int{8}},
	} {
		pool, K := c.pool, c.K
		want := bruteGreedyVS(K, c.pending, b, float64(c.q))
		if slices.Equal(want, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("q = %v: the diverse batch is the first rows, so it cannot tell one-step's ties from it", c.q)
		}
		for _, method := range []string{"qvs", "one-step", "eci", "select", "ens"} {
			s, err := Suggest(pool, SuggestRequest{Prior: c.prior, Ties: "index", Method: method, Pending: c.pending,
				Settings: PolicySettings{Threshold: 0.5, Beta: 1, Lambda: 0.5, Q: c.q}, Batch: b, Remaining: 20, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !s.ColdStart || s.PickedBy != "qvs" || !slices.Equal(s.Picks, want) {
				t.Errorf("q = %v, %s, pending %v: cold %v, picked by %q, %v; brute-force greedy %v", c.q, method, c.pending, s.ColdStart, s.PickedBy, s.Picks, want)
				continue
			}
			if a1 := c.prior.A1; a1 != 0 && s.A1 != a1 || a1 == 0 && s.A1 != 0.5 {
				t.Errorf("%s: a1 %g, want the given prior or 1/2 (no label: the pseudo-labels alone)", method, s.A1)
			}
			for r, x := range s.Picks {
				set := append(slices.Clone(c.pending), s.Picks[:r+1]...)
				sub := mat.NewSymDense(len(set), nil)
				for a, i := range set {
					for d, j := range set {
						sub.SetSym(a, d, K.At(i, j))
					}
				}
				if vs := s.A1 * testutil.BruteVS(sub, float64(c.q)); s.Probabilities[r] != s.A1 || math.Abs(s.Values[r]-vs) > tol*vs {
					t.Errorf("%s pick %d (%d): probability %g, qvs %g; want a1 = %g, a1 x VS = %g", method, r, x, s.Probabilities[r], s.Values[r], s.A1, vs)
				}
			}
		}
	}

	// q = 0: VS_0 counts items, every batch ties: the first rows.
	s, err := Suggest(sparse, SuggestRequest{Prior: Prior{Rule: PriorEstimate}, Ties: "index", Method: "eci", Pending: []int{1},
		Settings: PolicySettings{Threshold: 0.5, Q: 0}, Batch: 3, Workers: 1})
	if err != nil || !slices.Equal(s.Picks, []int{0, 2, 3}) {
		t.Errorf("q = 0: %v, %v; want [0 2 3]", s, err)
	}

	// Random: its own draw, reproducible from the seed, never a pending item.
	req := SuggestRequest{Prior: Prior{Rule: PriorEstimate}, Ties: "random", Seed: 9, Method: "random", Pending: []int{3}, Batch: b, Workers: 1}
	r1, err1 := Suggest(sparse, req)
	r2, err2 := Suggest(sparse, req)
	if err1 != nil || err2 != nil || !r1.ColdStart || r1.PickedBy != "random" || !slices.Equal(r1.Picks, r2.Picks) || len(r1.Picks) != b || slices.Contains(r1.Picks, 3) {
		t.Errorf("random: %+v (%v), again %v (%v)", r1, err1, r2, err2)
	}

	// One label (a negative) is no cold start: one-step ranks.
	s, err = Suggest(sparse, SuggestRequest{Observed: []Observation{{0, false}}, Prior: Prior{Rule: PriorEstimate}, Ties: "index",
		Method: "one-step", Settings: PolicySettings{Q: 1}, Batch: b, Workers: 1})
	if err != nil || s.ColdStart || s.PickedBy != "one-step" {
		t.Errorf("one label: %+v, %v; want one-step, no cold start", s, err)
	}
}
