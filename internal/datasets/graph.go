package datasets

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/knn"
)

// SetGraph stores g in the pool as Neighbors and Weights, row i nearest
// first, keeping only edges of positive weight (an edge of weight 0 adds
// nothing to the kNN model or the kernel, and the Pool promises weights in
// (0, 1]). Rows may therefore hold fewer than g.K neighbours.
//
// It takes g.Index and weights over: row i of the pool is a view of their
// segment [i K, (i+1) K), its kept edges moved to the front in order (a
// million rows are two allocations, not two million). Neither may be used
// by the caller afterwards.
func (p *Pool) SetGraph(g *knn.KNNGraph, weights []float64) {
	if g.N != p.Len() || len(weights) != len(g.Index) {
		panic(fmt.Sprintf("datasets: graph of %d items (%d weights) for a pool of %d", g.N, len(weights), p.Len()))
	}
	p.Neighbors = make([][]int32, g.N)
	p.Weights = make([][]float64, g.N)
	for i := range g.N {
		lo, hi := i*g.K, (i+1)*g.K
		out := lo
		for m := lo; m < hi; m++ {
			if weights[m] > 0 {
				g.Index[out], weights[out] = g.Index[m], weights[m]
				out++
			}
		}
		p.Neighbors[i], p.Weights[i] = g.Index[lo:out:out], weights[lo:out:out]
	}
}
