package surrogate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// smallProblem is a pool of 40 fingerprints with 12 scored items whose
// scores are a draw of GP(3, 4 K) plus noise of variance 0.04 (so the
// likelihood's optimum is inside the search box).
func smallProblem(seed uint64) (kern featureKernel, n int, obs []int, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	pool := randomPool(rng, 40, 0.3)
	kern = newTanimotoKernel(pool.Bits)
	perm := rng.Perm(40)
	obs = perm[:12]
	K := gram(kern, obs, 1)
	for i := range obs {
		K[i*12+i] += 1e-9
	}
	L, ok := cholesky(K, 12)
	if !ok {
		panic("test kernel not positive definite")
	}
	eps := make([]float64, 12)
	for i := range eps {
		eps[i] = rng.NormFloat64()
	}
	for i := range obs {
		v := 3.0
		for j := 0; j <= i; j++ {
			v += 2 * L.Data[i*L.Stride+j] * eps[j]
		}
		y = append(y, v+0.2*rng.NormFloat64())
	}
	return kern, 40, obs, y
}

// denseK is the n x n kernel matrix of items 0..n-1.
func denseK(k featureKernel, n int) *mat.Dense {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return mat.NewDense(n, n, gram(k, all, 1))
}

func sub(K *mat.Dense, rows, cols []int) *mat.Dense {
	S := mat.NewDense(len(rows), len(cols), nil)
	for a, i := range rows {
		for b, j := range cols {
			S.Set(a, b, K.At(i, j))
		}
	}
	return S
}

// posteriorTol: the brute force inverts a 12 x 12 (or 6 x 6) matrix with
// condition number up to ~1e6 (noise ratio >= 1e-6): relative round-off
// ~1e-16·1e6 on unit-scale values.
const posteriorTol = 1e-8

func TestExactPosteriorMatchesDense(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		kern, n, obs, y := smallProblem(seed)
		m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 100, fitSubset: 100, seed: 1, workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if m.Form != formExact {
			t.Fatalf("form %s, want exact", m.Form)
		}
		K := denseK(kern, n)
		h := m.Hyper
		r := h.NoiseVar / h.SignalVar
		A := sub(K, obs, obs)
		for i := range obs {
			A.Set(i, i, A.At(i, i)+r)
		}
		var Ainv mat.Dense
		if err := Ainv.Inverse(A); err != nil {
			t.Fatal(err)
		}
		z := make([]float64, len(y))
		for i, v := range y {
			z[i] = (v-m.YMean)/m.YScale - h.Mean
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		mu, sd := make([]float64, n), make([]float64, n)
		m.Predict(all, mu, sd)
		for x := 0; x < n; x++ {
			kx := sub(K, []int{x}, obs)
			var t1 mat.Dense
			t1.Mul(kx, &Ainv)
			wantMu := h.Mean + mat.Dot(t1.RowView(0), mat.NewVecDense(len(z), z))
			wantVar := h.SignalVar * (1 - mat.Dot(t1.RowView(0), kx.RowView(0)))
			if math.Abs(mu[x]-wantMu) > posteriorTol || math.Abs(sd[x]*sd[x]-math.Max(wantVar, 0)) > posteriorTol {
				t.Errorf("seed %d item %d: mu %v sd² %v, dense %v %v", seed, x, mu[x], sd[x]*sd[x], wantMu, wantVar)
			}
		}
	}
}

func TestDTCPosteriorMatchesDenseFormulas(t *testing.T) {
	kern, n, obs, y := smallProblem(4)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 5, inducing: 6, fitSubset: 100, seed: 2, workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Form != formDTC || len(m.Active) != 6 {
		t.Fatalf("form %s with %d active, want dtc with 6", m.Form, len(m.Active))
	}
	K := denseK(kern, n)
	h := m.Hyper
	r := h.NoiseVar / h.SignalVar
	U := m.Active
	Kuu, Kud := sub(K, U, U), sub(K, U, obs)
	var B mat.Dense
	B.Mul(Kud, Kud.T())
	var rK mat.Dense
	rK.Scale(r, Kuu)
	B.Add(&B, &rK)
	var Binv, Kuuinv mat.Dense
	if err := Binv.Inverse(&B); err != nil {
		t.Fatal(err)
	}
	if err := Kuuinv.Inverse(Kuu); err != nil {
		t.Fatal(err)
	}
	e := make([]float64, len(y))
	for i, v := range y {
		e[i] = (v-m.YMean)/m.YScale - h.Mean
	}
	var v mat.VecDense
	v.MulVec(Kud, mat.NewVecDense(len(e), e))
	var w mat.VecDense
	w.MulVec(&Binv, &v)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	mu, sd := make([]float64, n), make([]float64, n)
	m.Predict(all, mu, sd)
	// jitter 1e-8 on K_UU's and B's diagonals, amplified by their condition
	const tol = 1e-5
	for x := 0; x < n; x++ {
		kx := mat.NewVecDense(len(U), sub(K, []int{x}, U).RawRowView(0))
		wantMu := h.Mean + mat.Dot(kx, &w)
		var a, b mat.VecDense
		a.MulVec(&Kuuinv, kx)
		b.MulVec(&Binv, kx)
		wantVar := h.SignalVar * (1 - mat.Dot(kx, &a) + r*mat.Dot(kx, &b))
		if math.Abs(mu[x]-wantMu) > tol || math.Abs(sd[x]*sd[x]-math.Max(wantVar, 0)) > tol {
			t.Errorf("item %d: mu %v sd² %v, dense DTC %v %v", x, mu[x], sd[x]*sd[x], wantMu, wantVar)
		}
	}
}

// With every label inducing, DTC is the exact GP (Quiñonero-Candela and
// Rasmussen 2005): the two code paths must agree.
func TestDTCWithAllLabelsIsExact(t *testing.T) {
	kern, n, obs, y := smallProblem(5)
	ex, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 12, fitSubset: 100, seed: 3, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	dtc, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 1, inducing: 12, fitSubset: 100, seed: 3, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if dtc.Form != formDTC || ex.Hyper != dtc.Hyper {
		t.Fatalf("forms %s/%s, hypers %+v / %+v", ex.Form, dtc.Form, ex.Hyper, dtc.Hyper)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	m1, s1, m2, s2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	ex.Predict(all, m1, s1)
	dtc.Predict(all, m2, s2)
	for x := range all {
		if math.Abs(m1[x]-m2[x]) > 1e-5 || math.Abs(s1[x]*s1[x]-s2[x]*s2[x]) > 1e-5 {
			t.Errorf("item %d: exact %v %v, dtc %v %v", x, m1[x], s1[x], m2[x], s2[x])
		}
	}
}

// The fit's hyperparameters: the closed-form profile likelihood equals
// the likelihood computed by Cholesky, and no point of a grid around the
// optimum in (m, s², σ²) is higher.
func TestFitMaximisesMarginalLikelihood(t *testing.T) {
	kern, _, obs, y := smallProblem(6)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 100, fitSubset: 100, seed: 1, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	K := gram(kern, obs, 1)
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = (v - m.YMean) / m.YScale
	}
	best, err := logMarginalLikelihood(K, z, m.Hyper)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(best-m.Hyper.LogML) > 1e-9 {
		t.Fatalf("profile log-likelihood %v, Cholesky %v", m.Hyper.LogML, best)
	}
	h := m.Hyper
	for _, dm := range []float64{-0.05, 0, 0.05} {
		for _, fs := range []float64{0.9, 1, 1.1} {
			for _, fn := range []float64{0.8, 1, 1.25} {
				p := Hyper{Mean: h.Mean + dm, SignalVar: h.SignalVar * fs, NoiseVar: h.NoiseVar * fn}
				if r := p.NoiseVar / p.SignalVar; r < noiseRatioMin || r > noiseRatioMax || p.SignalVar < signalVarMin || p.SignalVar > signalVarMax {
					continue // outside the box the fit searches
				}
				ll, err := logMarginalLikelihood(K, z, p)
				if err != nil {
					t.Fatal(err)
				}
				// the golden section ends within ~1e-8 in log r
				if ll > best+1e-6 {
					t.Errorf("log-likelihood %v at %+v beats the fit's %v at %+v", ll, p, best, h)
				}
			}
		}
	}
}

// A stationary kernel's length scale is the best of the grid.
func TestFitChoosesLengthScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n := 60
	x := make([][]float64, n)
	var obs []int
	var y []float64
	for i := range x {
		x[i] = []float64{rng.Float64() * 10}
		obs = append(obs, i)
		y = append(y, math.Sin(x[i][0])) // a period of 2π: ℓ ~ 1
	}
	kern := stationaryKernel{rowsKernel: rowsKernel{dense: x}, ell: 1}
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 100, fitSubset: 100, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	med := kern.medianDistance(obs)
	for _, f := range lengthFactors {
		h, err := fitHyper(gram(kern.WithLengthScale(f*med), obs, 1), standardised(y))
		if err != nil {
			continue
		}
		if h.LogML > m.Hyper.LogML+1e-9 {
			t.Errorf("length scale %v has log-likelihood %v above the chosen %v (%v)", f*med, h.LogML, m.Hyper.LengthScale, m.Hyper.LogML)
		}
	}
	if m.Hyper.LengthScale <= 0 {
		t.Errorf("length scale %v", m.Hyper.LengthScale)
	}
}

func standardised(y []float64) []float64 {
	var mean, ss float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(y)-1))
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = (v - mean) / sd
	}
	return z
}

// solveRowsLT agrees with blas64.Trsm(Right, Trans) across several column
// blocks, a partial last one included.
func TestSolveRowsLTMatchesTrsm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n, rows = 2*solveBlock + 37, 5
	A := mat.NewSymDense(n, nil)
	G := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	A.SymOuterK(1.0/n, G)
	for i := 0; i < n; i++ {
		A.SetSym(i, i, A.At(i, i)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		t.Fatal("not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	b := make([]float64, rows*n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	want := append([]float64(nil), b...)
	blas64.Trsm(blas.Right, blas.Trans, 1, L.RawTriangular(), blas64.General{Rows: rows, Cols: n, Stride: n, Data: want})
	solveRowsLT(L.RawTriangular(), b, rows)
	for i := range b {
		if math.Abs(b[i]-want[i]) > 1e-10*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("entry %d: %v, Trsm %v", i, b[i], want[i])
		}
	}
}

// exactModel is the exact posterior on obs with fixed hyperparameters
// (mean 0.2, signal variance s2, noise ratio r) and targets z.
func exactModel(t *testing.T, kern featureKernel, obs []int, z []float64, s2, r float64) *Model {
	t.Helper()
	m := &Model{Hyper: Hyper{Mean: 0.2, SignalVar: s2, NoiseVar: r * s2}, kern: kern, ratio: r, workers: 2}
	if err := m.conditionExact(obs, z); err != nil {
		t.Fatal(err)
	}
	return m
}

// predictBound's sd bound is at least the exact posterior sd of every
// item, for every number of nearest labels, at noise ratios from nearly
// noiseless to noisy, with near-duplicate fingerprints among the labels;
// with a single label it is the closed form s² (1 - k²/(1 + r)) (plus the
// slack), which is then the exact variance; with as many labels as the
// bound conditions on it equals the exact sd.
func TestSdBoundAboveExact(t *testing.T) {
	defer func(b int) { boundLabels = b }(boundLabels)
	rng := rand.New(rand.NewPCG(12, 12))
	for trial := 0; trial < 4; trial++ {
		pool := randomPool(rng, 300, 0.1+0.1*float64(trial))
		for i := 0; i < 20; i++ { // near duplicates: item 2i+1 is item 2i with one bit flipped
			w := append([]uint64(nil), pool.Bits[2*i]...)
			w[0] ^= 1 << (i % 64)
			pool.Bits[2*i+1] = w
		}
		kern := newTanimotoKernel(pool.Bits)
		obs := rng.Perm(100)[:60] // duplicates among the labels and between labels and items
		z := make([]float64, len(obs))
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		all := make([]int, pool.Len())
		for i := range all {
			all[i] = i
		}
		for _, r := range []float64{1e-6, 1e-2, 0.5, 5} {
			s2 := 0.3 + 2*rng.Float64()
			m := exactModel(t, kern, obs, z, s2, r)
			mu, sd := make([]float64, len(all)), make([]float64, len(all))
			m.Predict(all, mu, sd)
			for _, bl := range []int{1, 2, 4, 8} {
				boundLabels = bl
				mu2, ub := make([]float64, len(all)), make([]float64, len(all))
				m.predictBound(all, mu2, ub)
				for x := range all {
					if mu2[x] != mu[x] {
						t.Fatalf("predictBound's mean %v, Predict's %v", mu2[x], mu[x])
					}
					if ub[x] < sd[x] {
						t.Fatalf("trial %d r=%g m=%d item %d: bound %v below the exact sd %v", trial, r, bl, x, ub[x], sd[x])
					}
				}
			}
			// one label: the closed form, and the exact sd
			one := exactModel(t, kern, obs[:1], z[:1], s2, r)
			one.Predict(all, mu, sd)
			boundLabels = 1
			ub := make([]float64, len(all))
			one.predictBound(all, mu, ub)
			for x := range all {
				k := Tanimoto(pool.Bits[x], pool.Bits[obs[0]])
				want := math.Sqrt(s2 * (1 - k*k/(1+r) + sdBoundSlack))
				if math.Abs(ub[x]-want) > 1e-12 || math.Abs(ub[x]*ub[x]-sd[x]*sd[x]-sdBoundSlack*s2) > 1e-9 {
					t.Fatalf("one label, item %d: bound %v, closed form %v, exact sd %v", x, ub[x], want, sd[x])
				}
			}
			// four labels, bound on four: the exact posterior
			four := exactModel(t, kern, obs[:4], z[:4], s2, r)
			four.Predict(all, mu, sd)
			boundLabels = 4
			four.predictBound(all, mu, ub)
			for x := range all {
				if math.Abs(ub[x]*ub[x]-sd[x]*sd[x]-sdBoundSlack*s2) > 1e-9 {
					t.Fatalf("four labels, item %d: bound %v, exact sd %v", x, ub[x], sd[x])
				}
			}
		}
	}
}
