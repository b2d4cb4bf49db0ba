package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussKernel returns exp(-|x_i - x_j|²/(2 ell²)) of n random points in
// [0, 1]^d: a PSD kernel with unit diagonal.
func gaussKernel(rng *rand.Rand, n, d int, ell float64) *mat.SymDense {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for k := range x[i] {
			x[i][k] = rng.Float64()
		}
	}
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			for k := 0; k < d; k++ {
				s += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k])
			}
			K.SetSym(i, j, math.Exp(-s/(2*ell*ell)))
		}
	}
	return K
}

// TestPosteriorClosedFormTwoObservations checks mean, sd and the log
// marginal likelihood against the hand-written 2 x 2 inverse.
func TestPosteriorClosedFormTwoObservations(t *testing.T) {
	// A 3-item correlation kernel (diagonally dominant, so PSD).
	K := mat.NewSymDense(3, []float64{
		1, 0.6, 0.3,
		0.6, 1, 0.2,
		0.3, 0.2, 1,
	})
	obs := []int{0, 2}
	y := []float64{10, 14} // standardised: z = (-1/√2, 1/√2)
	h := hyper{Mean: 0.1, SignalVar: 1.7, NoiseVar: 0.05}
	g, err := NewGP(K, obs, y, h)
	if err != nil {
		t.Fatal(err)
	}
	z := []float64{-1 / math.Sqrt2, 1 / math.Sqrt2}
	// A = s² K_DD + σ² I = [[a, b], [b, c]]
	a := h.SignalVar*1 + h.NoiseVar
	b := h.SignalVar * 0.3
	c := h.SignalVar*1 + h.NoiseVar
	det := a*c - b*b
	inv := [2][2]float64{{c / det, -b / det}, {-b / det, a / det}}
	e := []float64{z[0] - h.Mean, z[1] - h.Mean}
	mu, sd := g.Posterior(nil, nil)
	const tol = 1e-12 // a handful of roundings on O(1) numbers
	for j := 0; j < 3; j++ {
		k := []float64{h.SignalVar * K.At(0, j), h.SignalVar * K.At(2, j)}
		var m, v float64
		for p := 0; p < 2; p++ {
			for q := 0; q < 2; q++ {
				m += k[p] * inv[p][q] * e[q]
				v += k[p] * inv[p][q] * k[q]
			}
		}
		wantMu := h.Mean + m
		wantSD := math.Sqrt(h.SignalVar*K.At(j, j) - v)
		if math.Abs(mu[j]-wantMu) > tol || math.Abs(sd[j]-wantSD) > tol {
			t.Errorf("item %d: mu %v sd %v, want %v %v", j, mu[j], sd[j], wantMu, wantSD)
		}
	}
	quad := e[0]*(inv[0][0]*e[0]+inv[0][1]*e[1]) + e[1]*(inv[1][0]*e[0]+inv[1][1]*e[1])
	wantLL := -0.5*quad - 0.5*math.Log(det) - math.Log(2*math.Pi)
	if math.Abs(g.LogML-wantLL) > tol {
		t.Errorf("log ML = %v, want %v", g.LogML, wantLL)
	}
	// Raw-unit recovery: YMean + YScale z gives back y.
	if math.Abs(g.YMean+g.YScale*g.Z[1]-14) > tol {
		t.Errorf("standardisation not invertible: mean %v scale %v z %v", g.YMean, g.YScale, g.Z)
	}
}

// TestPosteriorMatchesInverse compares with the textbook formulas evaluated
// with an explicit matrix inverse on a random kernel.
func TestPosteriorMatchesInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	K := gaussKernel(rng, 12, 2, 0.4)
	obs := []int{3, 0, 7, 11, 5}
	y := []float64{1.2, -0.3, 2.5, 0.7, 1.9}
	h := hyper{Mean: -0.2, SignalVar: 0.8, NoiseVar: 0.01}
	g, err := NewGP(K, obs, y, h)
	if err != nil {
		t.Fatal(err)
	}
	m := len(obs)
	A := mat.NewDense(m, m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			v := h.SignalVar * K.At(obs[a], obs[b])
			if a == b {
				v += h.NoiseVar
			}
			A.Set(a, b, v)
		}
	}
	var Ainv mat.Dense
	if err := Ainv.Inverse(A); err != nil {
		t.Fatal(err)
	}
	e := mat.NewVecDense(m, nil)
	for a := range obs {
		e.SetVec(a, g.Z[a]-h.Mean)
	}
	mu, sd := g.Posterior(nil, nil)
	const tol = 1e-9 // inverse of a matrix with condition number ~1e3
	for j := 0; j < K.SymmetricDim(); j++ {
		k := mat.NewVecDense(m, nil)
		for a, i := range obs {
			k.SetVec(a, h.SignalVar*K.At(i, j))
		}
		var Ak mat.VecDense
		Ak.MulVec(&Ainv, k)
		wantMu := h.Mean + mat.Dot(&Ak, e)
		wantSD := math.Sqrt(math.Max(h.SignalVar*K.At(j, j)-mat.Dot(&Ak, k), 0))
		if math.Abs(mu[j]-wantMu) > tol || math.Abs(sd[j]-wantSD) > tol {
			t.Errorf("item %d: mu %v sd %v, want %v %v", j, mu[j], sd[j], wantMu, wantSD)
		}
	}
}

// TestPosteriorInterpolates: with almost no noise the posterior mean at an
// observed item is its target and the sd is ~0.
func TestPosteriorInterpolates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	K := gaussKernel(rng, 6, 2, 0.3)
	obs := []int{1, 4}
	g, err := NewGP(K, obs, []float64{3, 5}, hyper{Mean: 0, SignalVar: 1, NoiseVar: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	mu, sd := g.Posterior(nil, nil)
	const tol = 1e-5 // sqrt of the 1e-12 noise times the conditioning
	for a, i := range obs {
		if math.Abs(mu[i]-g.Z[a]) > tol || sd[i] > tol {
			t.Errorf("observed item %d: mu %v (z %v) sd %v", i, mu[i], g.Z[a], sd[i])
		}
	}
}

// TestFitGPMaximisesLikelihood checks the fitted hyperparameters against a
// brute-force grid over (mean, s², σ²) and a local perturbation test.
func TestFitGPMaximisesLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 3; trial++ {
		K := gaussKernel(rng, 10, 2, 0.5)
		obs := rng.Perm(10)[:7]
		y := make([]float64, len(obs))
		if trial == 0 {
			// Pure noise: the maximum sits on the largest noise ratio.
			for a := range y {
				y[a] = rng.NormFloat64()*2 + 5
			}
		} else {
			// A draw from the prior (s² = 1) with noise sd 0.1 or 0.4.
			var L mat.Cholesky
			Kdd := submatrix(K, obs)
			for i := 0; i < len(obs); i++ {
				Kdd.SetSym(i, i, Kdd.At(i, i)+1e-8)
			}
			if !L.Factorize(Kdd) {
				t.Fatal("test kernel not PD")
			}
			var Lt mat.TriDense
			L.LTo(&Lt)
			u := make([]float64, len(obs))
			for a := range u {
				u[a] = rng.NormFloat64()
			}
			for a := range y {
				for b := 0; b <= a; b++ {
					y[a] += Lt.At(a, b) * u[b]
				}
				y[a] += 0.1 * float64(trial*trial) * rng.NormFloat64() // noise sd 0.1, then 0.4
			}
		}
		g, err := fitGP(K, obs, y)
		if err != nil {
			t.Fatal(err)
		}
		ll := func(h hyper) float64 {
			gg, err := NewGP(K, obs, y, h)
			if err != nil {
				return math.Inf(-1)
			}
			return gg.LogML
		}
		fit := g.Hyper
		t.Logf("trial %d: fitted %+v, log ML %v", trial, fit, g.LogML)
		const tol = 1e-7 // golden-section accuracy in log r, squared by the flat maximum
		if d := math.Abs(ll(fit) - g.LogML); d > 1e-12 {
			t.Errorf("trial %d: LogML %v differs from recomputation by %v", trial, g.LogML, d)
		}
		// Grid: s² k̄ and the noise ratio log-spaced inside the box, mean in [-2, 2].
		for _, m := range []float64{-2, -1, -0.5, -0.1, 0, 0.1, 0.5, 1, 2} {
			for ls := -3.0; ls <= 3; ls += 0.25 {
				for lr := -6.0; lr <= 2; lr += 0.25 {
					s2 := math.Pow(10, ls)
					h := hyper{Mean: m, SignalVar: s2, NoiseVar: s2 * math.Pow(10, lr)}
					if v := ll(h); v > g.LogML+tol {
						t.Fatalf("trial %d: grid point %+v has log ML %v > fitted %v at %+v", trial, h, v, g.LogML, fit)
					}
				}
			}
		}
		// Local: perturbing any hyperparameter inside the box does not help.
		kbar := meanDiag(K)
		inBox := func(h hyper) bool {
			s, r := h.SignalVar*kbar, h.NoiseVar/(h.SignalVar*kbar)
			return s >= signalVarMin && s <= signalVarMax && r >= noiseRatioMin && r <= noiseRatioMax
		}
		for _, f := range []float64{0.999, 1.001} {
			for _, h := range []hyper{
				{fit.Mean + (f - 1), fit.SignalVar, fit.NoiseVar},
				{fit.Mean, fit.SignalVar * f, fit.NoiseVar},
				{fit.Mean, fit.SignalVar, fit.NoiseVar * f},
				{fit.Mean, fit.SignalVar * f, fit.NoiseVar * f},
			} {
				if !inBox(h) {
					continue
				}
				if v := ll(h); v > g.LogML+tol {
					t.Errorf("trial %d: perturbed %+v has log ML %v > fitted %v", trial, h, v, g.LogML)
				}
			}
		}
	}
}

func TestFitGPEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	K := gaussKernel(rng, 5, 2, 0.5)
	// One observation: z = 0, the fit must still succeed and be finite.
	g, err := fitGP(K, []int{2}, []float64{7})
	if err != nil {
		t.Fatal(err)
	}
	mu, sd := g.Posterior(nil, nil)
	for i := range mu {
		if math.IsNaN(mu[i]) || math.IsNaN(sd[i]) || sd[i] < 0 {
			t.Fatalf("item %d: mu %v sd %v", i, mu[i], sd[i])
		}
	}
	// A duplicated item (kernel rows identical): K_DD singular, still fits.
	D := mat.NewSymDense(3, []float64{1, 1, 0.5, 1, 1, 0.5, 0.5, 0.5, 1})
	if _, err := fitGP(D, []int{0, 1, 2}, []float64{1, 2, 3}); err != nil {
		t.Errorf("duplicate items: %v", err)
	}
	for _, c := range []struct {
		name string
		obs  []int
		y    []float64
	}{
		{"none", nil, nil},
		{"length", []int{0, 1}, []float64{1}},
		{"range", []int{0, 5}, []float64{1, 2}},
		{"twice", []int{1, 1}, []float64{1, 2}},
		{"nan", []int{0, 1}, []float64{1, math.NaN()}},
	} {
		if _, err := fitGP(K, c.obs, c.y); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestUCB(t *testing.T) {
	mu := []float64{0, 1, -1}
	sd := []float64{1, 0.5, 2}
	got := UCB(mu, sd, 2, nil)
	// beta = 2: mu + sqrt(2) sd (botorch convention).
	want := []float64{math.Sqrt2, 1 + 0.5*math.Sqrt2, -1 + 2*math.Sqrt2}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("UCB[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
