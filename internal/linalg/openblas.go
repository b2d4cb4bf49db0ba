//go:build openblas

package linalg

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <cblas.h>
#include <lapacke.h>

// OpenBLAS and LAPACKE are opened on first use (qvs_load), not linked: a
// linked OpenBLAS starts its worker threads when the program starts, and
// they spin (sched_yield) for about 0.1 s, which cost every command a
// third of its time when it had no large matrix (select on embeddings:
// 0.10 s -> 0.14 s); and a binary built with the tag still runs, in pure
// Go, where the libraries are missing.
static __typeof__(cblas_dsyrk) *p_dsyrk;
static __typeof__(cblas_ssyrk) *p_ssyrk;
static __typeof__(cblas_sgemm) *p_sgemm;
static __typeof__(LAPACKE_dsyevd) *p_dsyevd;
static __typeof__(LAPACKE_dpotrf) *p_dpotrf;
static __typeof__(LAPACKE_dpotri) *p_dpotri;

static void *qvs_open(const char *a, const char *b) {
	void *h = dlopen(a, RTLD_NOW | RTLD_GLOBAL);
	return h ? h : dlopen(b, RTLD_NOW | RTLD_GLOBAL);
}

// qvs_load returns 1 when every routine was found.
static int qvs_load(void) {
	void *blas = qvs_open("libopenblas.so.0", "libopenblas.so");
	void *lapacke = qvs_open("liblapacke.so.3", "liblapacke.so");
	if (!blas || !lapacke) return 0;
	p_dsyrk = (__typeof__(p_dsyrk))dlsym(blas, "cblas_dsyrk");
	p_ssyrk = (__typeof__(p_ssyrk))dlsym(blas, "cblas_ssyrk");
	p_sgemm = (__typeof__(p_sgemm))dlsym(blas, "cblas_sgemm");
	p_dsyevd = (__typeof__(p_dsyevd))dlsym(lapacke, "LAPACKE_dsyevd");
	p_dpotrf = (__typeof__(p_dpotrf))dlsym(lapacke, "LAPACKE_dpotrf");
	p_dpotri = (__typeof__(p_dpotri))dlsym(lapacke, "LAPACKE_dpotri");
	return p_dsyrk && p_ssyrk && p_sgemm && p_dsyevd && p_dpotrf && p_dpotri;
}

static void qvs_dsyrk(int n, int k, const double *b, double *c) {
	p_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, n, k, 1, b, n, 1, c, n);
}
static void qvs_ssyrk(int n, int k, const float *b, float *c) {
	p_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, n, k, 1, b, n, 0, c, n);
}
static void qvs_sgemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb, float *c, int ldc) {
	p_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc);
}
static int qvs_dsyevd(int n, double *a, double *w) {
	return p_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, a, n, w);
}
static int qvs_dpotrf(int n, double *a) { return p_dpotrf(LAPACK_COL_MAJOR, 'L', n, a, n); }
static int qvs_dpotri(int n, double *a) { return p_dpotri(LAPACK_COL_MAJOR, 'L', n, a, n); }
*/
import "C"

import (
	"sync"
	"unsafe"
)

// Backend is the implementation compiled in: "gonum" (pure Go) or "openblas".
// The openblas build opens the libraries on first use and falls back to
// pure Go where they cannot be opened (InUse tells which).
const Backend = "openblas"

var (
	loadOnce sync.Once
	loaded   bool
)

// haveLAPACK opens OpenBLAS and LAPACKE once and reports whether they are
// usable.
func haveLAPACK() bool {
	loadOnce.Do(func() { loaded = C.qvs_load() == 1 })
	return loaded
}

// InUse names the linear algebra calls actually go to: "openblas", or
// "gonum (libopenblas.so.0 / liblapacke.so.3 not found)" when this
// openblas build runs where the libraries are missing. It opens them.
func InUse() string {
	if haveLAPACK() {
		return "openblas"
	}
	return "gonum (libopenblas.so.0 / liblapacke.so.3 not found)"
}

// Row-major upper triangles are, seen by column-major LAPACK, lower
// triangles of the same memory: hence 'L' below. CBLAS takes the row-major
// layout directly.

// Below openblasMinOrder SYRK stays in Go, as the eigenvalues do: a d x d
// Gram of low-dimensional embeddings is cheap in Go, every call to
// OpenBLAS leaves its threads spinning (sched_yield) for about 0.1 s, and
// small Grams then agree bit for bit across the builds.
func syrkT(n, k int, b, c []float64) {
	if n < openblasMinOrder || !haveLAPACK() {
		gonumSyrkT(n, k, b, c)
		return
	}
	C.qvs_dsyrk(C.int(n), C.int(k), (*C.double)(unsafe.Pointer(&b[0])), (*C.double)(unsafe.Pointer(&c[0])))
}

func syrkT32(n, k int, b, c []float32) {
	if n < openblasMinOrder || !haveLAPACK() {
		gonumSyrkT32(n, k, b, c)
		return
	}
	C.qvs_ssyrk(C.int(n), C.int(k), (*C.float)(unsafe.Pointer(&b[0])), (*C.float)(unsafe.Pointer(&c[0])))
}

// sgemmNT calls cblas_sgemm whatever the size: the kNN tiles (at most
// 64 x 64 x prefix dimensions) are below OpenBLAS's threading threshold, so
// it runs on the calling goroutine's thread without waking its own threads.
func sgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if !haveLAPACK() {
		gonumSgemmNT(m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	C.qvs_sgemm_nt(C.int(m), C.int(n), C.int(k), (*C.float)(unsafe.Pointer(&a[0])), C.int(lda),
		(*C.float)(unsafe.Pointer(&b[0])), C.int(ldb), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}

// symEigenvalues uses dsyevd without vectors (tridiagonalisation and
// dsterf), the routine NumPy's eigvalsh calls, from openblasMinOrder on.
func symEigenvalues(n int, a, w []float64) bool {
	if n < openblasMinOrder || !haveLAPACK() {
		return gonumSymEigenvalues(n, a, w)
	}
	return C.qvs_dsyevd(C.int(n), (*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&w[0]))) == 0
}

func potrf(n int, a []float64) bool {
	if !haveLAPACK() {
		return gonumPotrf(n, a)
	}
	return C.qvs_dpotrf(C.int(n), (*C.double)(unsafe.Pointer(&a[0]))) == 0
}

func potri(n int, a []float64) bool {
	if !haveLAPACK() {
		return gonumPotri(n, a)
	}
	return C.qvs_dpotri(C.int(n), (*C.double)(unsafe.Pointer(&a[0]))) == 0
}
