package space

import (
	"context"
	"fmt"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// history95 is a 95-point history of p as the README's suggest loop builds
// it (init 10, batches of 5, method m, regions kept), for the per-round
// peer benchmark.
func history95(b *testing.B, p peerProblem, m, sampler string, candidates int) (*Space, bayesopt.Settings, []Observation) {
	sp := p.space(b)
	s := bayesopt.Settings{Method: m, Q: 1, Init: DefaultInit(p.d, 5, 3), Batch: 5, Regions: 3, Tau: bayesopt.DefaultTau,
		Candidates: candidates, MaxTrain: 300, FitIterations: 30, Sampler: sampler}
	id := bayesopt.RunID{Seed: 1, Key: bayesopt.RunKey(m, "1", false, 0)}
	var obs []Observation
	for len(obs) < 95 {
		sug, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: 5})
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range sug {
			obs = append(obs, Observation{Line: len(obs) + 2, Values: g.Values, Value: -p.f(g.Values), Iteration: -1, Region: g.Region, HasRegion: true})
		}
	}
	return sp, s, obs[:95]
}

// BenchmarkSuggest95 is one `suggest --batch 5` call on a 95-point history
// (the time a suggest-loop user waits per round), per method, on
// Ackley-10 and Rosenbrock-5, with exact Thompson samples over 1,000 and
// 200 candidates per region and pathwise ones over 1,000.
func BenchmarkSuggest95(b *testing.B) {
	for _, p := range []peerProblem{peerProblems[0], peerProblems[3]} {
		for _, m := range []string{bayesopt.MethodQVS, bayesopt.MethodTuRBO} {
			for _, c := range []struct {
				sampler    string
				candidates int
			}{{bayesopt.SamplerExact, 1000}, {bayesopt.SamplerExact, 200}, {bayesopt.SamplerPathwise, 1000}} {
				b.Run(fmt.Sprintf("%s/%s/%s/cand=%d", p.name, m, c.sampler, c.candidates), func(b *testing.B) {
					sp, s, obs := history95(b, p, m, c.sampler, c.candidates)
					id := bayesopt.RunID{Seed: 1, Key: bayesopt.RunKey(m, "1", false, 0)}
					b.ResetTimer()
					cpu0 := parallel.CPUSeconds()
					for i := 0; i < b.N; i++ {
						if _, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: 5}); err != nil {
							b.Fatal(err)
						}
					}
					// CPU seconds per call: on the shared, loaded machine
					// the wall time mostly measures the other jobs.
					b.ReportMetric((parallel.CPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
				})
			}
		}
	}
}
