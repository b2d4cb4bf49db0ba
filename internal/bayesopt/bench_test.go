package bayesopt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkGPFitThompsonStep is one region's work per iteration: fit the GP
// hyperparameters (L-BFGS, at most 30 iterations) on n training points and
// draw one joint posterior sample over c trust-region candidates.
func BenchmarkGPFitThompsonStep(b *testing.B) {
	for _, c := range []struct{ n, cands, d int }{
		{300, 1000, 12},  // lunar-sized region at the default training cap
		{300, 1000, 60},  // rover-sized region at the default training cap
		{1000, 2000, 12}, // the benchmark size
	} {
		b.Run(fmt.Sprintf("n=%d/cand=%d/d=%d", c.n, c.cands, c.d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			X := mat.NewDense(c.n, c.d, nil)
			y := make([]float64, c.n)
			for i := 0; i < c.n; i++ {
				s := 0.0
				for j := 0; j < c.d; j++ {
					v := rng.Float64()
					X.Set(i, j, v)
					s += math.Sin(5*v + float64(j))
				}
				y[i] = s
			}
			centre := X.RawRowView(0)
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				gp, err := fitGP(X, y, gpFitOptions{})
				if err != nil {
					b.Fatal(err)
				}
				cand, err := trustRegionCandidates(centre, 0.4, c.cands, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := gp.JointSamples(cand, 1, rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGPFit and BenchmarkJointSamples split the step above.
func BenchmarkGPFit(b *testing.B) {
	for _, n := range []int{100, 300} {
		b.Run(fmt.Sprintf("n=%d/d=60", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			X, y := randomProblem(rng, n, 60)
			for it := 0; it < b.N; it++ {
				if _, err := fitGP(X, y, gpFitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJointSamples(b *testing.B) {
	for _, m := range []int{1000, 2000} {
		b.Run(fmt.Sprintf("n=300/cand=%d/d=60", m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			X, y := randomProblem(rng, 300, 60)
			gp, err := newGP(X, y, gpHyper{Lengthscales: constant(60, 0.8), SignalVariance: 1, NoiseVariance: 0.01})
			if err != nil {
				b.Fatal(err)
			}
			cand, _ := trustRegionCandidates(X.RawRowView(0), 0.4, m, rng)
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				if _, err := gp.JointSamples(cand, 1, rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// BenchmarkAuthorsIteration is one authors'-mode qVS-BayesOpt iteration at
// ROBOT's sizes, objective excluded: centres from 1,024 evaluations, then M
// regions each fitting a GP (300 nearest points) and drawing 32 Thompson
// samples over min(5000, max(2000, 200 d)) candidates, with the exact and
// the pathwise sampler. Rover-sized: d = 60, M = 3 (its task distance is
// a trajectory distance; here Euclidean); lunar-sized: d = 12, M = 20.
// The exact sampler takes 30-100 s per iteration on the 2-core box, so its
// variants run only with QVS_BENCH_EXACT=1 (docs/performance.md).
func BenchmarkAuthorsIteration(b *testing.B) {
	for _, c := range []struct {
		name        string
		d, M, cands int
		samplers    []string
		tau         float64
	}{
		{"rover", 60, 3, 5000, []string{SamplerPathwise, SamplerExact}, 0.15},
		{"lunar", 12, 20, 2400, []string{SamplerPathwise, SamplerExact}, 0.6},
	} {
		for _, sampler := range c.samplers {
			b.Run(c.name+"/"+sampler, func(b *testing.B) {
				if sampler == SamplerExact && os.Getenv("QVS_BENCH_EXACT") == "" {
					b.Skip("exact sampler at ROBOT's sizes: set QVS_BENCH_EXACT=1")
				}
				s := Settings{Method: MethodQVS, Mode: modeAuthors, Q: 1, Init: 1024, Batch: 32 * c.M,
					Regions: c.M, Tau: c.tau, Candidates: c.cands, Sampler: sampler,
					FailureTolerance: 32, FailurePerPoint: true}
				for it := 0; it < b.N; it++ {
					e := engineAfterInit(b, &bumps{d: c.d}, s, RunID{Seed: 1, Key: "bench"})
					if _, err := e.Ask(context.Background(), s.Batch, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
