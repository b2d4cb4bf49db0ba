//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// Backend is the implementation compiled in: "gonum" (pure Go) or "openblas".
const Backend = "gonum"

var lapackImpl lapackgonum.Implementation

func syrkT(n, k int, b, c []float64) { gonumSyrkT(n, k, b, c) }

func syrkT32(n, k int, b, c []float32) { gonumSyrkT32(n, k, b, c) }

func symEigenvalues(n int, a, w []float64) bool { return gonumSymEigenvalues(n, a, w) }

func potrf(n int, a []float64) bool {
	return lapackImpl.Dpotrf(blas.Upper, n, a, n)
}

func potri(n int, a []float64) bool {
	return lapackImpl.Dpotri(blas.Upper, n, a, n)
}
