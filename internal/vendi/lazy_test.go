package vendi

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLazyBoundHolds checks lazy.go's monotonicity by brute force: at every
// pick, every candidate's exact increment Σ φ(C + x xᵀ) - Σ φ(C) (all
// roots of its secular equation) is at least its exact increment at every
// earlier pick, and at least the increment bound the greedy stored for it
// (lazyD, noted from its bounds and solves), on random and adversarial
// inputs at every order the lazy bounds serve. It also checks they are
// not vacuous: some stored bound comes within 1 % of the exact increment,
// and the earlier increments are strictly smaller somewhere (the test
// probes the inequality, not an equality).
func TestLazyBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	const n, d, picks = 150, 6, 12
	for _, kind := range []string{"cosine", "linear", "lowrank", "adversarial"} {
		F, quality := unitQualityFeatures(rng, n, d, kind)
		for _, q := range []Order{1, 1.2, 1.5, 2} {
			defer func(m int) { firstStageMin = m }(firstStageMin)
			firstStageMin = 0
			g, err := newGreedyState(GreedyProblem{Kernel: F, Quality: quality, K: picks, Q: q, Workers: 1 + rng.IntN(2)})
			if err != nil {
				t.Fatal(err)
			}
			const sigma = 1.0           // the increments grow (lazy.go)
			first := make([]float64, n) // exact increments at the first pick where the item had any
			for i := range first {
				first[i] = math.NaN()
			}
			ws := &secularWork{}
			w := make([]float64, d)
			close, moved := 0, 0
			for pick := 0; pick < picks; pick++ {
				s := g.dual
				for c := 0; c < n; c++ {
					if !g.eligible[c] {
						continue
					}
					a := s.project(F.Features(c), w)
					z := make([]float64, d)
					for k := range z {
						z[k] = s.sq[k] * w[k]
					}
					var f float64
					arrowhead(s.lam, z, a, ws, func(mu float64) { f += q.Term(mu) })
					inc := f - s.sumPhi
					tol := 1e-9 * (math.Abs(f) + math.Abs(s.sumPhi) + 1)
					if D := s.lazyD[c]; !math.IsInf(D, 0) {
						if sigma*inc < sigma*D-tol {
							t.Fatalf("%s q=%v pick %d item %d: increment %.15g, stored bound %.15g", kind, q, pick, c, inc, D)
						}
						if math.Abs(inc-D) <= 0.01*math.Abs(inc) {
							close++
						}
					}
					if math.IsNaN(first[c]) {
						first[c] = inc
					} else {
						if sigma*inc < sigma*first[c]-tol {
							t.Fatalf("%s q=%v pick %d item %d: increment %.15g, at an earlier pick %.15g", kind, q, pick, c, inc, first[c])
						}
						if sigma*(inc-first[c]) > 1e-6*math.Abs(inc) {
							moved++
						}
					}
				}
				c, _, err := g.best()
				if err != nil {
					t.Fatal(err)
				}
				if err := g.add(c); err != nil {
					t.Fatal(err)
				}
			}
			if close == 0 || moved == 0 {
				t.Errorf("%s q=%v: %d stored bounds within 1 %%, %d increments that grew: the test does not probe them", kind, q, close, moved)
			}
		}
	}
}

// TestLazyMatchesUnpruned: on clustered embeddings (cosine and linear) with
// more picks than dimensions, where the lazy bounds prune most candidates
// from the third pick on, the greedy picks the same items with
// bit-identical scores as the unpruned dual pass, with and without a
// prefix, at the orders the lazy bounds serve and beside them.
func TestLazyMatchesUnpruned(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 8))
	const n, d, picks = 1500, 8, 30
	for _, kind := range []string{"cosine", "linear"} {
		F := clusteredEmbeddings(rng, n, d)
		if kind == "cosine" {
			for i := 0; i < n; i++ {
				row := F.X.RawRowView(i)
				s := math.Sqrt(dotSelf(row))
				for j := range row {
					row[j] /= s
				}
			}
		}
		quality := make([]float64, n)
		for i := range quality {
			quality[i] = rng.Float64()
		}
		for _, q := range []Order{0.5, 1, 1.5, 2, 3} {
			for _, prefix := range [][]int{nil, {7, 900, 12}} {
				p := GreedyProblem{Kernel: F, Quality: quality, K: picks, Q: q, Workers: 2, KnownPSD: true, Prefix: prefix}
				on, off := greedyBothWays(t, p)
				if !slices.Equal(on.Picks, off.Picks) {
					t.Fatalf("%s q=%v prefix %v: picks %v, unpruned %v", kind, q, prefix, on.Picks, off.Picks)
				}
				for i := range on.Scores {
					if math.Float64bits(on.Scores[i]) != math.Float64bits(off.Scores[i]) {
						t.Errorf("%s q=%v prefix %v: pick %d score %v, unpruned %v", kind, q, prefix, i, on.Scores[i], off.Scores[i])
					}
				}
			}
		}
	}
}

// TestTopIndices: topIndices returns the positions of the k largest values
// (NaN as largest), against a full sort, on random vectors with ties.
func TestTopIndices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 500; trial++ {
		v := make([]float64, rng.IntN(60))
		for i := range v {
			v[i] = float64(rng.IntN(20))
			if rng.IntN(30) == 0 {
				v[i] = math.NaN()
			}
		}
		k := 1 + rng.IntN(20)
		key := func(x float64) float64 {
			if math.IsNaN(x) {
				return math.Inf(1)
			}
			return x
		}
		got := topIndices(v, k)
		sorted := slices.Clone(v)
		slices.SortFunc(sorted, func(a, b float64) int { return -cmp.Compare(key(a), key(b)) })
		want := sorted[:min(k, len(v))]
		var vals []float64
		for _, i := range got {
			vals = append(vals, v[i])
		}
		slices.SortFunc(vals, func(a, b float64) int { return -cmp.Compare(key(a), key(b)) })
		if len(vals) != len(want) {
			t.Fatalf("v %v k %d: %d indices, want %d", v, k, len(vals), len(want))
		}
		for i := range vals {
			if key(vals[i]) != key(want[i]) {
				t.Fatalf("v %v k %d: values %v, want %v", v, k, vals, want)
			}
		}
	}
}
