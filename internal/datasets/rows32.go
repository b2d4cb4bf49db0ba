package datasets

import (
	"fmt"
	"math"
)

// Rows32 is a matrix of float32 features held as read: n rows of D values
// in one block, row i at Data[i*D : (i+1)*D]. A .npy pool of float32 keeps
// its features so (half the bytes of float64, one copy); every distance is
// computed in float64 from the values widened exactly, so it equals the
// distance of the same features held as float64, bit for bit.
type Rows32 struct {
	Data []float32
	D    int
}

// Len is the number of rows (0 for the zero value).
func (r Rows32) Len() int {
	if r.D == 0 {
		return 0
	}
	return len(r.Data) / r.D
}

// Row is row i (a view).
func (r Rows32) Row(i int) []float32 { return r.Data[i*r.D : (i+1)*r.D : (i+1)*r.D] }

// Float64 returns the rows widened to float64 (exactly), one slice per row
// in one backing array.
func (r Rows32) Float64() [][]float64 {
	n, d := r.Len(), r.D
	back := make([]float64, n*d)
	x := make([][]float64, n)
	for i := range x {
		x[i] = back[i*d : (i+1)*d : (i+1)*d]
		for c, v := range r.Row(i) {
			x[i][c] = float64(v)
		}
	}
	return x
}

// denseSrc is a dense feature matrix as the kNN builders read it: float64
// rows (x64) or a float32 block (x32); exactly one is set.
type denseSrc struct {
	x64 [][]float64
	x32 Rows32
}

func (s denseSrc) n() int {
	if s.x64 != nil {
		return len(s.x64)
	}
	return s.x32.Len()
}

func (s denseSrc) d() int {
	if s.x64 != nil {
		if len(s.x64) == 0 {
			return 0
		}
		return len(s.x64[0])
	}
	return s.x32.D
}

// row64 returns row i as float64: x64's own row, or x32's widened into buf
// (of length d).
func (s denseSrc) row64(i int, buf []float64) []float64 {
	if s.x64 != nil {
		return s.x64[i]
	}
	for c, v := range s.x32.Row(i) {
		buf[c] = float64(v)
	}
	return buf
}

// dist is the exact distance of rows i and j (Euclidean, or cosine), in
// float64: the value Pool.Distance returns.
func (s denseSrc) dist(i, j int, cosine bool) float64 {
	if s.x64 != nil {
		if cosine {
			return cosineDistance(s.x64[i], s.x64[j])
		}
		return euclidean(s.x64[i], s.x64[j])
	}
	if cosine {
		return cosineDistance(s.x32.Row(i), s.x32.Row(j))
	}
	return euclidean(s.x32.Row(i), s.x32.Row(j))
}

// check checks that the rows have one length d >= 1 and finite values.
func (s denseSrc) check() error {
	if s.x64 != nil {
		return checkDense(s.x64)
	}
	if s.x32.D <= 0 || len(s.x32.Data)%s.x32.D != 0 {
		return fmt.Errorf("kNN graph: %d float32 features do not form rows of %d", len(s.x32.Data), s.x32.D)
	}
	for e, v := range s.x32.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("kNN graph: item %d, feature %d is %v, expected a finite number", e/s.x32.D, e%s.x32.D, v)
		}
	}
	return nil
}

// float64Rows returns the rows as float64 slices (x64 itself, or x32
// widened: a copy).
func (s denseSrc) float64Rows() [][]float64 {
	if s.x64 != nil {
		return s.x64
	}
	return s.x32.Float64()
}
