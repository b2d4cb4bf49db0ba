package bayesopt

import (
	"math"
	"testing"
)

func TestFailureTolerance(t *testing.T) {
	for _, c := range []struct {
		dim   int
		batch float64
		want  int
	}{
		{60, 32, 2},       // rover, one region of batch 32: ceil(60/32)
		{60, 32.0 / 3, 6}, // rover, batch 32 over 3 regions: ceil(60/10.67)
		{12, 1.6, 8},      // lunar, batch 32 over 20 regions: ceil(12/1.6) = 7.5 -> 8
		{2, 1, 4},         // low dimension: the 4/batch term wins
		{2, 100, 1},       // never below 1
		{3, 0, 4},         // a zero batch is treated as 1
	} {
		if got := failureTolerance(c.dim, c.batch); got != c.want {
			t.Errorf("FailureTolerance(%d, %v) = %d, want %d", c.dim, c.batch, got, c.want)
		}
	}
}

// TestTrustRegionTransitions walks the state machine one batch at a time and
// checks every field after each transition.
func TestTrustRegionTransitions(t *testing.T) {
	rules := TrustRegionRules{LengthInit: 0.8, LengthMin: math.Pow(0.5, 7), LengthMax: 1.6,
		SuccessTolerance: 3, FailureTolerance: 2, RelativeImprovement: 1e-3}
	tr := NewTrustRegion(rules)
	if tr.Length != 0.8 || !math.IsInf(tr.Best, -1) {
		t.Fatalf("fresh region %+v", tr)
	}
	type step struct {
		values       []float64
		want         Transition
		length       float64
		succ, fail   int
		best         float64
		restartsWant int
	}
	tr.Recenter(10)
	steps := []step{
		{[]float64{10.005}, Failed, 0.8, 0, 1, 10.005, 0},   // +0.005 < 1e-3*10: not enough
		{[]float64{9, 10.1}, succeeded, 0.8, 1, 0, 10.1, 0}, // max 10.1 > 10.005*(1+1e-3)
		{[]float64{11}, succeeded, 0.8, 2, 0, 11, 0},        //
		{[]float64{12}, expanded, 1.6, 0, 0, 12, 0},         // third success: double
		{[]float64{13}, succeeded, 1.6, 1, 0, 13, 0},        //
		{[]float64{14}, succeeded, 1.6, 2, 0, 14, 0},        //
		{[]float64{15}, expanded, 1.6, 0, 0, 15, 0},         // capped at LengthMax
		{[]float64{1}, Failed, 1.6, 0, 1, 15, 0},            //
		{[]float64{math.NaN()}, shrunk, 0.8, 0, 0, 15, 0},   // NaN is a failure; second failure halves
		{[]float64{16}, succeeded, 0.8, 1, 0, 16, 0},        // success resets failures
		{[]float64{16}, Failed, 0.8, 0, 1, 16, 0},           // equal is not better; resets successes
		{nil, Failed, 0.8, 0, 1, 16, 0},                     // empty batch: no change
		{[]float64{0}, shrunk, 0.4, 0, 0, 16, 0},            //
	}
	for i, s := range steps {
		got := tr.Update(s.values)
		if got != s.want || tr.Length != s.length || tr.SuccessCount != s.succ || tr.FailureCount != s.fail || tr.Best != s.best || tr.Restarts != s.restartsWant {
			t.Fatalf("step %d %v: got %v %+v; want %v length %v succ %d fail %d best %v", i, s.values, got, tr, s.want, s.length, s.succ, s.fail, s.best)
		}
	}
	// Shrink to below 0.5^7: 0.4 -> 0.2 -> ... -> 0.00625 = 0.4/2^6 < 0.0078125 restarts.
	n := 0
	for tr.Restarts == 0 {
		got := tr.Update([]float64{0})
		n++
		if tr.Restarts == 1 {
			if got != restarted || tr.Length != 0.8 || tr.SuccessCount != 0 || tr.FailureCount != 0 {
				t.Fatalf("restart: %v %+v", got, tr)
			}
		}
		if n > 100 {
			t.Fatal("no restart after 100 failures")
		}
	}
	if n != 12 { // 6 halvings x 2 failures each
		t.Errorf("restart after %d failed batches, want 12", n)
	}
	// Recenter lowers Best too: the next batch is judged against the new centre.
	tr.Recenter(-5)
	if got := tr.Update([]float64{-4.99}); got != succeeded { // -4.99 > -5 + 0.005
		t.Errorf("after Recenter(-5), -4.99: %v", got)
	}
	// A fresh region (Best = -Inf) counts any finite value as a success.
	fresh := NewTrustRegion(rules)
	if got := fresh.Update([]float64{-1e300}); got != succeeded || fresh.Best != -1e300 {
		t.Errorf("fresh region: %v %+v", got, fresh)
	}
}

func TestDefaultTrustRegionRules(t *testing.T) {
	r := DefaultTrustRegionRules(60, 32.0/3)
	if r.LengthInit != 0.8 || r.LengthMin != 0.0078125 || r.LengthMax != 1.6 || r.SuccessTolerance != 10 || r.FailureTolerance != 6 || r.RelativeImprovement != 1e-3 {
		t.Errorf("%+v", r)
	}
}

// TestTrustRegionFailurePerPoint: ROBOT's rule (trust_region.py
// update_state): a failed batch adds its size to the failure counter, so
// with tolerance 32 one failed batch of 32 halves the region, a batch of 31
// does not, and the counted rule needs 32 failed batches.
func TestTrustRegionFailurePerPoint(t *testing.T) {
	rules := DefaultTrustRegionRules(60, 32)
	rules.FailureTolerance = 32
	fail := func(n int) []float64 { return constant(n, 0) } // never beats Best = 1
	perPoint := rules
	perPoint.FailurePerPoint = true
	tr := NewTrustRegion(perPoint)
	tr.Recenter(1)
	if got := tr.Update(fail(31)); got != Failed || tr.FailureCount != 31 {
		t.Fatalf("31 failed points: %v, counter %d; want failed, 31", got, tr.FailureCount)
	}
	tr = NewTrustRegion(perPoint)
	tr.Recenter(1)
	if got := tr.Update(fail(32)); got != shrunk || tr.Length != 0.4 {
		t.Errorf("32 failed points: %v, length %v; want shrunk to 0.4", got, tr.Length)
	}
	counted := NewTrustRegion(rules)
	counted.Recenter(1)
	for k := 1; k < 32; k++ {
		if got := counted.Update(fail(32)); got != Failed {
			t.Fatalf("counted rule, failed batch %d: %v, want failed", k, got)
		}
	}
	if got := counted.Update(fail(32)); got != shrunk {
		t.Errorf("counted rule, failed batch 32: %v, want shrunk", got)
	}
}
