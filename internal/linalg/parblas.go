package linalg

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// parBLAS is gonum's pure-Go BLAS with the two routines that make up
// almost all of a symmetric eigendecomposition's time (Dsytrd: Dsymv in
// Dlatrd, ~80 %, and Dsyr2k, ~16 %, at order 2,048) split over goroutines
// for large orders. Every output element is computed by the same
// expressions, summed in the same order, as gonum's, so results are bit for
// bit those of gonum.Implementation (tests compare bits), only faster: the
// pure-Go build's eigenvalues, active-search metrics and published records
// do not move. Other calls, small orders, and the cases not covered (lower
// triangle, negative increments, alpha = 0, transposed Dsyr2k) go to gonum.
//
// It is installed with blas64.Use, so gonum's LAPACK (mat.EigenSym,
// Dsyev) picks it up.
type parBLAS struct{ gonum.Implementation }

func init() { blas64.Use(parBLAS{}) }

// parMinOrder is the order from which the two routines are split: at
// n = 256 a Dsymv is ~65,000 multiply-adds, about 30 µs, against a few
// µs to start and join the goroutines.
const parMinOrder = 256

// parWorkers is how many goroutines share an order-n call.
func parWorkers(n int) int {
	return min(runtime.GOMAXPROCS(0), n/(parMinOrder/2))
}

var vecPool = sync.Pool{New: func() any { return new([]float64) }}

// Dsymv computes y = alpha·A·x + beta·y for symmetric A (BLAS).
//
// Upper triangle, positive increments: gonum's loop runs over rows i, adds
// (x_i·alpha)·a_ij to y_j for j > i in order of i, then alpha·sum_i (sum_i
// = x_i·a_ii + Σ_{k>i} x_k·a_ik, in order of k) to y_i. Each y_j thus
// receives, in order, the terms of rows 0..j-1 and then its own sum. A
// worker owning columns [j0, j1) walks rows 0..j1-1 doing exactly that
// for its columns only: the same terms, in the same order, per element.
// Column j costs j multiply-adds of axpy and n-j of its dot, so equal
// column ranges balance the workers.
func (p parBLAS) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	w := parWorkers(n)
	if w < 2 || ul != blas.Upper || alpha == 0 || incX <= 0 || incY <= 0 ||
		lda < n || len(a) < lda*(n-1)+n || len(x) <= (n-1)*incX || len(y) <= (n-1)*incY {
		p.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	xp, yp := vecPool.Get().(*[]float64), vecPool.Get().(*[]float64)
	defer vecPool.Put(xp)
	defer vecPool.Put(yp)
	if cap(*xp) < n {
		*xp = make([]float64, n)
	}
	if cap(*yp) < n {
		*yp = make([]float64, n)
	}
	xc, yc := (*xp)[:n], (*yp)[:n]
	for i := range xc {
		xc[i] = x[i*incX]
	}
	// y = beta·y, as gonum: zeros for beta = 0, else the product.
	for i := range yc {
		switch beta {
		case 0:
			yc[i] = 0
		case 1:
			yc[i] = y[i*incY]
		default:
			yc[i] = beta * y[i*incY]
		}
	}
	// The split is part of the arithmetic (rows are grouped relative to
	// j0), so it is fixed here and parallel.Workers only runs it.
	parallel.Workers(w, func(t int) {
		symvUpperCols(n, alpha, a, lda, xc, yc, t*n/w, (t+1)*n/w)
	})
	for i, v := range yc {
		y[i*incY] = v
	}
}

// symvUpperCols is gonum's upper Dsymv restricted to the outputs y[j0:j1]
// (contiguous x and y). Rows are taken four (else two) at a time where all
// are of the same kind (before j0: axpy only; in [j0, j1): axpy and dot):
// y_j still receives row i's term, rounded, before row i+1's, y is read and
// written once per group instead of once per row, and the dot products are
// independent chains in gonum's order, which the processor overlaps (one
// chain is limited by the latency of an addition). Four rather than two:
// eigenvalues of order 1,000 156 -> 119 ms, 2,048 1.43 -> 1.17 s.
func symvUpperCols(n int, alpha float64, a []float64, lda int, x, y []float64, j0, j1 int) {
	i := 0
	for ; i+3 < j0; i += 4 { // four rows wholly left of the columns
		axpy4(y[j0:j1], a[i*lda+j0:i*lda+j1], a[(i+1)*lda+j0:(i+1)*lda+j1],
			a[(i+2)*lda+j0:(i+2)*lda+j1], a[(i+3)*lda+j0:(i+3)*lda+j1],
			x[i]*alpha, x[i+1]*alpha, x[i+2]*alpha, x[i+3]*alpha)
	}
	for ; i+1 < j0; i += 2 { // two rows wholly left of the columns
		axpy2(y[j0:j1], a[i*lda+j0:i*lda+j1], a[(i+1)*lda+j0:(i+1)*lda+j1], x[i]*alpha, x[i+1]*alpha)
	}
	for ; i < j1; i++ {
		if i >= j0 && i+3 < j1 {
			symvUpperQuad(n, alpha, a, lda, x, y, i, j1)
			i += 3
			continue
		}
		if i >= j0 && i+1 < j1 {
			symvUpperPair(n, alpha, a, lda, x, y, i, j1)
			i++
			continue
		}
		row := a[i*lda : i*lda+n]
		xv := x[i] * alpha
		lo := max(j0, i+1)
		if lo < j1 {
			ys := y[lo:j1]
			for k, v := range row[lo:j1] {
				ys[k] += xv * v
			}
		}
		if i >= j0 {
			sum := x[i] * row[i]
			xs := x[i+1 : n]
			for k, v := range row[i+1 : n] {
				sum += xs[k] * v
			}
			y[i] += alpha * sum
		}
	}
}

// axpy4 adds x0·r0 + x1·r1 + x2·r2 + x3·r3 to ys, element by element in
// that order, each term rounded as gonum's row-by-row loop rounds it.
func axpy4(ys, r0, r1, r2, r3 []float64, x0, x1, x2, x3 float64) {
	ys, r1, r2, r3 = ys[:len(r0)], r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
	for k, v0 := range r0 {
		t := ys[k]
		t += x0 * v0
		t += x1 * r1[k]
		t += x2 * r2[k]
		t += x3 * r3[k]
		ys[k] = t
	}
}

// axpy2 is axpy4 for two rows.
func axpy2(ys, r0, r1 []float64, x0, x1 float64) {
	ys, r1 = ys[:len(r0)], r1[:len(r0)]
	for k, v0 := range r0 {
		t := ys[k]
		t += x0 * v0
		t += x1 * r1[k]
		ys[k] = t
	}
}

// symvUpperQuad does rows i..i+3, all among the worker's columns (i+3 <
// j1), in gonum's order for every element they touch: y_{i+1..i+3} receive
// the earlier rows' terms of the four before their own sums, and the four
// dot products run as independent chains.
func symvUpperQuad(n int, alpha float64, a []float64, lda int, x, y []float64, i, j1 int) {
	r0, r1 := a[i*lda:i*lda+n], a[(i+1)*lda:(i+1)*lda+n]
	r2, r3 := a[(i+2)*lda:(i+2)*lda+n], a[(i+3)*lda:(i+3)*lda+n]
	xv0, xv1, xv2, xv3 := x[i]*alpha, x[i+1]*alpha, x[i+2]*alpha, x[i+3]*alpha
	y[i+1] += xv0 * r0[i+1]
	y[i+2] += xv0 * r0[i+2]
	y[i+2] += xv1 * r1[i+2]
	y[i+3] += xv0 * r0[i+3]
	y[i+3] += xv1 * r1[i+3]
	y[i+3] += xv2 * r2[i+3]
	if i+4 < j1 {
		axpy4(y[i+4:j1], r0[i+4:j1], r1[i+4:j1], r2[i+4:j1], r3[i+4:j1], xv0, xv1, xv2, xv3)
	}
	sum0 := x[i] * r0[i]
	sum0 += x[i+1] * r0[i+1]
	sum0 += x[i+2] * r0[i+2]
	sum0 += x[i+3] * r0[i+3]
	sum1 := x[i+1] * r1[i+1]
	sum1 += x[i+2] * r1[i+2]
	sum1 += x[i+3] * r1[i+3]
	sum2 := x[i+2] * r2[i+2]
	sum2 += x[i+3] * r2[i+3]
	sum3 := x[i+3] * r3[i+3]
	if i+4 < n {
		xs, s0, s1, s2, s3 := x[i+4:n], r0[i+4:n], r1[i+4:n], r2[i+4:n], r3[i+4:n]
		xs, s1, s2, s3 = xs[:len(s0)], s1[:len(s0)], s2[:len(s0)], s3[:len(s0)]
		for k, v0 := range s0 {
			xk := xs[k]
			sum0 += xk * v0
			sum1 += xk * s1[k]
			sum2 += xk * s2[k]
			sum3 += xk * s3[k]
		}
	}
	y[i] += alpha * sum0
	y[i+1] += alpha * sum1
	y[i+2] += alpha * sum2
	y[i+3] += alpha * sum3
}

// symvUpperPair does rows i and i+1, both among the worker's columns (i+1 <
// j1), in gonum's order for every element they touch.
func symvUpperPair(n int, alpha float64, a []float64, lda int, x, y []float64, i, j1 int) {
	r0, r1 := a[i*lda:i*lda+n], a[(i+1)*lda:(i+1)*lda+n]
	xv0, xv1 := x[i]*alpha, x[i+1]*alpha
	y[i+1] += xv0 * r0[i+1] // row i's term of y_{i+1}, before its own sum
	if i+2 < j1 {
		axpy2(y[i+2:j1], r0[i+2:j1], r1[i+2:j1], xv0, xv1)
	}
	sum0 := x[i] * r0[i]
	sum0 += x[i+1] * r0[i+1]
	sum1 := x[i+1] * r1[i+1]
	if i+2 < n {
		xs, s0, s1 := x[i+2:n], r0[i+2:n], r1[i+2:n]
		for k, v0 := range s0 {
			sum0 += xs[k] * v0
			sum1 += xs[k] * s1[k]
		}
	}
	y[i] += alpha * sum0
	y[i+1] += alpha * sum1
}

// Dsyr2k computes C = alpha·(A·Bᵀ + B·Aᵀ) + beta·C on C's upper triangle
// (BLAS, NoTrans). Each element is gonum's expression (the two dot products
// over l in order, then beta and alpha as gonum applies them); workers take
// row ranges of equal triangle area.
func (p parBLAS) Dsyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	w := parWorkers(n)
	if w < 2 || ul != blas.Upper || tA != blas.NoTrans || alpha == 0 || k == 0 ||
		lda < k || ldb < k || ldc < n || len(a) < lda*(n-1)+k || len(b) < ldb*(n-1)+k || len(c) < ldc*(n-1)+n {
		p.Implementation.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	byTriangleRows(n, w, func(i0, i1 int) {
		syr2kUpperRows(n, k, alpha, a, lda, b, ldb, beta, c, ldc, i0, i1)
	})
}

// byTriangleRows runs f on w row ranges of an upper triangle of order n,
// of equal area, in parallel, and waits for them.
func byTriangleRows(n, w int, f func(i0, i1 int)) {
	parallel.Workers(w, func(t int) {
		i0, i1 := 0, n
		if t > 0 {
			i0 = triangleSplit(n, t, w)
		}
		if t < w-1 {
			i1 = triangleSplit(n, t+1, w)
		}
		f(i0, i1)
	})
}

// triangleSplit is the first row of part t of w of an upper triangle of
// order n split into parts of (nearly) equal area: rows i..n-1 hold
// (n-i)(n-i+1)/2 elements.
func triangleSplit(n, t, w int) int {
	total := float64(n) * float64(n+1) / 2
	rest := total * float64(w-t) / float64(w) // area of rows i..n-1
	i := 0
	for i < n && float64(n-i)*float64(n-i+1)/2 > rest {
		i++
	}
	return i
}

func syr2kUpperRows(n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, i0, i1 int) {
	// set applies gonum's update of one element.
	set := func(c *float64, tmp1, tmp2 float64) {
		if beta == 0 {
			*c = alpha * (tmp1 + tmp2)
		} else {
			*c *= beta
			*c += alpha * (tmp1 + tmp2)
		}
	}
	for i := i0; i < i1; i++ {
		atmp := a[i*lda : i*lda+k]
		btmp := b[i*ldb : i*ldb+k]
		ctmp := c[i*ldc+i : i*ldc+n]
		jc := 0
		// Four elements at a time: eight independent chains of additions
		// (one chain per element's dot product, each in gonum's order)
		// instead of two, which latency, not arithmetic, limits.
		for ; jc+3 < len(ctmp); jc += 4 {
			j := i + jc
			a0, a1, a2, a3 := a[j*lda:j*lda+k], a[(j+1)*lda:(j+1)*lda+k], a[(j+2)*lda:(j+2)*lda+k], a[(j+3)*lda:(j+3)*lda+k]
			b0, b1, b2, b3 := b[j*ldb:j*ldb+k], b[(j+1)*ldb:(j+1)*ldb+k], b[(j+2)*ldb:(j+2)*ldb+k], b[(j+3)*ldb:(j+3)*ldb+k]
			var s0, t0, s1, t1, s2, t2, s3, t3 float64
			for l, av := range atmp {
				bv := btmp[l]
				s0 += a0[l] * bv
				t0 += av * b0[l]
				s1 += a1[l] * bv
				t1 += av * b1[l]
				s2 += a2[l] * bv
				t2 += av * b2[l]
				s3 += a3[l] * bv
				t3 += av * b3[l]
			}
			set(&ctmp[jc], s0, t0)
			set(&ctmp[jc+1], s1, t1)
			set(&ctmp[jc+2], s2, t2)
			set(&ctmp[jc+3], s3, t3)
		}
		for ; jc < len(ctmp); jc++ {
			j := i + jc
			var tmp1, tmp2 float64
			binner := b[j*ldb : j*ldb+k]
			for l, v := range a[j*lda : j*lda+k] {
				tmp1 += v * btmp[l]
				tmp2 += atmp[l] * binner[l]
			}
			set(&ctmp[jc], tmp1, tmp2)
		}
	}
}

// syrkRowBlock is how many rows of C a worker updates per pass over B:
// their 16 rows (at most 16 x 2,048 x 8 bytes, 256 KiB) stay in cache while
// each row of B is read once for all of them, instead of once per row.
const syrkRowBlock = 16

// parSyrkT sets (beta0) or adds to (else) the upper triangle of the n x n c
// the product bᵀ b, b k x n: gonum's Dsyrk/Ssyrk (upper, transposed,
// alpha = 1, beta = 0 or 1) computed by row ranges of equal triangle area
// on parallel workers and in blocks of syrkRowBlock rows. Element (i, j)
// receives gonum's terms, b_li·b_lj for l in order and skipped where b_li
// = 0, through the same axpy kernel (gonum's Saxpy/Daxpy): the same bits.
// It reports false, doing nothing, where gonum should be called instead
// (one worker or a small order).
func parSyrkT[T float32 | float64](n, k int, b, c []T, beta0 bool, axpy func(n int, alpha T, x, y []T)) bool {
	w := parWorkers(n)
	if w < 2 {
		return false
	}
	byTriangleRows(n, w, func(i0, i1 int) {
		for ib := i0; ib < i1; ib += syrkRowBlock {
			ie := min(ib+syrkRowBlock, i1)
			if beta0 {
				for i := ib; i < ie; i++ {
					clear(c[i*n+i : i*n+n])
				}
			}
			for l := 0; l < k; l++ {
				row := b[l*n : l*n+n]
				for i := ib; i < ie; i++ {
					if v := row[i]; v != 0 {
						axpy(n-i, v, row[i:], c[i*n+i:i*n+n])
					}
				}
			}
		}
	})
	return true
}
