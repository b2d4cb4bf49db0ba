package vendi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteGreedy is the oracle: every candidate scored by a full
// eigendecomposition of its set (Score), same tie rule as Greedy.
func bruteGreedy(t *testing.T, p GreedyProblem) GreedyResult {
	t.Helper()
	chosen := append([]int(nil), p.Prefix...)
	used := map[int]bool{}
	for _, i := range chosen {
		used[i] = true
	}
	var cands []int
	if p.Candidates != nil {
		cands = p.Candidates
	} else {
		for i := 0; i < p.Kernel.Len(); i++ {
			if !used[i] {
				cands = append(cands, i)
			}
		}
	}
	var res GreedyResult
	for step := 0; step < p.K; step++ {
		var idx []int
		var vals []float64
		bestVal := math.Inf(-1)
		for _, c := range cands {
			if used[c] {
				continue
			}
			set := append(append([]int(nil), chosen...), c)
			qual := make([]float64, len(set))
			for k, i := range set {
				qual[k] = p.Quality[i]
			}
			v, err := QualityWeighted(Submatrix(p.Kernel, set), qual, p.Q)
			if err != nil {
				t.Fatal(err)
			}
			if p.MinVS != nil {
				vs, err := Score(Submatrix(p.Kernel, set), p.Q)
				if err != nil {
					t.Fatal(err)
				}
				if vs < p.MinVS(len(set))*(1-1e-12) {
					continue
				}
			}
			idx = append(idx, c)
			vals = append(vals, v)
			bestVal = math.Max(bestVal, v)
		}
		if len(idx) == 0 {
			break // MinVS rejected every candidate
		}
		c, v := pickTied(idx, vals, nil, bestVal)
		used[c] = true
		chosen = append(chosen, c)
		res.Picks = append(res.Picks, c)
		res.Scores = append(res.Scores, v)
	}
	return res
}

// randomKNN returns a random kNN graph kernel (indefinite in general) over n
// items in d dimensions, with exact duplicates and isolated items.
func randomKNN(rng *rand.Rand, n, d, k int) *Sparse {
	X := make([][]float64, n)
	for i := range X {
		X[i] = make([]float64, d)
		for j := range X[i] {
			X[i][j] = rng.NormFloat64() * 3
		}
	}
	copy(X[1], X[0]) // duplicate
	nbr := make([][]int32, n)
	w := make([][]float64, n)
	for i := 0; i < n; i++ {
		if i == n-1 {
			continue // isolated unless someone picks it as a neighbour
		}
		type dj struct {
			d float64
			j int
		}
		var ds []dj
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			var s float64
			for a := range X[i] {
				s += (X[i][a] - X[j][a]) * (X[i][a] - X[j][a])
			}
			ds = append(ds, dj{s, j})
		}
		for a := 0; a < k; a++ {
			m := a
			for b := a + 1; b < len(ds); b++ {
				if ds[b].d < ds[m].d || ds[b].d == ds[m].d && ds[b].j < ds[m].j {
					m = b
				}
			}
			ds[a], ds[m] = ds[m], ds[a]
			nbr[i] = append(nbr[i], int32(ds[a].j))
			w[i] = append(w[i], math.Exp(-ds[a].d/10))
		}
	}
	s, err := SymmetrizeKNN(n, nbr, w)
	if err != nil {
		panic(err)
	}
	return s
}

func TestGreedyMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	orders := []Order{0, 0.1, 0.5, 1, 2, 5, OrderInf}
	const oracleTol = 1e-9 // qVS within 1e-9 relative of the brute-force oracle
	for trial := 0; trial < 6; trial++ {
		n := 14 + trial*3
		var kernels []struct {
			name string
			k    Kernel
		}
		dense := randomPSD(rng, n, 1+trial%4)
		// Duplicate item 1 of item 0 and make the last item dissimilar to all.
		for j := 0; j < n; j++ {
			dense.SetSym(1, j, dense.At(0, j))
		}
		dense.SetSym(1, 1, 1)
		dense.SetSym(0, 1, 1)
		for j := 0; j < n-1; j++ {
			dense.SetSym(n-1, j, 0)
		}
		kernels = append(kernels, struct {
			name string
			k    Kernel
		}{"dense", DenseKernel(dense)}, struct {
			name string
			k    Kernel
		}{"sparse", randomKNN(rng, n, 3, 3)})
		for _, kk := range kernels {
			for _, q := range orders {
				quality := make([]float64, n)
				for i := range quality {
					quality[i] = rng.Float64()
				}
				quality[2] = 0 // zero quality is allowed
				var prefix []int
				if trial%2 == 1 {
					prefix = []int{3, 0, 5}
					for _, i := range prefix {
						quality[i] = 1
					}
				}
				p := GreedyProblem{Kernel: kk.k, Quality: quality, Prefix: prefix, K: 6, Q: q, Workers: 1 + trial%3}
				name := fmt.Sprintf("trial%d/%s/q=%v", trial, kk.name, q)
				got, err := Greedy(p)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := bruteGreedy(t, p)
				for i := range want.Picks {
					if got.Picks[i] != want.Picks[i] {
						t.Errorf("%s: picks %v, oracle %v", name, got.Picks, want.Picks)
						break
					}
					if !near(got.Scores[i], want.Scores[i], oracleTol) {
						t.Errorf("%s: pick %d qVS %.15g, oracle %.15g", name, i, got.Scores[i], want.Scores[i])
					}
				}
			}
		}
	}
}

func TestGreedyErrors(t *testing.T) {
	k := FuncKernel(3, func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 0
	})
	q := []float64{1, 1, 1}
	cases := map[string]GreedyProblem{
		"too many picks":   {Kernel: k, Quality: q, K: 4, Q: 1},
		"negative quality": {Kernel: k, Quality: []float64{1, -1, 1}, K: 1, Q: 1},
		"NaN quality":      {Kernel: k, Quality: []float64{1, math.NaN(), 1}, K: 1, Q: 1},
		"short quality":    {Kernel: k, Quality: []float64{1}, K: 1, Q: 1},
		"bad order":        {Kernel: k, Quality: q, K: 1, Q: -2},
		"prefix range":     {Kernel: k, Quality: q, Prefix: []int{7}, K: 1, Q: 1},
		"prefix candidate": {Kernel: k, Quality: q, Prefix: []int{0}, Candidates: []int{0, 1}, K: 1, Q: 1},
		"picks > cands":    {Kernel: k, Quality: q, Prefix: []int{0, 1}, K: 2, Q: 1},
	}
	for name, p := range cases {
		if _, err := Greedy(p); err == nil {
			t.Errorf("%s: want error", name)
		}
	}
}

func TestArrowheadAgainstEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 200; trial++ {
		r := 1 + rng.IntN(8)
		d := make([]float64, r)
		z := make([]float64, r)
		for i := range d {
			d[i] = rng.Float64() * 3
			z[i] = rng.NormFloat64()
			switch rng.IntN(4) {
			case 0:
				z[i] = 0 // deflation
			case 1:
				if i > 0 {
					d[i] = d[i-1] // repeated pole
				}
			}
		}
		a := rng.Float64()
		var got []float64
		arrowhead(d, z, a, &secularWork{}, func(mu float64) { got = append(got, mu) })
		// Dense oracle.
		M := make([]float64, (r+1)*(r+1))
		for i := 0; i < r; i++ {
			M[i*(r+1)+i] = d[i]
			M[i*(r+1)+r] = z[i]
			M[r*(r+1)+i] = z[i]
		}
		M[r*(r+1)+r] = a
		want, _ := Eigenvalues(symFrom(r+1, M))
		sortFloats(got)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("trial %d: eigenvalues %v, oracle %v (d=%v z=%v a=%v)", trial, got, want, d, z, a)
			}
		}
	}
}

// TestGreedyMinVS checks the diversity floor against the brute-force oracle
// (which filters by a full eigendecomposition of each candidate set) on
// Gaussian kernels of clustered points, where the floor rejects the
// near-duplicates of a pick, and checks the early stop when nothing
// qualifies.
func TestGreedyMinVS(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	changed, stopped, cases := 0, 0, 0
	for trial := 0; trial < 4; trial++ {
		n := 16 + 4*trial
		pts := make([][2]float64, n)
		for i := range pts {
			c := float64(i % 3) // three clusters
			pts[i] = [2]float64{c + 0.3*rng.NormFloat64(), c + 0.3*rng.NormFloat64()}
		}
		k := FuncKernel(n, func(i, j int) float64 {
			dx, dy := pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]
			return math.Exp(-(dx*dx + dy*dy) / 2)
		})
		quality := make([]float64, n)
		for i := range quality {
			quality[i] = rng.Float64()
		}
		for _, q := range []Order{0.5, 1, 2, OrderInf} {
			// Floor: the VS of s points pairwise at distance 1.2.
			floor := func(s int) float64 { return equicorrelatedVS(t, s, math.Exp(-1.44/2), q) }
			p := GreedyProblem{Kernel: k, Quality: quality, K: 8, Q: q, MinVS: floor, Workers: 1 + trial%2}
			got, err := Greedy(p)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteGreedy(t, p)
			name := fmt.Sprintf("trial%d/q=%v", trial, q)
			if len(got.Picks) != len(want.Picks) {
				t.Fatalf("%s: %d picks %v, oracle %d %v", name, len(got.Picks), got.Picks, len(want.Picks), want.Picks)
			}
			for i := range want.Picks {
				if got.Picks[i] != want.Picks[i] || !near(got.Scores[i], want.Scores[i], 1e-9) {
					t.Fatalf("%s: picks %v scores %v, oracle %v %v", name, got.Picks, got.Scores, want.Picks, want.Scores)
				}
			}
			unfloored, _ := Greedy(GreedyProblem{Kernel: k, Quality: quality, K: 8, Q: q})
			cases++
			if !slices.Equal(unfloored.Picks[:len(got.Picks)], got.Picks) {
				changed++
			}
			if len(got.Picks) < 8 {
				stopped++
			}
		}
	}
	// The floor must bind: it changes picks in some cases and stops early in
	// others, or the comparison above proves nothing.
	t.Logf("floor changed %d, stopped %d of %d cases", changed, stopped, cases)
	if changed == 0 || stopped == 0 || stopped == cases {
		t.Errorf("floor changed the picks in %d and stopped early in %d of %d cases: the test does not exercise it", changed, stopped, cases)
	}
	// Two exact duplicates and nothing else: the second pick would have
	// VS 1 < floor(2), so Greedy stops after one pick without error.
	dup := FuncKernel(2, func(i, j int) float64 { return 1 })
	res, err := Greedy(GreedyProblem{Kernel: dup, Quality: []float64{1, 0.5}, K: 2, Q: 1, MinVS: func(s int) float64 { return 1.5 * float64(s-1) }})
	if err != nil || len(res.Picks) != 1 || res.Picks[0] != 0 {
		t.Errorf("duplicates under a floor: picks %v, err %v; want [0], nil", res.Picks, err)
	}
}

// equicorrelatedVS is the VS_q of s items with unit self-similarity and
// pairwise similarity c, from its closed-form spectrum: (1 + (s-1)c)/s once
// and (1-c)/s with multiplicity s-1.
func equicorrelatedVS(t *testing.T, s int, c float64, order Order) float64 {
	t.Helper()
	q := float64(order)
	n := float64(s)
	p := []float64{(1 + (n-1)*c) / n}
	for i := 1; i < s; i++ {
		p = append(p, (1-c)/n)
	}
	switch {
	case q == 1:
		h := 0.0
		for _, v := range p {
			if v > 0 {
				h -= v * math.Log(v)
			}
		}
		return math.Exp(h)
	case math.IsInf(q, 1):
		return 1 / p[0]
	default:
		sum := 0.0
		for _, v := range p {
			sum += math.Pow(v, q)
		}
		return math.Pow(sum, 1/(1-q))
	}
}

// TestGreedySimilarityCache: the per-member similarity columns of a
// computed kernel (embeddings while the chosen set is smaller than d, and
// RBF) give the picks and scores of recomputing every similarity, bit for
// bit, with and without a prefix.
func TestGreedySimilarityCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	const n, d = 240, 40
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	quality := make([]float64, n)
	for i := range quality {
		quality[i] = 0.2 + rng.Float64()
	}
	rbf, err := NewRBF(X, 6)
	if err != nil {
		t.Fatal(err)
	}
	for name, kernel := range map[string]Kernel{"embeddings": FeatureMatrix{X}, "rbf": rbf} {
		for _, q := range []Order{0.5, 1, OrderInf} {
			for _, prefix := range [][]int{nil, {3, 77}} {
				p := GreedyProblem{Kernel: kernel, Quality: quality, Q: q, K: 25, Prefix: prefix}
				with, err := Greedy(p)
				if err != nil {
					t.Fatal(err)
				}
				old := simCacheMax
				simCacheMax = 0
				without, err := Greedy(p)
				simCacheMax = old
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(with.Picks, without.Picks) || !slices.Equal(with.Scores, without.Scores) {
					t.Fatalf("%s q=%v prefix %v: cached %v %v, recomputed %v %v", name, q, prefix, with.Picks, with.Scores, without.Picks, without.Scores)
				}
			}
		}
	}
}

// TestGreedyReturnsEigenFailure: when a chosen block's eigendecomposition
// fails, Greedy returns the error (it used to panic inside best and add).
// A NaN similarity provokes it at q = inf; kernels must be finite, so this
// stands in for a non-converging decomposition, which finite input has not
// produced.
func TestGreedyReturnsEigenFailure(t *testing.T) {
	k := FuncKernel(6, func(i, j int) float64 {
		switch {
		case i == j:
			return 1
		case i+j == 5 && i*j == 6: // the pair (2, 3)
			return math.NaN()
		}
		return 0.3
	})
	res, err := Greedy(GreedyProblem{Kernel: k, Quality: []float64{1, 1, 1, 1, 1, 1}, K: 5, Q: OrderInf})
	if err == nil || !strings.Contains(err.Error(), "did not converge") {
		t.Fatalf("Greedy = %+v, %v; want the eigendecomposition error", res, err)
	}
}

// TestGreedyTiedWindows: GreedyResult.Tied[t] is pick t's tie window, the
// candidates whose qVS (scored from scratch, as bruteGreedy does) is within
// TieTol of the best, the pick its lowest index, with their values; checked
// on kernels with exact copies of items (identical rows and quality, so
// whole groups tie) and a prefix.
func TestGreedyTiedWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	sawTie := false
	for trial := 0; trial < 8; trial++ {
		const n = 16
		base := randomPSD(rng, n, 3)
		// Items 0..3 are copies of item 0 (similarity 1 among them), items
		// 6, 7 of item 6.
		src := func(i int) int {
			switch {
			case i < 4:
				return 0
			case i == 7:
				return 6
			}
			return i
		}
		K := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := base.At(src(i), src(j))
				if src(i) == src(j) {
					v = 1
				}
				K.SetSym(i, j, v)
			}
		}
		quality := make([]float64, n)
		for i := range quality {
			quality[i] = rng.Float64()
		}
		for i := range quality {
			quality[i] = quality[src(i)]
		}
		quality[0] = 1.5 // the copies of 0 lead the first pick, all tied
		var prefix []int
		if trial%2 == 1 {
			prefix = []int{9}
		}
		p := GreedyProblem{Kernel: DenseKernel(K), Quality: quality, Prefix: prefix, K: 4, Q: Order(1 + trial%3), Workers: 1}
		got, err := Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tied) != len(got.Picks) || len(got.TiedValues) != len(got.Picks) {
			t.Fatalf("trial %d: %d windows, %d value lists for %d picks", trial, len(got.Tied), len(got.TiedValues), len(got.Picks))
		}
		chosen := append([]int(nil), prefix...)
		for step, pick := range got.Picks {
			// Every candidate's qVS from scratch.
			vals := map[int]float64{}
			best := math.Inf(-1)
			for c := 0; c < n; c++ {
				if slices.Contains(chosen, c) {
					continue
				}
				set := append(slices.Clone(chosen), c)
				q := make([]float64, len(set))
				for a, i := range set {
					q[a] = quality[i]
				}
				v, err := QualityWeighted(Submatrix(p.Kernel, set), q, p.Q)
				if err != nil {
					t.Fatal(err)
				}
				vals[c], best = v, math.Max(best, v)
			}
			var want []int
			for c := 0; c < n; c++ {
				v, ok := vals[c]
				if !ok {
					continue
				}
				// Only clear cases: within 1e-12 of the best, or beyond 1e-8.
				if gap := (best - v) / best; gap <= 1e-12 {
					want = append(want, c)
				} else if gap < 1e-8 {
					t.Fatalf("trial %d pick %d: candidate %d within %g of the best: the case is not clear", trial, step, c, gap)
				}
			}
			if !slices.Equal(got.Tied[step], want) || want[0] != pick {
				t.Errorf("trial %d pick %d (%d): window %v, want %v", trial, step, pick, got.Tied[step], want)
			}
			for a, c := range got.Tied[step] {
				if !near(got.TiedValues[step][a], vals[c], 1e-9) {
					t.Errorf("trial %d pick %d: candidate %d's value %v, from scratch %v", trial, step, c, got.TiedValues[step][a], vals[c])
				}
			}
			sawTie = sawTie || len(want) > 1
			chosen = append(chosen, pick)
		}
	}
	if !sawTie {
		t.Error("no window held more than its pick: the test checks nothing")
	}
}
