package linalg

import "fmt"

// SyrkT adds bᵀ b to the upper triangle of the n x n matrix c, where b is
// k x n (row-major). The lower triangle of c is not referenced.
func SyrkT(n, k int, b, c []float64) {
	checkLen("SyrkT b", len(b), k*n)
	checkLen("SyrkT c", len(c), n*n)
	if n == 0 || k == 0 {
		return
	}
	syrkT(n, k, b, c)
}

// SyrkT32 sets the upper triangle of the n x n float32 matrix c to bᵀ b,
// b k x n, accumulating in float32 (single-precision SYRK). Callers that
// need double-precision totals keep k moderate and sum the blocks in
// float64 (see vendi's Gram of float32 embeddings).
func SyrkT32(n, k int, b, c []float32) {
	checkLen("SyrkT32 b", len(b), k*n)
	checkLen("SyrkT32 c", len(c), n*n)
	if n == 0 {
		return
	}
	if k == 0 {
		clear(c)
		return
	}
	syrkT32(n, k, b, c)
}

// SgemmNT sets the m x n float32 matrix c (row-major, leading dimension
// ldc) to a bᵀ, a m x k (leading dimension lda), b n x k (ldb), summing in
// float32 in an order the backend chooses: callers bound the rounding by
// the order-independent k·u·|a_i||b_j| (Higham, eq. 3.5), not by digits.
// The exact kNN graph's distance tiles use it (knn.DenseKNN).
func SgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkMinLen("SgemmNT a", len(a), (m-1)*lda+k)
	checkMinLen("SgemmNT b", len(b), (n-1)*ldb+k)
	checkMinLen("SgemmNT c", len(c), (m-1)*ldc+n)
	if k == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	sgemmNT(m, n, k, a, lda, b, ldb, c, ldc)
}

// SymEigenvalues writes the eigenvalues of the symmetric n x n matrix a
// (upper triangle) to w in ascending order, without eigenvectors. a is
// destroyed. It reports false when the iteration did not converge.
func SymEigenvalues(n int, a, w []float64) bool {
	checkLen("SymEigenvalues a", len(a), n*n)
	checkLen("SymEigenvalues w", len(w), n)
	if n == 0 {
		return true
	}
	return symEigenvalues(n, a, w)
}

// Potrf overwrites the upper triangle of the symmetric positive definite
// n x n matrix a with U, a = Uᵀ U (the lower triangle is not referenced).
// It reports false, leaving a partly overwritten, when a is not positive
// definite.
func Potrf(n int, a []float64) bool {
	checkLen("Potrf a", len(a), n*n)
	if n == 0 {
		return true
	}
	return potrf(n, a)
}

// Potri overwrites the upper triangle of a, holding the Cholesky factor U
// from Potrf, with the upper triangle of (Uᵀ U)⁻¹. It reports false when U
// is singular.
func Potri(n int, a []float64) bool {
	checkLen("Potri a", len(a), n*n)
	if n == 0 {
		return true
	}
	return potri(n, a)
}

// checkLen panics on a programmer error (a slice of the wrong length), as
// gonum does.
func checkLen(what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("linalg: %s has length %d, want %d", what, got, want))
	}
}

// checkMinLen panics when a strided operand is shorter than its last row's
// end.
func checkMinLen(what string, got, want int) {
	if got < want {
		panic(fmt.Sprintf("linalg: %s has length %d, want at least %d", what, got, want))
	}
}
