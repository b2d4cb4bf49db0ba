package vendi

import (
	"sort"

	"gonum.org/v1/gonum/mat"
)

func symFrom(n int, data []float64) *mat.SymDense { return mat.NewSymDense(n, data) }
func sortFloats(x []float64)                      { sort.Float64s(x) }
