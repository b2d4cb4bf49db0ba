package space

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// peerProblem is one of the peer benchmark's test functions (minimised), with its
// box and global minimum (Surjanovic & Bingham, Virtual Library of
// Simulation Experiments). scripts/peer_functions.py has the same.
type peerProblem struct {
	name   string
	d      int
	lo, hi float64
	f      func([]float64) float64
	min    float64
}

var peerProblems = []peerProblem{
	// Ackley on [-5, 10]^10: the minimum 0 at the origin is off the box's
	// centre (2.5, ...), unlike on the usual symmetric box.
	{"Ackley-10", 10, -5, 10, func(x []float64) float64 {
		s1, s2 := 0.0, 0.0
		for _, v := range x {
			s1 += v * v
			s2 += math.Cos(2 * math.Pi * v)
		}
		n := float64(len(x))
		return -20*math.Exp(-0.2*math.Sqrt(s1/n)) - math.Exp(s2/n) + 20 + math.E
	}, 0},
	{"Levy-8", 8, -10, 10, func(x []float64) float64 {
		w := func(v float64) float64 { return 1 + (v-1)/4 }
		d := len(x)
		s := math.Pow(math.Sin(math.Pi*w(x[0])), 2)
		for i := 0; i < d-1; i++ {
			wi := w(x[i])
			s += (wi - 1) * (wi - 1) * (1 + 10*math.Pow(math.Sin(math.Pi*wi+1), 2))
		}
		wd := w(x[d-1])
		return s + (wd-1)*(wd-1)*(1+math.Pow(math.Sin(2*math.Pi*wd), 2))
	}, 0},
	{"Styblinski-Tang-6", 6, -5, 5, func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v*v*v*v - 16*v*v + 5*v
		}
		return s / 2
	}, -39.16616570377142 * 6},
	{"Rosenbrock-5", 5, -5, 10, func(x []float64) float64 {
		s := 0.0
		for i := 0; i+1 < len(x); i++ {
			s += 100*math.Pow(x[i+1]-x[i]*x[i], 2) + (x[i]-1)*(x[i]-1)
		}
		return s
	}, 0},
}

// space returns p's box as a Space (x1..xd, length scale 1).
func (p peerProblem) space(t testing.TB) *Space {
	var b strings.Builder
	b.WriteString("parameters:\n")
	for j := 1; j <= p.d; j++ {
		fmt.Fprintf(&b, "  - {name: x%d, lower: %v, upper: %v}\n", j, p.lo, p.hi)
	}
	return mustParse(t, b.String())
}

// peerObjective evaluates p (maximising -f) over its space.
type peerObjective struct {
	*Space
	p peerProblem
}

func (o peerObjective) Evaluate(_ context.Context, x []float64) (float64, error) {
	return -o.p.f(o.Values(x)), nil
}

// peerRun is one campaign run of p: 100 evaluations in batches of 5, M = 3.
func peerRun(t testing.TB, p peerProblem, s bayesopt.Settings, seed uint64) *bayesopt.Result {
	sp := p.space(t)
	s.Budget, s.Batch, s.Regions, s.Tau = 100, 5, 3, bayesopt.DefaultTau
	s.Init = DefaultInit(p.d, 5, 3)
	res, err := bayesopt.Optimize(context.Background(), peerObjective{sp, p}, s,
		bayesopt.RunID{Seed: seed, Key: bayesopt.RunKey(s.Method, "1", false, 0)}, nil, func([]bayesopt.Evaluation) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSolutionRuleTable measures rules for the final M = 3 solutions on
// the peer functions (qvs at q = 1, 3 seeds): the paper's (the qvs
// centres on all evaluations: greedy qVS_1 with quality min-max scaled over
// all of them), the top 3 by value, and bayesopt.SelectSolutions' band
// rule at band fractions 5%, 10% (the default), 15% and 20%. It reports the
// median over seeds of the worst and mean regret of the three and of their
// VS_1 (exp(-d²/2), d the unit-scaled Euclidean distance). It takes minutes,
// so it runs only with QVS_SOLUTION_TABLE=1:
//
//	QVS_SOLUTION_TABLE=1 go test -run TestSolutionRuleTable -v ./internal/bayesopt/space/
func TestSolutionRuleTable(t *testing.T) {
	if os.Getenv("QVS_SOLUTION_TABLE") == "" {
		t.Skip("set QVS_SOLUTION_TABLE=1 (takes minutes)")
	}
	rules := []string{"paper (qvs centres)", "top 3", "band 5%", "band 10%", "band 15%", "band 20%"}
	var table strings.Builder
	table.WriteString("| function | rule | worst regret | mean regret | VS_1 |\n|---|---|---:|---:|---:|\n")
	for _, p := range peerProblems {
		sp := p.space(t)
		stats := make([][3][]float64, len(rules))
		for seed := uint64(1); seed <= 3; seed++ {
			res := peerRun(t, p, bayesopt.Settings{Method: bayesopt.MethodQVS, Q: 1}, seed)
			for r := range rules {
				var idx []int
				switch r {
				case 0:
					for _, s := range res.Solutions {
						idx = append(idx, s.Index)
					}
				case 1:
					v := make([]float64, len(res.Evaluations))
					for i, e := range res.Evaluations {
						v[i] = e.Value
					}
					order := make([]int, len(v))
					for i := range order {
						order[i] = i
					}
					slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(v[a], v[b]) })
					idx = order[:3]
				default:
					frac := []float64{0.05, 0.1, 0.15, 0.2}[r-2]
					idx = bandSelect(t, sp, res.Evaluations, frac)
				}
				set, err := bayesopt.Summarise(sp, res.Evaluations, idx)
				if err != nil {
					t.Fatal(err)
				}
				worst, mean := 0.0, 0.0
				for _, s := range set.Solutions {
					reg := -s.Value - p.min
					worst = math.Max(worst, reg)
					mean += reg / float64(len(idx))
				}
				stats[r][0] = append(stats[r][0], worst)
				stats[r][1] = append(stats[r][1], mean)
				stats[r][2] = append(stats[r][2], set.VS)
			}
		}
		for r, name := range rules {
			fmt.Fprintf(&table, "| %s | %s | %.4g | %.4g | %.3f |\n", p.name, name, median(stats[r][0]), median(stats[r][1]), median(stats[r][2]))
		}
	}
	t.Log("final solutions of qvs (q = 1) runs, median over 3 seeds:\n" + table.String())
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bandSelect is SelectSolutions with another band fraction.
func bandSelect(t testing.TB, sp *Space, evs []bayesopt.Evaluation, frac float64) []int {
	idx, err := bayesopt.SelectSolutionsBand(sp, evs, 3, 1, frac)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestSamplerQualityTable compares the Thompson samplers and candidate
// counts of qvs (q = 1) and turbo runs on the peer functions (100
// evaluations in batches of 5, M = 3, seeds 1-3): median simple regret and
// wall time per run. It backs suggest's default sampler;
// it takes many minutes, so it runs only with QVS_SAMPLER_TABLE=1:
//
//	QVS_SAMPLER_TABLE=1 go test -run TestSamplerQualityTable -v -timeout 2h ./internal/bayesopt/space/
func TestSamplerQualityTable(t *testing.T) {
	if os.Getenv("QVS_SAMPLER_TABLE") == "" {
		t.Skip("set QVS_SAMPLER_TABLE=1 (takes many minutes)")
	}
	type variant struct {
		name       string
		sampler    string
		candidates int
	}
	variants := []variant{{"exact, 1000", bayesopt.SamplerExact, 1000}, {"exact, 200", bayesopt.SamplerExact, 200},
		{"pathwise, 1000", bayesopt.SamplerPathwise, 1000}, {"pathwise, 2000", bayesopt.SamplerPathwise, 2000}}
	var table strings.Builder
	table.WriteString("| function | method | sampler, candidates | median regret | median s per run |\n|---|---|---|---:|---:|\n")
	for _, p := range peerProblems {
		for _, m := range []string{bayesopt.MethodQVS, bayesopt.MethodTuRBO} {
			for _, v := range variants {
				var regs, secs []float64
				for seed := uint64(1); seed <= 3; seed++ {
					t0 := time.Now()
					res := peerRun(t, p, bayesopt.Settings{Method: m, Q: 1, Sampler: v.sampler, Candidates: v.candidates}, seed)
					secs = append(secs, time.Since(t0).Seconds())
					regs = append(regs, -res.BestValue-p.min)
				}
				row := fmt.Sprintf("| %s | %s | %s | %.4g | %.1f |\n", p.name, m, v.name, median(regs), median(secs))
				table.WriteString(row)
				t.Logf("%s %s %s: regrets %.4g", p.name, m, v.name, regs)
			}
		}
	}
	t.Log("sampler comparison:\n" + table.String())
}
