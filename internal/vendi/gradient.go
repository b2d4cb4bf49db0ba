package vendi

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// GradientFloor is the smallest normalised eigenvalue used when
// differentiating VS_q for q < 1. The derivative of sum_i p_i^q contains
// p_i^(q-1), which is unbounded as p_i -> 0: VS_q for q < 1 is not Lipschitz
// at rank-deficient kernels, and the gradient of an exactly zero (or clipped
// negative) eigenvalue is +inf. For the derivative only, normalised
// eigenvalues below GradientFloor are raised to it; the score itself always
// uses the unfloored eigenvalues. 1e-12 sits four orders of magnitude above
// the rounding noise of a symmetric eigensolver on a unit-diagonal matrix
// (about n * 2.2e-16 after normalisation by n), so every eigenvalue that is
// numerically meaningful keeps its exact derivative.
const GradientFloor = 1e-12

// maxTieTol is the relative gap below which eigenvalues count as tied for
// the largest one when differentiating VS_inf (see ScoreEigenGradient).
const maxTieTol = 1e-10

// ScoreEigenGradient returns VS_q of the raw eigenvalues eig of a kernel
// matrix K and writes dVS_q/dmu_j, the derivative with respect to each raw
// eigenvalue mu_j, into dst (len(dst) == len(eig), else it panics).
//
// Conventions are those of ScoreFromEigenvalues: p_j = max(mu_j, 0) / S with
// S = sum_j max(mu_j, 0) (the eigenvalues of K/n for unit-diagonal K, clipped
// at 0 and renormalised). Writing f(p) = VS_q, the chain rule through the
// normalisation (dp_i/dmu_j = (delta_ij - p_i) / S) gives, for mu_j > 0,
//
//	dVS/dmu_j = (df/dp_j - sum_i p_i df/dp_i) / S
//
// which is, with P = sum_i p_i^q and H the Shannon entropy of p (eq. 3, 1):
//
//	q not in {0, 1, inf}: q VS / ((1-q) S) * (p_j^(q-1) / P - 1)
//	q = 1:                VS / S * (-log p_j - H)
//	q = inf:              (VS - VS^2 [j is the largest]) / S
//
// Clipped eigenvalues (mu_j <= 0) get the one-sided derivative from the
// right for q >= 1 (which is the formula above with p_j = 0: finite) and use
// GradientFloor for q < 1. For q = inf, if the largest eigenvalue is tied
// (relative gap below 1e-10) the -VS^2 term is shared equally among the tied
// ones: the average of the one-sided derivatives, a Clarke subgradient that
// gives equal eigenvalues equal derivatives (needed by ScoreGradient).
// q = 0: VS_0 counts eigenvalues and is piecewise constant, so its
// derivative is 0 wherever it exists; dst is zeroed.
func ScoreEigenGradient(eig []float64, q float64, dst []float64) (float64, error) {
	if len(dst) != len(eig) {
		panic(fmt.Sprintf("vendi: ScoreEigenGradient dst has length %d, want %d", len(dst), len(eig)))
	}
	if err := gradCheckOrder(q); err != nil {
		return 0, err
	}
	if len(eig) == 0 {
		return 0, errors.New("vendi: no eigenvalues")
	}
	var s, top float64
	for i, v := range eig {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("vendi: eigenvalue %d is %v", i, v)
		}
		if v > 0 {
			s += v
			top = math.Max(top, v)
		}
	}
	if s == 0 {
		return 0, errors.New("vendi: all eigenvalues are <= 0 (zero kernel matrix)")
	}
	vs := gradScore(eig, q)
	for i := range dst {
		dst[i] = 0
	}
	p := func(v float64) float64 { return math.Max(v, 0) / s }
	switch {
	case q == 0:
		// Piecewise constant: zero derivative.
	case q == 1:
		var h float64
		for _, v := range eig {
			if pv := p(v); pv > 0 {
				h -= pv * math.Log(pv)
			}
		}
		for i, v := range eig {
			pv := math.Max(p(v), GradientFloor)
			dst[i] = vs / s * (-math.Log(pv) - h)
		}
	case math.IsInf(q, 1):
		var ties int
		for _, v := range eig {
			if v >= top*(1-maxTieTol) {
				ties++
			}
		}
		for i, v := range eig {
			dst[i] = vs / s
			if v >= top*(1-maxTieTol) {
				dst[i] -= vs * vs / s / float64(ties)
			}
		}
	default:
		var sum float64
		for _, v := range eig {
			if pv := p(v); pv > 0 {
				sum += math.Pow(pv, q)
			}
		}
		c := q * vs / ((1 - q) * s)
		for i, v := range eig {
			pv := p(v)
			if q < 1 {
				pv = math.Max(pv, GradientFloor)
			}
			var pw float64 // p^(q-1); 0 for p = 0 when q > 1
			if pv > 0 {
				pw = math.Pow(pv, q-1)
			}
			dst[i] = c * (pw/sum - 1)
		}
	}
	return vs, nil
}

// ScoreGradient returns VS_q(K) and writes its gradient dVS_q/dK into dst,
// so that dVS = sum_ij dst_ij dK_ij for a symmetric perturbation dK (the sum
// runs over all i, j, so an off-diagonal pair contributes twice). dst must be
// n x n or empty (then it is resized); otherwise ScoreGradient panics.
//
// The gradient goes through the eigendecomposition K = sum_j mu_j u_j u_j^T.
// For a simple eigenvalue, dmu_j = u_j^T dK u_j (first-order perturbation
// theory), so dVS/dK = sum_j g_j u_j u_j^T with g_j = dVS/dmu_j from
// ScoreEigenGradient. The same formula is correct at repeated eigenvalues:
// VS_q is a symmetric function of the eigenvalues, and by the spectral
// function theorem (Lewis 1996, "Convex analysis on the Hermitian matrices")
// a spectral function F(K) = f(mu(K)) with f symmetric and differentiable at
// mu(K) has gradient U diag(grad f(mu)) U^T for any orthonormal eigenbasis U.
// The choice of basis inside an eigenspace does not matter because g takes
// equal values on equal eigenvalues. For q = inf with a tied largest
// eigenvalue, f is not differentiable and the result is the subgradient
// described in ScoreEigenGradient.
//
// K must be symmetric with finite entries; for the Vendi score it should
// have unit diagonal (kernel k(x, x) = 1). NaN or Inf entries are an error.
func ScoreGradient(K *mat.SymDense, q float64, dst *mat.SymDense) (float64, error) {
	n := K.SymmetricDim()
	if dst.IsEmpty() {
		dst.ReuseAsSym(n)
	}
	if dst.SymmetricDim() != n {
		panic(fmt.Sprintf("vendi: ScoreGradient dst is %d x %d, want %d x %d", dst.SymmetricDim(), dst.SymmetricDim(), n, n))
	}
	if n == 0 {
		return 0, errors.New("vendi: empty kernel matrix")
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := K.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("vendi: kernel entry (%d, %d) is %v", i, j, v)
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(K, true) {
		return 0, errors.New("vendi: eigendecomposition of the kernel matrix did not converge")
	}
	mu := eig.Values(nil)
	g := make([]float64, n)
	vs, err := ScoreEigenGradient(mu, q, g)
	if err != nil {
		return 0, err
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	// dst = U diag(g) U^T, accumulated on the upper triangle.
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			var v float64
			for j := 0; j < n; j++ {
				v += g[j] * u.At(a, j) * u.At(b, j)
			}
			dst.SetSym(a, b, v)
		}
	}
	return vs, nil
}

// QualityWeightedGradient returns qVS_q = mean(quality) * VS_q(K) (eq. 2
// with the order-q score of eq. 4) and its gradients: dK (n x n or empty,
// same convention as ScoreGradient) receives mean(quality) * dVS_q/dK, and
// dQuality (length n, else it panics) receives dqVS/ds_i = VS_q / n.
// Quality must be finite; it should be >= 0 for qVS to read as an effective
// number of high-quality items, but the derivative does not need it.
func QualityWeightedGradient(K *mat.SymDense, quality []float64, q float64, dK *mat.SymDense, dQuality []float64) (float64, error) {
	n := K.SymmetricDim()
	if len(quality) != n || len(dQuality) != n {
		panic(fmt.Sprintf("vendi: QualityWeightedGradient got %d qualities and %d quality gradients for a %d x %d kernel", len(quality), len(dQuality), n, n))
	}
	var mean float64
	for i, s := range quality {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return 0, fmt.Errorf("vendi: quality %d is %v", i, s)
		}
		mean += s
	}
	if n > 0 {
		mean /= float64(n)
	}
	vs, err := ScoreGradient(K, q, dK)
	if err != nil {
		return 0, err
	}
	dK.ScaleSym(mean, dK)
	for i := range dQuality {
		dQuality[i] = vs / float64(n)
	}
	return mean * vs, nil
}

// gradCheckOrder and gradScore stand in for the vendi core until it lands.
// TODO(h6): switch to ScoreFromEigenvalues.
func gradCheckOrder(q float64) error {
	if math.IsNaN(q) || q < 0 {
		return fmt.Errorf("vendi: order q must be >= 0 (or inf), got %v", q)
	}
	return nil
}

func gradScore(eig []float64, q float64) float64 {
	var s, top float64
	for _, v := range eig {
		if v > 0 {
			s += v
			top = math.Max(top, v)
		}
	}
	switch {
	case q == 0:
		var c int
		for _, v := range eig {
			if v > 1e-10*top {
				c++
			}
		}
		return float64(c)
	case q == 1:
		var h float64
		for _, v := range eig {
			if v > 0 {
				h -= v / s * math.Log(v/s)
			}
		}
		return math.Exp(h)
	case math.IsInf(q, 1):
		return s / top
	}
	var sum float64
	for _, v := range eig {
		if v > 0 {
			sum += math.Pow(v/s, q)
		}
	}
	return math.Pow(sum, 1/(1-q))
}
