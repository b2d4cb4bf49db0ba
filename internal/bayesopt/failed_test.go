package bayesopt

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// failingBumps is bumps whose experiments fail (NaN) within failRadius
// (task units) of its highest bump's centre (0, 1), where every method
// wants to sample; with skipFirst batches it fails every point of the
// first skipFirst batches instead.
type failingBumps struct {
	bumps
	failRadius float64
	skipFirst  int64
	batches    atomic.Int64
}

func (f *failingBumps) EvaluateBatch(_ context.Context, xs [][]float64) ([]float64, error) {
	n := f.batches.Add(1)
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f.value(x)
		if n <= f.skipFirst || math.Hypot(x[0], x[1]-1) < f.failRadius {
			out[i] = math.NaN()
		}
	}
	return out, nil
}

// unitDist is the Euclidean distance in bumps' unit cube ([-1, 2]^d scaled
// to [0, 1]^d), computed independently of the engine's toUnit.
func unitDist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += (a[j] - b[j]) / 3 * (a[j] - b[j]) / 3
	}
	return math.Sqrt(s)
}

// tooClose counts evaluations within the failure radius (0.05·sqrt(d) in the
// unit cube) of a failure of an earlier iteration (one of the same iteration
// was not known when the batch was proposed).
func tooClose(evs []Evaluation) int {
	n := 0
	for i, e := range evs {
		for _, f := range evs[:i] {
			if f.Failed && f.Iteration < e.Iteration && unitDist(e.X, f.X) <= 0.05*math.Sqrt(float64(len(e.X))) {
				n++
			}
		}
	}
	return n
}

// TestFailedNeverReproposed: with experiments failing around the best bump,
// no method proposes a point within the failure radius of an earlier
// failure, failures are recorded (Failed, NaN, "failed" in the records) and
// counted against the budget, and the best value and solutions come from
// successes only. With RetryFailed the engine does return there (so the
// check can fail).
func TestFailedNeverReproposed(t *testing.T) {
	retried := 0
	for _, m := range Methods {
		for _, retry := range []bool{false, true} {
			s := smallSettings(m)
			s.RetryFailed = retry
			obj := &failingBumps{bumps: bumps{d: 2}, failRadius: 0.4}
			res, rec := runAll(t, obj, s, RunID{Seed: 3, Key: m}, nil)
			if len(res.Evaluations) != s.Budget {
				t.Errorf("%s: %d evaluations, budget %d (failures spend budget)", m, len(res.Evaluations), s.Budget)
			}
			failed := res.Failures()
			if failed == 0 {
				t.Fatalf("%s: no failure: the test objective does not exercise the rule", m)
			}
			n := tooClose(res.Evaluations)
			if retry {
				retried += n
				continue
			}
			if n > 0 {
				t.Errorf("%s: %d proposals within the failure radius of an earlier failure", m, n)
			}
			best := math.Inf(-1)
			nrec := 0
			for _, it := range rec {
				for _, e := range it {
					nrec++
					row := strings.Join(FormatRecord(e), ",")
					if e.Failed != strings.Contains(row, ",failed,") || e.Failed != math.IsNaN(e.Value) {
						t.Errorf("%s: record %s of an evaluation with Failed = %v", m, row, e.Failed)
					}
					if !e.Failed {
						best = math.Max(best, e.Value)
					}
				}
			}
			if nrec != s.Budget || res.BestValue != best {
				t.Errorf("%s: %d records, best %v; want %d and %v", m, nrec, res.BestValue, s.Budget, best)
			}
			for _, sol := range res.Solutions {
				if e := res.Evaluations[sol.Index]; e.Failed || e.Value != sol.Value {
					t.Errorf("%s: solution %+v is evaluation %+v", m, sol, e)
				}
			}
		}
	}
	if retried == 0 {
		t.Error("RetryFailed: no method came back within the radius; the check above cannot fail")
	}
}

// TestFailedWholeIterations: a run whose initial design and first batch
// all failed goes on (uniform points until a success, then the model) and
// resumes from its records exactly.
func TestFailedWholeIterations(t *testing.T) {
	for _, m := range Methods {
		s := smallSettings(m)
		obj := &failingBumps{bumps: bumps{d: 2}, skipFirst: 2}
		res, rec := runAll(t, obj, s, RunID{Seed: 5, Key: m}, nil)
		if res.Failures() != s.Init+s.Batch {
			t.Errorf("%s: %d failures, want the %d points of the first two iterations", m, res.Failures(), s.Init+s.Batch)
		}
		if len(res.Evaluations) != s.Budget || math.IsInf(res.BestValue, -1) || len(res.Solutions) == 0 {
			t.Errorf("%s: %d evaluations, best %v, %d solutions", m, len(res.Evaluations), res.BestValue, len(res.Solutions))
		}
		// Resume from the records of the first three iterations, parsed
		// back from their CSV cells.
		var rows [][]string
		for _, it := range rec[:3] {
			for _, e := range it {
				rows = append(rows, FormatRecord(e))
			}
		}
		prior, err := parseRecords(rows, 2)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := runAll(t, &failingBumps{bumps: bumps{d: 2}, skipFirst: 0}, s, RunID{Seed: 5, Key: m}, prior)
		if !sameRun(res, again) {
			t.Errorf("%s: resumed run differs", m)
		}
	}
	// Every evaluation fails: the run ends, without solutions.
	s := smallSettings(MethodQVS)
	res, _ := runAll(t, &failingBumps{bumps: bumps{d: 2}, skipFirst: 1 << 30}, s, RunID{Seed: 5, Key: "all"}, nil)
	if res.Failures() != s.Budget || len(res.Solutions) != 0 {
		t.Errorf("all failed: %d failures, %d solutions", res.Failures(), len(res.Solutions))
	}
}

func TestFailedRecords(t *testing.T) {
	e := Evaluation{Iteration: 2, Region: 1, X: []float64{0.5, 1}, Value: math.NaN(), Seconds: 0.25, Failed: true}
	row := FormatRecord(e)
	if got := strings.Join(row, ","); got != "2,1,0.5,1,failed,0.25" {
		t.Errorf("record %s", got)
	}
	for _, cell := range []string{"failed", "FAILED", "nan", " NaN "} {
		row[4] = cell
		got, err := parseRecords([][]string{row}, 2)
		if err != nil || !got[0].Failed || !math.IsNaN(got[0].Value) || got[0].Seconds != 0.25 {
			t.Errorf("%q: %+v %v", cell, got, err)
		}
	}
}

// alwaysFails is a one-dimensional objective whose every experiment fails.
type alwaysFails struct{ bumps }

func (a *alwaysFails) EvaluateBatch(_ context.Context, xs [][]float64) ([]float64, error) {
	out := make([]float64, len(xs))
	for i := range out {
		out[i] = math.NaN()
	}
	return out, nil
}

// TestEveryExperimentFailsEnds: when failures cover the whole box (each
// excludes a radius of 0.05·sqrt(d) of the unit cube, so a few dozen cover
// [0, 1]), the engine can propose nothing new. The run must end with an
// error that says so, not spin on empty batches until the context ends.
func TestEveryExperimentFailsEnds(t *testing.T) {
	for _, method := range []string{MethodRandom, MethodQVS} {
		s := smallSettings(method)
		s.Budget, s.Init, s.Batch = 400, 5, 5
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := Optimize(ctx, &alwaysFails{bumps{d: 1}}, s, RunID{Seed: 1, Key: "fails"}, nil, func([]Evaluation) error { return nil })
		timedOut := ctx.Err()
		cancel()
		if err == nil || timedOut != nil || !strings.Contains(err.Error(), "no new point") {
			t.Fatalf("%s: err = %v (context: %v), want an error saying no new point can be proposed", method, err, timedOut)
		}
	}
}
