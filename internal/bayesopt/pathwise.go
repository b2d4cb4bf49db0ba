package bayesopt

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Thompson samplers (Settings.Sampler).
const (
	// SamplerExact draws joint posterior samples over the candidates from
	// the Cholesky factor of their posterior covariance (GP.JointSamples):
	// exact, O(m³) in the number m of candidates.
	SamplerExact = "exact"
	// SamplerPathwise draws them by pathwise conditioning on a random-
	// Fourier-feature prior (GP.PathwiseSamples): O(m (L d + L k + n d)),
	// which makes the authors' 5,000 candidates per region affordable.
	SamplerPathwise = "pathwise"
)

// pathwiseFeatures is the number L of random Fourier features of
// SamplerPathwise (BoTorch's default for its pathwise samples).
const pathwiseFeatures = 1024

// PathwiseSamples draws k posterior samples of the latent f at the rows of
// xs, in original units, by pathwise conditioning (Matheron's rule; Wilson
// et al. 2020, "Efficiently sampling functions from Gaussian process
// posteriors", ICML, eq. 6):
//
//	f_post(x) = f(x) + K(x, X) (K_XX + σ_n² I)⁻¹ (z − Mean − f(X) − ε),  ε ~ N(0, σ_n² I),
//
// in standardised units, where f is a zero-mean prior sample (σ_f² times
// the Matérn-5/2 ARD correlation) drawn with `features` random Fourier
// features (Rahimi & Recht 2007):
//
//	f(x) = sqrt(2 σ_f² / L) Σ_l w_l cos(ω_l · x + b_l),  w_l ~ N(0, 1), b_l ~ U[0, 2π),
//
// ω_l = g_l / sqrt(u_l / 5) divided elementwise by the lengthscales, g_l ~
// N(0, I_d), u_l ~ χ²_5: the spectral density of the Matérn-5/2 kernel is a
// Student t with 5 degrees of freedom. σ_n² includes the training
// covariance's jitter. The k samples share the features and have their own
// weights and noise; averaged over the features, the samples' mean and
// covariance are the exact posterior's (the update is linear in f and ε,
// whose first two moments are exact), and the approximation is in the
// prior's tails only. Sample s does not depend on k.
func (g *gp) PathwiseSamples(xs mat.Matrix, k, features int, rng *rand.Rand) ([][]float64, error) {
	m, d := xs.Dims()
	n, dx := g.x.Dims()
	if d != dx || k < 1 || features < 1 {
		return nil, fmt.Errorf("bayesopt: pathwise samples of %d-d points from a %d-d GP, k = %d, %d features", d, dx, k, features)
	}
	L := features
	omega, phase := maternFrequencies(rng, g.hyper.Lengthscales, L)
	amp := math.Sqrt(2 * g.hyper.SignalVariance / float64(L))
	featuresOf := func(x mat.Matrix) *mat.Dense {
		var P mat.Dense
		P.Mul(x, omega)
		raw := P.RawMatrix()
		for i := 0; i < raw.Rows; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+L]
			for l, v := range row {
				row[l] = amp * math.Cos(v+phase[l])
			}
		}
		return &P
	}
	// Weights (L x k) and noise (n x k), drawn sample by sample.
	W := mat.NewDense(L, k, nil)
	E := mat.NewDense(n, k, nil)
	noise := math.Sqrt(g.hyper.NoiseVariance + g.jitter)
	for s := 0; s < k; s++ {
		for l := 0; l < L; l++ {
			W.Set(l, s, rng.NormFloat64())
		}
		for i := 0; i < n; i++ {
			E.Set(i, s, noise*rng.NormFloat64())
		}
	}
	var priorX, priorC mat.Dense
	priorX.Mul(featuresOf(g.x), W) // n x k: f(X)
	priorC.Mul(featuresOf(xs), W)  // m x k: f(xs)
	R := mat.NewDense(n, k, nil)   // z − Mean − f(X) − ε
	for i := 0; i < n; i++ {
		for s := 0; s < k; s++ {
			R.Set(i, s, g.z[i]-g.hyper.Mean-priorX.At(i, s)-E.At(i, s))
		}
	}
	var V mat.Dense
	if err := g.chol.SolveTo(&V, R); err != nil {
		return nil, fmt.Errorf("bayesopt: pathwise update: %w", err)
	}
	Ks, _ := g.crossCov(xs) // n x m
	var upd mat.Dense
	upd.Mul(Ks.T(), &V) // m x k
	out := make([][]float64, k)
	for s := range out {
		out[s] = make([]float64, m)
		for i := 0; i < m; i++ {
			out[s][i] = g.loc + g.scale*(g.hyper.Mean+priorC.At(i, s)+upd.At(i, s))
		}
	}
	return out, nil
}

// maternFrequencies draws L random Fourier frequencies of the Matérn-5/2
// ARD correlation with the given lengthscales (columns of a d x L matrix,
// already divided by the lengthscales) and L phases uniform in [0, 2π):
// E[cos(ω · δ)] = Matern52(|δ / lengthscales|) (Bochner's theorem; the
// spectral density is a Student t with 5 degrees of freedom).
func maternFrequencies(rng *rand.Rand, lengthscales []float64, L int) (*mat.Dense, []float64) {
	d := len(lengthscales)
	omega := mat.NewDense(d, L, nil)
	phase := make([]float64, L)
	for l := 0; l < L; l++ {
		u := 0.0 // χ²_5
		for range 5 {
			v := rng.NormFloat64()
			u += v * v
		}
		s := 1 / math.Sqrt(u/5)
		for j := 0; j < d; j++ {
			omega.Set(j, l, rng.NormFloat64()*s/lengthscales[j])
		}
		phase[l] = 2 * math.Pi * rng.Float64()
	}
	return omega, phase
}
