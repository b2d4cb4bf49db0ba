package discrete

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestParseEvaluationsFailed: an empty, nan or failed value (any case) or a
// status of failed/fail marks a failure; other statuses mean nothing; an
// item may be listed again after its failed rows.
func TestParseEvaluationsFailed(t *testing.T) {
	in := "index,value,status\n0,1.5,\n1,,\n2,NaN,\n3, Failed ,ok\n2,2,FAIL\n2,3,complete\n1,4,\n"
	got, err := parseEvaluations(strings.NewReader(in), "e.csv", evalIDs)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		i      int
		v      float64
		failed bool
	}
	want := []row{{0, 1.5, false}, {1, 0, true}, {2, 0, true}, {3, 0, true}, {2, 0, true}, {2, 3, false}, {1, 4, false}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		g := got[k]
		if g.Index != w.i || g.Failed != w.failed || (w.failed && !math.IsNaN(g.Value)) || (!w.failed && g.Value != w.v) {
			t.Errorf("row %d: got %+v, want %+v", k+1, g, w)
		}
	}
	// Without a status column, a status-like value is not a failure, and
	// "fail" is not a failed value cell (only a status).
	if _, err := parseEvaluations(strings.NewReader("index,value\n1,fail\n"), "e.csv", evalIDs); err == nil {
		t.Error(`value "fail" accepted`)
	}
}

// TestEngineFailedNeverAsked: for every method, Ask never returns a failed
// item, and asked for every item it may return gives exactly the items
// neither evaluated nor failed (brute force); with RetryFailed the failed
// items are candidates again and the ucb and qvs batches equal those of an
// engine told only the successes (failures never enter the model); a
// failed row counts for Len and Iteration.
func TestEngineFailedNeverAsked(t *testing.T) {
	p := toyProblem(t, 14, 4)
	ok := []int{3, 8, 12, 0}
	failed := []int{5, 9, 1}
	var hist []Evaluation
	for k, i := range ok {
		hist = append(hist, Evaluation{Index: i, Value: p.Set.Objective[i]})
		if k < len(failed) {
			hist = append(hist, Evaluation{Index: failed[k], Value: math.NaN(), Failed: true})
		}
	}
	for _, m := range Methods {
		for _, retry := range []bool{false, true} {
			s := settings(m, 1)
			s.RetryFailed = retry
			e, err := p.NewEngine(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Tell(hist...); err != nil {
				t.Fatal(err)
			}
			if e.Len() != 7 || e.Failures() != 3 || e.Successes() != 4 || e.Iteration() != 1+(7-2+4)/5 {
				t.Errorf("%s: Len %d, Failures %d, Successes %d, Iteration %d", m, e.Len(), e.Failures(), e.Successes(), e.Iteration())
			}
			var want []int
			for i := 0; i < 14; i++ {
				if !slices.Contains(ok, i) && (retry || !slices.Contains(failed, i)) {
					want = append(want, i)
				}
			}
			if e.Available() != len(want) {
				t.Errorf("%s retry=%v: Available %d, want %d", m, retry, e.Available(), len(want))
			}
			all, err := e.Ask(len(want))
			if err != nil {
				t.Fatal(err)
			}
			sort.Ints(all)
			if !slices.Equal(all, want) {
				t.Errorf("%s retry=%v: Ask(all) = %v, want %v", m, retry, all, want)
			}
			if _, err := e.Ask(len(want) + 1); err == nil {
				t.Errorf("%s retry=%v: Ask beyond the available items: no error", m, retry)
			}
			for b := 1; b <= 5; b++ {
				got, err := e.Ask(b)
				if err != nil {
					t.Fatal(err)
				}
				for _, i := range got {
					if !retry && slices.Contains(failed, i) {
						t.Errorf("%s: Ask(%d) = %v suggests failed item %d", m, b, got, i)
					}
				}
				if retry && m != MethodRandom {
					plain := toldEngine(t, p, s, ok)
					if want, _ := plain.Ask(b); !slices.Equal(got, want) {
						t.Errorf("%s --retry-failed: Ask(%d) = %v, the successes alone give %v", m, b, got, want)
					}
				}
			}
		}
	}
}

// TestEngineFailedUCBDirect: without RetryFailed the ucb batch is the top-b
// UCB, among the items neither evaluated nor failed, of the GP fitted to
// the successes alone (sorted here independently of TopK).
func TestEngineFailedUCBDirect(t *testing.T) {
	p := toyProblem(t, 20, 2)
	ok := []int{4, 11, 17}
	failed := []int{0, 7, 13, 19}
	s := settings(MethodUCB, 0)
	plain := toldEngine(t, p, s, ok)
	acq, err := plain.Acquisition()
	if err != nil {
		t.Fatal(err)
	}
	e := toldEngine(t, p, s, ok)
	for _, i := range failed {
		if err := e.Tell(Evaluation{Index: i, Failed: true}); err != nil {
			t.Fatal(err)
		}
	}
	var cand []int
	for i := 0; i < 20; i++ {
		if !slices.Contains(ok, i) && !slices.Contains(failed, i) {
			cand = append(cand, i)
		}
	}
	sort.Slice(cand, func(a, b int) bool {
		return acq.Mean[cand[a]]+math.Sqrt(s.Beta)*acq.SD[cand[a]] > acq.Mean[cand[b]]+math.Sqrt(s.Beta)*acq.SD[cand[b]]
	})
	got, err := e.Ask(6)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, cand[:6]) {
		t.Errorf("ucb with failures: %v, want %v", got, cand[:6])
	}
	a2, _ := e.Acquisition()
	if !slices.Equal(a2.Mean, acq.Mean) || !slices.Equal(a2.SD, acq.SD) {
		t.Error("the failures changed the GP posterior")
	}
}

// TestEngineAllFailed: a history whose every row failed gets a batch for
// every method; for ucb and qvs it is the continuation of the initial
// design, i.e. what a longer initial design would have given; during the
// initial design a failed row uses up its place.
func TestEngineAllFailed(t *testing.T) {
	p := toyProblem(t, 16, 6)
	for _, m := range Methods {
		s := settings(m, 1)
		design := p.InitialDesign(s)
		e, _ := p.NewEngine(s)
		if err := e.Tell(Evaluation{Index: design[0], Failed: true}); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.Ask(5); !slices.Equal(got, design[1:2]) {
			t.Errorf("%s: one failed design point: Ask(5) = %v, want %v", m, got, design[1:2])
		}
		if err := e.Tell(Evaluation{Index: design[1], Failed: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Acquisition(); err != ErrNoHistory {
			t.Errorf("%s: acquisition with failures only: %v", m, err)
		}
		got, err := e.Ask(4)
		if err != nil || len(got) != 4 {
			t.Fatalf("%s: all failed: Ask(4) = %v, %v", m, got, err)
		}
		for _, i := range got {
			if slices.Contains(design, i) {
				t.Errorf("%s: all failed: Ask(4) = %v repeats a failed design point", m, got)
			}
		}
		if m == MethodRandom {
			continue
		}
		long := s
		long.Init = 6
		if want := p.InitialDesign(long)[2:]; !slices.Equal(got, want) {
			t.Errorf("%s: all failed: Ask(4) = %v, a 6-point initial design continues with %v", m, got, want)
		}
	}
}
