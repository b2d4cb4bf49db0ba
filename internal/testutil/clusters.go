package testutil

import (
	"math/rand/v2"
	"slices"
)

// Clustered test points shared by the kNN engines' tests and the pools'
// (internal/knn, internal/datasets): deterministic in their seed.

// ClusteredGaussian draws n points in d dimensions around c centres (spread
// 10 per axis, unit noise).
func ClusteredGaussian(n, d, c int, seed uint64) [][]float64 {
	return ClusteredGaussianSpread(n, d, c, 10, seed)
}

// ClusteredGaussianSpread: centres N(0, spread^2) per axis, unit noise
// around them (spread 2: clusters overlap, as in scripts/knn-bench.sh).
func ClusteredGaussianSpread(n, d, c int, spread float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := make([][]float64, c)
	for a := range centres {
		centres[a] = make([]float64, d)
		for j := range centres[a] {
			centres[a][j] = spread * rng.NormFloat64()
		}
	}
	back := make([]float64, n*d)
	x := make([][]float64, n)
	for i := range x {
		x[i] = back[i*d : (i+1)*d]
		ctr := centres[rng.IntN(c)]
		for j := range x[i] {
			x[i][j] = ctr[j] + rng.NormFloat64()
		}
	}
	return x
}

// ClusteredBits: fingerprints of nbits, each a centre's bits with every bit
// flipped with probability 0.05, centres with 10% of bits set.
func ClusteredBits(n, nbits, c int, seed uint64) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	words := (nbits + 63) / 64
	centres := make([][]uint64, c)
	for a := range centres {
		centres[a] = make([]uint64, words)
		for b := 0; b < nbits; b++ {
			if rng.Float64() < 0.1 {
				centres[a][b/64] |= 1 << (b % 64)
			}
		}
	}
	x := make([][]uint64, n)
	for i := range x {
		x[i] = slices.Clone(centres[rng.IntN(c)])
		for b := 0; b < nbits; b++ {
			if rng.Float64() < 0.05 {
				x[i][b/64] ^= 1 << (b % 64)
			}
		}
	}
	return x
}
