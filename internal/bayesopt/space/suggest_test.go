package space

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
)

func testSettings(method string) bayesopt.Settings {
	return bayesopt.Settings{Method: method, Q: 1, Budget: 33, Init: 8, Batch: 5, Regions: 3, Tau: 0.3,
		Candidates: 200, MaxTrain: 60, FitIterations: 20}
}

// writeRecords writes evaluations as a run's record file (RecordHeader +
// FormatRecord, as `qvs bayesopt` does) and returns its path.
func writeRecords(t *testing.T, evs []bayesopt.Evaluation, d int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "runs.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	_ = w.Write(bayesopt.RecordHeader(d))
	for _, e := range evs {
		_ = w.Write(bayesopt.FormatRecord(e))
	}
	w.Flush()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSuggestContinuesCampaign: fed the first N evaluations of a campaign
// run on the synthetic task (its record file, through the CSV), Suggest
// with the same seed, method and settings returns exactly the points the
// run evaluated next, for every method, at N inside the initial design, at
// its end and after later iterations.
func TestSuggestContinuesCampaign(t *testing.T) {
	const d = 3
	obj, err := tasks.NewSynthetic(d)
	if err != nil {
		t.Fatal(err)
	}
	sp := mustParse(t, "parameters:\n  - {name: x0, lower: 0, upper: 1}\n  - {name: x1, lower: 0, upper: 1}\n  - {name: x2, lower: 0, upper: 1}\n")
	for _, method := range bayesopt.Methods {
		t.Run(method, func(t *testing.T) {
			s := testSettings(method)
			id := bayesopt.RunID{Seed: 4, Key: bayesopt.RunKey(method, "1", false, 0)}
			var batches [][]bayesopt.Evaluation
			res, err := bayesopt.Optimize(context.Background(), obj, s, id, nil, func(evs []bayesopt.Evaluation) error {
				batches = append(batches, evs)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			all := res.Evaluations
			// N = 0 and 3 (inside the initial design), then every iteration boundary.
			cuts := []int{0, 3}
			n := 0
			for _, b := range batches[:len(batches)-1] {
				n += len(b)
				cuts = append(cuts, n)
			}
			for _, N := range cuts {
				obs, err := ReadObservations(writeRecords(t, all[:N], d), sp, false)
				if err != nil {
					t.Fatal(err)
				}
				var want []bayesopt.Evaluation
				if N < s.Init {
					want = all[N : N+s.Batch]
				} else {
					want = all[N : N+len(nextBatch(batches, N))]
				}
				got, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Observed: obs, Batch: s.Batch})
				if err != nil {
					t.Fatalf("N = %d: %v", N, err)
				}
				if len(got) != len(want) {
					t.Fatalf("N = %d: %d suggestions, the run evaluated %d next", N, len(got), len(want))
				}
				for i := range got {
					if !reflect.DeepEqual(got[i].Values, want[i].X) || got[i].Region != want[i].Region {
						t.Fatalf("N = %d, point %d: suggested %v (region %d), the run evaluated %v (region %d)", N, i, got[i].Values, got[i].Region, want[i].X, want[i].Region)
					}
				}
			}
		})
	}
}

func nextBatch(batches [][]bayesopt.Evaluation, n int) []bayesopt.Evaluation {
	for _, b := range batches {
		if n == 0 {
			return b
		}
		n -= len(b)
	}
	return nil
}

// TestSuggestProperties: on a space with log and int parameters, every
// suggestion of every method lies in the space, is an integer where it
// must be, differs from the observed and pending points and from the other
// suggestions, and the answer is deterministic; ROBOT keeps tau from the
// pending points.
func TestSuggestProperties(t *testing.T) {
	sp := mustParse(t, mixedSpace)
	rng := rand.New(rand.NewPCG(1, 2))
	lo, hi := sp.Bounds()
	point := func() []float64 {
		x := make([]float64, sp.Dim())
		for j := range x {
			x[j] = lo[j] + rng.Float64()*(hi[j]-lo[j])
		}
		sp.Snap(x)
		return sp.Values(x)
	}
	var obs []Observation
	for i := 0; i < 23; i++ {
		v := point()
		obs = append(obs, Observation{Line: i + 2, Values: v, Value: -math.Abs(v[0]-50) - math.Abs(math.Log(v[1])-2), Iteration: -1, Region: -1})
	}
	var pend []Observation
	for i := 0; i < 3; i++ {
		pend = append(pend, Observation{Values: point(), Iteration: -1, Region: -1})
	}
	for _, method := range bayesopt.Methods {
		t.Run(method, func(t *testing.T) {
			s := testSettings(method)
			s.Init = 10
			req := Request{Space: sp, Settings: s, ID: bayesopt.RunID{Seed: 9, Key: "k"}, Observed: obs, Pending: pend, Batch: 6}
			got, err := Suggest(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Suggest(context.Background(), req)
			if !reflect.DeepEqual(got, again) {
				t.Fatal("two identical requests gave different suggestions")
			}
			if len(got) == 0 || (method != bayesopt.MethodROBOT && len(got) != req.Batch) {
				t.Fatalf("%d suggestions for a batch of %d", len(got), req.Batch)
			}
			seen := map[string]bool{}
			for _, o := range append(append([]Observation(nil), obs...), pend...) {
				seen[fmt.Sprint(o.Values)] = true
			}
			for _, g := range got {
				for j, v := range g.Values {
					if why := sp.Check(j, v); why != "" {
						t.Errorf("suggested %s = %v, which %s", sp.Parameters[j].Name, v, why)
					}
				}
				if k := fmt.Sprint(g.Values); seen[k] {
					t.Errorf("suggestion %v repeats an observed, pending or suggested point", g.Values)
				}
				seen[fmt.Sprint(g.Values)] = true
				if method == bayesopt.MethodROBOT {
					for _, p := range pend {
						if d := sp.Distance(sp.Engine(g.Values), sp.Engine(p.Values)); d < s.Tau {
							t.Errorf("robot suggestion %v within tau of pending %v (distance %v)", g.Values, p.Values, d)
						}
					}
				}
			}
		})
	}
}

// TestSuggestInitialDesign: from an empty file the first batches walk the
// initial-design stream, skipping pending points, past Init if needed.
func TestSuggestInitialDesign(t *testing.T) {
	sp := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	s := testSettings(bayesopt.MethodQVS)
	s.Init = 7
	id := bayesopt.RunID{Seed: 2, Key: "k"}
	e, err := bayesopt.NewEngine(sp, s, id)
	if err != nil {
		t.Fatal(err)
	}
	design := e.Design(12)
	first, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Batch: 5})
	if err != nil {
		t.Fatal(err)
	}
	var pend []Observation
	for i, g := range first {
		if !reflect.DeepEqual(g.Values, design[i].X) || g.Region != -1 {
			t.Fatalf("suggestion %d = %v, want design point %v", i, g.Values, design[i].X)
		}
		pend = append(pend, Observation{Values: g.Values})
	}
	// Five pending, none observed: the next five are design points 5..9,
	// continuing past Init = 7 so the batch is full.
	second, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: id, Pending: pend, Batch: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range second {
		if !reflect.DeepEqual(g.Values, design[5+i].X) {
			t.Fatalf("second batch %d = %v, want design point %d", i, g.Values, 5+i)
		}
	}
}

// TestIterations checks the history rule.
func TestIterations(t *testing.T) {
	mk := func(its ...int) []Observation {
		var out []Observation
		for i, it := range its {
			out = append(out, Observation{Line: i + 2, Iteration: it})
		}
		return out
	}
	sizes := func(g [][]Observation) []int {
		var out []int
		for _, x := range g {
			out = append(out, len(x))
		}
		return out
	}
	// Without an iteration column: Init rows, then batch-sized groups.
	g, err := iterations(mk(-1, -1, -1, -1, -1, -1, -1, -1, -1), 4, 2)
	if err != nil || !reflect.DeepEqual(sizes(g), []int{4, 2, 2, 1}) {
		t.Errorf("got %v %v", sizes(g), err)
	}
	// With one: grouped by value; a skipped number is an empty iteration.
	g, err = iterations(mk(0, 0, 1, 3, 3), 4, 2)
	if err != nil || !reflect.DeepEqual(sizes(g), []int{2, 1, 0, 2}) {
		t.Errorf("got %v %v", sizes(g), err)
	}
	if _, err := iterations(mk(1, 1), 4, 2); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("first row of iteration 1: %v", err)
	}
	if _, err := iterations(mk(0, 1000000), 4, 2); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("huge iteration: %v", err)
	}
}

// TestSuggestSmallIntegerSpace: when a 3 x 3 integer grid has 2 points
// left, no method repeats an observed or pending point: the batch ends
// short instead.
func TestSuggestSmallIntegerSpace(t *testing.T) {
	sp := mustParse(t, "parameters:\n  - {name: a, lower: 1, upper: 3, type: int}\n  - {name: b, lower: 1, upper: 3, type: int}\n")
	var obs, pend []Observation
	for a := 1.0; a <= 3; a++ {
		for b := 1.0; b <= 3; b++ {
			switch {
			case a == 3 && b >= 2: // left free
			case a == 2 && b == 2:
				pend = append(pend, Observation{Values: []float64{a, b}, Iteration: -1, Region: -1})
			default:
				obs = append(obs, Observation{Values: []float64{a, b}, Value: a + b, Iteration: -1, Region: -1})
			}
		}
	}
	for _, method := range bayesopt.Methods {
		s := testSettings(method)
		s.Init, s.Regions = 4, 2
		got, err := Suggest(context.Background(), Request{Space: sp, Settings: s, ID: bayesopt.RunID{Seed: 1, Key: method}, Observed: obs, Pending: pend, Batch: 5})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if len(got) > 2 {
			t.Errorf("%s: %d suggestions, only 2 points are free", method, len(got))
		}
		seen := map[string]bool{}
		for _, g := range got {
			k := fmt.Sprint(g.Values)
			if g.Values[0] != 3 || g.Values[1] < 2 || seen[k] {
				t.Errorf("%s: suggested %v, not one of the free points (3, 2), (3, 3) or a repeat", method, g.Values)
			}
			seen[k] = true
		}
	}
}
