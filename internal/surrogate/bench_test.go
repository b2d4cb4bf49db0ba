package surrogate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// loopCPU runs f in b's loop and reports the process CPU seconds per call
// (cpu-s/op: the benchmarks run on a shared machine, where wall time
// depends on the load).
func loopCPU(b *testing.B, f func()) {
	cpu0 := parallel.CPUSeconds()
	for b.Loop() {
		f()
	}
	b.ReportMetric((parallel.CPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

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
// of every item, batch) on a 50,000-item library with 1,500 and 3,000
// scores (exact: defaultMaxExact) and 6,000 (DTC) and batches of 500.
func BenchmarkSuggestRound(b *testing.B) {
	const n = 50000
	pool, score := seriesPool(n, 1)
	for _, c := range []struct {
		labels int
		method string
	}{{1500, MethodGreedy}, {1500, MethodQVS}, {3000, MethodQVS}, {6000, MethodQVS}} {
		obs := rand.New(rand.NewPCG(2, 2)).Perm(n)[:c.labels]
		y := make([]float64, len(obs))
		for k, i := range obs {
			y[k] = score[i]
		}
		b.Run(fmt.Sprintf("n=%d,labels=%d,%s", n, c.labels, c.method), func(b *testing.B) {
			loopCPU(b, func() {
				if _, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 500, Method: c.method, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkShortlist is the costly part of a MethodQVS round at the size
// of Enamine 50k's last round: the mean of every unscored item and the sd
// of those shortlist evaluates (reported as evaluated/op), for 1,988
// candidates (4 x a batch of 497) on a 50,000-item library with 2,485
// labels in the exact form: 497 at random and the best 1,988 of 10,000
// others, the shape of a search's labels. "solve" is the sd's triangular
// solve alone on 128 items, blocked (solveRowsLT) and unblocked
// (blas64.Trsm).
func BenchmarkShortlist(b *testing.B) {
	const n, labels, C = 50000, 2485, 1988
	pool, score := seriesPool(n, 1)
	perm := rand.New(rand.NewPCG(3, 3)).Perm(n)
	obs := append([]int(nil), perm[:497]...)
	rest := append([]int(nil), perm[497:10497]...)
	sort.Slice(rest, func(a, b int) bool { return score[rest[a]] > score[rest[b]] })
	obs = append(obs, rest[:labels-497]...)
	y := make([]float64, len(obs))
	taken := make([]bool, n)
	for k, i := range obs {
		y[k], taken[i] = score[i], true
	}
	var free []int
	for i := range taken {
		if !taken[i] {
			free = append(free, i)
		}
	}
	m, err := fit(context.Background(), newTanimotoKernel(pool.Bits), obs, y, fitOptions{maxExact: labels, inducing: 600, fitSubset: 600, seed: 1, workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	a := acquirer{kind: acqUCB, sqrtBeta: 1, sdMax: math.Sqrt(m.Hyper.SignalVar)}
	b.Run("shortlist", func(b *testing.B) {
		var ev int
		var acq []float64
		loopCPU(b, func() { _, acq, ev = shortlist(m, a, free, C, len(free)) })
		b.ReportMetric(float64(ev), "evaluated/op")
		// the items the prior sd's bound cannot rule out: what a shortlist
		// ordered by it evaluates at least
		mu := make([]float64, len(free))
		m.Predict(free, mu, nil)
		prior := 0
		for _, v := range mu {
			if a.bound(v) >= acq[C-1] {
				prior++
			}
		}
		b.ReportMetric(float64(prior), "prior-bound/op")
	})
	b.Run("mean+bound", func(b *testing.B) {
		mu, ub := make([]float64, len(free)), make([]float64, len(free))
		loopCPU(b, func() { m.predictBound(free, mu, ub) })
	})
	kx := make([]float64, predictBlock*labels)
	fill := func() {
		for t := 0; t < predictBlock; t++ {
			m.kern.Fill(free[t], m.Active, kx[t*labels:(t+1)*labels])
		}
	}
	b.Run("solve/blocked", func(b *testing.B) {
		loopCPU(b, func() {
			fill()
			solveRowsLT(m.l1, kx, predictBlock)
		})
	})
	b.Run("solve/trsm", func(b *testing.B) {
		loopCPU(b, func() {
			fill()
			blas64.Trsm(blas.Right, blas.Trans, 1, m.l1, blas64.General{Rows: predictBlock, Cols: labels, Stride: labels, Data: kx})
		})
	})
}
