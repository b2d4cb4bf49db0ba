package knn

import (
	"fmt"
	"math"
	"slices"
)

// Similarity names: how a kNN edge's distance d becomes its weight.
const (
	// SimilarityGaussian: exp(-d^2 / h^2) with the bandwidth h^2 = the median
	// squared distance over all edges of the graph, so a typical edge weighs
	// about 1/e and the nearest neighbours close to 1, whatever the units.
	SimilarityGaussian = "gaussian"
	// SimilarityUnweighted: weight 1 on every edge (the authors' BMG graph).
	SimilarityUnweighted = "unweighted"
	// SimilarityNative: the metric's own similarity 1 - d, i.e. the cosine
	// similarity or the Tanimoto similarity (not defined for Euclidean).
	SimilarityNative = "native"
)

// EdgeWeights converts the distances of g to weights in [0, 1] under the
// named similarity (see the Similarity constants), in g's layout.
func EdgeWeights(g *KNNGraph, similarity string) ([]float64, error) {
	h := *g
	h.Distance = slices.Clone(g.Distance)
	return edgeWeightsInPlace(&h, similarity)
}

// WeightsInPlace is the edge weights of g under similarity written over
// g.Distance, which it returns (g.Distance is nil afterwards; on an error g
// is unchanged): for metric tanimoto those of TanimotoGraph, computed from
// the fingerprints bits (the similarity itself, or 1), else those of
// EdgeWeights.
func WeightsInPlace(g *KNNGraph, bits [][]uint64, similarity string, workers int) ([]float64, error) {
	if g.Metric != MetricTanimoto {
		return edgeWeightsInPlace(g, similarity)
	}
	if err := checkTanimotoSimilarity(similarity); err != nil {
		return nil, err
	}
	// tanimotoWeights reads g.Index only: no second n*k array.
	w := tanimotoWeights(g.Distance, g, bits, similarity, workers)
	g.Distance = nil
	return w, nil
}

// edgeWeightsInPlace is EdgeWeights with the weights written over
// g.Distance, which it returns (g.Distance is nil afterwards; on an error g
// is unchanged): no second array of n*k float64 (a 10,000,000-item pool at
// k = 20: 1.6 GB). The Gaussian bandwidth h^2 is found without the squared
// distances (bandwidthOfDistances), the weight being exp(-d^2 / h^2).
func edgeWeightsInPlace(g *KNNGraph, similarity string) ([]float64, error) {
	w := g.Distance
	switch similarity {
	case SimilarityUnweighted:
		for e := range w {
			w[e] = 1
		}
	case SimilarityNative:
		if g.Metric != MetricCosine && g.Metric != MetricTanimoto {
			return nil, fmt.Errorf("similarity %q needs metric %q or %q, not %q", similarity, MetricCosine, MetricTanimoto, g.Metric)
		}
		for e, d := range w {
			w[e] = min(max(1-d, 0), 1)
		}
	case SimilarityGaussian:
		h2 := bandwidthOfDistances(w)
		for e, d := range w {
			w[e] = math.Exp(-d * d / h2)
		}
	default:
		return nil, fmt.Errorf("similarity %q is not one of %q, %q, %q", similarity, SimilarityGaussian, SimilarityUnweighted, SimilarityNative)
	}
	g.Distance = nil
	return w, nil
}

// bandwidthOfDistances is gaussianBandwidth of the distances d, the median
// of their squares computed without storing them or reordering d: squaring
// is monotone in |d| (and so is its rounding), so the median square is the
// square of the median magnitude (kthMagnitude). TestEdgeWeightsInPlace
// checks it bit for bit against a quickselect on the squares.
func bandwidthOfDistances(d []float64) float64 {
	if len(d) == 0 {
		return 1
	}
	v := kthMagnitude(d, (len(d)-1)/2)
	if h2 := v * v; h2 > 0 {
		return h2
	}
	least := math.Inf(1)
	for _, x := range d {
		if s := x * x; s > 0 && s < least {
			least = s
		}
	}
	if math.IsInf(least, 1) {
		return 1
	}
	return least
}

// kthMagnitude returns the k-th smallest |x[e]| (0-based; values not NaN)
// without reordering x: a radix selection on the magnitudes' bit patterns
// (which order as the magnitudes do), 16 bits a pass, four passes.
func kthMagnitude(x []float64, k int) float64 {
	counts := make([]int, 1<<16)
	var prefix uint64 // the selected key's bits above shift+16
	for shift := 48; shift >= 0; shift -= 16 {
		clear(counts)
		above := ^uint64(0) << (shift + 16) // 0 for the first pass
		for _, v := range x {
			if key := math.Float64bits(v) &^ (1 << 63); key&above == prefix {
				counts[key>>shift&0xffff]++
			}
		}
		b := 0
		for k >= counts[b] {
			k -= counts[b]
			b++
		}
		prefix |= uint64(b) << shift
	}
	return math.Float64frombits(prefix)
}

// gaussianBandwidth is h^2 of SimilarityGaussian: the median squared edge
// distance of g (the lower median for an even count). If it is 0 (most
// edges join duplicates) it is the smallest positive squared distance, and 1
// if every distance is 0.
func gaussianBandwidth(g *KNNGraph) float64 {
	return bandwidthOfDistances(g.Distance)
}

// kthSmallest returns the k-th smallest value of x (0-based: what
// slices.Sort(x) would put at x[k]) in expected O(len(x)) by quickselect
// (Hoare partition around the median of three), reordering x. Values must
// not be NaN. Fashion-MNIST's 14 million edges: a full sort took a second.
func kthSmallest(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// median of three at mid
		if x[mid] < x[lo] {
			x[mid], x[lo] = x[lo], x[mid]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[mid] {
			x[hi], x[mid] = x[mid], x[hi]
		}
		p := x[mid]
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		// x[lo..j] <= p, x[i..hi] >= p, and x[j+1..i-1] == p
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}
