package knn

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

// Dense is a dense feature matrix as the kNN builders read it: float64
// rows (F64) or a float32 block (F32); exactly one is set. Every distance
// is computed in float64, from F32's values widened.
type Dense struct {
	F64 [][]float64
	F32 Rows32
}

func (s Dense) n() int {
	if s.F64 != nil {
		return len(s.F64)
	}
	return s.F32.Len()
}

func (s Dense) d() int {
	if s.F64 != nil {
		if len(s.F64) == 0 {
			return 0
		}
		return len(s.F64[0])
	}
	return s.F32.D
}

// row64 returns row i as float64: F64's own row, or F32's widened into buf
// (of length d).
func (s Dense) row64(i int, buf []float64) []float64 {
	if s.F64 != nil {
		return s.F64[i]
	}
	for c, v := range s.F32.Row(i) {
		buf[c] = float64(v)
	}
	return buf
}

// Dist is the exact distance of rows i and j (Euclidean, or cosine), in
// float64: the value datasets.Pool.Distance returns.
func (s Dense) Dist(i, j int, cosine bool) float64 {
	if s.F64 != nil {
		if cosine {
			return cosineDistance(s.F64[i], s.F64[j])
		}
		return euclidean(s.F64[i], s.F64[j])
	}
	if cosine {
		return cosineDistance(s.F32.Row(i), s.F32.Row(j))
	}
	return euclidean(s.F32.Row(i), s.F32.Row(j))
}

// Check checks that the rows have one length d >= 1 and finite values.
func (s Dense) Check() error {
	if s.F64 != nil {
		return checkDense(s.F64)
	}
	if s.F32.D <= 0 || len(s.F32.Data)%s.F32.D != 0 {
		return fmt.Errorf("kNN graph: %d float32 features do not form rows of %d", len(s.F32.Data), s.F32.D)
	}
	for e, v := range s.F32.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("kNN graph: item %d, feature %d is %v, expected a finite number", e/s.F32.D, e%s.F32.D, v)
		}
	}
	return nil
}

// float64Rows returns the rows as float64 slices (F64 itself, or F32
// widened: a copy).
func (s Dense) float64Rows() [][]float64 {
	if s.F64 != nil {
		return s.F64
	}
	return s.F32.Float64()
}
