package space

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// Branin on [-5, 10] x [0, 15]; global minimum 0.397887 (Dixon & Szegö
// 1978; e.g. Surjanovic & Bingham's Virtual Library of Simulation
// Experiments).
func branin(x []float64) float64 {
	const a, r, s = 1, 6, 10
	b, c, t := 5.1/(4*math.Pi*math.Pi), 5/math.Pi, 1/(8*math.Pi)
	return a*math.Pow(x[1]-b*x[0]*x[0]+c*x[0]-r, 2) + s*(1-t)*math.Cos(x[0]) + s
}

// Hartmann-6 on [0, 1]^6; global minimum -3.32237 (same sources).
func hartmann6(x []float64) float64 {
	alpha := [4]float64{1, 1.2, 3, 3.2}
	A := [4][6]float64{{10, 3, 17, 3.5, 1.7, 8}, {0.05, 10, 17, 0.1, 8, 14}, {3, 3.5, 1.7, 10, 17, 8}, {17, 8, 0.05, 10, 0.1, 14}}
	P := [4][6]float64{{1312, 1696, 5569, 124, 8283, 5886}, {2329, 4135, 8307, 3736, 1004, 9991},
		{2348, 1451, 3522, 2883, 3047, 6650}, {4047, 8828, 8732, 5743, 1091, 381}}
	f := 0.0
	for i := range alpha {
		s := 0.0
		for j := range x {
			s += A[i][j] * math.Pow(x[j]-P[i][j]*1e-4, 2)
		}
		f -= alpha[i] * math.Exp(-s)
	}
	return f
}

type loopProblem struct {
	name  string
	space string
	f     func([]float64) float64
	min   float64
}

var loopProblems = []loopProblem{
	{"Branin", "parameters:\n  - {name: x1, lower: -5, upper: 10}\n  - {name: x2, lower: 0, upper: 15}\n", branin, 0.397887},
	{"Hartmann-6", "parameters:\n" + strings.Repeat("  - {name: xN, lower: 0, upper: 1}\n", 6), hartmann6, -3.32237},
}

// suggestLoop runs rounds of `suggest --batch b --minimize` + evaluation
// from an empty file, as a user would (each row keeps the region suggest
// printed), with suggest's defaults, and returns the simple regret. Tau is
// 0.2, suggest's default when docs/results.md's table was made (it is now
// bayesopt.DefaultTau); only robot reads it.
func suggestLoop(t testing.TB, p loopProblem, method string, seed uint64, rounds, b int) float64 {
	text := p.space
	for i := 1; strings.Contains(text, "xN"); i++ {
		text = strings.Replace(text, "xN", fmt.Sprintf("x%d", i), 1)
	}
	sp := mustParse(t, text)
	s := bayesopt.Settings{Method: method, Q: 1, Init: DefaultInit(sp.Dim(), b, 3), Batch: b, Regions: 3, Tau: 0.2,
		Candidates: 1000, MaxTrain: 300, FitIterations: 30}
	id := bayesopt.RunID{Seed: seed, Key: bayesopt.RunKey(method, "1", false, 0)}
	var obs []Observation
	best := math.Inf(1)
	for r := 0; r < rounds; r++ {
		sug, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: b})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range sug {
			f := p.f(g.Values)
			best = math.Min(best, f)
			obs = append(obs, Observation{Line: len(obs) + 2, Values: g.Values, Value: -f, Iteration: -1, Region: g.Region, HasRegion: true})
		}
	}
	return best - p.min
}

func median(v []float64) float64 {
	w := slices.Clone(v)
	slices.Sort(w)
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

// TestSuggestLoopBranin: 15 rounds of 5 suggestions from an empty file find
// Branin's minimum to within 0.05 with turbo and qvs, and beat random search
// (one seed; TestSuggestLoopTable runs the full comparison).
func TestSuggestLoopBranin(t *testing.T) {
	if testing.Short() {
		t.Skip("15 rounds of GP fits")
	}
	rnd := suggestLoop(t, loopProblems[0], bayesopt.MethodRandom, 1, 15, 5)
	for _, m := range []string{bayesopt.MethodTuRBO, bayesopt.MethodQVS} {
		if reg := suggestLoop(t, loopProblems[0], m, 1, 15, 5); !(reg < 0.05 && reg < rnd) {
			t.Errorf("%s: simple regret %v (random search %v), want < 0.05 and below random", m, reg, rnd)
		}
	}
}

// TestSuggestLoopTable is the benchmark behind docs/results.md
// ("Your own problem: the suggest loop"): median simple regret over 5 seeds
// after 15 rounds of 5 suggestions on Branin and Hartmann-6. It takes
// minutes, so it runs only with QVS_LOOP_TABLE=1:
//
//	QVS_LOOP_TABLE=1 go test -run TestSuggestLoopTable -v ./internal/bayesopt/space/
func TestSuggestLoopTable(t *testing.T) {
	if os.Getenv("QVS_LOOP_TABLE") == "" {
		t.Skip("set QVS_LOOP_TABLE=1 (takes minutes)")
	}
	methods := []string{bayesopt.MethodRandom, bayesopt.MethodTuRBO, bayesopt.MethodROBOT, bayesopt.MethodQVS}
	var table strings.Builder
	table.WriteString("| problem | " + strings.Join(methods, " | ") + " |\n|---|" + strings.Repeat("---:|", len(methods)) + "\n")
	for _, p := range loopProblems {
		med := map[string]float64{}
		row := "| " + p.name + " |"
		for _, m := range methods {
			var regs []float64
			for seed := uint64(1); seed <= 5; seed++ {
				regs = append(regs, suggestLoop(t, p, m, seed, 15, 5))
			}
			med[m] = median(regs)
			row += fmt.Sprintf(" %.4g |", med[m])
			t.Logf("%s %s: regrets %.4g", p.name, m, regs)
		}
		table.WriteString(row + "\n")
		for _, m := range []string{bayesopt.MethodTuRBO, bayesopt.MethodQVS} {
			if !(med[m] < med[bayesopt.MethodRandom]) {
				t.Errorf("%s: %s median regret %v, random search %v", p.name, m, med[m], med[bayesopt.MethodRandom])
			}
			if p.name == "Branin" && !(med[m] < 0.05) {
				t.Errorf("Branin: %s median regret %v, want < 0.05", m, med[m])
			}
		}
	}
	t.Log("median simple regret after 15 rounds of 5:\n" + table.String())
}
