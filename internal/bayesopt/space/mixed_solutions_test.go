package space

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// TestMixedSolutionRules measures pools for the final M = 3 solutions on
// the evaluations of scripts/mixed_bench.py (kept with --keep DIR): per
// problem, for qvs q=1's and TPE's runs, the median over seeds of the VS_1
// of the three (the space's mixed distance) and of their worst and mean
// regret, for the top 3 by value, SelectSolutions' band at 10% (the
// default), 15%, 20% and 30%, and a tolerance pool (the rows whose value is
// within alpha·(best - median) of the best, at least 3). Regret is against
// switch's known minimum, else the best value in any file of the problem.
// It runs only with QVS_MIXED_SOLUTIONS=DIR:
//
//	/usr/bin/python3 scripts/mixed_bench.py QVS DIR/table.md --seeds 5 --keep DIR
//	QVS_MIXED_SOLUTIONS=DIR go test -run TestMixedSolutionRules -v ./internal/bayesopt/space/
func TestMixedSolutionRules(t *testing.T) {
	dir := os.Getenv("QVS_MIXED_SOLUTIONS")
	if dir == "" {
		t.Skip("set QVS_MIXED_SOLUTIONS to a folder of mixed_bench.py --keep")
	}
	type rule struct {
		name string
		frac func(vals []float64) float64 // the pool as a band fraction
	}
	band := func(f float64) func([]float64) float64 { return func([]float64) float64 { return f } }
	tol := func(alpha float64) func([]float64) float64 {
		return func(vals []float64) float64 {
			s := slices.Sorted(slices.Values(vals))
			best, med := s[len(s)-1], s[len(s)/2]
			n := 0
			for _, v := range vals {
				if v >= best-alpha*(best-med) {
					n++
				}
			}
			return math.Min(1, float64(max(n, 3))/float64(len(vals)))
		}
	}
	rules := []rule{{"top 3", nil}, {"band 10%", band(0.1)}, {"band 15%", band(0.15)}, {"band 20%", band(0.2)}, {"band 30%", band(0.3)},
		{"tolerance 0.05", tol(0.05)}, {"tolerance 0.1", tol(0.1)}, {"tolerance 0.2", tol(0.2)}}
	var table strings.Builder
	table.WriteString("| problem | runs | pool | VS_1 (per seed) | worst regret | mean regret |\n|---|---|---|---|---:|---:|\n")
	for _, prob := range []string{"switch", "svc", "svc-fail"} {
		sp, err := Load(filepath.Join(dir, prob+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		read := func(f string) []bayesopt.Evaluation {
			obs, err := ReadObservations(f, sp, true)
			if err != nil {
				t.Fatal(err)
			}
			evs := make([]bayesopt.Evaluation, len(obs))
			for i, o := range obs {
				evs[i] = bayesopt.Evaluation{X: o.engine(sp), Value: o.Value, Failed: o.Failed}
			}
			return evs
		}
		fmin := 0.397887 // switch
		if prob != "switch" {
			fmin = math.Inf(1)
			files, _ := filepath.Glob(filepath.Join(dir, prob+"-*.csv"))
			for _, f := range files {
				for _, e := range read(f) {
					if !e.Failed {
						fmin = math.Min(fmin, -e.Value)
					}
				}
			}
		}
		for _, runs := range []string{"qvs_q1", "optuna_TPE"} {
			files, _ := filepath.Glob(filepath.Join(dir, prob+"-"+runs+"-*.csv"))
			if len(files) == 0 {
				t.Fatalf("no %s-%s-SEED.csv in %s", prob, runs, dir)
			}
			for _, r := range rules {
				var vs, worst, mean []float64
				var per []string
				for _, f := range files {
					evs := read(f)
					var ok []int
					var vals []float64
					for i, e := range evs {
						if !e.Failed {
							ok, vals = append(ok, i), append(vals, e.Value)
						}
					}
					var idx []int
					if r.frac == nil {
						idx = slices.Clone(ok)
						slices.SortStableFunc(idx, func(a, b int) int { return -cmpFloat(evs[a].Value, evs[b].Value) })
						idx = idx[:3]
					} else {
						idx = bandSelect(t, sp, evs, r.frac(vals))
					}
					set, err := bayesopt.Summarise(sp, evs, idx)
					if err != nil {
						t.Fatal(err)
					}
					w, m := 0.0, 0.0
					for _, s := range set.Solutions {
						w = math.Max(w, -s.Value-fmin)
						m += (-s.Value - fmin) / float64(len(idx))
					}
					vs, worst, mean = append(vs, set.VS), append(worst, w), append(mean, m)
					per = append(per, fmt.Sprintf("%.2f", set.VS))
				}
				fmt.Fprintf(&table, "| %s | %s | %s | %.3f (%s) | %.4g | %.4g |\n", prob, runs, r.name, median(vs), strings.Join(per, ", "), median(worst), median(mean))
			}
		}
	}
	t.Log("final solutions on mixed spaces, medians over seeds:\n" + table.String())
}
