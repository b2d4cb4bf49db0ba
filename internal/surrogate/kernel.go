package surrogate

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
)

// Kernel names.
const (
	kernelTanimoto = "tanimoto" // packed bit fingerprints (Pool.Bits)
	kernelMinMax   = "minmax"   // non-negative counts: Σ min / Σ max
	kernelRBF      = "rbf"      // exp(-d²/(2ℓ²)) on numeric features
	kernelMatern52 = "matern52" // (1 + √5 r + 5r²/3) exp(-√5 r), r = d/ℓ
)

// Kernels lists the kernel names accepted by Request.Kernel ("" or "auto"
// chooses by the pool's features: see chooseKernel).
var Kernels = []string{kernelTanimoto, kernelMinMax, kernelRBF, kernelMatern52}

// featureKernel is a unit-diagonal kernel over the items of a pool,
// evaluated from the pool's own features: k(i, i) = 1 for every item.
type featureKernel interface {
	Name() string
	// Fill sets dst[b] = k(i, cols[b]).
	Fill(i int, cols []int, dst []float64)
	// LengthScale is ℓ (0 for kernels without one).
	LengthScale() float64
	// WithLengthScale returns the kernel with length scale l (the kernel
	// itself when it has none).
	WithLengthScale(l float64) featureKernel
}

// Tanimoto returns the Tanimoto (Jaccard) similarity of two packed bit
// fingerprints, |a AND b| / |a OR b|; two all-zero fingerprints have
// similarity 1 (the pool's kNN graph convention).
func Tanimoto(a, b []uint64) float64 {
	var and, or int
	for w := range a {
		and += bits.OnesCount64(a[w] & b[w])
		or += bits.OnesCount64(a[w] | b[w])
	}
	if or == 0 {
		return 1
	}
	return float64(and) / float64(or)
}

// minMax returns Σ_d min(a_d, b_d) / Σ_d max(a_d, b_d) of two non-negative
// vectors (Tanimoto on 0/1 vectors); two all-zero vectors give 1.
func minMax(a, b []float64) float64 {
	var lo, hi float64
	for d := range a {
		x, y := a[d], b[d]
		if x < y {
			lo += x
			hi += y
		} else {
			lo += y
			hi += x
		}
	}
	if hi == 0 {
		return 1
	}
	return lo / hi
}

// tanimotoKernel compares packed fingerprints with popcounts cached:
// |a OR b| = |a| + |b| - |a AND b|, one popcount a word per pair.
type tanimotoKernel struct {
	bits [][]uint64
	pop  []int32
}

func newTanimotoKernel(b [][]uint64) *tanimotoKernel {
	pop := make([]int32, len(b))
	for i, row := range b {
		var c int
		for _, w := range row {
			c += bits.OnesCount64(w)
		}
		pop[i] = int32(c)
	}
	return &tanimotoKernel{bits: b, pop: pop}
}

func (k *tanimotoKernel) Name() string                          { return kernelTanimoto }
func (k *tanimotoKernel) LengthScale() float64                  { return 0 }
func (k *tanimotoKernel) WithLengthScale(float64) featureKernel { return k }

func (k *tanimotoKernel) Fill(i int, cols []int, dst []float64) {
	a, pa := k.bits[i], k.pop[i]
	for t, j := range cols {
		dst[t] = tanimotoOf(knn.AndCount(a, k.bits[j]), pa, k.pop[j])
	}
}

// tanimotoOf is the Tanimoto similarity of two fingerprints with pa and pb
// bits set, c of them in common (1 for two empty ones).
func tanimotoOf(c int, pa, pb int32) float64 {
	or := int(pa) + int(pb) - c
	if or == 0 {
		return 1
	}
	return float64(c) / float64(or)
}

// gather returns the kernel over the rows cols of k, copied into one
// contiguous block (row a of the result is item cols[a]).
func (k *tanimotoKernel) gather(cols []int) *tanimotoKernel {
	w := 0
	if len(cols) > 0 {
		w = len(k.bits[cols[0]])
	}
	back := make([]uint64, len(cols)*w)
	g := &tanimotoKernel{bits: make([][]uint64, len(cols)), pop: make([]int32, len(cols))}
	for a, j := range cols {
		g.bits[a] = back[a*w : (a+1)*w : (a+1)*w]
		copy(g.bits[a], k.bits[j])
		g.pop[a] = k.pop[j]
	}
	return g
}

// fillTile is the number of columns fillBlock compares every item of a
// block with before moving to the next ones (a tile of 64 columns of
// 2,048 bits is 16 KB: it stays in the L1 cache for the block's items).
const fillTile = 64

// fillBlock sets dst[t·M+a] = k(items[t], a) for every row a of cols (M
// rows; gather's result), by tiles of fillTile columns: the values of
// Fill(items[t], cols' items, ·), computed by the same formula, with the
// columns' words read from the cache instead of the pool's scattered rows.
func (k *tanimotoKernel) fillBlock(items []int, cols *tanimotoKernel, dst []float64) {
	M := len(cols.bits)
	for a0 := 0; a0 < M; a0 += fillTile {
		a1 := min(a0+fillTile, M)
		for t, i := range items {
			x, px := k.bits[i], k.pop[i]
			row := dst[t*M : (t+1)*M]
			for a := a0; a < a1; a++ {
				row[a] = tanimotoOf(knn.AndCount(x, cols.bits[a]), px, cols.pop[a])
			}
		}
	}
}

// rowsKernel holds float64 rows (Pool.Dense, or Pool.Dense32 converted row
// by row when asked).
type rowsKernel struct {
	dense   [][]float64
	dense32 knn.Rows32
}

func (r rowsKernel) row(i int, buf []float64) []float64 {
	if r.dense != nil {
		return r.dense[i]
	}
	x := r.dense32.Row(i)
	buf = buf[:0]
	for _, v := range x {
		buf = append(buf, float64(v))
	}
	return buf
}

func (r rowsKernel) len() int {
	if r.dense != nil {
		return len(r.dense)
	}
	return r.dense32.Len()
}

func (r rowsKernel) dim() int {
	if r.dense != nil {
		if len(r.dense) == 0 {
			return 0
		}
		return len(r.dense[0])
	}
	return r.dense32.D
}

type minMaxKernel struct{ rowsKernel }

func (k minMaxKernel) Name() string                          { return kernelMinMax }
func (k minMaxKernel) LengthScale() float64                  { return 0 }
func (k minMaxKernel) WithLengthScale(float64) featureKernel { return k }

func (k minMaxKernel) Fill(i int, cols []int, dst []float64) {
	bi := make([]float64, 0, k.dim())
	bj := make([]float64, 0, k.dim())
	a := k.row(i, bi)
	for t, j := range cols {
		dst[t] = minMax(a, k.row(j, bj))
	}
}

// stationaryKernel is RBF or Matern-5/2 of the Euclidean distance between
// feature rows as given (no per-column scaling), with length scale ℓ.
type stationaryKernel struct {
	rowsKernel
	matern bool
	ell    float64
}

func (k stationaryKernel) Name() string {
	if k.matern {
		return kernelMatern52
	}
	return kernelRBF
}
func (k stationaryKernel) LengthScale() float64 { return k.ell }
func (k stationaryKernel) WithLengthScale(l float64) featureKernel {
	k.ell = l
	return k
}

// stationary returns k(d) for a distance d >= 0 and length scale ell.
func stationary(matern bool, d, ell float64) float64 {
	r := d / ell
	if matern {
		s := math.Sqrt(5) * r
		return (1 + s + s*s/3) * math.Exp(-s)
	}
	return math.Exp(-0.5 * r * r)
}

func (k stationaryKernel) Fill(i int, cols []int, dst []float64) {
	bi := make([]float64, 0, k.dim())
	bj := make([]float64, 0, k.dim())
	a := k.row(i, bi)
	for t, j := range cols {
		dst[t] = stationary(k.matern, dist(a, k.row(j, bj)), k.ell)
	}
}

func dist(a, b []float64) float64 {
	var s float64
	for d := range a {
		x := a[d] - b[d]
		s += x * x
	}
	return math.Sqrt(s)
}

// medianDistance is the median Euclidean distance between the pairs of
// items (at most 200 of them, the first ones), the centre of the length
// scales tried by the fit; 1 when every distance is 0.
func (r rowsKernel) medianDistance(items []int) float64 {
	items = items[:min(len(items), 200)]
	var ds []float64
	bi := make([]float64, 0, r.dim())
	bj := make([]float64, 0, r.dim())
	for a := range items {
		x := append([]float64(nil), r.row(items[a], bi)...)
		for b := a + 1; b < len(items); b++ {
			if d := dist(x, r.row(items[b], bj)); d > 0 {
				ds = append(ds, d)
			}
		}
	}
	if len(ds) == 0 {
		return 1
	}
	sort.Float64s(ds)
	return ds[len(ds)/2]
}

// chooseKernel returns the kernel named name over the pool's features. ""
// or "auto": Tanimoto for packed fingerprints (Pool.Bits), minMax for
// dense features when the pool's metric is tanimoto (count fingerprints),
// else Matern-5/2. The length scale of RBF and Matern-5/2 is set by the fit.
// CheckKernel returns the error Suggest returns for the GP kernel name
// (Kernels, "" or auto) on pool: nil when it applies to the pool's
// features (tanimoto to packed fingerprints, the others to dense rows;
// minmax to non-negative ones).
func CheckKernel(pool *datasets.Pool, name string) error {
	_, err := chooseKernel(pool, name)
	return err
}

func chooseKernel(pool *datasets.Pool, name string) (featureKernel, error) {
	rows := rowsKernel{dense: pool.Dense, dense32: pool.Dense32}
	hasRows := pool.Dense != nil || pool.Dense32.Data != nil
	switch name {
	case "", "auto":
		switch {
		case pool.Bits != nil:
			name = kernelTanimoto
		case hasRows && pool.Metric == knn.MetricTanimoto:
			name = kernelMinMax
		case hasRows:
			name = kernelMatern52
		default:
			return nil, fmt.Errorf("surrogate: pool %s has no features (the GP reads the pool's fingerprints or feature columns)", pool.Name)
		}
	}
	switch name {
	case kernelTanimoto:
		if pool.Bits == nil {
			return nil, fmt.Errorf("surrogate: kernel tanimoto needs packed fingerprints; pool %s has dense features (use minmax for counts)", pool.Name)
		}
		return newTanimotoKernel(pool.Bits), nil
	case kernelMinMax, kernelRBF, kernelMatern52:
		if !hasRows {
			return nil, fmt.Errorf("surrogate: kernel %s needs dense features; pool %s has packed fingerprints (use tanimoto)", name, pool.Name)
		}
		if name == kernelMinMax {
			if err := checkNonNegative(rows); err != nil {
				return nil, fmt.Errorf("surrogate: kernel minmax: pool %s: %w", pool.Name, err)
			}
			return minMaxKernel{rows}, nil
		}
		return stationaryKernel{rowsKernel: rows, matern: name == kernelMatern52, ell: 1}, nil
	}
	return nil, fmt.Errorf("surrogate: unknown kernel %q, expected auto, tanimoto, minmax, rbf or matern52", name)
}

func checkNonNegative(r rowsKernel) error {
	buf := make([]float64, 0, r.dim())
	for i := 0; i < r.len(); i++ {
		for d, v := range r.row(i, buf) {
			if !(v >= 0) {
				return fmt.Errorf("item %d feature %d is %v: expected non-negative counts", i, d, v)
			}
		}
	}
	return nil
}
