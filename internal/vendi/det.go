package vendi

import "math"

// DetPerItem is exp(logDet/n) = |det|^(1/n), the per-item determinant of
// an n x n matrix with log |det| = logDet (the kernel_det_per_item of active-search summaries):
// 0 when logDet is -Inf (det = 0), 1 when n = 0.
func DetPerItem(logDet float64, n int) float64 {
	switch {
	case n == 0:
		return 1
	case math.IsInf(logDet, -1) || math.IsNaN(logDet):
		return 0
	}
	return math.Exp(logDet / float64(n))
}
