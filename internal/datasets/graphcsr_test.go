package datasets

import (
	"slices"
	"testing"
)

// TestGraphCSR: the CSR arrays of a 3-item graph written out by hand
// (scipy's layout: indptr, then each row's columns and weights in order).
func TestGraphCSR(t *testing.T) {
	p := &Pool{
		Neighbors: [][]int32{{2, 1}, {0}, {1, 0}},
		Weights:   [][]float64{{0.9, 0.5}, {0.7}, {0.8, 0.25}},
	}
	p.Labels = make([]bool, 3)
	m := p.GraphCSR()
	if m.Rows != 3 || m.Cols != 3 || !slices.Equal(m.Indptr, []int{0, 2, 3, 5}) ||
		!slices.Equal(m.Indices, []int{2, 1, 0, 1, 0}) || !slices.Equal(m.Data, []float64{0.9, 0.5, 0.7, 0.8, 0.25}) {
		t.Errorf("CSR %+v", m)
	}
}
