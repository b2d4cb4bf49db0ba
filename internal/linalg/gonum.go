//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// Backend is the implementation compiled in: "gonum" (pure Go) or "openblas".
const Backend = "gonum"

var (
	blasImpl   gonum.Implementation
	lapackImpl lapackgonum.Implementation
)

func syrkT(n, k int, b, c []float64) {
	if !parSyrkT(n, k, b, c, false, daxpy) {
		blasImpl.Dsyrk(blas.Upper, blas.Trans, n, k, 1, b, n, 1, c, n)
	}
}

func syrkT32(n, k int, b, c []float32) {
	if !parSyrkT(n, k, b, c, true, saxpy) {
		blasImpl.Ssyrk(blas.Upper, blas.Trans, n, k, 1, b, n, 0, c, n)
	}
}

func daxpy(n int, alpha float64, x, y []float64) { blasImpl.Daxpy(n, alpha, x, 1, y, 1) }
func saxpy(n int, alpha float32, x, y []float32) { blasImpl.Saxpy(n, alpha, x, 1, y, 1) }

func symEigenvalues(n int, a, w []float64) bool { return gonumSymEigenvalues(n, a, w) }

func potrf(n int, a []float64) bool {
	return lapackImpl.Dpotrf(blas.Upper, n, a, n)
}

func potri(n int, a []float64) bool {
	return lapackImpl.Dpotri(blas.Upper, n, a, n)
}
