package knn

import (
	"fmt"
	"math/bits"
	"runtime"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// TanimotoGraph is the exact Tanimoto kNN graph of the fingerprints b (k
// neighbours, ties to the lower index, cached under cacheDir as CachedKNN
// does) and its edge weights: the Tanimoto similarity itself, recomputed
// rather than taken as 1 - distance so that it equals Tanimoto(b_i, b_j)
// bit for bit (similarity native, or gaussian: the CSV pools' default,
// which means the metric's own similarity here), or 1 (unweighted).
func TanimotoGraph(b [][]uint64, k int, similarity, cacheDir string, workers int) (*KNNGraph, []float64, error) {
	if err := checkTanimotoSimilarity(similarity); err != nil {
		return nil, nil, err
	}
	g, _, err := CachedKNN(cacheDir, nil, b, k, MetricTanimoto, workers)
	if err != nil {
		return nil, nil, err
	}
	return g, tanimotoWeights(nil, g, b, similarity, workers), nil
}

// checkTanimotoSimilarity accepts the similarities of a Tanimoto graph:
// native (and gaussian, the CSV default, meaning the same) or unweighted.
func checkTanimotoSimilarity(similarity string) error {
	if similarity != SimilarityNative && similarity != SimilarityGaussian && similarity != SimilarityUnweighted {
		return fmt.Errorf("similarity %q is not one of %q, %q (metric tanimoto weighs an edge by the Tanimoto similarity, or 1)", similarity, SimilarityNative, SimilarityUnweighted)
	}
	return nil
}

// tanimotoWeights are the edge weights of a Tanimoto graph g of b: the
// Tanimoto similarity, or 1 (unweighted), computed by workers goroutines
// (<= 0: GOMAXPROCS) over blocks of rows (each weight is the same call
// either way), written into dst (len(g.Index) values; nil: allocated). They
// read g.Index only, so dst may be g.Distance.
func tanimotoWeights(dst []float64, g *KNNGraph, b [][]uint64, similarity string, workers int) []float64 {
	w := dst
	if w == nil {
		w = make([]float64, len(g.Index))
	}
	if similarity == SimilarityUnweighted {
		for e := range w {
			w[e] = 1
		}
		return w
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Tanimoto's |a ∧ b| / |a ∨ b| with |a ∨ b| = |a| + |b| - |a ∧ b|:
	// one popcount per word instead of two, the same integers, so the
	// same weights bit for bit.
	ones := make([]int, len(b))
	parallel.Split(len(b), workers, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for _, x := range b[i] {
				ones[i] += bits.OnesCount64(x)
			}
		}
	})
	parallel.Split(g.N, workers, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			bi := b[i]
			for e := i * g.K; e < (i+1)*g.K; e++ {
				j := g.Index[e]
				bj := b[j][:len(bi)]
				and := 0
				for k, x := range bi {
					and += bits.OnesCount64(x & bj[k])
				}
				if or := ones[i] + ones[j] - and; or != 0 {
					w[e] = float64(and) / float64(or)
				} else {
					w[e] = 1
				}
			}
		}
	})
	return w
}
