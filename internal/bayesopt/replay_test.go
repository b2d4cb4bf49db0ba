package bayesopt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestValueOrder: valueOrder walks its items in descending's order (value
// down, ties by index) after every addition, with many exact ties, -0 and
// +0 among them, across merges of its two runs.
func TestValueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var o valueOrder
	var vals []float64
	for i := 0; i < 3000; i++ {
		v := float64(rng.IntN(7)) - 3
		switch {
		case i%11 == 0:
			v = math.Copysign(0, -1)
		case i%13 == 0:
			v = rng.NormFloat64()
		}
		o.add(v)
		vals = append(vals, v)
		if i < 200 || i%97 == 0 {
			if got, want := slices.Collect(o.all()), descending(vals); !slices.Equal(got, want) {
				t.Fatalf("after %d additions: order %v..., descending %v...", i+1, got[:min(10, len(got))], want[:min(10, len(want))])
			}
		}
	}
	if len(o.main) == 0 {
		t.Fatal("the two runs were never merged: the test misses the merge")
	}
	// A walk stops when asked to.
	n := 0
	for range o.all() {
		if n++; n == 5 {
			break
		}
	}
	if n != 5 {
		t.Errorf("walk stopped after %d", n)
	}
}

// replayTwin tells the same history to an engine on the fast centre
// choice (replay.go) and to one on the straightforward one
// (straightCentres), and compares them.
type replayTwin struct {
	fast, straight *Engine
}

func (w replayTwin) straightDo(f func()) {
	straightCentres = true
	defer func() { straightCentres = false }()
	f()
}

// TestReplayMatchesStraight: on random histories (values continuous or on
// four levels, so that many are exactly tied; a tenth failed; regions at
// random, as a file without a region column gives them), the engine whose
// centres come from the value order and the greedy memo (replay.go) has,
// after every Tell, the same centres and trust regions, and at the end the
// same next batch and final solutions, as the one that sorts and scores
// every evaluation afresh, for every method, qvs at three orders, with the
// floor and in the authors' mode.
func TestReplayMatchesStraight(t *testing.T) {
	type variant struct {
		method string
		q      vendi.Order
		floor  bool
		mode   string
	}
	variants := []variant{
		{MethodTuRBO, 1, false, ""}, {MethodROBOT, 1, false, ""},
		{MethodQVS, 1, false, ""}, {MethodQVS, 2, false, ""}, {MethodQVS, vendi.OrderInf, false, ""},
		{MethodQVS, 1, true, ""}, {MethodQVS, 1, false, modeAuthors}, {MethodRandom, 1, false, ""},
		{MethodQVS, 1, true, "tau"},
	}
	incremental := 0
	for trial := 0; trial < 4; trial++ {
		for _, v := range variants {
			name := fmt.Sprintf("trial%d/%s/q=%v/floor=%v/%s", trial, v.method, v.q, v.floor, v.mode)
			s := Settings{Method: v.method, Q: v.q, TauFloor: v.floor, Mode: v.mode, Budget: 6, Init: 6, Batch: 4, Regions: 3,
				Tau: 0.4 + 0.3*float64(trial%2), Candidates: 40, MaxTrain: 30, FitIterations: 5}
			if v.mode == "tau" { // a floor that often stops the greedy short
				s.Mode, s.Tau = "", 1.5+0.5*float64(trial%2)
			}
			id := RunID{Seed: uint64(trial), Key: name}
			dom := &bumps{d: 2}
			var w replayTwin
			var err error
			if w.fast, err = NewEngine(dom, s, id); err != nil {
				t.Fatal(err)
			}
			if w.straight, err = NewEngine(dom, s, id); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(trial), 77))
			value := func() float64 {
				if trial%2 == 0 {
					return float64(rng.IntN(4))
				}
				return rng.NormFloat64()
			}
			for it := 0; it < 40; it++ {
				n := s.Init
				if it > 0 {
					n = 1 + rng.IntN(s.Batch)
				}
				evs := make([]Evaluation, n)
				for i := range evs {
					x := []float64{3*rng.Float64() - 1, 3*rng.Float64() - 1}
					evs[i] = Evaluation{Iteration: it, Region: -1, X: x, Value: value()}
					if it > 0 {
						evs[i].Region = rng.IntN(s.Regions+1) - 1
					}
					if rng.IntN(10) == 0 {
						evs[i].Value, evs[i].Failed = math.NaN(), true
					}
				}
				if err := w.fast.Tell(evs); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				w.straightDo(func() { err = w.straight.Tell(evs) })
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got, want := w.fast.TrustRegions(), w.straight.TrustRegions(); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: after iteration %d, trust regions %+v, straight %+v", name, it, got, want)
				}
				if s.Method == MethodRandom {
					continue
				}
				got, errF := w.fast.centres()
				var want []centre
				var errS error
				w.straightDo(func() { want, errS = w.straight.centres() })
				if errF != nil || errS != nil {
					t.Fatalf("%s: centres: %v, %v", name, errF, errS)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: iteration %d's centres %v, straight %v", name, it+1, got, want)
				}
			}
			got, errF := w.fast.Ask(context.Background(), s.Batch, nil)
			var want []Evaluation
			var errS error
			w.straightDo(func() { want, errS = w.straight.Ask(context.Background(), s.Batch, nil) })
			if errF != nil || errS != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Ask %v (%v), straight %v (%v)", name, got, errF, want, errS)
			}
			resF, errF := w.fast.Result()
			var resS *Result
			w.straightDo(func() { resS, errS = w.straight.Result() })
			if errF != nil || errS != nil || !reflect.DeepEqual(resF.Solutions, resS.Solutions) {
				t.Fatalf("%s: solutions %v (%v), straight %v (%v)", name, resF.Solutions, errF, resS.Solutions, errS)
			}
			incremental += w.fast.r.memoHits
		}
	}
	// The comparison means something only if the memo answered often.
	if incremental < 100 {
		t.Errorf("the greedy memo answered %d times: the fast path was hardly tested", incremental)
	}
}

// TestCentreMemoTieWindow: the memo's tie windows matter. Centre a (index
// 2) wins pick 1 over b (index 3), whose qVS is higher by half the tie
// tolerance; a new evaluation c, higher again, moves the window up so
// that a falls out of it and b is the lowest index left: the greedy over
// all four picks b, and so must the memo's (a memo that kept only its picks
// would give c).
func TestCentreMemoTieWindow(t *testing.T) {
	// Quality 1 at x = 0 (value 1), 0.5 elsewhere (value 0.5; a point of
	// value 0 beside x = 0 sets the scaling's low end).
	score := func(d float64) float64 {
		k := similarity(d)
		v, err := vendi.QualityWeighted(mat.NewSymDense(2, []float64{1, k, k, 1}), []float64{1, 0.5}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// at returns the distance whose score is target (the score grows with
	// the distance around 1).
	at := func(target float64) float64 {
		lo, hi := 1.0, 1.1
		for range 200 {
			mid := (lo + hi) / 2
			if score(mid) < target {
				lo = mid
			} else {
				hi = mid
			}
		}
		return hi
	}
	S := score(1)
	db, dc := at(S*(1+0.5*vendi.TieTol)), at(S*(1+1.25*vendi.TieTol))
	ev := func(x, v float64) Evaluation { return Evaluation{Region: -1, X: []float64{x}, Value: v} }
	old := []Evaluation{ev(0, 1), ev(0.001, 0), ev(1, 0.5), ev(db, 0.5)}
	c := ev(dc, 0.5)
	s := Settings{Method: MethodQVS, Q: 1, Regions: 2, Init: 4, Batch: 1, Budget: 5}
	r, err := newRunner(&bumps{d: 1}, s, RunID{})
	if err != nil {
		t.Fatal(err)
	}
	r.add(old)
	picks, err := r.qvsGreedy(1, 2, false)
	if err != nil || !slices.Equal(picks, []int{0, 2}) {
		t.Fatalf("first greedy: %v (%v), want [0 2] (a and b tied, a the lower index)", picks, err)
	}
	r.add([]Evaluation{c})
	picks, err = r.qvsGreedy(1, 2, false)
	if err != nil || r.memoHits != 1 {
		t.Fatalf("second greedy: %v, memo hits %d, want 1", err, r.memoHits)
	}
	straight, err := newRunner(&bumps{d: 1}, s, RunID{})
	if err != nil {
		t.Fatal(err)
	}
	straight.add(append(old, c))
	straightCentres = true
	want, err := straight.qvsGreedy(1, 2, false)
	straightCentres = false
	if err != nil || !slices.Equal(want, []int{0, 3}) {
		t.Fatalf("straight greedy: %v (%v), want [0 3]: the construction is off", want, err)
	}
	if !slices.Equal(picks, want) {
		t.Errorf("memo's greedy %v, straight %v", picks, want)
	}
}
