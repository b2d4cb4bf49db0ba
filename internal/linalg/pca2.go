package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// pca2Iterations bounds the subspace iterations of PCA2; the display needs
// a 2-D view, not eigenvectors to machine precision, and the iteration
// stops earlier once the plane is stable.
const pca2Iterations = 300

// pca2Tol is the movement of a unit axis between iterations below which
// PCA2 stops: projections are then accurate to about 1e-9 of their scale.
const pca2Tol = 1e-9

// PCA2 projects n rows of length d (row(i, dst) fills row i) onto their top
// two principal components: the scores of PCA with m = 2, up to the
// iteration's tolerance (pca2Tol), found by subspace iteration on the
// covariance applied implicitly (two passes over the data per iteration, no
// d x d matrix), so pools of 10^5 items with thousands of features fit
// where PCA's d x d eigendecomposition would not (d = 2,048 fingerprint
// bits). Signs follow PCA's convention (SignOfLargest): the
// largest-magnitude loading of each component is positive. The start is
// seeded, so the result is deterministic.
func PCA2(n, d int, row func(i int, dst []float64)) (x, y []float64, err error) {
	if n < 2 || d < 2 {
		return nil, nil, fmt.Errorf("PCA needs at least 2 items and 2 features, got %d x %d", n, d)
	}
	mean := make([]float64, d)
	buf := make([]float64, d)
	for i := 0; i < n; i++ {
		row(i, buf)
		for j, v := range buf {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("PCA: item %d, feature %d is %v", i, j, v)
			}
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	V := [2][]float64{make([]float64, d), make([]float64, d)}
	for k := range V {
		for j := range V[k] {
			V[k][j] = rng.NormFloat64()
		}
	}
	orthonormalize(&V)
	W := [2][]float64{make([]float64, d), make([]float64, d)}
	for it := 0; it < pca2Iterations; it++ {
		// W = C V with C = sum (x - m)(x - m)^T (the 1/(n-1) does not change
		// the subspace).
		for k := range W {
			clear(W[k])
		}
		for i := 0; i < n; i++ {
			row(i, buf)
			var p [2]float64
			for j := range buf {
				buf[j] -= mean[j]
				p[0] += buf[j] * V[0][j]
				p[1] += buf[j] * V[1][j]
			}
			for j, v := range buf {
				W[0][j] += v * p[0]
				W[1][j] += v * p[1]
			}
		}
		orthonormalize(&W)
		// Converged when each axis stops moving: |w - sign(w.v) v| (linear
		// in the angle, unlike 1 - |cos|) below pca2Tol.
		change := 0.0
		for k := range W {
			s := math.Copysign(1, dot(W[k], V[k]))
			var d2 float64
			for j := range W[k] {
				e := W[k][j] - s*V[k][j]
				d2 += e * e
			}
			change = math.Max(change, math.Sqrt(d2))
		}
		V, W = W, V
		if change < pca2Tol {
			break
		}
	}
	// Rayleigh-Ritz in the plane so the first axis has the larger variance.
	var proj [2][]float64
	proj[0], proj[1] = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		row(i, buf)
		for j := range buf {
			buf[j] -= mean[j]
		}
		proj[0][i], proj[1][i] = dot(buf, V[0]), dot(buf, V[1])
	}
	a, b, c := dot(proj[0], proj[0]), dot(proj[0], proj[1]), dot(proj[1], proj[1])
	theta := 0.5 * math.Atan2(2*b, a-c) // rotation diagonalising [[a b] [b c]]
	cs, sn := math.Cos(theta), math.Sin(theta)
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = cs*proj[0][i] + sn*proj[1][i]
		y[i] = -sn*proj[0][i] + cs*proj[1][i]
	}
	l0 := make([]float64, d)
	l1 := make([]float64, d)
	for j := range l0 {
		l0[j] = cs*V[0][j] + sn*V[1][j]
		l1[j] = -sn*V[0][j] + cs*V[1][j]
	}
	if SignOfLargest(l0) < 0 {
		for i := range x {
			x[i] = -x[i]
		}
	}
	if SignOfLargest(l1) < 0 {
		for i := range y {
			y[i] = -y[i]
		}
	}
	return x, y, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// orthonormalize applies Gram-Schmidt (twice, for stability) to two vectors.
func orthonormalize(V *[2][]float64) {
	for pass := 0; pass < 2; pass++ {
		for k := range V {
			for m := 0; m < k; m++ {
				p := dot(V[k], V[m])
				for j := range V[k] {
					V[k][j] -= p * V[m][j]
				}
			}
			nrm := math.Sqrt(dot(V[k], V[k]))
			if nrm == 0 {
				V[k][k%len(V[k])] = 1
				continue
			}
			for j := range V[k] {
				V[k][j] /= nrm
			}
		}
	}
}

// SignOfLargest is the sign (+1 or -1) of v's entry of largest magnitude,
// the first one on ties: the sign convention of principal components (PCA,
// PCA2) and MDS axes (flipping a vector by it makes that entry positive).
func SignOfLargest(v []float64) float64 {
	best, s := -1.0, 1.0
	for _, x := range v {
		if math.Abs(x) > best {
			best, s = math.Abs(x), math.Copysign(1, x)
		}
	}
	return s
}
