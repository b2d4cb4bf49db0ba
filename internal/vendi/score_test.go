package vendi

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const tightTol = 1e-12 // closed forms computed in double precision

var testOrders = []Order{0, 0.1, 0.5, 1, 2, 5, OrderInf}

func near(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func TestIdentityAndAllOnes(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17} {
		I := mat.NewSymDense(n, nil)
		J := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			I.SetSym(i, i, 1)
			for j := i; j < n; j++ {
				J.SetSym(i, j, 1)
			}
		}
		for _, q := range testOrders {
			vi, err := Score(I, q)
			if err != nil || !near(vi, float64(n), tightTol) {
				t.Errorf("VS_%v(I_%d) = %v, %v; want %d", q, n, vi, err, n)
			}
			vj, err := Score(J, q)
			if err != nil || !near(vj, 1, 1e-9) {
				t.Errorf("VS_%v(ones_%d) = %v, %v; want 1", q, n, vj, err)
			}
		}
	}
}

// Hand-checked values (computed independently with NumPy).
func TestHandCheckedValues(t *testing.T) {
	K := mat.NewSymDense(3, []float64{1, .9, 0, .9, 1, 0, 0, 0, 1})
	if v, _ := Score(K, 1); !near(v, 2.1573004833739833, 1e-12) {
		t.Errorf("VS_1 = %.16g, want 2.1573004833739833", v)
	}
	k := func(a, b float64) float64 { return math.Exp(-math.Abs(a - b)) }
	if v, _ := ScoreSamples([]float64{0, 0, 10, 10, 20, 20}, k, 1); !near(v, 2.999999995877701, 1e-12) {
		t.Errorf("VS_1 = %.16g, want 2.999999995877701", v)
	}
	s := func(a float64) float64 { return math.Exp(-math.Abs(a - 2)) }
	xs := []float64{0, 0, 2}
	qv, err := QualityWeighted(SampleKernel(xs, k), []float64{s(0), s(0), s(2)}, 1)
	if err != nil || !near(qv, 0.7937056592747029, 1e-12) {
		t.Errorf("qVS_1 = %.16g (%v), want 0.7937056592747029", qv, err)
	}
}

func TestGreedyHandChecked(t *testing.T) {
	xs := []float64{0, 0, 2, 2, 4, 4}
	k := func(a, b float64) float64 { return math.Exp(-math.Abs(a - b)) }
	q := make([]float64, len(xs))
	for i, x := range xs {
		q[i] = math.Exp(-math.Abs(x - 2))
	}
	res, err := Greedy(GreedyProblem{Kernel: DenseKernel(SampleKernel(xs, k)), Quality: q, K: 3, Q: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := []float64{xs[res.Picks[0]], xs[res.Picks[1]], xs[res.Picks[2]]}
	if got[0] != 2 || got[1] != 0 || got[2] != 2 {
		t.Errorf("picked values %v, want [2 0 2]", got)
	}
	// The original code reports 1.2551553872451062 (score of the last
	// candidate examined); the qVS of the picks is 1.3338057427881422.
	if !near(res.Scores[2], 1.3338057427881422, 1e-12) {
		t.Errorf("final qVS_1 = %.16g, want 1.3338057427881422", res.Scores[2])
	}
}

func TestContinuityInQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	K := randomPSD(rng, 8, 3)
	v1, _ := Score(K, 1)
	for _, eps := range []float64{1e-6, -1e-6} {
		v, _ := Score(K, Order(1+eps))
		if !near(v, v1, 1e-5) {
			t.Errorf("VS_{1%+g} = %v, VS_1 = %v: not continuous", eps, v, v1)
		}
	}
	vinf, _ := Score(K, OrderInf)
	v200, _ := Score(K, 200)
	if !near(vinf, v200, 0.02) {
		t.Errorf("VS_200 = %v does not approach VS_inf = %v", v200, vinf)
	}
	v0, _ := Score(K, 0)
	vs, _ := Score(K, 1e-9)
	if !near(v0, vs, 1e-6) {
		t.Errorf("VS_1e-9 = %v does not approach VS_0 = %v", vs, v0)
	}
	// VS_q is non-increasing in q.
	prev := math.Inf(1)
	for _, q := range testOrders {
		v, _ := Score(K, q)
		if v > prev*(1+1e-12) {
			t.Errorf("VS_%v = %v > previous %v", q, v, prev)
		}
		prev = v
	}
}

func TestOrder2MatchesEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	K := randomPSD(rng, 10, 4)
	v2, _ := Score(K, 2)
	eig, _ := Eigenvalues(K)
	var s, s2 float64
	for _, l := range eig {
		s += l
		s2 += l * l
	}
	if !near(v2, s*s/s2, 1e-12) {
		t.Errorf("VS_2 = %v, eigen form %v", v2, s*s/s2)
	}
}

func TestEmbeddingsUseGramTrick(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, dims := range [][2]int{{30, 4}, {4, 30}} {
		n, d := dims[0], dims[1]
		X := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				X.Set(i, j, rng.NormFloat64())
			}
		}
		cos := func(a, b int) float64 {
			ra, rb := X.RawRowView(a), X.RawRowView(b)
			return mat.Dot(mat.NewVecDense(d, ra), mat.NewVecDense(d, rb)) /
				(mat.Norm(mat.NewVecDense(d, ra), 2) * mat.Norm(mat.NewVecDense(d, rb), 2))
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		K := SampleKernel(idx, cos)
		for _, q := range testOrders {
			want, _ := Score(K, q)
			got, err := scoreEmbeddings(X, Cosine, q)
			if err != nil || !near(got, want, 1e-9) {
				t.Errorf("n=%d d=%d q=%v: embeddings %v (%v), kernel %v", n, d, q, got, err, want)
			}
		}
	}
	if _, err := scoreEmbeddings(mat.NewDense(2, 2, []float64{1, 0, 0, 0}), Cosine, 1); err == nil {
		t.Error("zero row: want error")
	}
}

func TestWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	K := randomPSD(rng, 6, 6)
	Kn, _ := Normalize(K)
	u := []float64{1, 1, 1, 1, 1, 1}
	for _, q := range testOrders {
		a, _ := weightedScore(Kn, u, q)
		b, _ := Score(Kn, q)
		if !near(a, b, 1e-9) {
			t.Errorf("q=%v: uniform weights %v, unweighted %v", q, a, b)
		}
	}
	// Weight on a single item: VS = 1.
	if v, _ := weightedScore(Kn, []float64{0, 0, 3, 0, 0, 0}, 1); !near(v, 1, 1e-12) {
		t.Errorf("point mass: VS = %v, want 1", v)
	}
	if _, err := weightedScore(Kn, []float64{1, -1, 1, 1, 1, 1}, 1); err == nil {
		t.Error("negative weight: want error")
	}
}

func TestEdgeCases(t *testing.T) {
	one := mat.NewSymDense(1, []float64{1})
	for _, q := range testOrders {
		if v, err := Score(one, q); err != nil || v != 1 {
			t.Errorf("n=1, q=%v: %v %v", q, v, err)
		}
	}
	if v, err := Score(&mat.SymDense{}, 1); err != nil || v != 0 {
		t.Errorf("empty: %v %v", v, err)
	}
	nan := mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	if _, err := Score(nan, 1); err == nil {
		t.Error("NaN kernel: want error")
	}
	if _, err := Score(one, -1); err == nil {
		t.Error("q < 0: want error")
	}
	if _, err := QualityWeighted(one, []float64{-0.5}, 1); err == nil {
		t.Error("negative quality: want error")
	}
	if _, err := QualityWeighted(one, []float64{math.NaN()}, 1); err == nil {
		t.Error("NaN quality: want error")
	}
	// Zero similarity: VS = n for all q; duplicates: VS_0 = number of distinct items.
	dup := mat.NewSymDense(3, []float64{1, 1, 0, 1, 1, 0, 0, 0, 1})
	if v, _ := Score(dup, 0); v != 2 {
		t.Errorf("VS_0 with a duplicate = %v, want 2", v)
	}
	if v, _ := Score(dup, OrderInf); !near(v, 1.5, tightTol) {
		t.Errorf("VS_inf with a duplicate = %v, want 1.5", v)
	}
	// Indefinite kernel: negative eigenvalues are clipped.
	ind := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, -1
	if v, _ := Score(ind, 1); !near(v, 1, tightTol) {
		t.Errorf("indefinite: VS_1 = %v, want 1 (only eigenvalue 3 kept)", v)
	}
}

// randomPSD returns a normalised PSD kernel of n items of rank <= r.
func randomPSD(rng *rand.Rand, n, r int) *mat.SymDense {
	X := mat.NewDense(n, r, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	var K mat.SymDense
	K.SymOuterK(1, X)
	Kn, _ := Normalize(&K)
	return Kn
}

// TestHasPositiveEigenvalue checks the shortcuts of HasPositiveEigenvalue
// against the largest eigenvalue of the full matrix (brute force) on hand
// cases and on random kernels with a non-positive diagonal, where only the
// spectrum decides; and that Score refuses exactly the kernels it rejects.
func TestHasPositiveEigenvalue(t *testing.T) {
	cases := []struct {
		name string
		k    Kernel
		want bool
	}{
		{"zero 3x3", DenseKernel(symFrom(3, make([]float64, 9))), false},
		{"-I", DenseKernel(symFrom(2, []float64{-1, 0, 0, -1})), false},
		// Eigenvalues ±1: zero diagonal, yet a positive eigenvalue.
		{"[[0,1],[1,0]]", DenseKernel(symFrom(2, []float64{0, 1, 1, 0})), true},
		// Eigenvalues -1 ± 0.5: negative definite.
		{"[[-1,.5],[.5,-1]]", DenseKernel(symFrom(2, []float64{-1, .5, .5, -1})), false},
		{"one positive diagonal", DenseKernel(symFrom(2, []float64{-5, 0, 0, 1e-3})), true},
		{"zero feature rows", FeatureMatrix{X: mat.NewDense(3, 2, nil)}, false},
		{"one nonzero feature row", FeatureMatrix{X: mat.NewDense(3, 2, []float64{0, 0, 0, 0, 1e-3, 0})}, true},
	}
	for _, c := range cases {
		got, err := HasPositiveEigenvalue(c.k)
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(6)
		K := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			K.SetSym(i, i, -rng.Float64()) // diagonal <= 0: the spectrum decides
			for j := i + 1; j < n; j++ {
				K.SetSym(i, j, 0.8*rng.NormFloat64())
			}
		}
		var es mat.EigenSym
		if !es.Factorize(K, false) {
			t.Fatal("eigendecomposition failed")
		}
		vals := es.Values(nil)
		want := vals[len(vals)-1] > 0
		got, err := HasPositiveEigenvalue(DenseKernel(K))
		if err != nil || got != want {
			t.Fatalf("trial %d: got %v, %v; λ_max = %v", trial, got, err, vals[len(vals)-1])
		}
		_, err = Score(K, 1)
		if refused := errors.Is(err, ErrNoPositiveEigenvalue); refused != !want {
			t.Fatalf("trial %d: Score error %v with λ_max = %v", trial, err, vals[len(vals)-1])
		}
	}
}

// TestEigenvaluesInPlace: decomposing a SymDense where it lies gives
// Eigenvalues' values bit for bit, whatever its lower triangle holds (only
// the upper one is K), and Normalize equals NormalizeInPlace on a copy.
func TestEigenvaluesInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for _, n := range []int{1, 7, 300} { // 300 reaches LAPACK in the openblas build
		data := make([]float64, n*n)
		for i := range data {
			data[i] = rng.NormFloat64()
		}
		for i := 0; i < n; i++ {
			data[i*n+i] = 2 + rng.Float64()
		}
		K := mat.NewSymDense(n, data)
		want, err := Eigenvalues(K)
		if err != nil {
			t.Fatal(err)
		}
		norm, err := Normalize(K)
		if err != nil {
			t.Fatal(err)
		}
		K2 := mat.NewSymDense(n, slices.Clone(data))
		NormalizeInPlace(K2)
		if !mat.Equal(norm, K2) {
			t.Fatalf("n=%d: NormalizeInPlace differs from Normalize", n)
		}
		got, err := EigenvaluesInPlace(K)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: eigenvalue %d = %v, Eigenvalues %v", n, i, got[i], want[i])
			}
		}
	}
	if _, err := Normalize(mat.NewSymDense(2, []float64{1, 0, 0, math.Inf(1)})); err == nil || !strings.Contains(err.Error(), "diagonal entry 1") {
		t.Errorf("Inf diagonal: %v", err)
	}
}

// TestCheapChecksBeforeEigendecomposition: Score refuses kernels with no
// positive eigenvalue that O(n²) reads reveal (zero, -I, negative
// diagonally dominant) without calling the eigensolver, and
// PositiveEigenvalueCheaply, when it answers, agrees with the spectrum on
// random small kernels with zero or negative diagonals (brute force).
func TestCheapChecksBeforeEigendecomposition(t *testing.T) {
	saved := symEigenvalues
	defer func() { symEigenvalues = saved }()
	calls := 0
	symEigenvalues = func(n int, a, w []float64) bool { calls++; return saved(n, a, w) }
	const n = 500
	negI := mat.NewSymDense(n, nil)
	dom := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		negI.SetSym(i, i, -1)
		dom.SetSym(i, i, -3)
		if i > 0 {
			dom.SetSym(i-1, i, 1) // rows sum |off| <= 2 < 3
		}
	}
	for name, K := range map[string]*mat.SymDense{"zero": mat.NewSymDense(n, nil), "-I": negI, "dominant": dom} {
		if _, err := Score(K, 1); !errors.Is(err, ErrNoPositiveEigenvalue) || calls != 0 {
			t.Errorf("%s: error %v after %d eigendecompositions; want ErrNoPositiveEigenvalue after none", name, err, calls)
		}
	}
	symEigenvalues = saved
	rng := rand.New(rand.NewPCG(23, 12))
	answered := 0
	for trial := 0; trial < 500; trial++ {
		m := 1 + rng.IntN(5)
		K := mat.NewSymDense(m, nil)
		for i := 0; i < m; i++ {
			if rng.IntN(2) == 0 {
				K.SetSym(i, i, -2*rng.Float64())
			} // else an exact zero diagonal entry
			for j := i + 1; j < m; j++ {
				if rng.IntN(2) == 0 {
					K.SetSym(i, j, 0.5*rng.NormFloat64())
				}
			}
		}
		has, known := PositiveEigenvalueCheaply(DenseKernel(K))
		if !known {
			continue
		}
		answered++
		var es mat.EigenSym
		if !es.Factorize(K, false) {
			t.Fatal("eigendecomposition failed")
		}
		vals := es.Values(nil)
		if want := vals[m-1] > 1e-12; has != want {
			t.Fatalf("trial %d: cheap answer %v, λ_max = %v\n%v", trial, has, vals[m-1], mat.Formatted(K))
		}
	}
	if answered < 250 {
		t.Errorf("the cheap checks answered %d of 500 cases; expected most", answered)
	}
}
