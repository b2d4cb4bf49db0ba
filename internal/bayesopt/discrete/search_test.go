package discrete

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// toyProblem is n random points in the unit square with a Gaussian kernel
// and a bumpy objective with two optima, plus one extra metric.
func toyProblem(t testing.TB, n int, seed uint64) *Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][2]float64, n)
	for i := range x {
		x[i] = [2]float64{rng.Float64(), rng.Float64()}
	}
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := (x[i][0]-x[j][0])*(x[i][0]-x[j][0]) + (x[i][1]-x[j][1])*(x[i][1]-x[j][1])
			K.SetSym(i, j, math.Exp(-d/(2*0.2*0.2)))
		}
	}
	set := &datasets.KernelSet{Name: "toy", ObjectiveName: "f", MetricNames: []string{"penalty %"}, Metrics: [][]float64{make([]float64, n)}, Kernel: K}
	for i := 0; i < n; i++ {
		f := 10*math.Exp(-((x[i][0]-0.2)*(x[i][0]-0.2)+(x[i][1]-0.8)*(x[i][1]-0.8))/0.02) +
			8*math.Exp(-((x[i][0]-0.8)*(x[i][0]-0.8)+(x[i][1]-0.3)*(x[i][1]-0.3))/0.02) + rng.Float64()
		set.IDs = append(set.IDs, "m"+strconv.Itoa(i))
		set.Objective = append(set.Objective, f)
		set.Metrics[0][i] = x[i][0]
	}
	p, err := newProblem(set, 5)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// toldEngine is an engine told obs with their objective values, in order.
func toldEngine(t testing.TB, p *Problem, s Settings, obs []int) *Engine {
	t.Helper()
	e, err := p.NewEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Tell(p.evaluations(obs)...); err != nil {
		t.Fatal(err)
	}
	return e
}

// nextBatch asks an engine told obs for a batch of size items.
func nextBatch(t testing.TB, p *Problem, s Settings, obs []int, size int) []int {
	t.Helper()
	b, err := toldEngine(t, p, s, obs).Ask(size)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// acquire fits the engine's GP to obs.
func acquire(t testing.TB, p *Problem, s Settings, obs []int) *Acquisition {
	t.Helper()
	a, err := toldEngine(t, p, s, obs).Acquisition()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func settings(method string, q vendi.Order) Settings {
	s := DefaultSettings()
	s.Method, s.Q, s.Seed = method, q, 7
	return s
}

// TestUCBPicksDirect: the ucb batch equals the top-b of UCB values computed
// directly from the fitted hyperparameters with an explicit inverse.
func TestUCBPicksDirect(t *testing.T) {
	p := toyProblem(t, 40, 1)
	s := settings(MethodUCB, 0)
	obs := []int{3, 17, 22, 8}
	got := nextBatch(t, p, s, obs, 5)
	y := make([]float64, len(obs))
	for a, i := range obs {
		y[a] = p.Set.Objective[i]
	}
	g, err := fitGP(p.Set.Kernel, obs, y)
	if err != nil {
		t.Fatal(err)
	}
	h := g.Hyper
	m := len(obs)
	A := mat.NewDense(m, m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			v := h.SignalVar * p.Set.Kernel.At(obs[a], obs[b])
			if a == b {
				v += h.NoiseVar
			}
			A.Set(a, b, v)
		}
	}
	var Ainv mat.Dense
	if err := Ainv.Inverse(A); err != nil {
		t.Fatal(err)
	}
	type scored struct {
		i int
		u float64
	}
	var all []scored
	for i := 0; i < p.Set.Len(); i++ {
		if slices.Contains(obs, i) {
			continue
		}
		var mu, v float64
		for a := 0; a < m; a++ {
			for b := 0; b < m; b++ {
				ka := h.SignalVar * p.Set.Kernel.At(obs[a], i)
				kb := h.SignalVar * p.Set.Kernel.At(obs[b], i)
				mu += ka * Ainv.At(a, b) * (g.Z[b] - h.Mean)
				v += ka * Ainv.At(a, b) * kb
			}
		}
		u := h.Mean + mu + math.Sqrt(2)*math.Sqrt(math.Max(h.SignalVar-v, 0))
		all = append(all, scored{i, u})
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.u > b.u:
			return -1
		case a.u < b.u:
			return 1
		}
		return a.i - b.i
	})
	for k := 0; k < 5; k++ {
		if got[k] != all[k].i {
			t.Fatalf("ucb batch %v, direct top-5 %v", got, all[:5])
		}
	}
	if all[4].u-all[5].u < 1e-9 {
		t.Fatalf("test is fragile: 5th and 6th UCB nearly tied (%v, %v)", all[4].u, all[5].u)
	}
}

// bruteForceAlgorithm3 runs Algorithm 3 literally: every candidate's
// qVS(D ∪ X ∪ {x}) from a fresh eigendecomposition (vendi.Score), argmax
// with ties to the lowest index.
func bruteForceAlgorithm3(t *testing.T, p *Problem, quality []float64, obs []int, b int, q vendi.Order) []int {
	t.Helper()
	var X []int
	for len(X) < b {
		best, bestV := -1, math.Inf(-1)
		for x := 0; x < p.Set.Len(); x++ {
			if slices.Contains(obs, x) || slices.Contains(X, x) {
				continue
			}
			set := append(append(append([]int(nil), obs...), X...), x)
			var sum float64
			for _, i := range set {
				sum += quality[i]
			}
			vs, err := vendi.Score(vendi.Submatrix(vendi.DenseKernel(p.Diversity), set), q)
			if err != nil {
				t.Fatal(err)
			}
			if v := sum / float64(len(set)) * vs; v > bestV {
				best, bestV = x, v
			}
		}
		X = append(X, best)
	}
	return X
}

func TestQVSPicksBruteForce(t *testing.T) {
	p := toyProblem(t, 30, 2)
	obs := []int{0, 5, 11, 19, 23, 27}
	acq := acquire(t, p, settings(MethodUCB, 0), obs)
	differs := 0
	for _, q := range []vendi.Order{0.1, 0.5, 1, 2, 5, vendi.OrderInf} {
		got := nextBatch(t, p, settings(MethodQVS, q), obs, 5)
		want := bruteForceAlgorithm3(t, p, acq.Quality, obs, 5, q)
		if !slices.Equal(got, want) {
			t.Errorf("q=%v: greedy %v, brute force %v", q, got, want)
		}
		t.Logf("q=%v: batch %v", q, got)
		if !slices.Equal(got, topK(acq.UCB, freeItems(p, obs), 5)) {
			differs++
		}
	}
	// The test is only meaningful if diversity changes some batch.
	if differs == 0 {
		t.Error("every qVS batch equals the top-5 UCB batch: the toy problem does not exercise diversity")
	}
	// q = 0 is regular BayesOpt: the top-b UCB batch.
	q0 := nextBatch(t, p, settings(MethodQVS, 0), obs, 5)
	ucb := nextBatch(t, p, settings(MethodUCB, 0), obs, 5)
	if !slices.Equal(q0, ucb) {
		t.Errorf("qvs q=0 batch %v differs from ucb %v", q0, ucb)
	}
	// With VS_0 as the count, brute force Algorithm 3 at q = 0 agrees too
	// (the toy kernel has no duplicates, so the numerical rank is the count).
	if want := bruteForceAlgorithm3(t, p, acq.Quality, obs, 5, 0); !slices.Equal(q0, want) {
		t.Errorf("q=0: batch %v, brute force %v", q0, want)
	}
}

func freeItems(p *Problem, obs []int) []int {
	var free []int
	for i := 0; i < p.Set.Len(); i++ {
		if !slices.Contains(obs, i) {
			free = append(free, i)
		}
	}
	return free
}

func TestQualityFromUCB(t *testing.T) {
	got := QualityFromUCB([]float64{-1, 3, 1})
	want := []float64{0, 1, 0.5}
	if !slices.Equal(got, want) {
		t.Errorf("quality %v, want %v", got, want)
	}
	if got := QualityFromUCB([]float64{2, 2}); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("constant UCB: quality %v, want all 1", got)
	}
}

func TestTopKTies(t *testing.T) {
	score := []float64{1, 3, 3, 2, 3}
	if got := topK(score, []int{4, 0, 2, 1, 3}, 3); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("TopK = %v, want [1 2 4] (ties to the lowest index)", got)
	}
}

func TestRandomBatch(t *testing.T) {
	p := toyProblem(t, 20, 3)
	s := settings(MethodRandom, 0)
	obs := []int{1, 2, 3}
	// Init 2, batch 1: the 3 observed items put the next batch in
	// iteration 2; with init 3 in iteration 1 (another stream).
	s.Batch = 1
	a := nextBatch(t, p, s, obs, 6)
	b := nextBatch(t, p, s, obs, 6)
	s.Init = 3
	c := nextBatch(t, p, s, obs, 6)
	if !slices.Equal(a, b) {
		t.Errorf("same iteration, different batches %v %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("iterations 2 and 1 drew the same batch %v", a)
	}
	seen := map[int]bool{}
	for _, i := range a {
		if slices.Contains(obs, i) || seen[i] || i < 0 || i >= 20 {
			t.Errorf("bad random batch %v", a)
		}
		seen[i] = true
	}
	if _, err := toldEngine(t, p, s, obs).Ask(18); err == nil {
		t.Error("more queries than candidates: no error")
	}
}

// TestSearchResume: a search continued from any prefix of its iterations
// reproduces the uninterrupted search exactly.
func TestSearchResume(t *testing.T) {
	p := toyProblem(t, 40, 4)
	for _, s := range []Settings{settings(MethodRandom, 0), settings(MethodUCB, 0), settings(MethodQVS, 1)} {
		s.Budget, s.Batch = 14, 5 // 2 initial points, then iterations of 5, 5, 2
		var calls []int
		full, err := p.Search(context.Background(), s, nil, func(t int, b []int) error {
			calls = append(calls, t)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(full) != 4 || len(full[0]) != 2 || len(full[3]) != 2 || !slices.Equal(calls, []int{0, 1, 2, 3}) {
			t.Fatalf("%s: iterations %v, callbacks %v", s.Method, full, calls)
		}
		for cut := 1; cut <= 3; cut++ {
			calls = nil
			again, err := p.Search(context.Background(), s, full[:cut], func(t int, b []int) error {
				calls = append(calls, t)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(again) != fmt.Sprint(full) {
				t.Errorf("%s resumed after %d iterations: %v, want %v", s.Method, cut, again, full)
			}
			if len(calls) != 4-cut || calls[0] != cut {
				t.Errorf("%s resumed after %d: callbacks %v", s.Method, cut, calls)
			}
		}
		// Every method of a repeat starts from the same initial design.
		if !slices.Equal(full[0], p.InitialDesign(s)) {
			t.Errorf("%s: initial design %v, want %v", s.Method, full[0], p.InitialDesign(s))
		}
	}
	s := settings(MethodUCB, 0)
	s.Budget = 10
	bad := [][]int{{0, 1}}
	if slices.Equal(bad[0], p.InitialDesign(s)) {
		bad[0] = []int{2, 3}
	}
	if _, err := p.Search(context.Background(), s, bad, nil); err == nil {
		t.Error("prior with other initial points: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Search(ctx, s, nil, nil); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestEvaluate(t *testing.T) {
	// Identity diversity kernel: VS_1 of m distinct good items is m.
	n := 6
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, 2) // non-unit diagonal: Diversity is its normalisation
	}
	set := &datasets.KernelSet{Name: "e", IDs: []string{"a", "b", "c", "d", "e", "f"},
		Objective: []float64{1, 20, 16, 3, 20, 15}, Kernel: K}
	p, err := newProblem(set, 15)
	if err != nil {
		t.Fatal(err)
	}
	if p.Diversity.At(2, 2) != 1 {
		t.Fatalf("diversity kernel diagonal %v, want 1", p.Diversity.At(2, 2))
	}
	o, err := p.Evaluate([][]int{{0, 3}, {2, 1}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	wantCurve := []curvePoint{{0, 2, 3}, {1, 4, 20}, {2, 6, 20}}
	if !slices.Equal(o.Curve, wantCurve) {
		t.Errorf("curve %v, want %v", o.Curve, wantCurve)
	}
	if o.BestIndex != 1 || o.BestValue != 20 {
		t.Errorf("best %d = %v, want item 1 (first of the tied 20s)", o.BestIndex, o.BestValue)
	}
	// Good: 20, 16, 20, 15 (>= 15 inclusive).
	if o.Good != 4 || math.Abs(o.EDC-4) > 1e-12 {
		t.Errorf("good %d, EDC %v; want 4, 4", o.Good, o.EDC)
	}
	o, _ = p.Evaluate([][]int{{0, 3}})
	if o.Good != 0 || o.EDC != 0 {
		t.Errorf("no good items: good %d EDC %v", o.Good, o.EDC)
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Settings)
	}{
		{"method", func(s *Settings) { s.Method = "ei" }},
		{"q", func(s *Settings) { s.Q = -1 }},
		{"init", func(s *Settings) { s.Init = 0 }},
		{"batch", func(s *Settings) { s.Batch = 0 }},
		{"budget", func(s *Settings) { s.Budget = 200 }},
		{"budget below init", func(s *Settings) { s.Budget = 1 }},
		{"beta", func(s *Settings) { s.Beta = math.NaN() }},
	} {
		s := settings(MethodQVS, 1)
		c.mod(&s)
		if err := s.Validate(100); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := settings(MethodQVS, vendi.OrderInf).Validate(102); err != nil {
		t.Errorf("defaults on 102 items: %v", err)
	}
}

func BenchmarkNextBatchQVS(b *testing.B) {
	for _, c := range []struct{ n, m int }{{500, 50}, {1000, 100}} {
		p := toyProblem(b, c.n, 1)
		obs := rand.New(rand.NewPCG(1, 1)).Perm(c.n)[:c.m]
		b.Run(fmt.Sprintf("n=%d,observed=%d", c.n, c.m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				nextBatch(b, p, settings(MethodQVS, 1), obs, 5)
			}
		})
	}
}
