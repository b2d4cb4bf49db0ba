package bayesopt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qvs-dev/qvs/internal/vendi"
	"gonum.org/v1/gonum/mat"
)

// bumps is a cheap multimodal test objective on [-1, 2]^d: three Gaussian
// bumps of heights 3, 2.5 and 2 at distinct corners, minus 1 (so values are
// negative far from the bumps, as in rover and lunar); Euclidean distance.
type bumps struct {
	d     int
	calls atomic.Int64
}

func (b *bumps) Name() string { return "bumps" }
func (b *bumps) Dim() int     { return b.d }
func (b *bumps) Bounds() ([]float64, []float64) {
	lo, hi := make([]float64, b.d), make([]float64, b.d)
	for i := range lo {
		lo[i], hi[i] = -1, 2
	}
	return lo, hi
}

func (b *bumps) Evaluate(_ context.Context, x []float64) (float64, error) { return b.value(x), nil }

// value is the bumps' f(x).
func (b *bumps) value(x []float64) float64 {
	b.calls.Add(1)
	centres := [][2]float64{{0, 1}, {1, 0}, {0.2, 0.2}}
	heights := []float64{3, 2.5, 2}
	f := -1.0
	for k, c := range centres {
		s := 0.0
		for i, v := range x {
			t := c[i%2]
			s += (v - t) * (v - t)
		}
		f += heights[k] * math.Exp(-s/0.3)
	}
	return f
}

func (b *bumps) Distance(p, q []float64) float64 { return dist(p, q) }

func smallSettings(method string) Settings {
	return Settings{Method: method, Q: 1, Budget: 46, Init: 10, Batch: 8, Regions: 3, Tau: 0.5,
		Candidates: 200, MaxTrain: 40, FitIterations: 20}
}

func runAll(t *testing.T, obj Objective, s Settings, id RunID, prior []Evaluation) (*Result, [][]Evaluation) {
	t.Helper()
	var recorded [][]Evaluation
	res, err := Optimize(context.Background(), obj, s, id, prior, func(e []Evaluation) error {
		recorded = append(recorded, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, recorded
}

func TestOptimizeMethods(t *testing.T) {
	for _, method := range Methods {
		t.Run(method, func(t *testing.T) {
			obj := &bumps{d: 3}
			s := smallSettings(method)
			res, recorded := runAll(t, obj, s, RunID{Seed: 7, Key: method, Repeat: 0}, nil)
			if len(res.Evaluations) != s.Budget || obj.calls.Load() != int64(s.Budget) {
				t.Fatalf("%d evaluations, %d calls, want %d", len(res.Evaluations), obj.calls.Load(), s.Budget)
			}
			n := 0
			for it, evs := range recorded {
				for _, e := range evs {
					if e.Iteration != it || !reflect.DeepEqual(e, res.Evaluations[n]) {
						t.Fatalf("record %d of iteration %d: %+v", n, it, e)
					}
					n++
					for _, v := range e.X {
						if v < -1 || v > 2 {
							t.Fatalf("point outside the box: %v", e.X)
						}
					}
					wantRegion := e.Region >= 0 && e.Region < s.Regions
					if method == MethodRandom || it == 0 {
						wantRegion = e.Region == -1
					}
					if !wantRegion {
						t.Fatalf("iteration %d region %d", it, e.Region)
					}
				}
			}
			// Iteration sizes: init, then batches (ROBOT may drop points).
			if len(recorded[0]) != s.Init {
				t.Errorf("initial design of %d points", len(recorded[0]))
			}
			for it := 1; it < len(recorded); it++ {
				if len(recorded[it]) > s.Batch || (method != MethodROBOT && it < len(recorded)-1 && len(recorded[it]) != s.Batch) {
					t.Errorf("iteration %d has %d points", it, len(recorded[it]))
				}
			}
			best := math.Inf(-1)
			for _, e := range res.Evaluations {
				best = math.Max(best, e.Value)
			}
			if res.BestValue != best || res.BestSoFar()[len(res.Evaluations)-1] != best {
				t.Errorf("best %v, BestSoFar %v, want %v", res.BestValue, res.BestSoFar(), best)
			}
			if len(res.Solutions) != s.Regions {
				t.Fatalf("%d solutions", len(res.Solutions))
			}
			mean, md, pairs := 0.0, 0.0, 0
			for i, sol := range res.Solutions {
				if res.Evaluations[sol.Index].Value != sol.Value {
					t.Errorf("solution %d value mismatch", i)
				}
				mean += sol.Value / float64(len(res.Solutions))
				for j := 0; j < i; j++ {
					d := dist(sol.X, res.Solutions[j].X)
					if math.Abs(res.Distances[i][j]-d) > 1e-12 {
						t.Errorf("distance %d,%d: %v want %v", i, j, res.Distances[i][j], d)
					}
					md += d
					pairs++
				}
			}
			if math.Abs(mean-res.SolutionsMeanValue) > 1e-12 || math.Abs(md/float64(pairs)-res.SolutionsMeanDistance) > 1e-12 {
				t.Errorf("summary %v %v, want %v %v", res.SolutionsMeanValue, res.SolutionsMeanDistance, mean, md/float64(pairs))
			}
			if res.SolutionsVS < 1 || res.SolutionsVS > float64(s.Regions)+1e-9 {
				t.Errorf("solutions VS %v outside [1, M]", res.SolutionsVS)
			}
			switch method {
			case MethodTuRBO: // top-M values
				top := descending(valuesOf(res.Evaluations))[:s.Regions]
				for i, sol := range res.Solutions {
					if sol.Index != top[i] {
						t.Errorf("turbo solution %d is evaluation %d, want top %d", i, sol.Index, top[i])
					}
				}
			case MethodROBOT: // rank-ordered and tau apart
				for i := range res.Solutions {
					for j := 0; j < i; j++ {
						if res.Distances[i][j] < s.Tau {
							t.Errorf("robot solutions %d,%d only %v apart (tau %v)", i, j, res.Distances[i][j], s.Tau)
						}
					}
				}
				if res.Solutions[0].Value != best {
					t.Errorf("robot's first solution %v is not the best %v", res.Solutions[0].Value, best)
				}
			}
		})
	}
}

func valuesOf(evs []Evaluation) []float64 {
	v := make([]float64, len(evs))
	for i, e := range evs {
		v[i] = e.Value
	}
	return v
}

// TestROBOTSameIterationFilter: within an iteration, a point proposed by
// region m is at least tau from every point of regions < m.
func TestROBOTSameIterationFilter(t *testing.T) {
	obj := &bumps{d: 3}
	s := smallSettings(MethodROBOT)
	s.Tau = 0.8
	res, _ := runAll(t, obj, s, RunID{Seed: 3, Key: "robot"}, nil)
	for a, ea := range res.Evaluations {
		for _, eb := range res.Evaluations[:a] {
			if ea.Iteration == eb.Iteration && ea.Iteration > 0 && eb.Region < ea.Region && dist(ea.X, eb.X) < s.Tau {
				t.Fatalf("iteration %d: region %d point within tau of region %d's", ea.Iteration, ea.Region, eb.Region)
			}
		}
	}
}

// TestOptimizeDeterministicAndResume: the same seed gives the same run; a run
// resumed from the records of its first iterations (through the CSV
// formatting) equals the uninterrupted run and does not re-evaluate them.
func TestOptimizeDeterministicAndResume(t *testing.T) {
	for _, method := range Methods {
		t.Run(method, func(t *testing.T) {
			s := smallSettings(method)
			s.Workers = 2
			id := RunID{Seed: 11, Key: method + "-r0", Repeat: 0}
			full, recorded := runAll(t, &bumps{d: 3}, s, id, nil)
			s.Workers = 1
			again, _ := runAll(t, &bumps{d: 3}, s, id, nil)
			if !sameRun(full, again) {
				t.Fatal("two runs with the same seed differ (or Workers changes the result)")
			}
			for _, cut := range []int{1, 3} {
				var rows [][]string
				replayed := 0
				for _, evs := range recorded[:cut] {
					for _, e := range evs {
						rows = append(rows, FormatRecord(e))
						replayed++
					}
				}
				prior, err := parseRecords(rows, 3)
				if err != nil {
					t.Fatal(err)
				}
				obj := &bumps{d: 3}
				resumed, rec2 := runAll(t, obj, s, id, prior)
				if !sameRun(full, resumed) {
					t.Fatalf("resume after %d iterations differs from the uninterrupted run", cut)
				}
				if got := obj.calls.Load(); got != int64(s.Budget-replayed) {
					t.Errorf("resume evaluated %d points, want %d", got, s.Budget-replayed)
				}
				if len(rec2) != len(recorded)-cut {
					t.Errorf("resume recorded %d iterations, want %d", len(rec2), len(recorded)-cut)
				}
			}
		})
	}
}

func sameRun(a, b *Result) bool {
	if len(a.Evaluations) != len(b.Evaluations) || len(a.Solutions) != len(b.Solutions) {
		return false
	}
	for i := range a.Evaluations {
		ea, eb := a.Evaluations[i], b.Evaluations[i]
		if ea.Iteration != eb.Iteration || ea.Region != eb.Region || ea.Failed != eb.Failed ||
			(ea.Value != eb.Value && !(ea.Failed && eb.Failed)) || !reflect.DeepEqual(ea.X, eb.X) {
			return false
		}
	}
	for i := range a.Solutions {
		if a.Solutions[i].Index != b.Solutions[i].Index {
			return false
		}
	}
	return reflect.DeepEqual(a.TrustRegions, b.TrustRegions) && a.SolutionsVS == b.SolutionsVS
}

func TestInitialDesignSharedAcrossMethods(t *testing.T) {
	a, _ := runAll(t, &bumps{d: 3}, smallSettings(MethodTuRBO), RunID{Seed: 5, Key: "turbo-r2", Repeat: 2}, nil)
	b, _ := runAll(t, &bumps{d: 3}, smallSettings(MethodQVS), RunID{Seed: 5, Key: "qvs-q1-r2", Repeat: 2}, nil)
	for i := 0; i < 10; i++ {
		if !reflect.DeepEqual(a.Evaluations[i].X, b.Evaluations[i].X) {
			t.Fatal("initial designs of one repeat differ between methods")
		}
	}
	if reflect.DeepEqual(a.Evaluations[10].X, b.Evaluations[10].X) {
		t.Error("methods proposed the same first point after the initial design")
	}
}

// TestTuRBOBeatsRandom: on a smooth function the model-based search must find
// a better optimum than random search with the same budget (deterministic:
// fixed seeds).
func TestTuRBOBeatsRandom(t *testing.T) {
	s := smallSettings(MethodTuRBO)
	s.Regions, s.Budget = 1, 70
	tb, _ := runAll(t, &bumps{d: 3}, s, RunID{Seed: 1, Key: "t"}, nil)
	s.Method = MethodRandom
	rb, _ := runAll(t, &bumps{d: 3}, s, RunID{Seed: 1, Key: "r"}, nil)
	if tb.BestValue <= rb.BestValue || tb.BestValue < 1.9 { // global max is 2 (height 3 minus 1)
		t.Errorf("turbo best %v, random best %v", tb.BestValue, rb.BestValue)
	}
}

func TestOptimizeResumeMismatch(t *testing.T) {
	s := smallSettings(MethodTuRBO)
	_, recorded := runAll(t, &bumps{d: 3}, s, RunID{Seed: 1, Key: "a"}, nil)
	// Records from another seed are refused.
	_, err := Optimize(context.Background(), &bumps{d: 3}, s, RunID{Seed: 2, Key: "a"}, recorded[0], func([]Evaluation) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "initial design") {
		t.Errorf("mismatched initial design: %v", err)
	}
	// More records than the budget are refused.
	var all []Evaluation
	for _, r := range recorded {
		all = append(all, r...)
	}
	s2 := s
	s2.Budget = 20
	if _, err := Optimize(context.Background(), &bumps{d: 3}, s2, RunID{Seed: 1, Key: "a"}, all, func([]Evaluation) error { return nil }); err == nil {
		t.Error("records beyond the budget: no error")
	}
}

func TestOptimizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Optimize(ctx, &bumps{d: 3}, smallSettings(MethodTuRBO), RunID{Seed: 1, Key: "c"}, nil, func([]Evaluation) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	if err == nil || n != 2 {
		t.Errorf("cancelled run: err %v after %d iterations", err, n)
	}
}

type nanObjective struct{ bumps }

func (o *nanObjective) Evaluate(context.Context, []float64) (float64, error) {
	return math.NaN(), nil
}

func TestOptimizeErrors(t *testing.T) {
	_, err := Optimize(context.Background(), &nanObjective{bumps{d: 2}}, smallSettings(MethodRandom), RunID{}, nil, func([]Evaluation) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN objective: %v", err)
	}
	for _, c := range []struct {
		mod  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Method = "bogus" }, "method"},
		{func(s *Settings) { s.Init = 0 }, "init"},
		{func(s *Settings) { s.Budget = 5 }, "budget"},
		{func(s *Settings) { s.Batch = 0 }, "batch"},
		{func(s *Settings) { s.Regions = 0 }, "regions"},
		{func(s *Settings) { s.Regions = 11 }, "init"},
		{func(s *Settings) { s.Tau = -1 }, "tau"},
		{func(s *Settings) { s.Candidates = 4 }, "candidates"},
		{func(s *Settings) { s.Method, s.Q = MethodQVS, -1 }, "q"},
		{func(s *Settings) { s.TauFloor = true }, "qvs_floor"},
		{func(s *Settings) { s.Method, s.TauFloor, s.Tau = MethodQVS, true, 0 }, "qvs_floor"},
	} {
		s := smallSettings(MethodTuRBO)
		c.mod(&s)
		if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one about %s", s, err, c.want)
		}
	}
}

func TestTrustRegionCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, d := range []int{1, 3, 60} {
		centre := make([]float64, d)
		for i := range centre {
			centre[i] = 0.9 * rng.Float64()
		}
		const n, length = 2000, 0.4
		c, err := trustRegionCandidates(centre, length, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		perturbed := 0
		for r := 0; r < n; r++ {
			row := c.RawRowView(r)
			k := 0
			for i, v := range row {
				if v < math.Max(centre[i]-length/2, 0) || v > math.Min(centre[i]+length/2, 1) {
					t.Fatalf("d=%d: candidate coordinate %v outside the region around %v", d, v, centre[i])
				}
				if v != centre[i] {
					k++
				}
			}
			if k == 0 {
				t.Fatalf("d=%d: candidate %d equals the centre", d, r)
			}
			perturbed += k
		}
		// Expected perturbed coordinates: d p with p = min(20/d, 1), plus the
		// forced one when none is drawn ((1-p)^d of the time).
		p := math.Min(20/float64(d), 1)
		want := float64(d)*p + math.Pow(1-p, float64(d))
		got := float64(perturbed) / n
		if math.Abs(got-want) > 0.05*want { // binomial SE at d=60 is ~0.08 of 20
			t.Errorf("d=%d: %v perturbed coordinates per candidate, want %v", d, got, want)
		}
	}
}

func TestThompsonPicks(t *testing.T) {
	samples := [][]float64{
		{1, 5, 3, 4},
		{1, 5, 3, 4}, // same argmax: without replacement, the runner-up
		{9, 0, 0, 0},
		{9, 0, 0, 0},
	}
	if got := thompsonPicks(samples, nil); !reflect.DeepEqual(got, []int{1, 3, 0, 2}) {
		t.Errorf("picks %v", got)
	}
	var asked []int
	allowed := func(i int) bool { asked = append(asked, i); return i != 1 }
	if got := thompsonPicks(samples[:2], allowed); !reflect.DeepEqual(got, []int{3, 2}) {
		t.Errorf("filtered picks %v", got)
	}
	if !reflect.DeepEqual(asked, []int{1, 3, 2}) { // lazily, once per candidate
		t.Errorf("allowed asked about %v", asked)
	}
	// Nothing eligible: fewer picks.
	if got := thompsonPicks(samples, func(int) bool { return false }); len(got) != 0 {
		t.Errorf("picks %v with nothing allowed", got)
	}
}

func TestSplitBatch(t *testing.T) {
	for _, c := range []struct {
		b, M int
		want []int
	}{
		{32, 3, []int{11, 11, 10}},
		{32, 20, []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1}},
		{2, 3, []int{1, 1, 0}},
		{6, 3, []int{2, 2, 2}},
	} {
		if got := splitBatch(c.b, c.M); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitBatch(%d, %d) = %v", c.b, c.M, got)
		}
	}
}

func TestMinMaxQuality(t *testing.T) {
	for _, c := range []struct{ in, want []float64 }{
		{[]float64{-3, -1, 1}, []float64{0, 0.5, 1}},
		{[]float64{2, 2}, []float64{1, 1}},
		{[]float64{-5}, []float64{1}},
	} {
		if got := minMaxQuality(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("minMaxQuality(%v) = %v", c.in, got)
		}
	}
}

func TestRecords(t *testing.T) {
	e := Evaluation{Iteration: 3, Region: 1, X: []float64{0.1, -1.0 / 3}, Value: -81.25, Seconds: 0.002}
	rows := [][]string{FormatRecord(e)}
	if h := RecordHeader(2); strings.Join(h, ",") != "iteration,region,x0,x1,value,seconds" {
		t.Errorf("header %v", h)
	}
	got, err := parseRecords(rows, 2)
	if err != nil || !reflect.DeepEqual(got[0], e) {
		t.Fatalf("round trip %+v %v", got, err)
	}
	for _, c := range []struct {
		row  []string
		want string
	}{
		{[]string{"1", "0", "0.1", "0.2", "3"}, "5 fields"},
		{[]string{"x", "0", "0.1", "0.2", "3", "0"}, "column iteration"},
		{[]string{"1", "-2", "0.1", "0.2", "3", "0"}, "column region"},
		{[]string{"1", "0", "0.1", "NaN", "3", "0"}, "column x1"},
		{[]string{"1", "0", "0.1", "0.2", "", "0"}, "column value"},
	} {
		_, err := parseRecords([][]string{c.row}, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "row 1") {
			t.Errorf("%v: %v, want %q", c.row, err, c.want)
		}
	}
	if _, err := parseRecords([][]string{{"2", "0", "0", "0", "0", "0"}, {"1", "0", "0", "0", "0", "0"}}, 2); err == nil {
		t.Error("decreasing iterations: no error")
	}
}

// TestROBOTInfeasibleCentres: with tau larger than the box's diameter only
// one evaluated point can be a centre; the other regions get unevaluated
// random centres during the run, and the final solutions hold one point.
func TestROBOTInfeasibleCentres(t *testing.T) {
	s := smallSettings(MethodROBOT)
	s.Tau = 100
	obj := &bumps{d: 3}
	res, recorded := runAll(t, obj, s, RunID{Seed: 9, Key: "robot"}, nil)
	if len(res.Evaluations) != s.Budget {
		t.Fatalf("%d evaluations", len(res.Evaluations))
	}
	// Only region 0 can propose: every other region's candidates are
	// within tau of region 0's picks.
	for _, evs := range recorded[1:] {
		for _, e := range evs {
			if e.Region != 0 {
				t.Fatalf("region %d proposed a point although tau = 100", e.Region)
			}
		}
	}
	if len(res.Solutions) != 1 || res.SolutionsMeanDistance != 0 || math.Abs(res.SolutionsVS-1) > 1e-12 {
		t.Errorf("solutions %d, mean distance %v, VS %v; want 1, 0, 1", len(res.Solutions), res.SolutionsMeanDistance, res.SolutionsVS)
	}
	if res.Solutions[0].Value != res.BestValue {
		t.Errorf("the single solution %v is not the best %v", res.Solutions[0].Value, res.BestValue)
	}
}

func TestTauFloorVS(t *testing.T) {
	c := math.Exp(-0.3 * 0.3 / 2)
	// Two points: eigenvalues (1 ± c)/2.
	a, b := (1+c)/2, (1-c)/2
	for _, tc := range []struct {
		q    vendi.Order
		want float64
	}{
		{1, math.Exp(-a*math.Log(a) - b*math.Log(b))},
		{2, 1 / (a*a + b*b)},
		{vendi.OrderInf, 1 / a},
	} {
		if got := tauFloorVS(2, 0.3, tc.q); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("q=%v: %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := tauFloorVS(1, 0.3, 1); math.Abs(got-1) > 1e-12 {
		t.Errorf("one point: %v, want 1", got)
	}
	// Far apart (similarity ~0): the floor is the number of points.
	if got := tauFloorVS(5, 40, 1); math.Abs(got-5) > 1e-9 {
		t.Errorf("five distant points: %v, want 5", got)
	}
}

// TestQVSTauFloor: with the floor, qVS-BayesOpt's centres (and so its final
// solutions) keep the VS of points tau apart at every prefix; without it,
// on the same run, they collapse onto the best bump.
func TestQVSTauFloor(t *testing.T) {
	s := smallSettings(MethodQVS)
	s.Tau = 1.2
	plain, _ := runAll(t, &bumps{d: 3}, s, RunID{Seed: 3, Key: "qvs"}, nil)
	s.TauFloor = true
	floored, _ := runAll(t, &bumps{d: 3}, s, RunID{Seed: 3, Key: "qvs"}, nil)
	if len(floored.Evaluations) != s.Budget {
		t.Fatalf("%d evaluations", len(floored.Evaluations))
	}
	sols := floored.Solutions
	if len(sols) == 0 || sols[0].Value != floored.BestValue {
		t.Fatalf("floored solutions %+v: the first must be the best point %v", sols, floored.BestValue)
	}
	for k := 2; k <= len(sols); k++ {
		K := make([][]float64, k)
		for i := range K {
			K[i] = make([]float64, k)
			for j := range K[i] {
				K[i][j] = similarity(floored.Distances[i][j])
			}
		}
		vs := scoreRows(t, K, 1)
		if floor := tauFloorVS(k, s.Tau, 1); vs < floor*(1-1e-9) {
			t.Errorf("first %d solutions: VS %v below the floor %v", k, vs, floor)
		}
	}
	t.Logf("floor: %d solutions, mean distance %v; plain: %d, %v", len(sols), floored.SolutionsMeanDistance, len(plain.Solutions), plain.SolutionsMeanDistance)
	if !(floored.SolutionsMeanDistance > plain.SolutionsMeanDistance) {
		t.Errorf("mean solution distance %v with the floor, %v without: the floor should spread them", floored.SolutionsMeanDistance, plain.SolutionsMeanDistance)
	}
}

func scoreRows(t *testing.T, rows [][]float64, q vendi.Order) float64 {
	t.Helper()
	n := len(rows)
	K := mat.NewSymDense(n, nil)
	for i := range rows {
		for j := i; j < n; j++ {
			K.SetSym(i, j, rows[i][j])
		}
	}
	vs, err := vendi.Score(K, q)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// errObjective's Evaluate fails at points with x0 > 0.5.
type errObjective struct{ bumps }

func (o *errObjective) Evaluate(_ context.Context, x []float64) (float64, error) {
	if x[0] > 0.5 {
		return math.NaN(), fmt.Errorf("simulator crashed at %.3f", x[0])
	}
	return o.value(x), nil
}

// TestOptimizeEvaluateError: an error of Objective.Evaluate ends the run
// with that error (naming the iteration and point), not a panic or a NaN.
func TestOptimizeEvaluateError(t *testing.T) {
	_, err := Optimize(context.Background(), &errObjective{bumps{d: 2}}, smallSettings(MethodRandom), RunID{}, nil, func([]Evaluation) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "simulator crashed") || !strings.Contains(err.Error(), "iteration 0, point") {
		t.Errorf("err %v", err)
	}
}

// TestEvaluatePoints: values in row order equal Evaluate's, from any
// number of workers; a point outside the box, an error and a non-finite
// value are errors naming the row (and column).
func TestEvaluatePoints(t *testing.T) {
	obj := &bumps{d: 2}
	xs := []float64{0, 1, 1, 0, 0.2, 0.2, -1, 2, 0.3, 0.4}
	for _, w := range []int{1, 3} {
		got, err := EvaluatePoints(context.Background(), obj, xs, w)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := obj.value(xs[2*i : 2*i+2]); got[i] != want {
				t.Errorf("workers %d row %d: %v, want %v", w, i+1, got[i], want)
			}
		}
	}
	for _, c := range []struct {
		obj  Objective
		xs   []float64
		want string
	}{
		{obj, []float64{0, 0, 3, 0}, "row 2, column 1: 3 is outside the box [-1, 2]"},
		{obj, []float64{0, 0, 0}, "3 numbers are not points"},
		{&errObjective{bumps{d: 2}}, []float64{0, 0, 0.9, 0}, "row 2: task bumps: simulator crashed"},
		{&nanObjective{bumps{d: 2}}, []float64{0, 0}, "row 1: task bumps returned NaN"},
	} {
		if _, err := EvaluatePoints(context.Background(), c.obj, c.xs, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}
