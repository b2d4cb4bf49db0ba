package search

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// metricOrders are the orders q of the Vendi score reported for the
// collected positives (Tables 1-3).
var metricOrders = []vendi.Order{0, 0.1, 0.5, 1, 2, vendi.OrderInf}

// metrics are the paper's measures of the positives a run collected
// (Section 4.1, Tables 1-3).
type metrics struct {
	Positives int
	// VS[i] is VS_{metricOrders[i]} of the positives on the diversity kernel
	// (vendi.Score conventions; VS_0 is the kernel's numerical rank, equal to
	// the count unless items duplicate).
	VS []float64
	// MaxPairwiseDistance is the largest feature-space distance between two
	// positives (0 with fewer than two).
	MaxPairwiseDistance float64
	// KernelDet is det K of the positives' kernel matrix and KernelLogDet
	// log |det K| (det underflows to 0 for large, redundant sets while the
	// log stays informative). The symmetrised kNN kernel can be indefinite, so
	// det K may be negative; KernelLogDet is -Inf when det K = 0.
	KernelDet, KernelLogDet float64
	// KernelDetPerItem is the per-item determinant |det K|^(1/n) =
	// exp(KernelLogDet/n), the geometric mean of the absolute eigenvalues of
	// K (0 when det K = 0, 1 with no positives; det K's sign, negative for
	// some indefinite kNN kernels, is in KernelDet). The paper's "kernel
	// matrix det." is not defined by any public code, and its values (0.96
	// for a 138-item set whose unit-diagonal kernel has det <= 0.48) cannot
	// be the raw det; this per-item form is our inference, which gives
	// about 0.33 for random photoswitch sets against the paper's 0.32.
	KernelDetPerItem float64
}

// measure computes the metrics of the positives under kernel (the
// symmetrised kNN graph) and the feature distance dist (nil: distance 0).
func measure(kernel vendi.Kernel, positives []int, dist func(i, j int) float64) (metrics, error) {
	m := metrics{Positives: len(positives), VS: make([]float64, len(metricOrders))}
	if len(positives) == 0 {
		m.KernelDet, m.KernelLogDet, m.KernelDetPerItem = 1, 0, 1 // det of the empty matrix
		return m, nil
	}
	K := vendi.Submatrix(kernel, positives)
	for i, q := range metricOrders {
		v, err := vendi.Score(K, q)
		if err != nil {
			return m, fmt.Errorf("VS_%s of %d positives: %w", q, len(positives), err)
		}
		m.VS[i] = v
	}
	logDet, sign := mat.LogDet(K)
	m.KernelLogDet = logDet
	m.KernelDet = sign * math.Exp(logDet)
	m.KernelDetPerItem = vendi.DetPerItem(logDet, len(positives))
	if sign == 0 || math.IsInf(logDet, -1) {
		m.KernelDet, m.KernelLogDet = 0, math.Inf(-1)
	}
	if dist != nil {
		for a := range positives {
			for b := a + 1; b < len(positives); b++ {
				d := dist(positives[a], positives[b])
				if math.IsNaN(d) {
					return m, fmt.Errorf("distance between items %d and %d is NaN", positives[a], positives[b])
				}
				m.MaxPairwiseDistance = math.Max(m.MaxPairwiseDistance, d)
			}
		}
	}
	return m, nil
}

// curvePoint is the state after one batch: the running count of queries and
// positives and VS_1 of the positives (the curves of Section 4.1).
type curvePoint struct {
	Batch, Queries, Positives int
	VS1                       float64
}

// curve recomputes VS_1 of the positives after every batch of queries
// (the start, Batch 0, included).
func curve(kernel vendi.Kernel, queries []query) ([]curvePoint, error) {
	var out []curvePoint
	var pos []int
	for i, q := range queries {
		if q.Positive {
			pos = append(pos, q.Index)
		}
		if i+1 < len(queries) && queries[i+1].Batch == q.Batch {
			continue
		}
		vs := 0.0
		if len(pos) > 0 {
			v, err := vendi.Score(vendi.Submatrix(kernel, pos), 1)
			if err != nil {
				return nil, fmt.Errorf("VS_1 after batch %d: %w", q.Batch, err)
			}
			vs = v
		}
		out = append(out, curvePoint{Batch: q.Batch, Queries: q.Iteration, Positives: len(pos), VS1: vs})
	}
	return out, nil
}

// batchValues returns the eq. 7 value after each pick of a batch: qVS_q of
// the observed positives (quality 1) plus picks[:i+1] (quality Pr(y = 1 | D))
// on kernel, as `qvs as suggest` reports it for any policy.
func batchValues(kernel vendi.Kernel, m *Model, picks []int, q vendi.Order) ([]float64, error) {
	quality := m.Probabilities(nil)
	var prefix []int
	for i := range quality {
		if m.Observed(i) && m.Positive(i) {
			prefix = append(prefix, i)
			quality[i] = 1
		}
	}
	return vendi.QualityWeightedSequence(kernel, quality, prefix, picks, q)
}
