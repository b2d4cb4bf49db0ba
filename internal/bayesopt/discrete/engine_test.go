package discrete

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestEngineReplaysSearch: an engine told the first N evaluations of a
// campaign as one flat history (no batch boundaries) asks exactly the batch
// the campaign evaluated next, for every method and every N at a batch
// boundary. This is what `qvs bayesopt suggest --kernel` relies on.
func TestEngineReplaysSearch(t *testing.T) {
	p := toyProblem(t, 40, 6)
	for _, s := range []Settings{settings(MethodRandom, 0), settings(MethodUCB, 0), settings(MethodQVS, 1), settings(MethodQVS, vendi.OrderInf)} {
		s.Budget, s.Batch, s.Init, s.Repeat = 17, 4, 3, 1 // 3 initial points, then 4, 4, 4, 2
		iters, err := p.Search(context.Background(), s, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var flat []int
		for t0, want := range iters {
			e, err := p.NewEngine(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Tell(p.evaluations(flat)...); err != nil {
				t.Fatal(err)
			}
			if e.Iteration() != t0 {
				t.Errorf("%s: %d evaluations: iteration %d, want %d", s.Method, len(flat), e.Iteration(), t0)
			}
			got, err := e.Ask(len(want))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s q=%v: after %d evaluations asked %v, campaign evaluated %v", s.Method, s.Q, len(flat), got, want)
			}
			flat = append(flat, want...)
		}
	}
}

func TestEngineIterationRule(t *testing.T) {
	p := toyProblem(t, 30, 1)
	s := settings(MethodRandom, 0)
	s.Init, s.Batch = 3, 5
	e, err := p.NewEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	// N:    0 1 2 3 4 5 6 7 8 9 10 ... 13 14
	// iter: 0 0 0 1 2 2 2 2 2 3 3  ... 3  4    (1 + ceil((N-3)/5) for N >= 3)
	want := []int{0, 0, 0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4}
	for n, w := range want {
		if got := e.Iteration(); got != w {
			t.Errorf("N = %d: iteration %d, want %d", n, got, w)
		}
		if err := e.Tell(Evaluation{Index: n, Value: float64(n)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEngineInitialDesign: before Init evaluations the engine asks for the
// initial design's points not yet evaluated, at most Init - N of them.
func TestEngineInitialDesign(t *testing.T) {
	p := toyProblem(t, 30, 2)
	s := settings(MethodQVS, 1)
	s.Init = 4
	e, err := p.NewEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	design := e.InitialDesign()
	if !slices.Equal(design, p.InitialDesign(s)) || len(design) != 4 {
		t.Fatalf("engine design %v, problem design %v", design, p.InitialDesign(s))
	}
	if got, _ := e.Ask(10); !slices.Equal(got, design) {
		t.Errorf("empty history, Ask(10) = %v, want the whole design %v", got, design)
	}
	if got, _ := e.Ask(3); !slices.Equal(got, design[:3]) {
		t.Errorf("empty history, Ask(3) = %v, want %v", got, design[:3])
	}
	// The user evaluated design[1] and some other item: two design points remain.
	other := 0
	for slices.Contains(design, other) {
		other++
	}
	if err := e.Tell(Evaluation{Index: design[1], Value: 1}, Evaluation{Index: other, Value: 2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Ask(5); !slices.Equal(got, []int{design[0], design[2]}) {
		t.Errorf("after 2 evaluations, Ask(5) = %v, want %v", got, []int{design[0], design[2]})
	}
	if _, err := e.Acquisition(); err != nil {
		t.Errorf("acquisition on 2 evaluations: %v", err)
	}
}

// TestEngineTellErrors: bad evaluations are refused and nothing of the
// call is recorded.
func TestEngineTellErrors(t *testing.T) {
	p := toyProblem(t, 10, 3)
	e, err := p.NewEngine(settings(MethodUCB, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Acquisition(); err != ErrNoHistory {
		t.Errorf("acquisition of an empty history: %v, want ErrNoHistory", err)
	}
	if err := e.Tell(Evaluation{Index: 1, Value: 1}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]Evaluation{
		{{Index: 2, Value: 1}, {Index: 10, Value: 1}},          // out of range
		{{Index: -1, Value: 1}},                                // out of range
		{{Index: 2, Value: 1}, {Index: 1, Value: 3}},           // 1 already told
		{{Index: 2, Value: 1}, {Index: 2, Value: 3}},           // twice in one call
		{{Index: 3, Value: math.NaN()}},                        // not finite
		{{Index: 3, Value: 1}, {Index: 4, Value: math.Inf(1)}}, // not finite
		{{Index: 1, Failed: true}},                             // 1 already succeeded
		{{Index: 3, Value: 1}, {Index: 3, Failed: true}},       // a failure after a success
	} {
		if err := e.Tell(bad...); err == nil {
			t.Errorf("Tell(%v): no error", bad)
		}
		if e.Len() != 1 || e.Observed(2) || e.Observed(3) {
			t.Errorf("Tell(%v) failed but recorded part of it (%d evaluations)", bad, e.Len())
		}
	}
	if _, err := e.Ask(0); err == nil {
		t.Error("Ask(0): no error")
	}
	if _, err := e.Ask(10); err == nil {
		t.Error("Ask(10) with 9 unevaluated items: no error")
	}
	if _, err := NewEngine("x", p.Set.Kernel, p.Diversity, Settings{Method: "ei", Init: 1, Batch: 1}); err == nil {
		t.Error("unknown method: no error")
	}
	s := settings(MethodUCB, 0)
	s.Init = 11
	if _, err := p.NewEngine(s); err == nil {
		t.Error("init larger than the candidate set: no error")
	}
}

// TestEngineAskIsPure: asking twice gives the same batch and does not
// change the history.
func TestEngineAskIsPure(t *testing.T) {
	p := toyProblem(t, 30, 5)
	for _, m := range Methods {
		e := toldEngine(t, p, settings(m, 1), []int{4, 9, 16})
		a, err := e.Ask(5)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := e.Ask(5)
		if !slices.Equal(a, b) || e.Len() != 3 {
			t.Errorf("%s: Ask twice gave %v then %v; history %d", m, a, b, e.Len())
		}
		for _, i := range a {
			if e.Observed(i) {
				t.Errorf("%s: asked for evaluated item %d", m, i)
			}
		}
	}
}

// TestAcquisitionObjectiveUnits: the GP standardises its targets, so an
// affine change of the objective, y -> a y + c (a > 0), maps the reported
// posterior mean to a·mean + c and the sd to a·sd, and leaves the UCB
// ranking and the qualities unchanged.
func TestAcquisitionObjectiveUnits(t *testing.T) {
	p := toyProblem(t, 25, 7)
	obs := []int{2, 7, 11, 13, 20, 24}
	const a, c = 3.5, -40.0
	e1 := toldEngine(t, p, settings(MethodUCB, 0), obs)
	e2, err := p.NewEngine(settings(MethodUCB, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range obs {
		if err := e2.Tell(Evaluation{Index: i, Value: a*p.Set.Objective[i] + c}); err != nil {
			t.Fatal(err)
		}
	}
	A1, _ := e1.Acquisition()
	A2, err := e2.Acquisition()
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-9 // relative; both fits see identical standardised targets up to round-off
	for i := range A1.Mean {
		if d := math.Abs(A2.Mean[i] - (a*A1.Mean[i] + c)); d > tol*math.Max(1, math.Abs(A2.Mean[i])) {
			t.Errorf("item %d: mean %v, want %v", i, A2.Mean[i], a*A1.Mean[i]+c)
		}
		if d := math.Abs(A2.SD[i] - a*A1.SD[i]); d > tol*math.Max(1, A2.SD[i]) {
			t.Errorf("item %d: sd %v, want %v", i, A2.SD[i], a*A1.SD[i])
		}
		if math.Abs(A2.Quality[i]-A1.Quality[i]) > tol {
			t.Errorf("item %d: quality %v vs %v", i, A2.Quality[i], A1.Quality[i])
		}
	}
	// Conditioning never increases the variance: the posterior sd of every
	// item is at most the prior sd s·sqrt(K_ii), in objective units; at an
	// observed item it is strictly smaller.
	h, scale := A1.GP.Hyper, A1.GP.YScale
	for i := range A1.SD {
		prior := scale * math.Sqrt(h.SignalVar*p.Set.Kernel.At(i, i))
		if A1.SD[i] > prior*(1+1e-12) || (slices.Contains(obs, i) && !(A1.SD[i] < prior)) {
			t.Errorf("item %d: posterior sd %v, prior sd %v", i, A1.SD[i], prior)
		}
	}
}
