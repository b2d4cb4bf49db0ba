package vendi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// gramBlock is the number of summed products accumulated in float32 before
// a block is added to the float64 Gram matrix (float32 inputs): the error
// of a float32 sum of k terms grows like √k·2⁻²⁴, so 512 terms keep each
// block's entries within ~1e-6 of their sum, and the blocks add in float64.
const gramBlock = 512

// EmbeddingSpectrum returns the eigenvalues (ascending) of the Gram matrix
// of the rows of x (n x d, row-major) under the cosine or linear kernel:
// those of the d x d matrix Yᵀ Y when d < n (Y = x with unit rows for
// Cosine), which are the nonzero eigenvalues of Y Yᵀ, else those of the
// n x n Y Yᵀ. No n x n kernel is formed when d < n and x is not copied: the
// Gram is accumulated over blocks of rows (SYRK, linalg), costing
// O(n d² + d³) and O(d² + gramBlock·d) memory beside x. Entries must be
// finite; a zero row is an error under Cosine.
func EmbeddingSpectrum(n, d int, x []float64, kernel EmbeddingKernel) ([]float64, error) {
	if len(x) != n*d {
		panic(fmt.Sprintf("vendi: %d values for %d x %d embeddings", len(x), n, d))
	}
	scale, err := rowScales(n, d, x, kernel)
	if err != nil {
		return nil, err
	}
	return gramSpectrum(n, d, func(buf []float64, lo, hi int, trans bool) {
		fillBlock(buf, n, d, lo, hi, trans, scale, func(i, j int) float64 { return x[i*d+j] })
	}, nil)
}

// EmbeddingSpectrumInPlace is EmbeddingSpectrum for a caller that no longer
// needs x (qvs score on a float64 .npy): the rows are scaled in place (unit
// norm under Cosine) and the d x d Gram is one SYRK straight from x, with
// no copy and no blocks (float64 throughout). On return x holds the scaled
// rows (some of them on error). With n <= d it is EmbeddingSpectrum (x
// unchanged).
func EmbeddingSpectrumInPlace(n, d int, x []float64, kernel EmbeddingKernel) ([]float64, error) {
	if len(x) != n*d {
		panic(fmt.Sprintf("vendi: %d values for %d x %d embeddings", len(x), n, d))
	}
	if n <= d || d == 0 {
		return EmbeddingSpectrum(n, d, x, kernel)
	}
	if err := scaleRows(n, d, x, kernel); err != nil {
		return nil, err
	}
	g := make([]float64, d*d)
	linalg.SyrkT(d, n, x, g)
	return symSpectrum(d, g)
}

// embeddingSpectrum32 is EmbeddingSpectrum for float32 embeddings (the
// usual dtype of model embeddings): products are accumulated in float32
// within blocks of gramBlock terms (single-precision SYRK, twice the speed
// and half the memory traffic of float64) and the blocks are summed in
// float64. The eigenvalues then carry a relative error of about 1e-6 of the
// largest, far below what changes a Vendi score (and below the 6e-8
// relative precision of the float32 inputs times √n). x is not modified.
func embeddingSpectrum32(n, d int, x []float32, kernel EmbeddingKernel) ([]float64, error) {
	if len(x) != n*d {
		panic(fmt.Sprintf("vendi: %d values for %d x %d embeddings", len(x), n, d))
	}
	scale, err := rowScales(n, d, x, kernel)
	if err != nil {
		return nil, err
	}
	var buf32 []float32
	var g32 []float32
	return gramSpectrum(n, d, nil, func(g []float64, lo, hi int, trans bool, m int) {
		k := hi - lo
		if cap(buf32) < k*m {
			buf32 = make([]float32, k*m)
		}
		if g32 == nil {
			g32 = make([]float32, m*m)
		}
		b := buf32[:k*m]
		if trans { // rows lo..hi of Y: k x d
			for i := lo; i < hi; i++ {
				s := float32(scale[i])
				row, dst := x[i*d:(i+1)*d], b[(i-lo)*d:(i-lo+1)*d]
				for j, v := range row {
					dst[j] = v * s
				}
			}
		} else { // columns lo..hi of Y, transposed: k x n
			for i := 0; i < n; i++ {
				s := float32(scale[i])
				for j := lo; j < hi; j++ {
					b[(j-lo)*n+i] = x[i*d+j] * s
				}
			}
		}
		linalg.SyrkT32(m, k, b, g32)
		addUpper32(g, g32, m, lo == 0)
	})
}

// gramBlock32 is the number of rows EmbeddingSpectrum32InPlace hands SYRK
// at a time: the float32 sum of 2,048 products is within about
// √2048·2⁻²⁴ ≈ 3e-6 of its value relative to the entries' scale, still far
// below what changes a Vendi score, and the float64 additions cost a fifth
// of gramBlock's.
const gramBlock32 = 2048

// EmbeddingSpectrum32InPlace is embeddingSpectrum32 for a caller that no
// longer needs x (qvs score on a float32 .npy): the rows are scaled in
// place (unit norm under Cosine) and handed to SYRK straight from x in
// blocks of gramBlock32 rows, so nothing of x's size is copied and the
// float64 Gram receives a fifth of the block additions. On return x holds
// the scaled rows (some of them on error). Errors are those of
// embeddingSpectrum32. With n <= d it is embeddingSpectrum32 (x unchanged).
func EmbeddingSpectrum32InPlace(n, d int, x []float32, kernel EmbeddingKernel) ([]float64, error) {
	if len(x) != n*d {
		panic(fmt.Sprintf("vendi: %d values for %d x %d embeddings", len(x), n, d))
	}
	if n <= d || d == 0 {
		return embeddingSpectrum32(n, d, x, kernel)
	}
	if err := scaleRows(n, d, x, kernel); err != nil {
		return nil, err
	}
	g := make([]float64, d*d)
	g32 := make([]float32, d*d)
	for lo := 0; lo < n; lo += gramBlock32 {
		hi := min(lo+gramBlock32, n)
		linalg.SyrkT32(d, hi-lo, x[lo*d:hi*d], g32)
		addUpper32(g, g32, d, lo == 0)
	}
	return symSpectrum(d, g)
}

// scaleRows checks x's rows and scales them in place to unit norm under
// Cosine (the norm summed in float64, the factor 1/‖row‖ rounded to T), as
// rowScales then fillBlock would. Row ranges go to parallel workers (it is
// a pass over all of x); the error of the first bad row is returned.
func scaleRows[T float32 | float64](n, d int, x []T, kernel EmbeddingKernel) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), n*d/(1<<20)))
	// One contiguous range per worker; Each reports the first failing
	// range, which holds the first bad row.
	return parallel.Each(context.Background(), workers, workers, func(t int) error {
		return scaleRowRange(t*n/workers, (t+1)*n/workers, d, x, kernel)
	})
}

// scaleRowRange is scaleRows on rows [lo, hi).
func scaleRowRange[T float32 | float64](lo, hi, d int, x []T, kernel EmbeddingKernel) error {
	for i := lo; i < hi; i++ {
		row := x[i*d : (i+1)*d]
		sc, err := rowScale(i, row, kernel)
		if err != nil {
			return err
		}
		if kernel != Cosine {
			continue
		}
		s := T(sc)
		for j := range row {
			row[j] *= s
		}
	}
	return nil
}

// rowScale checks row i (0-based) and returns the factor it is scaled by:
// 1/‖row‖ (summed in float64) under Cosine, 1 under Linear. Errors count
// rows and columns from 1, as in the file the caller names.
func rowScale[T float32 | float64](i int, row []T, kernel EmbeddingKernel) (float64, error) {
	var ss float64
	for j, v := range row {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("row %d, column %d: value %v is not finite", i+1, j+1, f)
		}
		ss += f * f
	}
	if kernel != Cosine {
		return 1, nil
	}
	norm := math.Sqrt(ss)
	if math.IsInf(ss, 0) || ss < minNormSquared {
		norm = RowNorm(row) // the squares overflow or underflow: scale first
	}
	if norm == 0 {
		return 0, fmt.Errorf("row %d is all zeros: cosine similarity is undefined (use the linear kernel)", i+1)
	}
	return 1 / norm, nil
}

// minNormSquared: below it a row's sum of squares has lost precision to
// underflow (the smallest normal float64 is ~2.2e-308).
const minNormSquared = 1e-280

// RowNorm is ‖row‖, computed as m sqrt(Σ (v/m)²) with m = max|v| so that
// rows of values near 1e308 or 1e-308 get their norm instead of +Inf or 0
// (a 1e308 row's cosine similarities were all zero). Callers use
// it only where the plain sum of squares fails: other rows keep their bits.
func RowNorm[T float32 | float64](row []T) float64 {
	var m float64
	for _, v := range row {
		m = math.Max(m, math.Abs(float64(v)))
	}
	if m == 0 {
		return 0
	}
	var s float64
	for _, v := range row {
		r := float64(v) / m
		s += r * r
	}
	return m * math.Sqrt(s)
}

// addUpper32 adds (or, when assign, copies) the upper triangle of the m x m
// float32 g32 into the float64 g. Copying the first block instead of adding
// it to zeros spares reading g's fresh pages.
func addUpper32(g []float64, g32 []float32, m int, assign bool) {
	for a := 0; a < m; a++ {
		dst, src := g[a*m+a:(a+1)*m], g32[a*m+a:(a+1)*m]
		if assign {
			for c, v := range src {
				dst[c] = float64(v)
			}
			continue
		}
		for c, v := range src {
			dst[c] += float64(v)
		}
	}
}

// rowScales checks the rows and returns the factor each row is scaled by:
// 1/‖row‖ under Cosine, 1 under Linear.
// Non-finite entries are errors; errors count rows and columns from 1, as
// in the file the caller names.
func rowScales[T float32 | float64](n, d int, x []T, kernel EmbeddingKernel) ([]float64, error) {
	scale := make([]float64, n)
	for i := range scale {
		var err error
		if scale[i], err = rowScale(i, x[i*d:(i+1)*d], kernel); err != nil {
			return nil, err
		}
	}
	return scale, nil
}

// fillBlock writes block lo..hi of the summation index of the scaled
// embeddings into buf as a k x m row-major matrix B with Gram += Bᵀ B:
// rows lo..hi (trans, m = d) or columns lo..hi transposed (m = n).
func fillBlock(buf []float64, n, d, lo, hi int, trans bool, scale []float64, at func(i, j int) float64) {
	if trans {
		for i := lo; i < hi; i++ {
			for j := 0; j < d; j++ {
				buf[(i-lo)*d+j] = at(i, j) * scale[i]
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		for j := lo; j < hi; j++ {
			buf[(j-lo)*n+i] = at(i, j) * scale[i]
		}
	}
}

// gramSpectrum accumulates the Gram matrix block by block and returns its
// eigenvalues. fill64 writes a float64 block for SyrkT; add32 (used instead
// when non-nil) adds a block computed in float32 to the float64 Gram.
func gramSpectrum(n, d int, fill64 func(buf []float64, lo, hi int, trans bool), add32 func(g []float64, lo, hi int, trans bool, m int)) ([]float64, error) {
	if n == 0 || d == 0 {
		return nil, nil
	}
	trans := d < n // Gram Yᵀ Y (d x d), summing over rows
	m, total := n, d
	if trans {
		m, total = d, n
	}
	g := make([]float64, m*m)
	var buf []float64
	for lo := 0; lo < total; lo += gramBlock {
		hi := min(lo+gramBlock, total)
		if add32 != nil {
			add32(g, lo, hi, trans, m)
			continue
		}
		if cap(buf) < (hi-lo)*m {
			buf = make([]float64, (hi-lo)*m)
		}
		b := buf[:(hi-lo)*m]
		fill64(b, lo, hi, trans)
		linalg.SyrkT(m, hi-lo, b, g)
	}
	return symSpectrum(m, g)
}

// symSpectrum returns the eigenvalues of the m x m Gram g (upper triangle).
func symSpectrum(m int, g []float64) ([]float64, error) {
	eig := make([]float64, m)
	if !symEigenvalues(m, g, eig) {
		return nil, errors.New("vendi: eigendecomposition of the Gram matrix did not converge")
	}
	return eig, nil
}
