package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// gonumSymEigenvalues uses Dsyev without vectors (Householder
// tridiagonalisation and the Pal-Walker-Kahan QR of Dsterf), the algorithm
// of mat.EigenSym. Both builds use it below openblasMinOrder.
func gonumSymEigenvalues(n int, a, w []float64) bool {
	var impl lapackgonum.Implementation
	work := []float64{0}
	impl.Dsyev(lapack.EVNone, blas.Upper, n, a, n, w, work, -1)
	work = make([]float64, int(work[0]))
	return impl.Dsyev(lapack.EVNone, blas.Upper, n, a, n, w, work, len(work))
}

// openblasMinOrder is the order from which the OpenBLAS build hands
// eigenvalues to LAPACK. Below it LAPACK gains little (n = 200: 3.6 ms
// against gonum's 4.6 ms) while OpenBLAS's threads, spinning beside the
// goroutines of a campaign's parallel runs, cost system time; and the small
// kernels of active-search metrics then give the same digits in both builds.
const openblasMinOrder = 256
