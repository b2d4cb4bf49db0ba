package linalg

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// pcaChunk is the number of rows centred and multiplied at a time: large
// enough for efficient BLAS calls, small enough (256 x 784 x 8 bytes = 1.6 MB)
// that the centred data never exists in full.
const pcaChunk = 256

// pcaSlots is the number of partial covariance matrices (and so the maximum
// parallelism of PCA): 8 x 784 x 784 x 8 bytes = 39 MB for Fashion-MNIST.
const pcaSlots = 8

// PCAResult holds principal components of an n x d data set.
type PCAResult struct {
	Mean       []float64   // d column means
	Components *mat.Dense  // d x m, column c = unit eigenvector c of the covariance
	Variance   []float64   // m eigenvalues of the covariance, decreasing
	Explained  float64     // fraction of the total variance the m components keep
	Scores     [][]float64 // n x m projections of the centred rows
}

// PCA computes the top m principal components of n rows of length d, where
// row(i, dst) writes row i into dst, using workers goroutines (<= 0:
// GOMAXPROCS). It forms the d x d covariance; PCA2 finds the top two
// without it, for wide data.
//
// The covariance (1/(n-1)) sum (x - mean)(x - mean)^T is accumulated in
// chunks of centred rows into a fixed number of partial d x d matrices
// (Dsyrk), so that the result does not depend on workers, then
// eigendecomposed (TopEigen). Eigenvector signs are fixed so that the
// largest-magnitude entry is positive (the first such entry on ties:
// SignOfLargest), making the scores a deterministic function of the data.
func PCA(n, d, m int, row func(i int, dst []float64), workers int) (*PCAResult, error) {
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("PCA needs at least 2 rows and 1 column, got %d x %d", n, d)
	}
	if m < 1 || m > d {
		return nil, fmt.Errorf("PCA: %d components requested, expected 1 to %d (the number of columns)", m, d)
	}
	chunks := (n + pcaChunk - 1) / pcaChunk
	// Chunk c belongs to slot c mod slots; each slot accumulates its own
	// partial sums in chunk order and the slots are added in order, so the
	// result is the same for any number of workers.
	slots := min(pcaSlots, chunks)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, slots)
	// forChunks runs f(slot, lo, hi, buf) over the row chunks [lo, hi),
	// each slot on one worker; buf holds the chunk's rows.
	forChunks := func(f func(slot, lo, hi int, buf []float64)) {
		bufs := make([][]float64, workers)
		parallel.Blocks(slots, 1, workers, func(w, slot, _ int) {
			if bufs[w] == nil {
				bufs[w] = make([]float64, pcaChunk*d)
			}
			buf := bufs[w]
			for c := slot; c < chunks; c += slots {
				lo, hi := c*pcaChunk, min((c+1)*pcaChunk, n)
				for i := lo; i < hi; i++ {
					row(i, buf[(i-lo)*d:(i-lo+1)*d])
				}
				f(slot, lo, hi, buf)
			}
		})
	}
	// Pass 1: column sums.
	sums := make([][]float64, slots)
	for s := range sums {
		sums[s] = make([]float64, d)
	}
	bad := make([]error, slots) // first non-finite value seen in each slot
	forChunks(func(slot, lo, hi int, buf []float64) {
		for r := 0; r < hi-lo; r++ {
			for c, v := range buf[r*d : (r+1)*d] {
				if (math.IsNaN(v) || math.IsInf(v, 0)) && bad[slot] == nil {
					bad[slot] = fmt.Errorf("PCA: row %d, column %d is %v, expected a finite number", lo+r, c, v)
				}
				sums[slot][c] += v
			}
		}
	})
	for _, err := range bad {
		if err != nil {
			return nil, err
		}
	}
	mean := make([]float64, d)
	for _, s := range sums {
		for c, v := range s {
			mean[c] += v
		}
	}
	for c := range mean {
		mean[c] /= float64(n)
	}
	// Pass 2: covariance of centred rows.
	impl := gonum.Implementation{}
	parts := make([][]float64, slots)
	for s := range parts {
		parts[s] = make([]float64, d*d)
	}
	forChunks(func(slot, lo, hi int, buf []float64) {
		rows := hi - lo
		for r := 0; r < rows; r++ {
			for c := range d {
				buf[r*d+c] -= mean[c]
			}
		}
		impl.Dsyrk(blas.Upper, blas.Trans, d, rows, 1, buf[:rows*d], d, 1, parts[slot], d)
	})
	cov := mat.NewSymDense(d, nil)
	var total float64
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			var s float64
			for _, p := range parts {
				s += p[a*d+b]
			}
			cov.SetSym(a, b, s/float64(n-1))
		}
		total += cov.At(a, a)
	}
	vals, vecs, ok := TopEigen(cov, m)
	if !ok {
		return nil, fmt.Errorf("PCA: eigendecomposition of the %d x %d covariance did not converge", d, d)
	}
	res := &PCAResult{Mean: mean, Components: mat.NewDense(d, m, nil), Variance: make([]float64, m)}
	var kept float64
	for c := 0; c < m; c++ {
		res.Variance[c] = max(vals[c], 0)
		kept += res.Variance[c]
		col := mat.Col(nil, c, vecs)
		if SignOfLargest(col) < 0 {
			for a := range col {
				col[a] = -col[a]
			}
		}
		res.Components.SetCol(c, col)
	}
	if total > 0 {
		res.Explained = kept / total
	}
	// Pass 3: scores = centred rows x components.
	comp := res.Components.RawMatrix()
	flat := make([]float64, n*m)
	forChunks(func(slot, lo, hi int, buf []float64) {
		rows := hi - lo
		for r := 0; r < rows; r++ {
			for c := range d {
				buf[r*d+c] -= mean[c]
			}
		}
		impl.Dgemm(blas.NoTrans, blas.NoTrans, rows, m, d, 1, buf[:rows*d], d, comp.Data, comp.Stride, 0, flat[lo*m:hi*m], m)
	})
	res.Scores = make([][]float64, n)
	for i := range res.Scores {
		res.Scores[i] = flat[i*m : (i+1)*m : (i+1)*m]
	}
	return res, nil
}

// TopEigen returns the k largest eigenvalues of the symmetric a, in
// decreasing order, and their unit eigenvectors as the columns of an n x k
// matrix, from a full eigendecomposition (gonum's EigenSym: symmetric QR);
// ok is false when it does not converge. Signs are EigenSym's: callers fix
// them (SignOfLargest is PCA's and MDS's convention).
func TopEigen(a mat.Symmetric, k int) (vals []float64, vecs *mat.Dense, ok bool) {
	n := a.SymmetricDim()
	k = min(k, n)
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, nil, false
	}
	all := es.Values(nil) // ascending
	var v mat.Dense
	es.VectorsTo(&v)
	vals = make([]float64, k)
	vecs = mat.NewDense(n, k, nil)
	for c := 0; c < k; c++ {
		src := n - 1 - c
		vals[c] = all[src]
		for i := 0; i < n; i++ {
			vecs.Set(i, c, v.At(i, src))
		}
	}
	return vals, vecs, true
}
