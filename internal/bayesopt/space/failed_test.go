package space

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// TestReadObservationsFailed: an empty, nan or failed value, or a status
// column saying failed or fail, is a failure; other statuses are not; the
// parameters of a failed row are still checked.
func TestReadObservationsFailed(t *testing.T) {
	s := mustParse(t, mixedSpace)
	text := "temp,ppm,rpm,beads,value,status\n" +
		"25,3,100,4,1,ok\n" + // line 2: a value
		"25,3,100,4,,\n" + // 3: empty
		"26,3,100,4,NaN,\n" + // 4
		"27,3,100,4, Failed ,\n" + // 5
		"28,3,100,4,7,FAIL\n" + // 6: status wins over a value
		"29,3,100,4,2,complete\n" // 7
	obs, err := ReadObservations(writeFile(t, "evals.csv", text), s, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, true, true, false}
	for i, o := range obs {
		if o.Failed != want[i] || o.Failed != math.IsNaN(o.Value) {
			t.Errorf("line %d: Failed %v value %v, want Failed %v", o.Line, o.Failed, o.Value, want[i])
		}
	}
	if obs[0].Value != -1 || obs[5].Value != -2 || CountFailed(obs) != 4 {
		t.Errorf("values %v %v (minimised), %d failed", obs[0].Value, obs[5].Value, CountFailed(obs))
	}
	// A failed row's parameters are checked like any row's.
	if _, err := ReadObservations(writeFile(t, "e.csv", "temp,ppm,rpm,beads,value\n95,3,100,4,failed\n"), s, false); err == nil || !strings.Contains(err.Error(), "line 2, column \"temp\"") {
		t.Errorf("failed row outside the space: %v", err)
	}
	// A run's records mark failures with value "failed".
	rec := "iteration,region,x0,x1,value,seconds\n0,-1,0.25,3,failed,0.5\n0,-1,0.5,3,1,0.5\n"
	lin := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 5}\n")
	if obs, err := ReadObservations(writeFile(t, "r.csv", rec), lin, false); err != nil || !obs[0].Failed || obs[1].Failed {
		t.Errorf("records: %+v %v", obs, err)
	}
}

func TestParseValuesFailed(t *testing.T) {
	for _, in := range []string{"1\nnan\nFAILED\n", "failed\n1\nNaN\n", "a,value\n0,1\n1,nan\n2,failed\n"} {
		got, err := parseValues([]byte(in))
		if err != nil || len(got) != 3 {
			t.Fatalf("%q: %v %v", in, got, err)
		}
		n := 0
		for _, v := range got {
			if math.IsNaN(v) {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%q: %v, want two failures (NaN)", in, got)
		}
	}
}

// TestSuggestLoopSurvivesFailedRounds runs the suggest loop on Branin where
// the experiments of the initial design and of round 4 all fail and those
// near the three global minima fail too: every round still returns a full
// batch, no suggestion falls within the failure radius of a failed row,
// and the loop still finds a good point; the count of failures is right.
func TestSuggestLoopSurvivesFailedRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("rounds of GP fits")
	}
	sp := mustParse(t, loopProblems[0].space)
	const b = 5
	for _, m := range []string{bayesopt.MethodQVS, bayesopt.MethodTuRBO, bayesopt.MethodROBOT, bayesopt.MethodRandom} {
		s := bayesopt.Settings{Method: m, Q: 1, Init: DefaultInit(sp.Dim(), b, 3), Batch: b, Regions: 3, Tau: 0.5,
			Candidates: 300, MaxTrain: 300, FitIterations: 20}
		id := bayesopt.RunID{Seed: 2, Key: bayesopt.RunKey(m, "1", false, 0)}
		minima := [][]float64{{-math.Pi, 12.275}, {math.Pi, 2.275}, {9.42478, 2.475}}
		// Branin's box [-5, 10] x [0, 15] scaled to the unit square.
		unit := func(v []float64) []float64 { return []float64{(v[0] + 5) / 15, v[1] / 15} }
		var obs []Observation
		best := math.Inf(1)
		rounds := 12
		for r := 0; r < rounds; r++ {
			sug, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: b})
			if err != nil {
				t.Fatalf("%s round %d: %v", m, r, err)
			}
			// ROBOT may propose fewer (its tau filter), never none.
			if len(sug) != b && !(m == bayesopt.MethodROBOT && len(sug) > 0) {
				t.Fatalf("%s round %d: %d suggestions", m, r, len(sug))
			}
			for _, g := range sug {
				u := unit(g.Values)
				for _, o := range obs {
					if o.Failed && dist(u, unit(o.Values)) <= 0.05*math.Sqrt2 {
						t.Errorf("%s round %d: %v within the failure radius of failed %v", m, r, g.Values, o.Values)
					}
				}
			}
			for _, g := range sug {
				fail := r < 2 || r == 4 // rounds 0-1: the initial design (6 rows + 4 of round 1)
				for _, x := range minima {
					fail = fail || math.Hypot(g.Values[0]-x[0], g.Values[1]-x[1]) < 0.5
				}
				o := Observation{Line: len(obs) + 2, Values: g.Values, Iteration: -1, Region: g.Region, HasRegion: true}
				if fail {
					o.Failed, o.Value = true, math.NaN()
				} else {
					f := branin(g.Values)
					best = math.Min(best, f)
					o.Value = -f
				}
				obs = append(obs, o)
			}
		}
		if m != bayesopt.MethodRandom && !(best < 2) {
			t.Errorf("%s: best %v after %d rounds with failures, want < 2", m, best, rounds)
		}
	}
}

func dist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += (a[j] - b[j]) * (a[j] - b[j])
	}
	return math.Sqrt(s)
}

// TestCommandFailedPoints: a campaign whose command prints nan or failed
// for some points records them as failed and goes on; a command that cannot
// run is an error, not a failure.
func TestCommandFailedPoints(t *testing.T) {
	sp := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	// Fails where a > 0.7, else -(a-0.3)^2-(b-0.5)^2.
	cmd := &Command{Space: sp, Line: `awk -F, 'NR>1{ if ($1 > 0.7) print "failed"; else print -($1-0.3)^2-($2-0.5)^2 }'`}
	s := bayesopt.Settings{Method: bayesopt.MethodTuRBO, Budget: 20, Init: 6, Batch: 2, Regions: 2, Tau: 0.5, Candidates: 100}
	var rows []string
	res, err := bayesopt.Optimize(context.Background(), cmd, s, bayesopt.RunID{Seed: 1, Key: "turbo-r00"}, nil, func(evs []bayesopt.Evaluation) error {
		for _, e := range evs {
			rows = append(rows, strings.Join(bayesopt.FormatRecord(e), ","))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, e := range res.Evaluations {
		if e.Failed != (e.X[0] > 0.7) {
			t.Errorf("evaluation %d at %v: Failed %v", i, e.X, e.Failed)
		}
		if e.Failed {
			n++
			if !strings.Contains(rows[i], ",failed,") {
				t.Errorf("record %s", rows[i])
			}
		}
	}
	if n == 0 || n != res.Failures() {
		t.Errorf("%d failed points, Failures() = %d", n, res.Failures())
	}
	broken := &Command{Space: sp, Line: "exit 3"}
	if _, err := broken.EvaluateBatch(context.Background(), [][]float64{{0.5, 0.5}}); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("command that cannot run: %v", err)
	}
}
