package knn

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// Metric names: the feature-space distances of a pool (datasets.Pool).
const (
	MetricEuclidean = "euclidean" // |a - b|
	MetricCosine    = "cosine"    // 1 - a.b / (|a| |b|)
	MetricTanimoto  = "tanimoto"  // 1 - Tanimoto(a, b) of bit vectors
)

// Metrics are the metric names a CSV or .npy pool takes (pool.csv.metric).
var Metrics = []string{MetricEuclidean, MetricCosine, MetricTanimoto}

// KNNGraph is an exact directed k-nearest-neighbour graph: row i lists the K
// items nearest to item i in the metric (never i itself), nearest first, ties
// broken by the lower index. Distances are those of datasets.Pool.Distance,
// computed directly from the features, so they agree with it bit for bit.
type KNNGraph struct {
	N, K     int
	Metric   string
	Index    []int32   // N*K neighbour indices, row-major
	Distance []float64 // N*K matching distances
}

// Neighbors returns row i of the graph (a view, not a copy).
func (g *KNNGraph) Neighbors(i int) []int32 { return g.Index[i*g.K : (i+1)*g.K] }

// Distances returns the distances of row i (a view, not a copy).
func (g *KNNGraph) Distances(i int) []float64 { return g.Distance[i*g.K : (i+1)*g.K] }

func defaultWorkers(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

func checkK(n, k int) error {
	if n < 2 {
		return fmt.Errorf("kNN graph needs at least 2 items, got %d", n)
	}
	if k < 1 || k >= n {
		return fmt.Errorf("kNN graph: k = %d must be between 1 and the number of items minus one (%d)", k, n-1)
	}
	return nil
}

// leafSize bounds the number of items in a leaf of the spatial partition.
// Tiles are at most leafSize x leafSize, small enough that gonum's Sgemm runs
// them serially (so Workers alone sets the parallelism) and fine enough for
// the bounding-box tests to skip far tiles.
const leafSize = 64

// maxRotateDim: above this dimension the features are not rotated to their
// principal axes (the d x d covariance would cost more than it saves).
const maxRotateDim = 256

// prefixDims is the number of leading principal coordinates whose partial
// squared distance filters the pairs of a tile (a lower bound of the full
// squared distance). A third of the dimensions, at least 8: on PCA-like data
// the leading axes carry most of the spread, so the bound is tight.
func prefixDims(d int) int { return min(d, max(8, d/3)) }

// DenseKNN computes the exact kNN graph of the rows of x under the Euclidean
// or cosine metric, with workers goroutines (<= 0: GOMAXPROCS).
//
// Method. The rows are centred (Euclidean) or scaled to unit length (cosine:
// the squared Euclidean distance of unit vectors is twice the cosine
// distance) and rotated to their principal axes, which changes no distance.
// A k-d partition groups them into leaves of at most leafSize items. For each
// query leaf, the other leaves are visited by increasing distance between
// bounding boxes (stopping once that bound exceeds every query's current k-th
// squared distance); a query whose own distance to a leaf's box exceeds its
// k-th value skips that leaf. For the remaining queries one float32 SGEMM (linalg.SgemmNT: gonum, or
// OpenBLAS in the openblas build)
// over the leading prefixDims axes gives the partial squared distances |a'|^2 + |b'|^2 - 2 a'.b', lower bounds of
// the full ones up to a proven rounding slack; only pairs that pass are
// measured in full, directly in float64. Each row keeps every candidate
// within a rounding bound of its k-th value, and the final choice re-ranks
// those by the distance computed from the original features. The result is
// the exact graph, ties going to the lower index.
//
// Rows must have one length d >= 1 and finite values; for cosine, no row may
// be all zeros (its cosine similarity is undefined).
func DenseKNN(x [][]float64, k int, metric string, workers int) (*KNNGraph, error) {
	return denseKNN(x, k, metric, workers, nil)
}

// denseKNN is DenseKNN reporting progress (items done, of n) if set.
func denseKNN(x [][]float64, k int, metric string, workers int, progress func(done, total int64)) (*KNNGraph, error) {
	n := len(x)
	if err := checkK(n, k); err != nil {
		return nil, err
	}
	if metric != MetricEuclidean && metric != MetricCosine {
		return nil, fmt.Errorf("kNN graph: metric %q is not one of %q, %q for dense features", metric, MetricEuclidean, MetricCosine)
	}
	d := len(x[0])
	if err := checkDense(x); err != nil {
		return nil, err
	}
	w, err := workingRows[float64](Dense{F64: x}, metric == MetricCosine)
	if err != nil {
		return nil, err
	}
	w = rotateToPrincipalAxes(w, n, d)
	var exact func(i, j int) float64
	if metric == MetricEuclidean {
		exact = func(i, j int) float64 { return euclidean(x[i], x[j]) }
	} else {
		exact = func(i, j int) float64 { return cosineDistance(x[i], x[j]) }
	}
	t := newTiling(w, n, d, prefixDims(d))
	g := &KNNGraph{N: n, K: k, Metric: metric, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	t.run(k, defaultWorkers(workers), exact, g, progress)
	return g, nil
}

// maxFeature bounds the magnitude of a dense feature: the squared
// distances of the kNN build, sums of d squared differences, stay finite
// for every d up to 10^8 (a feature of 1e155 made them +Inf and NaN, and the
// exact build panicked on a row with no finite candidate).
const maxFeature = 1e100

// checkDense checks that the rows have one length d >= 1 and finite values
// of magnitude at most maxFeature.
func checkDense(x [][]float64) error {
	d := len(x[0])
	if d == 0 {
		return fmt.Errorf("kNN graph: feature vectors are empty")
	}
	for i, row := range x {
		if len(row) != d {
			return fmt.Errorf("kNN graph: item %d has %d features, expected %d like item 0", i, len(row), d)
		}
		for c, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("kNN graph: item %d, feature %d is %v, expected a finite number", i, c, v)
			}
			if math.Abs(v) > maxFeature {
				return fmt.Errorf("kNN graph: item %d, feature %d is %g, beyond ±%g: squared distances would overflow to +Inf (rescale the features)", i, c, v, maxFeature)
			}
		}
	}
	return nil
}

// workingRows returns the rows of x (n x d, row-major) centred on their
// mean (Euclidean) or scaled to unit length (cosine: the squared Euclidean
// distance of unit vectors is twice the cosine distance), computed in
// float64 and stored as T. A zero row is an error for cosine.
func workingRows[T float32 | float64](x Dense, cosine bool) ([]T, error) {
	n, d := x.n(), x.d()
	w := make([]T, n*d)
	buf := make([]float64, d)
	if !cosine {
		mean := make([]float64, d)
		for i := range n {
			for c, v := range x.row64(i, buf) {
				mean[c] += v
			}
		}
		for c := range mean {
			mean[c] /= float64(n)
		}
		for i := range n {
			for c, v := range x.row64(i, buf) {
				w[i*d+c] = T(v - mean[c])
			}
		}
		return w, nil
	}
	for i := range n {
		row := x.row64(i, buf)
		var s float64
		for _, v := range row {
			s += v * v
		}
		if s == 0 {
			return nil, fmt.Errorf("kNN graph: item %d is the zero vector: its cosine similarity is undefined", i)
		}
		s = math.Sqrt(s)
		for c, v := range row {
			w[i*d+c] = T(v / s)
		}
	}
	return w, nil
}

// rotateToPrincipalAxes returns w (n x d, row-major) times the eigenvectors
// of w^T w, ordered by decreasing eigenvalue, so that the leading coordinates
// carry the most spread. A rotation preserves every distance; the rounding it
// adds is covered by the slack in tiling.run. It returns w unchanged when
// d == 1, d > maxRotateDim, or the eigendecomposition fails.
func rotateToPrincipalAxes(w []float64, n, d int) []float64 {
	if d == 1 || d > maxRotateDim {
		return w
	}
	impl := gonum.Implementation{}
	gram := make([]float64, d*d)
	impl.Dsyrk(blas.Upper, blas.Trans, d, n, 1, w, d, 0, gram, d)
	sym := mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			sym.SetSym(a, b, gram[a*d+b])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return w
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// Eigenvalues come ascending: reverse the columns.
	rot := make([]float64, d*d)
	for a := 0; a < d; a++ {
		for c := 0; c < d; c++ {
			rot[a*d+c] = vecs.At(a, d-1-c)
		}
	}
	out := make([]float64, n*d)
	impl.Dgemm(blas.NoTrans, blas.NoTrans, n, d, d, 1, w, d, rot, d, 0, out, d)
	return out
}

// euclidean is |a - b|. The sums run in float64 whatever T: float32 rows
// give the distance of the same values held as float64, bit for bit.
func euclidean[T float32 | float64](a, b []T) float64 {
	var s float64
	for c, v := range a {
		e := float64(v) - float64(b[c])
		s += e * e
	}
	return math.Sqrt(s)
}

// cosineDistance is 1 - a.b/(|a||b|), clamped to [0, 2] against rounding.
// Zero vectors have distance 1 to everything except another zero vector.
// Sums in float64 whatever T (as euclidean).
func cosineDistance[T float32 | float64](a, b []T) float64 {
	var ab, aa, bb float64
	for c, w := range a {
		v, u := float64(w), float64(b[c])
		ab += v * u
		aa += v * v
		bb += u * u
	}
	if aa == 0 || bb == 0 {
		if aa == bb {
			return 0
		}
		return 1
	}
	return min(max(1-ab/(math.Sqrt(aa)*math.Sqrt(bb)), 0), 2)
}

// tiling is the leaf partition of the working (centred or unit, rotated)
// rows.
type tiling struct {
	n, d, m  int       // items, dimensions, prefix dimensions
	perm     []int32   // perm[p] = original index of permuted row p
	x        []float64 // permuted working rows, n*d
	x32      []float32 // their first m coordinates rounded to float32, n*m
	norm2    []float64 // squared norms of the rows of x (all d coordinates)
	pnorm2   []float64 // squared norms of the rows of x32
	leaves   [][2]int  // [start, end) in permuted order
	lo, hi   []float64 // bounding boxes, len(leaves)*d
	maxNorm  float64   // largest norm2
	maxPNorm float64   // largest pnorm2
}

func newTiling(w []float64, n, d, m int) *tiling {
	t := &tiling{n: n, d: d, m: m, perm: make([]int32, n)}
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	t.split(w, 0, n)
	t.x = make([]float64, n*d)
	t.x32 = make([]float32, n*m)
	t.norm2 = make([]float64, n)
	t.pnorm2 = make([]float64, n)
	for p, i := range t.perm {
		row := t.x[p*d : (p+1)*d]
		copy(row, w[int(i)*d:(int(i)+1)*d])
		var s, ps float64
		for c, v := range row {
			s += v * v
			if c < m {
				f := float32(v)
				t.x32[p*m+c] = f
				ps += float64(f) * float64(f)
			}
		}
		t.norm2[p], t.pnorm2[p] = s, ps
		t.maxNorm = max(t.maxNorm, s)
		t.maxPNorm = max(t.maxPNorm, ps)
	}
	t.lo = make([]float64, len(t.leaves)*d)
	t.hi = make([]float64, len(t.leaves)*d)
	for l, lf := range t.leaves {
		lo, hi := t.lo[l*d:(l+1)*d], t.hi[l*d:(l+1)*d]
		copy(lo, t.x[lf[0]*d:(lf[0]+1)*d])
		copy(hi, lo)
		for p := lf[0] + 1; p < lf[1]; p++ {
			for c, v := range t.x[p*d : (p+1)*d] {
				lo[c] = min(lo[c], v)
				hi[c] = max(hi[c], v)
			}
		}
	}
	return t
}

// split partitions perm[a:b] at the median of its widest coordinate until
// the parts have at most leafSize items.
func (t *tiling) split(w []float64, a, b int) {
	if b-a <= leafSize {
		t.leaves = append(t.leaves, [2]int{a, b})
		return
	}
	d := t.d
	best, bestRange := 0, -1.0
	for c := 0; c < d; c++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, i := range t.perm[a:b] {
			v := w[int(i)*d+c]
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo > bestRange {
			best, bestRange = c, hi-lo
		}
	}
	if bestRange > 0 {
		slices.SortFunc(t.perm[a:b], func(i, j int32) int {
			if c := cmp.Compare(w[int(i)*d+best], w[int(j)*d+best]); c != 0 {
				return c
			}
			return cmp.Compare(i, j)
		})
	}
	m := a + (b-a)/2
	t.split(w, a, m)
	t.split(w, m, b)
}

type candidate struct {
	v float64 // approximate squared distance, then the exact distance
	j int32   // permuted index, then the original index
}

func byDistanceThenIndex(a, b candidate) int {
	if s := cmp.Compare(a.v, b.v); s != 0 {
		return s
	}
	return cmp.Compare(a.j, b.j)
}

// knnRow collects the candidates of one query row: a max-heap of the k
// smallest approximate values, and the "near" ones that lie within slack of
// the heap's top (they may still belong to the exact top k). tau is the
// acceptance threshold: +Inf until k values are in, then top + slack.
type knnRow struct {
	heap  []candidate
	near  []candidate
	slack float64
	tau   float64
}

func (r *knnRow) reset(slack float64) {
	r.heap, r.near, r.slack, r.tau = r.heap[:0], r.near[:0], slack, math.Inf(1)
}

// add offers a candidate with v <= r.tau.
func (r *knnRow) add(v float64, j int32, k int) {
	h := r.heap
	if len(h) < k {
		h = append(h, candidate{v, j})
		for c := len(h) - 1; c > 0; { // sift up
			p := (c - 1) / 2
			if h[p].v >= h[c].v {
				break
			}
			h[p], h[c] = h[c], h[p]
			c = p
		}
		r.heap = h
		if len(h) == k {
			r.tau = h[0].v + r.slack
		}
		return
	}
	if v >= h[0].v {
		r.near = append(r.near, candidate{v, j})
	} else {
		evicted := h[0]
		h[0] = candidate{v, j}
		for p := 0; ; { // sift down
			c := 2*p + 1
			if c >= len(h) {
				break
			}
			if c+1 < len(h) && h[c+1].v > h[c].v {
				c++
			}
			if h[p].v >= h[c].v {
				break
			}
			h[p], h[c] = h[c], h[p]
			p = c
		}
		r.tau = h[0].v + r.slack
		if evicted.v <= r.tau {
			r.near = append(r.near, evicted)
		}
	}
	if len(r.near) > 64 {
		m := 0
		for _, c := range r.near {
			if c.v <= r.tau {
				r.near[m] = c
				m++
			}
		}
		r.near = r.near[:m]
	}
}

// kept appends to dst every candidate still within tau.
func (r *knnRow) kept(dst []candidate) []candidate {
	dst = append(dst, r.heap...)
	for _, c := range r.near {
		if c.v <= r.tau {
			dst = append(dst, c)
		}
	}
	return dst
}

// run fills g using workers goroutines, each taking whole query leaves.
func (t *tiling) run(k, workers int, exact func(i, j int) float64, g *KNNGraph, progress func(done, total int64)) {
	// Rounding slacks (Higham, Accuracy and Stability, eq. 3.5: a dot product
	// of length d errs by at most about d*u*|a||b|, u the unit roundoff).
	//  - The full squared distance sum (a_c - b_c)^2 in float64 on rotated
	//    rows: the rotation moves each row by about d*u*|row|, hence the
	//    squared distance by about 4*d*u*(|a|^2 + |b|^2); the sum itself
	//    errs by d*u times it. slack64 is 4x that sum of bounds (two values
	//    compared, and a factor 2 of safety), with u = 2^-53.
	//  - The partial squared distance |a'|^2 + |b'|^2 - 2 a'.b' from float32
	//    prefixes: rounding the rows to float32 moves it by at most about
	//    8u(|a|^2 + |b|^2), and the float32 dot product errs by m*u*|a||b|,
	//    doubled by the factor 2. slack32 uses 2^-23 = 2u for safety.
	const eps64, eps32 = 0x1p-53, 0x1p-23
	d, m := t.d, t.m
	slack64 := func(p int) float64 { return 4 * float64(5*d+8) * eps64 * (t.norm2[p] + t.maxNorm) }
	slack32 := func(p int) float64 { return 2 * float64(m+9) * eps32 * (t.pnorm2[p] + t.maxPNorm) }
	var next, done atomic.Int64
	parallel.Workers(min(workers, len(t.leaves)), func(int) {
		nl := len(t.leaves)
		gram := make([]float32, leafSize*leafSize)
		lb := make([]float64, nl)
		order := make([]int32, nl)
		rows := make([]knnRow, leafSize)
		s32 := make([]float64, leafSize)
		active := make([]int, 0, leafSize)
		qbuf := make([]float32, leafSize*m)
		for r := range rows {
			rows[r].heap = make([]candidate, 0, k)
		}
		var final []candidate
		for {
			q := int(next.Add(1) - 1)
			if q >= nl {
				return
			}
			q0, q1 := t.leaves[q][0], t.leaves[q][1]
			mq := q1 - q0
			for r := 0; r < mq; r++ {
				rows[r].reset(slack64(q0 + r))
				s32[r] = slack32(q0+r) + slack64(q0+r) // see the filter below
			}
			qlo, qhi := t.lo[q*d:(q+1)*d], t.hi[q*d:(q+1)*d]
			for l := 0; l < nl; l++ {
				var s float64
				llo, lhi := t.lo[l*d:(l+1)*d], t.hi[l*d:(l+1)*d]
				for c := 0; c < d; c++ {
					gap := max(llo[c]-qhi[c], qlo[c]-lhi[c], 0)
					s += gap * gap
				}
				lb[l] = s
				order[l] = int32(l)
			}
			slices.SortFunc(order, func(a, b int32) int {
				if c := cmp.Compare(lb[a], lb[b]); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			maxTau := math.Inf(1)
			for _, l := range order {
				// Box-to-box bound first (sorted: once it fails, all
				// later leaves fail too); then the bound of each query
				// point to the box over the leading m axes (the tail
				// axes add little to it and would cost d/m times more).
				// Both are exact up to rounding of order eps*bound,
				// hence the factor.
				const shrink = 1 - 1e-12
				if lb[l]*shrink > maxTau {
					break
				}
				llo, lhi := t.lo[int(l)*d:(int(l)+1)*d], t.hi[int(l)*d:(int(l)+1)*d]
				// Only the rows the box may still serve enter the product.
				active = active[:0]
				for r := 0; r < mq; r++ {
					var s float64
					for c, v := range t.x[(q0+r)*d : (q0+r)*d+m] {
						gap := max(llo[c]-v, v-lhi[c], 0)
						s += gap * gap
					}
					if s*shrink <= rows[r].tau {
						active = append(active, r)
					}
				}
				if len(active) == 0 {
					continue
				}
				a := t.x32[q0*m : q1*m]
				if len(active) < mq {
					for ai, r := range active {
						copy(qbuf[ai*m:(ai+1)*m], t.x32[(q0+r)*m:(q0+r+1)*m])
					}
					a = qbuf[:len(active)*m]
				}
				j0, j1 := t.leaves[l][0], t.leaves[l][1]
				mj := j1 - j0
				linalg.SgemmNT(len(active), mj, m, a, m, t.x32[j0*m:j1*m], m, gram, mj)
				pnorm2 := t.pnorm2[j0:j1]
				for ai, r := range active {
					p := q0 + r
					row := &rows[r]
					np := t.pnorm2[p]
					xp := t.x[p*d : (p+1)*d]
					for c, gv := range gram[ai*mj : (ai+1)*mj] {
						// The partial distance is a lower bound of the
						// full one; it may err by slack32, the full one
						// by slack64.
						if np+pnorm2[c]-2*float64(gv) > row.tau+s32[r] || j0+c == p {
							continue
						}
						var v float64
						for e, y := range t.x[(j0+c)*d : (j0+c+1)*d] {
							diff := xp[e] - y
							v += diff * diff
						}
						if v <= row.tau {
							row.add(v, int32(j0+c), k)
						}
					}
				}
				maxTau = math.Inf(-1)
				for r := 0; r < mq; r++ {
					maxTau = max(maxTau, rows[r].tau)
				}
			}
			for r := 0; r < mq; r++ {
				i := int(t.perm[q0+r])
				final = rows[r].kept(final[:0])
				for m := range final {
					j := t.perm[final[m].j]
					final[m] = candidate{exact(i, int(j)), j}
				}
				slices.SortFunc(final, byDistanceThenIndex)
				for m := 0; m < k; m++ {
					g.Index[i*k+m] = final[m].j
					g.Distance[i*k+m] = final[m].v
				}
			}
			if progress != nil {
				progress(done.Add(int64(mq)), int64(t.n))
			}
		}
	})
}

// BitsKNN computes the exact kNN graph of fingerprints under the Tanimoto
// distance 1 - Tanimoto(a, b), with workers goroutines (<= 0: GOMAXPROCS).
// Similarities are ratios of popcounts, so equal similarities compare equal
// and ties go to the lower index. Every fingerprint must have the same number
// of words.
func BitsKNN(b [][]uint64, k int, workers int) (*KNNGraph, error) {
	return bitsKNN(b, k, workers, nil)
}

// bitsKNN is BitsKNN reporting progress (items done, of n) if set.
func bitsKNN(b [][]uint64, k int, workers int, progress func(done, total int64)) (*KNNGraph, error) {
	n := len(b)
	if err := checkK(n, k); err != nil {
		return nil, err
	}
	for i, row := range b {
		if len(row) != len(b[0]) {
			return nil, fmt.Errorf("kNN graph: fingerprint %d has %d words, expected %d like fingerprint 0", i, len(row), len(b[0]))
		}
	}
	g := &KNNGraph{N: n, K: k, Metric: MetricTanimoto, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	// |a OR b| = |a| + |b| - |a AND b|: with the counts precomputed, one
	// popcount per word pair suffices, and the integers (hence the ratio)
	// are those of Tanimoto.
	count := make([]int, n)
	for i, row := range b {
		for _, x := range row {
			count[i] += bits.OnesCount64(x)
		}
	}
	var next, done atomic.Int64
	parallel.Workers(min(defaultWorkers(workers), n), func(int) {
		byDist := func(a, b candidate) int {
			if s := cmp.Compare(a.v, b.v); s != 0 {
				return s
			}
			return cmp.Compare(a.j, b.j)
		}
		capacity := 2*k + 32
		c := make([]candidate, 0, capacity+1)
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			c = c[:0]
			tau := math.Inf(1)
			bi := b[i]
			for j := range n {
				if j == i {
					continue
				}
				// two empty fingerprints: similarity 1
				v := tanimotoFromCounts(AndCount(bi, b[j]), count[i], count[j])
				if v > tau {
					continue
				}
				c = append(c, candidate{v, int32(j)})
				if len(c) > capacity {
					slices.SortFunc(c, byDist)
					c = c[:k]
					tau = c[k-1].v
				}
			}
			slices.SortFunc(c, byDist)
			for m := 0; m < k; m++ {
				g.Index[i*k+m] = c[m].j
				g.Distance[i*k+m] = c[m].v
			}
			if progress != nil {
				progress(done.Add(1), int64(n))
			}
		}
	})
	return g, nil
}
