package bayesopt

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func TestMatern52(t *testing.T) {
	// Closed form at r = 1: (1 + √5 + 5/3) e^{-√5}.
	want := (1 + math.Sqrt(5) + 5.0/3) * math.Exp(-math.Sqrt(5))
	if got := matern52(1); math.Abs(got-want) > 1e-15 {
		t.Errorf("Matern52(1) = %v want %v", got, want)
	}
	if matern52(0) != 1 {
		t.Errorf("Matern52(0) = %v", matern52(0))
	}
}

// TestGPPosteriorTwoPoints checks the posterior at a test point against the
// closed form written out with the explicit 2x2 inverse.
func TestGPPosteriorTwoPoints(t *testing.T) {
	const tol = 1e-12 // a handful of floating-point operations
	h := gpHyper{Lengthscales: []float64{0.3}, SignalVariance: 1.7, NoiseVariance: 0.05, Mean: 0.2}
	x := mat.NewDense(2, 1, []float64{0.1, 0.4})
	y := []float64{3, 5}
	g, err := newGP(x, y, h)
	if err != nil {
		t.Fatal(err)
	}
	// Standardisation: mean 4, sample sd sqrt(2).
	loc, scale := 4.0, math.Sqrt(2)
	z := []float64{(3 - loc) / scale, (5 - loc) / scale}
	k := func(a, b float64) float64 { return h.SignalVariance * matern52(math.Abs(a-b)/0.3) }
	k11, k12, k22 := k(0.1, 0.1)+h.NoiseVariance, k(0.1, 0.4), k(0.4, 0.4)+h.NoiseVariance
	det := k11*k22 - k12*k12
	inv := [2][2]float64{{k22 / det, -k12 / det}, {-k12 / det, k11 / det}}
	for _, xs := range []float64{0.1, 0.25, 0.9} {
		ks := [2]float64{k(0.1, xs), k(0.4, xs)}
		r := [2]float64{z[0] - h.Mean, z[1] - h.Mean}
		mu, v := h.Mean, h.SignalVariance
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				mu += ks[a] * inv[a][b] * r[b]
				v -= ks[a] * inv[a][b] * ks[b]
			}
		}
		wantMean, wantVar := loc+scale*mu, scale*scale*v
		m, vv := g.Predict(mat.NewDense(1, 1, []float64{xs}))
		if math.Abs(m[0]-wantMean) > tol || math.Abs(vv[0]-wantVar) > tol {
			t.Errorf("x*=%v: got mean %v var %v, want %v %v", xs, m[0], vv[0], wantMean, wantVar)
		}
	}
	// Log marginal likelihood: -½ rᵀK⁻¹r - ½ log det K - log 2π (n = 2).
	r := [2]float64{z[0] - h.Mean, z[1] - h.Mean}
	quad := r[0]*inv[0][0]*r[0] + 2*r[0]*inv[0][1]*r[1] + r[1]*inv[1][1]*r[1]
	want := -0.5*quad - 0.5*math.Log(det) - math.Log(2*math.Pi)
	if got := g.LogMarginalLikelihood(); math.Abs(got-want) > tol {
		t.Errorf("LML %v want %v", got, want)
	}
}

func randomProblem(rng *rand.Rand, n, d int) (*mat.Dense, []float64) {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < d; j++ {
			v := rng.Float64()
			x.Set(i, j, v)
			s += math.Sin(3*v + float64(j))
		}
		y[i] = s + 0.1*rng.NormFloat64()
	}
	return x, y
}

// TestLMLGradient compares the analytic gradient with central differences.
func TestLMLGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const (
		step = 1e-5
		tol  = 1e-6 // central differences: O(step^2) truncation + O(eps/step) rounding, relative to |grad|+1
	)
	for _, c := range []struct {
		n, d    int
		cluster bool // two tight clusters and short lengthscales: tests the BLAS distance expansion
	}{{1, 1, false}, {5, 2, false}, {30, 4, false}, {20, 3, true}} {
		x, y := randomProblem(rng, c.n, c.d)
		z, _, _ := Standardize(y)
		h := gpHyper{Lengthscales: make([]float64, c.d), SignalVariance: 0.8, NoiseVariance: 0.03, Mean: 0.1}
		for i := range h.Lengthscales {
			h.Lengthscales[i] = 0.2 + 0.3*rng.Float64()
			if c.cluster {
				h.Lengthscales[i] = 0.02
			}
		}
		if c.cluster {
			for i := 0; i < c.n; i++ {
				for j := 0; j < c.d; j++ {
					x.Set(i, j, 0.3+0.4*float64(i%2)+0.02*rng.Float64())
				}
			}
		}
		_, grad, err := lmlGrad(x, z, h)
		if err != nil {
			t.Fatal(err)
		}
		at := func(i int, delta float64) float64 {
			hh := cloneHyper(h)
			switch {
			case i < c.d:
				hh.Lengthscales[i] *= math.Exp(delta)
			case i == c.d:
				hh.SignalVariance *= math.Exp(delta)
			case i == c.d+1:
				hh.NoiseVariance *= math.Exp(delta)
			default:
				hh.Mean += delta
			}
			v, _, err := lmlGrad(x, z, hh)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		for i := range grad {
			fd := (at(i, step) - at(i, -step)) / (2 * step)
			if math.Abs(fd-grad[i]) > tol*(1+math.Abs(fd)) {
				t.Errorf("n=%d d=%d param %d: analytic %v finite difference %v", c.n, c.d, i, grad[i], fd)
			}
		}
		// The value agrees with a GP conditioned on the same hyperparameters.
		v, _, _ := lmlGrad(x, z, h)
		g, _ := newGP(x, y, h)
		if math.Abs(v-g.LogMarginalLikelihood()) > 1e-9 {
			t.Errorf("lmlGrad %v vs GP.LogMarginalLikelihood %v", v, g.LogMarginalLikelihood())
		}
	}
}

// TestFitGPRecoversLengthscale draws a 1-d function from a GP with a known
// lengthscale and checks the fitted one is close and the fit raised the
// likelihood over the starting point.
func TestFitGPRecoversLengthscale(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, ell = 120, 0.15
	x := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, rng.Float64())
	}
	// Prior draw: f = L ξ with L L^T = K + 1e-3 I (the jitter is the noise).
	K := mat.NewSymDense(n, nil)
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			v := matern52(math.Abs(x.At(a, 0)-x.At(b, 0)) / ell)
			if a == b {
				v += 1e-3
			}
			K.SetSym(a, b, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(K) {
		t.Fatal("prior covariance not PD")
	}
	var L mat.TriDense
	chol.LTo(&L)
	zv := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		zv.SetVec(i, rng.NormFloat64())
	}
	var f mat.VecDense
	f.MulVec(&L, zv)
	y := make([]float64, n)
	for i := range y {
		y[i] = 10 + 3*f.AtVec(i)
	}
	g, err := fitGP(x, y, gpFitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := g.Hyper()
	if h.Lengthscales[0] < ell/2 || h.Lengthscales[0] > ell*2 {
		t.Errorf("fitted lengthscale %v, true %v", h.Lengthscales[0], ell)
	}
	init := gpHyper{Lengthscales: []float64{0.5}, SignalVariance: 1, NoiseVariance: 0.005}
	g0, _ := newGP(x, y, init)
	if g.LogMarginalLikelihood() <= g0.LogMarginalLikelihood() {
		t.Errorf("fit LML %v not above the start's %v", g.LogMarginalLikelihood(), g0.LogMarginalLikelihood())
	}
	b := defaultGPBounds
	if h.SignalVariance < b.SignalVariance[0] || h.SignalVariance > b.SignalVariance[1] || h.NoiseVariance < b.NoiseVariance[0] || h.NoiseVariance > b.NoiseVariance[1] {
		t.Errorf("hyperparameters outside the bounds: %+v", h)
	}
}

func TestFitGPBoundsAndEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// Pure noise pushes the lengthscale and noise to their bounds; they must
	// stay inside.
	x := mat.NewDense(40, 3, nil)
	y := make([]float64, 40)
	for i := range y {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.Float64())
		}
		y[i] = rng.NormFloat64()
	}
	g, err := fitGP(x, y, gpFitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := defaultGPBounds
	for _, l := range g.Hyper().Lengthscales {
		if l < b.Lengthscale[0] || l > b.Lengthscale[1] {
			t.Errorf("lengthscale %v outside %v", l, b.Lengthscale)
		}
	}
	// One point, duplicated points and constant targets all fit.
	for name, c := range map[string]struct {
		x []float64
		y []float64
	}{
		"n=1":        {[]float64{0.3, 0.3}, []float64{2}},
		"duplicates": {[]float64{0.3, 0.3, 0.3, 0.3, 0.7, 0.1}, []float64{1, 1, 2}},
		"constant":   {[]float64{0.1, 0.1, 0.5, 0.5, 0.9, 0.9}, []float64{4, 4, 4}},
	} {
		n := len(c.y)
		g, err := fitGP(mat.NewDense(n, 2, c.x), c.y, gpFitOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m, v := g.Predict(mat.NewDense(1, 2, []float64{0.3, 0.3}))
		if math.IsNaN(m[0]) || math.IsNaN(v[0]) || v[0] < 0 {
			t.Errorf("%s: prediction %v %v", name, m, v)
		}
	}
	if _, err := fitGP(mat.NewDense(2, 1, []float64{0, 1}), []float64{1, math.NaN()}, gpFitOptions{}); err == nil {
		t.Error("NaN target: no error")
	}
}

// TestJointSamplesMatchPosterior compares the sample mean and covariance of
// many joint Thompson samples with the posterior on a small candidate set.
func TestJointSamplesMatchPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randomProblem(rng, 15, 2)
	g, err := newGP(x, y, gpHyper{Lengthscales: []float64{0.3, 0.5}, SignalVariance: 1, NoiseVariance: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	const m, k = 6, 40000
	xs := mat.NewDense(m, 2, nil)
	for i := 0; i < m; i++ {
		xs.Set(i, 0, 0.1+0.15*float64(i))
		xs.Set(i, 1, 0.5)
	}
	mean, cov := g.PosteriorCovariance(xs)
	pm, pv := g.Predict(xs)
	for i := range mean {
		if math.Abs(mean[i]-pm[i]) > 1e-9 || math.Abs(cov.At(i, i)-pv[i]) > 1e-9 {
			t.Fatalf("PosteriorCovariance and Predict disagree at %d", i)
		}
	}
	s, err := g.JointSamples(xs, k, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, s, mean, cov, 6)
	// Sample s does not depend on how many are drawn.
	s3, _ := g.JointSamples(xs, 3, rand.New(rand.NewPCG(2, 2)))
	s5, _ := g.JointSamples(xs, 5, rand.New(rand.NewPCG(2, 2)))
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			if s3[j][i] != s5[j][i] {
				t.Fatalf("sample %d changes with the number of samples drawn", j)
			}
		}
	}
}

// TestPathwiseSamplesMatchPosterior: pathwise samples, each with its own
// random features, have the exact posterior mean and covariance
// (PosteriorCovariance) within Monte Carlo error, at points inside the data,
// between them and far away (where the posterior is the prior, so the
// random-feature prior itself is checked). Sample s does not depend on k.
func TestPathwiseSamplesMatchPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randomProblem(rng, 15, 2)
	g, err := newGP(x, y, gpHyper{Lengthscales: []float64{0.3, 0.5}, SignalVariance: 1.3, NoiseVariance: 0.01, Mean: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	const m, k = 6, 6000
	xs := mat.NewDense(m, 2, []float64{0.1, 0.5, 0.4, 0.5, 0.7, 0.2, 0.95, 0.95, 3, 3, 3.2, 3})
	mean, cov := g.PosteriorCovariance(xs)
	srng := rand.New(rand.NewPCG(2, 2))
	s := make([][]float64, k)
	for a := range s {
		one, err := g.PathwiseSamples(xs, 1, 128, srng)
		if err != nil {
			t.Fatal(err)
		}
		s[a] = one[0]
	}
	// 8 standard errors for the covariances, since 128 random features are
	// a little heavier-tailed than a Gaussian.
	checkMoments(t, s, mean, cov, 8)
	s3, _ := g.PathwiseSamples(xs, 3, 64, rand.New(rand.NewPCG(4, 4)))
	s5, _ := g.PathwiseSamples(xs, 5, 64, rand.New(rand.NewPCG(4, 4)))
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			if s3[j][i] != s5[j][i] {
				t.Fatalf("sample %d changes with the number of samples drawn", j)
			}
		}
	}
	if _, err := g.PathwiseSamples(mat.NewDense(2, 3, nil), 1, 8, rng); err == nil {
		t.Error("3-d points for a 2-d GP: want an error")
	}
}

// TestMaternFrequencies: the mean of cos(ω · δ) over random frequencies is
// the Matérn-5/2 correlation at |δ / lengthscales| (Bochner), within 5
// standard errors (|cos| <= 1, so SE <= 1/sqrt(N)); a Matérn-3/2 or squared-
// exponential spectrum would miss by 0.03-0.1 at these lags.
func TestMaternFrequencies(t *testing.T) {
	const N = 200000
	ls := []float64{0.3, 0.5, 2}
	omega, _ := maternFrequencies(rand.New(rand.NewPCG(9, 9)), ls, N)
	for _, delta := range [][]float64{{0.2, 0, 0}, {0.1, 0.3, 1}, {0.6, 0.5, 0}, {0, 0, 0.5}} {
		r := 0.0
		for j, v := range delta {
			r += (v / ls[j]) * (v / ls[j])
		}
		want := matern52(math.Sqrt(r))
		mean := 0.0
		for l := 0; l < N; l++ {
			dot := 0.0
			for j, v := range delta {
				dot += omega.At(j, l) * v
			}
			mean += math.Cos(dot) / N
		}
		if se := 1 / math.Sqrt(N); math.Abs(mean-want) > 5*se {
			t.Errorf("delta %v: E cos(ω·δ) = %v, Matérn-5/2 %v", delta, mean, want)
		}
	}
}

// checkMoments compares the sample mean and covariance of samples
// (samples[s][i]: sample s at point i) with mean and cov: means within 6
// standard errors, covariances within covSE standard errors of a Gaussian
// sample covariance, sqrt((S_ii S_jj + S_ij²)/k).
func checkMoments(t *testing.T, samples [][]float64, mean []float64, cov *mat.SymDense, covSE float64) {
	t.Helper()
	k := float64(len(samples))
	for i := range mean {
		mu := 0.0
		for _, row := range samples {
			mu += row[i]
		}
		mu /= k
		if se := math.Sqrt(cov.At(i, i) / k); math.Abs(mu-mean[i]) > 6*se+1e-12 {
			t.Errorf("sample mean %d: %v want %v (se %v)", i, mu, mean[i], se)
		}
		for j := i; j < len(mean); j++ {
			c := 0.0
			for _, row := range samples {
				c += (row[i] - mean[i]) * (row[j] - mean[j])
			}
			c /= k
			se := math.Sqrt((cov.At(i, i)*cov.At(j, j) + cov.At(i, j)*cov.At(i, j)) / k)
			if math.Abs(c-cov.At(i, j)) > covSE*se+1e-12 {
				t.Errorf("sample cov (%d,%d): %v want %v (se %v)", i, j, c, cov.At(i, j), se)
			}
		}
	}
}

// TestJointSamplesFactorIsCholesky: JointSamples' factor (Potrf without
// the condition estimate) gives the samples of mat.Cholesky's factor, bit
// for bit: the reference draws them as JointSamples did before.
func TestJointSamplesFactorIsCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	X, y := randomProblem(rng, 40, 3)
	gp, err := fitGP(X, y, gpFitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cand, err := trustRegionCandidates(X.RawRowView(0), 0.5, 300, rng)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gp.JointSamples(cand, 2, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	mean, cov := gp.PosteriorCovariance(cand)
	var chol mat.Cholesky
	if _, err := choleskyJitter(&chol, cov); err != nil {
		t.Fatal(err)
	}
	var L mat.TriDense
	chol.LTo(&L)
	m := len(mean)
	ref := rand.New(rand.NewPCG(9, 9))
	Z := mat.NewDense(m, 2, nil)
	for s := 0; s < 2; s++ {
		for i := 0; i < m; i++ {
			Z.Set(i, s, ref.NormFloat64())
		}
	}
	zr := Z.RawMatrix()
	blas64.Trmm(blas.Left, blas.NoTrans, 1, L.RawTriangular(), zr)
	for s := 0; s < 2; s++ {
		for i := 0; i < m; i++ {
			if want := mean[i] + Z.At(i, s); got[s][i] != want {
				t.Fatalf("sample %d, candidate %d: %v, Cholesky's %v", s, i, got[s][i], want)
			}
		}
	}
}

func TestStandardize(t *testing.T) {
	cases := []struct {
		y           []float64
		mean, scale float64
	}{
		{[]float64{5}, 5, 1},             // one value: no scale
		{[]float64{2, 2, 2}, 2, 1},       // all equal: no scale
		{[]float64{1, 3}, 2, math.Sqrt2}, // n-1 sample sd of {1,3} = sqrt(2)
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
		{nil, 0, 1}, // empty: no NaN
	}
	const tol = 1e-15 // exact up to one rounding
	for _, c := range cases {
		z, m, s := Standardize(c.y)
		if math.Abs(m-c.mean) > tol || math.Abs(s-c.scale) > tol {
			t.Errorf("Standardize(%v): mean %v scale %v, want %v %v", c.y, m, s, c.mean, c.scale)
		}
		for i := range z {
			if want := (c.y[i] - c.mean) / c.scale; math.Abs(z[i]-want) > tol {
				t.Errorf("Standardize(%v)[%d] = %v, want %v", c.y, i, z[i], want)
			}
		}
	}
}
