package space

import (
	"context"
	"fmt"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// replayRows is an n-row evaluations file of a 2-parameter space without
// iteration or region columns (the case where suggest replays the history
// and places each row in a region itself), with one failed row, as the
// command-line files of docs/performance.md: row i is
// ((7919 i mod 10007)/10007, (104729 i mod 10009)/1000.9) with value
// (37 i mod 101)/101.
func replayRows(tb testing.TB, n int) (*Space, []Observation) {
	sp := mustParse(tb, "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	obs := make([]Observation, n)
	for i := range obs {
		obs[i] = Observation{Line: i + 2, Iteration: -1, Region: -1,
			Values: []float64{float64((i*7919)%10007) / 10007, float64((i*104729)%10009) / 1000.9},
			Value:  float64((i*37)%101) / 101}
		if i == 5 {
			obs[i].Failed = true
		}
	}
	return sp, obs
}

// BenchmarkSuggestReplay is one `suggest --batch 4` call (qvs, the
// command's defaults) on an n-row history: the replay of every iteration
// plus the final ask.
func BenchmarkSuggestReplay(b *testing.B) {
	for _, n := range []int{2000, 10000, 50000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			sp, obs := replayRows(b, n)
			s := bayesopt.Settings{Method: bayesopt.MethodQVS, Q: 1, Init: DefaultInit(2, 4, 3), Batch: 4, Regions: 3,
				Tau: bayesopt.DefaultTau, Candidates: 200, MaxTrain: bayesopt.DefaultMaxTrain, FitIterations: bayesopt.DefaultFitIterations}
			id := bayesopt.RunID{Seed: 0, Key: bayesopt.RunKey(s.Method, "1", false, 0)}
			b.ResetTimer()
			cpu0 := parallel.CPUSeconds()
			for i := 0; i < b.N; i++ {
				if _, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: 4}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((parallel.CPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}
