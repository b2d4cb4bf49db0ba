//go:build openblas

package linalg

/*
#cgo LDFLAGS: -lopenblas -llapacke
#include <cblas.h>
#include <lapacke.h>
*/
import "C"

import "unsafe"

// Backend is the implementation compiled in: "gonum" (pure Go) or "openblas".
const Backend = "openblas"

// Row-major upper triangles are, seen by column-major LAPACK, lower
// triangles of the same memory: hence 'L' below. CBLAS takes the row-major
// layout directly.

// Below openblasMinOrder SYRK stays in Go, as the eigenvalues do: a d x d
// Gram of low-dimensional embeddings is cheap in Go, every call to
// OpenBLAS leaves its threads spinning (sched_yield) for about 0.1 s, and
// small Grams then agree bit for bit across the builds.
func syrkT(n, k int, b, c []float64) {
	if n < openblasMinOrder {
		gonumSyrkT(n, k, b, c)
		return
	}
	C.cblas_dsyrk(C.CblasRowMajor, C.CblasUpper, C.CblasTrans, C.int(n), C.int(k), 1,
		(*C.double)(unsafe.Pointer(&b[0])), C.int(n), 1, (*C.double)(unsafe.Pointer(&c[0])), C.int(n))
}

func syrkT32(n, k int, b, c []float32) {
	if n < openblasMinOrder {
		gonumSyrkT32(n, k, b, c)
		return
	}
	C.cblas_ssyrk(C.CblasRowMajor, C.CblasUpper, C.CblasTrans, C.int(n), C.int(k), 1,
		(*C.float)(unsafe.Pointer(&b[0])), C.int(n), 0, (*C.float)(unsafe.Pointer(&c[0])), C.int(n))
}

// symEigenvalues uses dsyevd without vectors (tridiagonalisation and
// dsterf), the routine NumPy's eigvalsh calls, from openblasMinOrder on.
func symEigenvalues(n int, a, w []float64) bool {
	if n < openblasMinOrder {
		return gonumSymEigenvalues(n, a, w)
	}
	info := C.LAPACKE_dsyevd(C.LAPACK_COL_MAJOR, 'N', 'L', C.lapack_int(n),
		(*C.double)(unsafe.Pointer(&a[0])), C.lapack_int(n), (*C.double)(unsafe.Pointer(&w[0])))
	return info == 0
}

func potrf(n int, a []float64) bool {
	return C.LAPACKE_dpotrf(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(n), (*C.double)(unsafe.Pointer(&a[0])), C.lapack_int(n)) == 0
}

func potri(n int, a []float64) bool {
	return C.LAPACKE_dpotri(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(n), (*C.double)(unsafe.Pointer(&a[0])), C.lapack_int(n)) == 0
}
