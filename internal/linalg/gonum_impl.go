package linalg

import (
	"gonum.org/v1/gonum/blas"
	blasgonum "gonum.org/v1/gonum/blas/gonum"
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

// gonumSyrkT and gonumSyrkT32 are SyrkT and SyrkT32 in Go: gonum's Dsyrk
// and Ssyrk, split over goroutines from order parMinOrder on (parSyrkT,
// the same bits). Both builds use them below openblasMinOrder.
func gonumSyrkT(n, k int, b, c []float64) {
	if !parSyrkT(n, k, b, c, false, daxpy) {
		gonumBLAS.Dsyrk(blas.Upper, blas.Trans, n, k, 1, b, n, 1, c, n)
	}
}

func gonumSyrkT32(n, k int, b, c []float32) {
	if !parSyrkT(n, k, b, c, true, saxpy) {
		gonumBLAS.Ssyrk(blas.Upper, blas.Trans, n, k, 1, b, n, 0, c, n)
	}
}

// gonumSgemmNT is SgemmNT in Go (gonum's Sgemm, serial at the sizes of
// the kNN tiles).
func gonumSgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	gonumBLAS.Sgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

var gonumBLAS blasgonum.Implementation

func daxpy(n int, alpha float64, x, y []float64) { gonumBLAS.Daxpy(n, alpha, x, 1, y, 1) }
func saxpy(n int, alpha float32, x, y []float32) { gonumBLAS.Saxpy(n, alpha, x, 1, y, 1) }

var gonumLAPACK lapackgonum.Implementation

// gonumPotrf and gonumPotri are Potrf and Potri in Go (gonum), used by the
// OpenBLAS build too where its libraries cannot be opened.
func gonumPotrf(n int, a []float64) bool { return gonumLAPACK.Dpotrf(blas.Upper, n, a, n) }

func gonumPotri(n int, a []float64) bool { return gonumLAPACK.Dpotri(blas.Upper, n, a, n) }
