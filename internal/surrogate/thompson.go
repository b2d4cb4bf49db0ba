package surrogate

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Covariance returns the posterior covariance of the latent f between
// items (row-major, len(items)², standardised units; see Model):
//
//	exact: s² (K_XX - K_XD (K_DD + rI)⁻¹ K_DX)
//	DTC:   s² (K_XX - K_XU K_UU⁻¹ K_UX + r K_XU (r K_UU + K_UD K_DU)⁻¹ K_UX)
//
// whose diagonal is the square of Predict's sd.
func (m *Model) Covariance(items []int) []float64 {
	n, M := len(items), len(m.Active)
	cov := gram(m.kern, items, m.workers)
	kx := make([]float64, n*M)
	for t, i := range items {
		m.kern.Fill(i, m.Active, kx[t*M:(t+1)*M])
	}
	var k2 []float64
	if m.Form == formDTC {
		k2 = append([]float64(nil), kx...)
	}
	g := func(data []float64) blas64.General {
		return blas64.General{Rows: n, Cols: M, Stride: M, Data: data}
	}
	C := blas64.General{Rows: n, Cols: n, Stride: n, Data: cov}
	// rows of kx L⁻ᵀ are (L⁻¹ k_x)ᵀ: cov -= (kx L⁻ᵀ)(kx L⁻ᵀ)ᵀ
	solveRowsLT(m.l1, kx, n)
	blas64.Gemm(blas.NoTrans, blas.Trans, -1, g(kx), g(kx), 1, C)
	if k2 != nil {
		solveRowsLT(m.l2, k2, n)
		blas64.Gemm(blas.NoTrans, blas.Trans, m.ratio, g(k2), g(k2), 1, C)
	}
	s2 := m.Hyper.SignalVar
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			v := 0.5 * s2 * (cov[a*n+b] + cov[b*n+a])
			cov[a*n+b], cov[b*n+a] = v, v
		}
	}
	return cov
}

// Jitter of Sample's Cholesky factorisation, relative to the prior
// variance s²: tried from sampleJitterMin up by factors of 10.
const (
	sampleJitterMin = 1e-10
	sampleJitterMax = 1e-4
)

// Sample draws f at items jointly from the posterior (standardised
// units): mu + L ε, L L ᵀ = Covariance(items) + δ s² I with the smallest δ
// in sampleJitterMin·10^k ≤ sampleJitterMax that makes the factorisation
// succeed (posterior covariances of near-identical or labelled items are
// singular up to round-off), ε standard normal from rng.
func (m *Model) Sample(items []int, rng *rand.Rand) ([]float64, error) {
	n := len(items)
	mu := make([]float64, n)
	m.Predict(items, mu, nil)
	cov := m.Covariance(items)
	var ch mat.Cholesky
	ok := false
	for d := sampleJitterMin; d <= sampleJitterMax*(1+1e-9) && !ok; d *= 10 {
		a := append([]float64(nil), cov...)
		for i := 0; i < n; i++ {
			a[i*n+i] += d * m.Hyper.SignalVar
		}
		ok = ch.Factorize(mat.NewSymDense(n, a))
	}
	if !ok {
		return nil, errors.New("surrogate: the posterior covariance of the candidates is not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	eps := make([]float64, n)
	for i := range eps {
		eps[i] = rng.NormFloat64()
	}
	f := make([]float64, n)
	for i := 0; i < n; i++ {
		v := mu[i]
		for j := 0; j <= i; j++ {
			v += L.At(i, j) * eps[j]
		}
		if math.IsNaN(v) {
			return nil, errors.New("surrogate: the posterior draw is not finite")
		}
		f[i] = v
	}
	return f, nil
}
