package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkPCA2 measures the 2-D PCA of the Figure 2 scatter at pool sizes
// of the paper's tasks (Fashion-MNIST 70,000 items, bmg 106,810).
func BenchmarkPCA2(b *testing.B) {
	for _, sz := range []struct{ n, d int }{{2000, 2048}, {70000, 50}, {106810, 30}} {
		rng := rand.New(rand.NewPCG(1, 1))
		x := make([][]float64, sz.n)
		for i := range x {
			x[i] = make([]float64, sz.d)
			for j := range x[i] {
				x[i][j] = rng.NormFloat64() / math.Sqrt(float64(1+j)) // variances 1, 1/2, 1/3, ...: gap ratio 2/3
			}
		}
		b.Run(fmt.Sprintf("n=%d,d=%d", sz.n, sz.d), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := PCA2(sz.n, sz.d, func(i int, dst []float64) { copy(dst, x[i]) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
