package vendi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// RBF is the Gaussian (radial basis function) kernel on the rows of X:
//
//	k(x_i, x_j) = exp(-‖x_i - x_j‖² / (2 ℓ²))
//
// with length scale ℓ = LengthScale > 0. It is positive semi-definite with
// a unit diagonal, so VS_q of any subset is well defined without clipping.
// It implements Kernel; entries are computed on demand (O(d) each), and
// Matrix builds the dense n x n kernel.
type RBF struct {
	X           *mat.Dense // n x d embeddings
	LengthScale float64
	n           int
	gamma       float64 // 1 / (2 ℓ²)
}

// NewRBF returns the RBF kernel on the rows of X with length scale ell;
// ell <= 0 takes medianLengthScale(X). X must be finite.
func NewRBF(X *mat.Dense, ell float64) (*RBF, error) {
	n, d := X.Dims()
	for i := 0; i < n; i++ {
		for j, v := range X.RawRowView(i)[:d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("vendi: embedding row %d, column %d is %v", i, j, v)
			}
		}
	}
	if ell <= 0 || math.IsNaN(ell) {
		ell = medianLengthScale(X)
	}
	if math.IsInf(ell, 0) {
		return nil, fmt.Errorf("vendi: RBF length scale %v: expected a finite number > 0", ell)
	}
	return &RBF{X: X, LengthScale: ell, n: n, gamma: 1 / (2 * ell * ell)}, nil
}

// Len is the number of items.
func (k *RBF) Len() int { return k.n }

// At is exp(-‖x_i - x_j‖² / (2 ℓ²)).
func (k *RBF) At(i, j int) float64 {
	if i == j {
		return 1
	}
	return math.Exp(-k.gamma * sqDist(k.X, i, j))
}

// Matrix is the dense n x n kernel.
func (k *RBF) Matrix() *mat.SymDense {
	K := mat.NewSymDense(k.n, nil)
	for i := 0; i < k.n; i++ {
		K.SetSym(i, i, 1)
		for j := i + 1; j < k.n; j++ {
			K.SetSym(i, j, k.At(i, j))
		}
	}
	return K
}

func sqDist(X *mat.Dense, i, j int) float64 {
	a, b := X.RawRowView(i), X.RawRowView(j)
	_, d := X.Dims()
	var s float64
	for t := 0; t < d; t++ {
		e := a[t] - b[t]
		s += e * e
	}
	return s
}

// maxMedianPairs bounds the pairs medianLengthScale looks at (16 MiB of
// distances): all pairs up to n = 2,048 items, a fixed random sample above.
const maxMedianPairs = 1 << 21

// medianLengthScale is the median heuristic for the RBF length scale: the
// median of the Euclidean distances ‖x_i - x_j‖ over the pairs i < j whose
// distance is not 0 (duplicates say nothing about the scale), so a typical
// pair has similarity exp(-1/2) ≈ 0.61. The median of an even count is the
// mean of the two middle values. Up to maxMedianPairs pairs (n ≤ 2,048) all
// are used; above, as many pairs drawn uniformly with a fixed seed, so the
// result is reproducible and memory stays bounded (at most 4 draws per
// kept pair). With no nonzero distance
// (one item, or all identical) it returns 1: every RBF kernel is then all
// ones.
func medianLengthScale(X *mat.Dense) float64 {
	n, _ := X.Dims()
	var dist []float64
	if pairs := n * (n - 1) / 2; pairs <= maxMedianPairs {
		dist = make([]float64, 0, pairs)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if d := sqDist(X, i, j); d > 0 {
					dist = append(dist, d)
				}
			}
		}
	} else {
		// At most 4 draws per kept pair, so mostly duplicate rows cannot
		// make it spin.
		rng := rand.New(rand.NewPCG(1, 2))
		dist = make([]float64, 0, maxMedianPairs)
		for draw := 0; draw < 4*maxMedianPairs && len(dist) < maxMedianPairs; draw++ {
			i, j := rng.IntN(n), rng.IntN(n)
			if d := sqDist(X, i, j); i != j && d > 0 {
				dist = append(dist, d)
			}
		}
	}
	if len(dist) == 0 {
		return 1
	}
	slices.Sort(dist)
	m := len(dist) / 2
	if len(dist)%2 == 1 {
		return math.Sqrt(dist[m])
	}
	return (math.Sqrt(dist[m-1]) + math.Sqrt(dist[m])) / 2
}
