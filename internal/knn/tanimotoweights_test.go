package knn

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestTanimotoWeightsParallel: the edge weights computed over blocks of rows
// by several goroutines are, edge by edge, |a ∧ b| / |a ∨ b| of the two
// fingerprints (1 for two empty ones), counted here bit by bit, for every
// worker count, including rows split unevenly (n not a multiple of the
// chunk); unweighted graphs get 1 everywhere.
func TestTanimotoWeightsParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	const n, k, words = 1037, 7, 4
	b := make([][]uint64, n)
	for i := range b {
		b[i] = make([]uint64, words)
		if i%50 == 0 {
			continue // empty fingerprints
		}
		for x := range b[i] {
			b[i][x] = rng.Uint64() & rng.Uint64()
		}
	}
	g := &KNNGraph{N: n, K: k, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	for e := range g.Index {
		g.Index[e] = int32(rng.IntN(n))
	}
	want := make([]float64, n*k)
	for e, j := range g.Index {
		var and, or int
		for x := 0; x < words; x++ {
			and += bits.OnesCount64(b[e/k][x] & b[j][x])
			or += bits.OnesCount64(b[e/k][x] | b[j][x])
		}
		want[e] = 1
		if or > 0 {
			want[e] = float64(and) / float64(or)
		}
	}
	for _, workers := range []int{1, 2, 3, 8, 0} {
		got := tanimotoWeights(nil, g, b, SimilarityNative, workers)
		for e := range want {
			if got[e] != want[e] {
				t.Fatalf("workers %d, edge %d (row %d): %v, want %v", workers, e, e/k, got[e], want[e])
			}
		}
		for e, v := range tanimotoWeights(nil, g, b, SimilarityUnweighted, workers) {
			if v != 1 {
				t.Fatalf("workers %d, unweighted edge %d: %v", workers, e, v)
			}
		}
	}
}
