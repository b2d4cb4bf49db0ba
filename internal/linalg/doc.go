// Package linalg holds the few dense linear-algebra kernels whose speed
// decides qvs's large runs: the Gram matrix of embeddings (SYRK), the
// eigenvalues of a symmetric matrix (no vectors) and the Cholesky
// factorisation of the GP (POTRF/POTRI); and the one principal component
// analysis of the pools and figures (pca.go): PCA (the d x d covariance,
// its top eigenpairs by TopEigen, which MDS of a discrete kernel shares)
// and PCA2 (the top two by subspace iteration, for wide data), with one
// sign convention (SignOfLargest).
//
// Two backends implement them. The default is pure Go (gonum's BLAS and
// LAPACK), so `go install` needs nothing but Go. Built with the tag
// `openblas` (`make build` does so when the library is installed, see
// HasOpenBLAS in the Makefile), the same calls go to OpenBLAS and LAPACKE
// through cgo: `go build -tags openblas` with the Debian packages
// libopenblas-dev and liblapacke-dev. Backend names the one compiled in;
// the openblas build opens the libraries (dlopen) on its first large call
// and runs in pure Go where they are missing (InUse says which).
//
// The pure-Go backend splits its hot loops over GOMAXPROCS goroutines from
// order 256 on (parblas.go): SYRK by row blocks, and the Dsymv and Dsyr2k
// of gonum's tridiagonalisation, which the package installs in gonum with
// blas64.Use so that every gonum eigendecomposition in the process
// (mat.EigenSym too) uses them. Each output element is computed by gonum's
// expressions in gonum's order, so the results are gonum's bit for bit
// (tested), with the default GOAMD64=v1, where Go fuses no multiply-add.
//
// Storage: every matrix is row-major with its leading dimension equal to
// its order. A symmetric matrix is given by its upper triangle (the lower
// one is ignored and may be overwritten); LAPACK's column-major routines
// see the same memory as the lower triangle, which is what the cgo backend
// passes them.
//
//	c := make([]float64, d*d)
//	linalg.SyrkT(d, n, x, c)           // c (upper) += xᵀ x, x is n x d
//	w := make([]float64, d)
//	ok := linalg.SymEigenvalues(d, c, w) // ascending; c is destroyed
package linalg
