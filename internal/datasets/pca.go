package datasets

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// pcaChunk is the number of rows centred and multiplied at a time: large
// enough for efficient BLAS calls, small enough (256 x 784 x 8 bytes = 1.6 MB)
// that the centred data never exists in full.
const pcaChunk = 256

// PCAResult holds principal components of an n x d data set.
type PCAResult struct {
	Mean       []float64   // d column means
	Components *mat.Dense  // d x m, column c = unit eigenvector c of the covariance
	Variance   []float64   // m eigenvalues of the covariance, decreasing
	Explained  float64     // fraction of the total variance the m components keep
	Scores     [][]float64 // n x m projections of the centred rows
}

// PCA computes the top m principal components of n rows of length d, where
// row(i, dst) writes row i into dst, using workers goroutines.
//
// The covariance (1/(n-1)) sum (x - mean)(x - mean)^T is accumulated in
// chunks of centred rows, one partial d x d matrix per worker (Dsyrk), then
// eigendecomposed (symmetric QR, gonum EigenSym). Eigenvector signs are fixed
// so that the largest-magnitude entry is positive (the first such entry on
// ties), making the scores a deterministic function of the data.
func PCA(n, d, m int, row func(i int, dst []float64), workers int) (*PCAResult, error) {
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("PCA needs at least 2 rows and 1 column, got %d x %d", n, d)
	}
	if m < 1 || m > d {
		return nil, fmt.Errorf("PCA: %d components requested, expected 1 to %d (the number of columns)", m, d)
	}
	workers = min(defaultWorkers(workers), (n+pcaChunk-1)/pcaChunk)
	chunks := (n + pcaChunk - 1) / pcaChunk
	// forChunks runs f(worker, lo, hi) over row chunks on the workers; each
	// worker owns a buffer of pcaChunk rows.
	forChunks := func(f func(w, lo, hi int, buf []float64)) {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]float64, pcaChunk*d)
				for c := w; c < chunks; c += workers {
					lo, hi := c*pcaChunk, min((c+1)*pcaChunk, n)
					for i := lo; i < hi; i++ {
						row(i, buf[(i-lo)*d:(i-lo+1)*d])
					}
					f(w, lo, hi, buf)
				}
			}()
		}
		wg.Wait()
	}
	// Pass 1: column sums per worker, added in worker order (deterministic).
	sums := make([][]float64, workers)
	for w := range sums {
		sums[w] = make([]float64, d)
	}
	forChunks(func(w, lo, hi int, buf []float64) {
		for r := 0; r < hi-lo; r++ {
			for c, v := range buf[r*d : (r+1)*d] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					panic(fmt.Sprintf("datasets: PCA input row %d column %d is %v", lo+r, c, v))
				}
				sums[w][c] += v
			}
		}
	})
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
	parts := make([][]float64, workers)
	for w := range parts {
		parts[w] = make([]float64, d*d)
	}
	forChunks(func(w, lo, hi int, buf []float64) {
		rows := hi - lo
		for r := 0; r < rows; r++ {
			for c := range d {
				buf[r*d+c] -= mean[c]
			}
		}
		impl.Dsyrk(blas.Upper, blas.Trans, d, rows, 1, buf[:rows*d], d, 1, parts[w], d)
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
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return nil, fmt.Errorf("PCA: eigendecomposition of the %d x %d covariance did not converge", d, d)
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	res := &PCAResult{Mean: mean, Components: mat.NewDense(d, m, nil), Variance: make([]float64, m)}
	var kept float64
	for c := 0; c < m; c++ {
		src := d - 1 - c
		res.Variance[c] = max(vals[src], 0)
		kept += res.Variance[c]
		col := mat.Col(nil, src, &vecs)
		big := 0
		for a, v := range col {
			if math.Abs(v) > math.Abs(col[big]) {
				big = a
			}
		}
		if col[big] < 0 {
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
	forChunks(func(w, lo, hi int, buf []float64) {
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

// sortedCopy is a helper for tests and medians.
func sortedCopy(x []float64) []float64 {
	y := slices.Clone(x)
	slices.SortFunc(y, cmp.Compare)
	return y
}
