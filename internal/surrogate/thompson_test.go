package surrogate

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseCovariance is the exact posterior covariance of the latent f at
// items by brute force: s² (K_XX - K_XD (K_DD + rI)⁻¹ K_DX) with an explicit
// inverse.
func denseCovariance(t *testing.T, m *Model, K *mat.Dense, obs, items []int) *mat.Dense {
	h := m.Hyper
	A := sub(K, obs, obs)
	for i := range obs {
		A.Set(i, i, A.At(i, i)+h.NoiseVar/h.SignalVar)
	}
	var Ainv mat.Dense
	if err := Ainv.Inverse(A); err != nil {
		t.Fatal(err)
	}
	Kxd := sub(K, items, obs)
	var t1, t2 mat.Dense
	t1.Mul(Kxd, &Ainv)
	t2.Mul(&t1, Kxd.T())
	var C mat.Dense
	C.Sub(sub(K, items, items), &t2)
	C.Scale(h.SignalVar, &C)
	return &C
}

// Covariance against the brute-force dense posterior (exact form), and
// its diagonal against Predict's sd² in the DTC form.
func TestCovarianceMatchesDense(t *testing.T) {
	kern, n, obs, y := smallProblem(7)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 100, fitSubset: 100, seed: 1, workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	items := []int{0, 5, 9, obs[0], 17, 33}
	got := m.Covariance(items)
	want := denseCovariance(t, m, denseK(kern, n), obs, items)
	L := len(items)
	for a := 0; a < L; a++ {
		for b := 0; b < L; b++ {
			if math.Abs(got[a*L+b]-want.At(a, b)) > posteriorTol {
				t.Errorf("cov[%d,%d] = %v, dense %v", a, b, got[a*L+b], want.At(a, b))
			}
		}
	}
	dtc, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 5, inducing: 6, fitSubset: 100, seed: 2, workers: 2})
	if err != nil || dtc.Form != formDTC {
		t.Fatalf("dtc fit: %v", err)
	}
	got = dtc.Covariance(items)
	mu, sd := make([]float64, L), make([]float64, L)
	dtc.Predict(items, mu, sd)
	for a := range items {
		if math.Abs(got[a*L+a]-sd[a]*sd[a]) > 1e-9 {
			t.Errorf("dtc var[%d] = %v, Predict's sd² %v", a, got[a*L+a], sd[a]*sd[a])
		}
	}
}

// Sample's draws have the posterior's mean and covariance (brute force,
// dense): over N draws the sample mean's error is below 5 standard errors
// sqrt(Σ_ii/N) and each sample covariance's below 5 of its standard errors
// sqrt((Σ_ii Σ_jj + Σ_ij²)/N) (the variance of a Gaussian sample
// covariance), plus the jitter's bias (at most 1e-4 s² on the diagonal).
// A wrong factor (Lᵀ for L), a missing mean or a dropped DTC term moves
// some entry by far more.
func TestSampleMatchesPosterior(t *testing.T) {
	kern, n, obs, y := smallProblem(8)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 100, inducing: 100, fitSubset: 100, seed: 1, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var items []int
	for i := 0; i < n && len(items) < 6; i++ {
		if !slices.Contains(obs, i) {
			items = append(items, i)
		}
	}
	items = append(items, obs[1]) // a labelled item: small variance
	L := len(items)
	wantCov := denseCovariance(t, m, denseK(kern, n), obs, items)
	wantMu := make([]float64, L)
	m.Predict(items, wantMu, nil)
	const N = 20000
	rng := rand.New(rand.NewPCG(11, 12))
	sum := make([]float64, L)
	prod := make([]float64, L*L)
	for d := 0; d < N; d++ {
		f, err := m.Sample(items, rng)
		if err != nil {
			t.Fatal(err)
		}
		for a := range f {
			sum[a] += f[a]
			for b := range f {
				prod[a*L+b] += f[a] * f[b]
			}
		}
	}
	for a := 0; a < L; a++ {
		mean := sum[a] / N
		saa := wantCov.At(a, a)
		if math.Abs(mean-wantMu[a]) > 5*math.Sqrt(saa/N)+1e-9 {
			t.Errorf("item %d: sample mean %v, posterior %v (sd %v)", items[a], mean, wantMu[a], math.Sqrt(saa))
		}
		for b := 0; b < L; b++ {
			c := prod[a*L+b]/N - mean*sum[b]/N
			sab, sbb := wantCov.At(a, b), wantCov.At(b, b)
			tol := 5*math.Sqrt((saa*sbb+sab*sab)/N) + 1e-4*m.Hyper.SignalVar
			if math.Abs(c-sab) > tol {
				t.Errorf("cov(%d, %d): sample %v, posterior %v (tolerance %v)", items[a], items[b], c, sab, tol)
			}
		}
	}
}

// Thompson batches are reproducible from the seed and differ between
// seeds; the reported acquisition is the draw (in value units, the sign
// as measured).
func TestThompsonReproducible(t *testing.T) {
	pool, obs, vals, _ := scoredPool(5, 300, 40)
	req := Request{Observed: obs, Values: vals, Batch: 8, Acquisition: acqThompson, Seed: 3, Minimize: true}
	a, err := Suggest(context.Background(), pool, req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Suggest(context.Background(), pool, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Picks, b.Picks) || !slices.Equal(a.Acquisition, b.Acquisition) {
		t.Errorf("same seed: %v %v, then %v %v", a.Picks, a.Acquisition, b.Picks, b.Acquisition)
	}
	req.Seed = 4
	c, err := Suggest(context.Background(), pool, req)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Acquisition, c.Acquisition) {
		t.Errorf("seeds 3 and 4 drew the same values %v", a.Acquisition)
	}
	// method top under thompson: the picks are the largest draws (lowest
	// values under Minimize), in order, with qualities the min-max of the draw
	req.Method = MethodTop
	top, err := Suggest(context.Background(), pool, req)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k < len(top.Picks); k++ {
		if top.Acquisition[k] < top.Acquisition[k-1] || top.Quality[k] > top.Quality[k-1] {
			t.Errorf("top under thompson: draws %v, qualities %v, want increasing values (minimize) and decreasing qualities", top.Acquisition, top.Quality)
		}
	}
	if top.Quality[0] != 1 {
		t.Errorf("best draw's quality %v, want 1", top.Quality[0])
	}
}
