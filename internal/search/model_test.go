package search

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestModelHandComputation(t *testing.T) {
	// Item 0 has neighbours 1 (w 0.5), 2 (w 0.25), 3 (w 1); item 4 is isolated.
	nbr := [][]int32{{1, 2, 3}, {0}, {0, 1}, {2}, {}}
	w := [][]float64{{0.5, 0.25, 1}, {0.5}, {0.75, 0.5}, {0.25}, {}}
	m, err := NewModel(nbr, w, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe(1, true)
	m.Observe(2, false)
	// Hand computation with Model's formula:
	//  item 0: pos = 0.5 (item 1), neg = 0.25 (item 2): (0.1+0.5)/(0.9+0.25+0.1+0.5) = 0.6/1.75
	//  item 3: neg = 0.25 (item 2): 0.1/(0.9+0.25+0.1) = 0.1/1.25
	//  item 4: no neighbours: the prior 0.1
	//  item 2 (observed): its neighbours 0 (unobserved), 1 (pos 0.5): 0.6/1.5
	want := map[int]float64{0: 0.6 / 1.75, 3: 0.1 / 1.25, 4: 0.1, 2: 0.6 / 1.5}
	const tol = 1e-15 // a few roundings of numbers of order 1
	for i, p := range want {
		if got := m.Probability(i); math.Abs(got-p) > tol {
			t.Errorf("p(%d) = %.17g, want %.17g", i, got, p)
		}
	}
	all := m.Probabilities(nil)
	for i, p := range want {
		if all[i] != m.Probability(i) {
			t.Errorf("Probabilities()[%d] = %g, Probability = %g (want %g)", i, all[i], m.Probability(i), p)
		}
	}
	if got := m.Unobserved(); len(got) != 3 || got[0] != 0 || got[1] != 3 || got[2] != 4 {
		t.Errorf("Unobserved = %v, want [0 3 4]", got)
	}
}

func TestModelIncrementalMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 200, 7, 0, false)
	const tol = 1e-14 // incremental vs direct sums of <= 7 weights in (0, 1]
	for step, i := range rng.Perm(200)[:120] {
		m.Observe(i, rng.IntN(2) == 0)
		if step%20 != 0 {
			continue
		}
		for x := 0; x < m.Len(); x++ {
			if got, want := m.Probability(x), directProbability(m, x); math.Abs(got-want) > tol {
				t.Fatalf("after %d observations p(%d) = %g, direct %g", step+1, x, got, want)
			}
		}
	}
}

func TestModelCloneIsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 50, 5, 10, false)
	before := m.Probabilities(nil)
	c := m.Clone()
	for _, i := range c.Unobserved()[:10] {
		c.Observe(i, true)
	}
	after := m.Probabilities(nil)
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("observing on a clone changed the original at %d", i)
		}
	}
	if m.NumObserved() != 10 || c.NumObserved() != 20 {
		t.Fatalf("observed counts %d, %d; want 10, 20", m.NumObserved(), c.NumObserved())
	}
}

func TestPriorFromPrevalence(t *testing.T) {
	for _, tc := range []struct{ prev, a1 float64 }{
		{0.0625, 0.062}, // exactly 62.5 thousandths: half to even, like numpy.round
		{0.1875, 0.188}, // 187.5 -> 188 (even)
		{0.35612, 0.356},
		{0.0004, 0},
		{1, 1},
	} {
		a0, a1 := priorFromPrevalence(tc.prev)
		if a1 != tc.a1 || a0 != 1-tc.a1 {
			t.Errorf("PriorFromPrevalence(%g) = %g, %g; want %g, %g", tc.prev, a0, a1, 1-tc.a1, tc.a1)
		}
	}
}

func TestNewModelRejectsBadGraphs(t *testing.T) {
	for name, tc := range map[string]struct {
		nbr    [][]int32
		w      [][]float64
		a0, a1 float64
	}{
		"self loop":      {[][]int32{{0}, {}}, [][]float64{{1}, {}}, 0.9, 0.1},
		"out of range":   {[][]int32{{2}, {}}, [][]float64{{1}, {}}, 0.9, 0.1},
		"negative":       {[][]int32{{1}, {}}, [][]float64{{-1}, {}}, 0.9, 0.1},
		"NaN weight":     {[][]int32{{1}, {}}, [][]float64{{math.NaN()}, {}}, 0.9, 0.1},
		"ragged":         {[][]int32{{1}, {}}, [][]float64{{1, 1}, {}}, 0.9, 0.1},
		"rows":           {[][]int32{{1}, {}}, [][]float64{{1}}, 0.9, 0.1},
		"zero prior":     {[][]int32{{1}, {}}, [][]float64{{1}, {}}, 0, 0},
		"negative prior": {[][]int32{{1}, {}}, [][]float64{{1}, {}}, -1, 0.1},
	} {
		if _, err := NewModel(tc.nbr, tc.w, tc.a0, tc.a1); err == nil {
			t.Errorf("%s: NewModel accepted a bad graph", name)
		}
	}
}
