package surrogate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
)

// seriesPool is n packed 2,048-bit fingerprints shaped like a screening
// library (as scripts/fp_pool.py, simplified): n/50 chemical series of 150
// bits each; a molecule keeps each bit of its series with probability 0.85
// and adds 40 random bits. Its score is the number of bits it shares with
// a hidden 64-bit pharmacophore, plus noise: a smooth function of the
// fingerprint with a few good series.
func seriesPool(n int, seed uint64) (*datasets.Pool, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	const words = 32
	series := make([][words]uint64, max(n/50, 20))
	set := func(w *[words]uint64, b int) { w[b/64] |= 1 << (b % 64) }
	for s := range series {
		for t := 0; t < 150; t++ {
			set(&series[s], rng.IntN(2048))
		}
	}
	var pharm [words]uint64
	for t := 0; t < 64; t++ {
		set(&pharm, rng.IntN(2048))
	}
	back := make([]uint64, n*words)
	p := &datasets.Pool{Name: "series", Labels: make([]bool, n), Unlabeled: true, Metric: knn.MetricTanimoto, Bits: make([][]uint64, n)}
	score := make([]float64, n)
	for i := range p.Bits {
		w := back[i*words : (i+1)*words : (i+1)*words]
		src := series[rng.IntN(len(series))]
		for k := range w {
			for b := 0; b < 64; b++ {
				if src[k]>>b&1 == 1 && rng.Float64() < 0.85 {
					w[k] |= 1 << b
				}
			}
		}
		for t := 0; t < 40; t++ {
			b := rng.IntN(2048)
			w[b/64] |= 1 << (b % 64)
		}
		var shared int
		for k := range w {
			for b := 0; b < 64; b++ {
				shared += int(w[k] >> b & pharm[k] >> b & 1)
			}
		}
		score[i] = float64(shared) + rng.NormFloat64()
		p.Bits[i] = w
	}
	return p, score
}

// BenchmarkSuggestRound is one round of a scored search (fit, posterior
// of every item, batch) on a 50,000-item library with 3,000 scores
// (exact up to DefaultMaxExact, DTC beyond) and batches of 500.
func BenchmarkSuggestRound(b *testing.B) {
	const n = 50000
	pool, score := seriesPool(n, 1)
	for _, c := range []struct {
		labels int
		method string
	}{{1500, MethodGreedy}, {1500, MethodQVS}, {3000, MethodQVS}} {
		obs := rand.New(rand.NewPCG(2, 2)).Perm(n)[:c.labels]
		y := make([]float64, len(obs))
		for k, i := range obs {
			y[k] = score[i]
		}
		b.Run(fmt.Sprintf("n=%d,labels=%d,%s", n, c.labels, c.method), func(b *testing.B) {
			for b.Loop() {
				if _, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 500, Method: c.method, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
