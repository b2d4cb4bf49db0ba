//go:build !openblas

package linalg

// Backend is the implementation compiled in: "gonum" (pure Go) or "openblas".
const Backend = "gonum"

// InUse names where the linear algebra calls go: "gonum" in this build.
func InUse() string { return "gonum" }

func syrkT(n, k int, b, c []float64) { gonumSyrkT(n, k, b, c) }

func syrkT32(n, k int, b, c []float32) { gonumSyrkT32(n, k, b, c) }

func sgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	gonumSgemmNT(m, n, k, a, lda, b, ldb, c, ldc)
}

func symEigenvalues(n int, a, w []float64) bool { return gonumSymEigenvalues(n, a, w) }

func potrf(n int, a []float64) bool { return gonumPotrf(n, a) }

func potri(n int, a []float64) bool { return gonumPotri(n, a) }
