package vendi

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxTieTol is the relative gap below which eigenvalues count as tied for
// the largest one when differentiating VS_inf (see scoreEigenGradient).
const maxTieTol = 1e-10

// scoreEigenGradient returns VS_q of the raw eigenvalues eig of a kernel
// matrix K (exactly ScoreFromEigenvalues) and writes dVS_q/dmu_j, the
// derivative with respect to each raw eigenvalue mu_j, into dst
// (len(dst) == len(eig), else it panics).
//
// Conventions are those of ScoreFromEigenvalues: p_j = max(mu_j, 0) / S with
// S = sum_j max(mu_j, 0), and normalised eigenvalues p_j <= zeroTol are
// dropped from the sums (set A = {j : p_j > zeroTol}). Writing f(p) = VS_q,
// the chain rule through the normalisation (dp_i/dmu_j = (delta_ij - p_i)/S)
// gives dVS/dmu_j = (df/dp_j - sum_i p_i df/dp_i) / S, which is, with
// P = sum_A p_i^q, H = -sum_A p_i log p_i and P_A = sum_A p_i (eqs. 1, 3):
//
//	q not in {0, 1, inf}: q VS / ((1-q) S) * (p_j^(q-1) / P - 1)
//	q = 1:                VS / S * (-log p_j - 1 + P_A - H)
//	q = inf:              (VS - VS^2 [j is the largest]) / S
//
// Small eigenvalues (the documented floor). The derivative of sum p^q
// contains p^(q-1), unbounded as p -> 0 for q < 1 (and -log p for q = 1):
// VS_q is not Lipschitz at rank-deficient kernels, and at an exactly zero
// eigenvalue its derivative is +inf. The score drops eigenvalues with
// p_j <= zeroTol as noise, which would make their derivative the wrong sign
// (raising a dropped eigenvalue only grows S). For q <= 1 the derivative
// term of a dropped (or clipped negative) eigenvalue is therefore evaluated
// at the floor p_j = zeroTol: finite (zeroTol^(q-1) <= 1e10, -log zeroTol
// ~ 23) and pointing the way VS_q grows once the eigenvalue clears the
// threshold, so near-duplicate items are pushed apart. For q > 1 the term
// p^(q-1) tends to 0 and is 0. So for q > 1 the result is the exact
// derivative of ScoreFromEigenvalues everywhere but at the threshold; for
// q <= 1 it is exact whenever no eigenvalue is at or below zeroTol.
//
// For q = inf with a tied largest eigenvalue (relative gap below 1e-10) the
// -VS^2 term is shared equally among the tied ones: the average of the
// one-sided derivatives, a Clarke subgradient that gives equal eigenvalues
// equal derivatives (needed by ScoreGradient). q = 0: VS_0 counts
// eigenvalues and is piecewise constant, so its derivative is 0 wherever it
// exists; dst is zeroed.
func scoreEigenGradient(eig []float64, q Order, dst []float64) (float64, error) {
	if len(dst) != len(eig) {
		panic(fmt.Sprintf("vendi: ScoreEigenGradient dst has length %d, want %d", len(dst), len(eig)))
	}
	if err := q.Validate(); err != nil {
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
	vs := ScoreFromEigenvalues(eig, q)
	if s == 0 || vs == 0 {
		return 0, errors.New("vendi: all eigenvalues are <= 0 (zero kernel matrix)")
	}
	for i := range dst {
		dst[i] = 0
	}
	q.scoreGradient(eig, s, top, vs, dst)
	return vs, nil
}

// scoreGradient writes dVS_q/dλ_i into dst (zeroed by the caller) for the
// spectrum eig with positive sum s, largest eigenvalue top and VS_q = vs,
// by the order's formula (see scoreEigenGradient for the conventions: the
// zeroTol floor for q <= 1, shared ties at q = ∞, zero at q = 0).
func (q Order) scoreGradient(eig []float64, s, top, vs float64, dst []float64) {
	kept := func(v float64) bool { return v > zeroTol*s }
	switch {
	case q == 0:
		// Piecewise constant: zero derivative.
	case q == 1:
		var h, pa float64
		for _, v := range eig {
			if kept(v) {
				p := v / s
				h -= p * math.Log(p)
				pa += p
			}
		}
		for i, v := range eig {
			p := math.Max(v/s, zeroTol) // the floor, see above
			dst[i] = vs / s * (-math.Log(p) - 1 + pa - h)
		}
	case q.IsInf():
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
		q := float64(q)
		var sum float64
		for _, v := range eig {
			if kept(v) {
				sum += math.Pow(v/s, q)
			}
		}
		c := q * vs / ((1 - q) * s)
		for i, v := range eig {
			var pw float64 // p^(q-1); dropped eigenvalues: floor for q < 1, limit 0 for q > 1
			switch {
			case kept(v):
				pw = math.Pow(v/s, q-1)
			case q < 1:
				pw = math.Pow(zeroTol, q-1)
			}
			dst[i] = c * (pw/sum - 1)
		}
	}
}

// ScoreGradient returns VS_q(K) and writes its gradient dVS_q/dK into dst,
// so that dVS = sum_ij dst_ij dK_ij for a symmetric perturbation dK (the sum
// runs over all i, j, so an off-diagonal pair contributes twice). dst must be
// n x n or empty (then it is resized); otherwise ScoreGradient panics.
//
// The gradient goes through the eigendecomposition K = sum_j mu_j u_j u_j^T.
// For a simple eigenvalue, dmu_j = u_j^T dK u_j (first-order perturbation
// theory), so dVS/dK = sum_j g_j u_j u_j^T with g_j = dVS/dmu_j from
// scoreEigenGradient. The same formula is correct at repeated eigenvalues:
// VS_q is a symmetric function of the eigenvalues, and by the spectral
// function theorem (Lewis 1996, "Convex analysis on the Hermitian matrices")
// a spectral function F(K) = f(mu(K)) with f symmetric and differentiable at
// mu(K) has gradient U diag(grad f(mu)) U^T for any orthonormal eigenbasis U.
// The choice of basis inside an eigenspace does not matter because g takes
// equal values on equal eigenvalues. For q = inf with a tied largest
// eigenvalue, f is not differentiable and the result is the subgradient
// described in scoreEigenGradient.
//
// K must be symmetric with finite entries; for the Vendi score it should
// have unit diagonal (kernel k(x, x) = 1). NaN or Inf entries are an error.
func ScoreGradient(K *mat.SymDense, q Order, dst *mat.SymDense) (float64, error) {
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
	vs, err := scoreEigenGradient(mu, q, g)
	if err != nil {
		return 0, err
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	// dst = U diag(g) U^T: scale the columns of a copy of U by g, then one
	// matrix product (BLAS) instead of an element loop.
	var ug, full mat.Dense
	ug.CloneFrom(&u)
	for j := 0; j < n; j++ {
		col := ug.ColView(j).(*mat.VecDense)
		col.ScaleVec(g[j], col)
	}
	full.Mul(&ug, u.T())
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			dst.SetSym(a, b, full.At(a, b))
		}
	}
	return vs, nil
}

// QualityWeightedGradient returns qVS_q = mean(quality) * VS_q(K) (eq. 2
// with the order-q score of eq. 4) and its gradients: dK (n x n or empty,
// same convention as ScoreGradient) receives mean(quality) * dVS_q/dK, and
// dQuality (length n, else it panics) receives dqVS/ds_i = VS_q / n.
// Qualities must be finite and >= 0 (checkQuality), as for QualityWeighted.
func QualityWeightedGradient(K *mat.SymDense, quality []float64, q Order, dK *mat.SymDense, dQuality []float64) (float64, error) {
	n := K.SymmetricDim()
	if len(quality) != n || len(dQuality) != n {
		panic(fmt.Sprintf("vendi: QualityWeightedGradient got %d qualities and %d quality gradients for a %d x %d kernel", len(quality), len(dQuality), n, n))
	}
	if err := checkQuality(quality); err != nil {
		return 0, err
	}
	mean := MeanQuality(quality)
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
