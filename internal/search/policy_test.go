package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// scoreTol bounds the difference between a policy's scores and the direct
// implementation: both sum at most a few hundred terms of order 1 in
// different orders, so they agree to ~1e-14; 1e-12 leaves margin.
const scoreTol = 1e-12

// directECI is ECI from its definition (Malkomes et al. 2021): the summed
// probability of the unlabelled, uncovered items of x's neighbourhood, where
// a neighbourhood is the item plus its neighbours with similarity > thr and
// covered = inside the neighbourhood of a labelled item.
func directECI(m *Model, thr float64, x int) float64 {
	hood := func(i int) []int {
		out := []int{i}
		nbr, w := m.Neighbors(i)
		for t, j := range nbr {
			if w[t] > thr {
				out = append(out, int(j))
			}
		}
		return out
	}
	covered := map[int]bool{}
	for l := 0; l < m.Len(); l++ {
		if m.Observed(l) {
			for _, j := range hood(l) {
				covered[j] = true
			}
		}
	}
	s := 0.0
	for _, j := range hood(x) {
		if !m.Observed(j) && !covered[j] {
			s += directProbability(m, j)
		}
	}
	return s
}

// directSELECT is SELECT's formula (Vanchinathan et al. 2015, with the kNN
// model's probability p and Bernoulli variance p(1-p)).
func directSELECT(m *Model, beta, lambda float64, x int) float64 {
	p := directProbability(m, x)
	v := p * (1 - p)
	return (1-lambda)*(p+beta*math.Sqrt(v)) + lambda/2*math.Log(1+v)
}

// directENS is ENS from its definition: fantasise each label of x on a copy
// of the model, recompute every probability from scratch, sort and sum the
// k largest.
func directENS(m *Model, k, x int) float64 {
	p := directProbability(m, x)
	var T [2]float64
	for y := 0; y < 2; y++ {
		c := m.Clone()
		c.Observe(x, y == 1)
		var vals []float64
		for j := 0; j < c.Len(); j++ {
			if !c.Observed(j) {
				vals = append(vals, directProbability(c, j))
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(vals)))
		for _, v := range vals[:min(k, len(vals))] {
			T[y] += v
		}
	}
	return p*(1+T[1]) + (1-p)*T[0]
}

// directBatch builds a batch greedily from a direct score with fantasised labels.
func directBatch(m *Model, b int, fantasy Fantasy, score func(c *Model, x int) float64) []int {
	c := m.Clone()
	var picks []int
	for len(picks) < b {
		x := directArgmax(c, func(x int) float64 { return score(c, x) })
		picks = append(picks, x)
		c.Observe(x, bool(fantasy))
	}
	return picks
}

func TestECIScoresAndBatchMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 40; trial++ {
		coarse := trial%2 == 0
		m := randomModel(t, rng, 40, 5, 1+rng.IntN(10), coarse)
		thr := []float64{0.25, 0.5, 0.75, 1.01}[trial%4]
		e := ECI{Threshold: thr, Fantasy: Fantasy(trial%3 == 0)}
		score := e.Scores(m, 1)
		for x := 0; x < m.Len(); x++ {
			if m.Observed(x) {
				if !math.IsInf(score[x], -1) {
					t.Fatalf("trial %d: labelled item %d scored %g", trial, x, score[x])
				}
				continue
			}
			if want := directECI(m, thr, x); math.Abs(score[x]-want) > scoreTol {
				t.Fatalf("trial %d: ECI(%d) = %.17g, definition %.17g", trial, x, score[x], want)
			}
		}
		if !coarse {
			continue // picks compared where sums are exact (coarse weights), ties included
		}
		got, err := e.Batch(&State{Model: m, Workers: 1}, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := directBatch(m, 5, e.Fantasy, func(c *Model, x int) float64 { return directECI(c, thr, x) })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%s): batch %v, direct %v", trial, e.Params(), got, want)
		}
	}
}

// equalFullPass fails unless score is bitwise ECI's full pass on fm.
func equalFullPass(t *testing.T, e ECI, fm *Model, score []float64, where string) {
	t.Helper()
	want := e.Scores(fm, 1)
	for x := range want {
		if math.Float64bits(score[x]) != math.Float64bits(want[x]) {
			t.Fatalf("%s: ECI(%d) = %.17g, full pass %.17g", where, x, score[x], want[x])
		}
	}
}

// TestECIIncrementalEqualsFullPass: before every pick of a batch, the
// incrementally updated scores are bitwise the scores of a full pass on the
// fantasised model, and the picks are those of recomputing every score
// after each fantasy (the previous implementation's definition), on random
// pools with continuous and coarse (tied) weights and every threshold.
func TestECIIncrementalEqualsFullPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := 0; trial < 48; trial++ {
		coarse := trial%2 == 0
		m := randomModel(t, rng, 200+rng.IntN(300), 4+rng.IntN(12), 1+rng.IntN(30), coarse)
		e := ECI{Threshold: []float64{0, 0.25, 0.5, 0.75, 0.9, 1}[trial%6], Fantasy: Fantasy(trial%4 < 2)}
		const b = 8
		checks := 0
		got, err := e.batch(&State{Model: m, Workers: 1 + trial%2}, b, func(fm *Model, score []float64) {
			checks++
			equalFullPass(t, e, fm, score, fmt.Sprintf("trial %d pick %d", trial, checks))
		})
		if err != nil {
			t.Fatal(err)
		}
		if checks != b {
			t.Fatalf("trial %d: %d score checks, want %d", trial, checks, b)
		}
		c := m.Clone()
		var want []int
		for len(want) < b {
			x, err := argmaxUnobserved(e.Scores(c, 1), c)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, x)
			c.Observe(x, bool(e.Fantasy))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%s): batch %v, recomputed %v", trial, e.Params(), got, want)
		}
	}
}

// TestECICarryEqualsFreshBatch runs batches of a search with a Carry, as
// Run does, observing each batch with random labels (and sometimes more
// items), and checks that before every pick the scores are bitwise those of
// a full pass and that the batches equal those computed without a Carry;
// one Carry also serves two thresholds in turn (its memo must not fit the
// other) and, in some batches, another state on the same graph.
func TestECICarryEqualsFreshBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 16; trial++ {
		var m *Model
		if trial%2 == 0 {
			m = randomModel(t, rng, 300+rng.IntN(300), 4+rng.IntN(12), 1+rng.IntN(10), trial%4 == 0)
		} else {
			m = ringModel(t, rng, 300+rng.IntN(300), 6+rng.IntN(20), trial%4 == 1)
		}
		other := m.Clone() // the same graph in another state
		for extra := 0; extra < 20; extra++ {
			if x := rng.IntN(other.Len()); !other.Observed(x) {
				other.Observe(x, rng.IntN(2) == 0)
			}
		}
		carry := &Carry{}
		thresholds := []float64{[]float64{0.25, 0.5, 0.75}[trial%3]}
		if trial%4 == 3 {
			thresholds = append(thresholds, 0.9)
		}
		for batch := 0; batch < 12; batch++ {
			e := ECI{Threshold: thresholds[batch%len(thresholds)], Fantasy: Fantasy(trial%2 == 0)}
			pool := m
			if trial%5 == 4 && batch%3 == 2 {
				pool = other
			}
			st := &State{Model: pool, Workers: 1, Carry: carry}
			got, err := e.batch(st, 5, func(fm *Model, score []float64) {
				equalFullPass(t, e, fm, score, fmt.Sprintf("trial %d batch %d", trial, batch))
			})
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.Batch(&State{Model: pool, Workers: 1}, 5)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d batch %d: carried batch %v, fresh %v", trial, batch, got, want)
			}
			for _, x := range got {
				pool.Observe(x, rng.IntN(3) == 0)
			}
			for extra := rng.IntN(3); extra > 0; extra-- {
				if x := rng.IntN(pool.Len()); !pool.Observed(x) {
					pool.Observe(x, rng.IntN(2) == 0)
				}
			}
		}
	}
}

// TestECIThresholdIsStrict: a neighbour exactly at the threshold is outside
// the neighbourhood, as in the authors' ExpectedCoverageImprovement
// (diverse_search/policies.py: cutoff = k - searchsorted(ascending
// similarities, threshold, side="right") keeps similarities > threshold).
// About 2 % of photoswitch edges sit exactly at 0.75.
func TestECIThresholdIsStrict(t *testing.T) {
	nbr := [][]int32{{1, 2}, nil, nil, {4, 5}, nil, nil}
	w := [][]float64{{0.75, 0.8}, nil, nil, {0.75, 0.9}, nil, nil}
	m, err := NewModel(nbr, w, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe(3, false)
	// Items 0, 1, 2, 4, 5 have no labelled neighbour in their own rows:
	// probability a1/(a0+a1) = 0.1. Item 3 covers 5 (0.9 > 0.75), not 4.
	e := ECI{Threshold: 0.75}
	score := e.Scores(m, 1)
	for x, want := range map[int]float64{
		0: 0.2, // itself and 2; 1 sits at the threshold (>= would give 0.3)
		4: 0.1, // not covered by 3 (>= would give 0)
		5: 0,   // covered by 3
		1: 0.1, // itself only
	} {
		if math.Abs(score[x]-want) > scoreTol {
			t.Errorf("ECI(%d) = %v, want %v", x, score[x], want)
		}
	}
}

func TestSELECTScoresAndBatchMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 24; trial++ {
		m := randomModel(t, rng, 40, 5, 1+rng.IntN(10), true)
		s := SELECT{Beta: []float64{0.1, 0.3, 1, 3}[trial%4], Lambda: []float64{0.25, 0.5, 0.75}[trial%3], Fantasy: Fantasy(trial%2 == 0)}
		score := s.Scores(m)
		for x := 0; x < m.Len(); x++ {
			if m.Observed(x) {
				continue
			}
			if want := directSELECT(m, s.Beta, s.Lambda, x); math.Abs(score[x]-want) > scoreTol {
				t.Fatalf("trial %d: SELECT(%d) = %.17g, definition %.17g", trial, x, score[x], want)
			}
		}
		got, err := s.Batch(&State{Model: m, Workers: 1}, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := directBatch(m, 5, s.Fantasy, func(c *Model, x int) float64 { return directSELECT(c, s.Beta, s.Lambda, x) })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%s): batch %v, direct %v", trial, s.Params(), got, want)
		}
	}
}

func TestENSScoresAndBatchMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 30; trial++ {
		coarse := trial%2 == 0
		n := 30 + rng.IntN(20)
		m := randomModel(t, rng, n, 1+rng.IntN(6), 1+rng.IntN(8), coarse)
		// Lookaheads from 0 (ENS = p) past the number of unlabelled items.
		k := []int{0, 1, 3, 10, 100}[trial%5]
		e := ens{Fantasy: Fantasy(trial%3 == 0)}
		score := e.Scores(m, k, 1+trial%2)
		for x := 0; x < m.Len(); x++ {
			if m.Observed(x) {
				continue
			}
			if want := directENS(m, k, x); math.Abs(score[x]-want) > scoreTol {
				t.Fatalf("trial %d k=%d: ENS(%d) = %.17g, definition %.17g", trial, k, x, score[x], want)
			}
		}
		if !coarse {
			continue
		}
		// With weights in quarters every sum is exact, so the contenders'
		// scores, rescored by the definition, must be bitwise equal to it.
		best := math.Inf(-1)
		for x, v := range score {
			if !m.Observed(x) {
				best = max(best, v)
			}
		}
		for x, v := range score {
			if !m.Observed(x) && v >= best-1e-9 && v != directENS(m, k, x) {
				t.Fatalf("trial %d k=%d: contender %d scored %.17g, definition %.17g", trial, k, x, v, directENS(m, k, x))
			}
		}
		const b = 4
		remaining := k + b + 1 // Horizon(remaining, b) = k
		got, err := e.Batch(&State{Model: m, Remaining: remaining, Workers: 1}, b)
		if err != nil {
			t.Fatal(err)
		}
		want := directBatch(m, b, e.Fantasy, func(c *Model, x int) float64 { return directENS(c, k, x) })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d k=%d: batch %v, direct %v", trial, k, got, want)
		}
	}
}

func TestENSLastBatchIsOneStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 60, 4, 6, true)
	want, err := oneStep{}.Batch(&State{Model: m}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, remaining := range []int{5, 3} {
		got, err := ens{}.Batch(&State{Model: m, Remaining: remaining, Workers: 1}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("remaining %d: ENS batch %v, one-step %v", remaining, got, want)
		}
	}
}

func TestOneStepTopProbabilitiesLowestIndexOnTies(t *testing.T) {
	// Items 0..9, no edges: all probabilities are the prior, so the lowest
	// unlabelled indices win; then item 7 gets a positive neighbour.
	nbr := make([][]int32, 10)
	w := make([][]float64, 10)
	nbr[7], w[7] = []int32{9}, []float64{1}
	m, err := NewModel(nbr, w, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe(1, false)
	got, err := oneStep{}.Batch(&State{Model: m}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 2, 3}; !slices.Equal(got, want) {
		t.Fatalf("one-step on ties = %v, want %v", got, want)
	}
	m.Observe(9, true)
	got, _ = oneStep{}.Batch(&State{Model: m}, 3)
	if want := []int{7, 0, 2}; !slices.Equal(got, want) {
		t.Fatalf("one-step = %v, want %v", got, want)
	}
}

func TestRandomPolicy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 13, 3, 3, false)
	counts := make([]int, m.Len())
	const draws, b = 3000, 3
	for d := 0; d < draws; d++ {
		got, err := random{}.Batch(&State{Model: m, RNG: rand.New(rand.NewPCG(uint64(d), 7))}, b)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, x := range got {
			if m.Observed(x) || seen[x] {
				t.Fatalf("draw %d: batch %v repeats or includes a labelled item", d, got)
			}
			seen[x] = true
			counts[x]++
		}
	}
	// Each of the 10 unlabelled items is drawn with probability 3/10 per
	// batch: mean 900, sd sqrt(3000*0.3*0.7) ~ 25; allow 5 sd.
	for x, c := range counts {
		if !m.Observed(x) && math.Abs(float64(c)-900) > 5*25 {
			t.Errorf("item %d drawn %d times, expected about 900", x, c)
		}
	}
	a, _ := random{}.Batch(&State{Model: m, RNG: rand.New(rand.NewPCG(5, 5))}, b)
	c, _ := random{}.Batch(&State{Model: m, RNG: rand.New(rand.NewPCG(5, 5))}, b)
	if !slices.Equal(a, c) {
		t.Fatalf("same generator gave %v and %v", a, c)
	}
}

func TestBatchSizeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 8, 2, 5, false)
	for _, p := range []Policy{random{}, oneStep{}, ECI{Threshold: 0.5}, SELECT{Beta: 1, Lambda: 0.5}, ens{}} {
		for _, b := range []int{0, 4} { // 3 items are unlabelled
			st := &State{Model: m, Remaining: 50, RNG: rand.New(rand.NewPCG(1, 2)), Workers: 1}
			if _, err := p.Batch(st, b); err == nil {
				t.Errorf("%s: batch of %d from 3 unlabelled items accepted", p.Name(), b)
			}
		}
		st := &State{Model: m, Remaining: 50, RNG: rand.New(rand.NewPCG(1, 2)), Workers: 1}
		got, err := p.Batch(st, 3)
		if err != nil || len(got) != 3 {
			t.Errorf("%s: batch of all 3 unlabelled items: %v, %v", p.Name(), got, err)
		}
	}
}

func ExampleSELECT_Score() {
	s := SELECT{Beta: 1, Lambda: 0.5}
	fmt.Printf("%.4f\n", s.Score(0.5))
	// (1-0.5)(0.5 + 1*0.5) + 0.25 log(1.25)
	// Output: 0.5558
}

// TestENSPruningKeepsPicks compares the bounded scan of Batch with scoring
// every candidate (Scores) on pools large enough for the bound to prune.
func TestENSPruningKeepsPicks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 4; trial++ {
		m := randomModel(t, rng, 3000, 8, 40, trial%2 == 0)
		e := ens{Fantasy: Fantasy(trial%2 == 1)}
		const b, k = 5, 60
		got, err := e.Batch(&State{Model: m, Remaining: k + b + 1, Workers: 2}, b)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Clone()
		var want []int
		for len(want) < b {
			x, err := argmaxUnobserved(e.Scores(c, k, 1), c)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, x)
			c.Observe(x, bool(e.Fantasy))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: pruned batch %v, full scoring %v", trial, got, want)
		}
	}
}

// TestENSUpperBound checks the pruning bound against the definition on
// random pools, including lookaheads beyond the pool and coarse weights
// (many ties at the top-k boundary).
func TestENSUpperBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const tol = 1e-12 // rounding of sums of order 1
	for trial := 0; trial < 40; trial++ {
		m := randomModel(t, rng, 30+rng.IntN(20), 1+rng.IntN(6), 1+rng.IntN(10), trial%2 == 0)
		k := []int{0, 1, 2, 5, 12, 100}[trial%6]
		tab := newENSTable(m)
		top := tab.prefix[min(k, len(tab.sorted))]
		sk := 0.0
		if k < len(tab.sorted) {
			sk = tab.sorted[k]
		}
		for x := 0; x < m.Len(); x++ {
			if m.Observed(x) {
				continue
			}
			if ub, v := tab.upperBound(x, k, top, sk), directENS(m, k, x); ub < v-tol {
				t.Fatalf("trial %d k=%d: bound %.17g below ENS(%d) = %.17g", trial, k, ub, x, v)
			}
		}
	}
}

// ringModel builds a pool on a ring where each item's neighbours are the
// items within deg/2 steps, weight exp(-d/10) (coarse: from {0.25, 0.5, 1}),
// with positives observed in runs and negatives scattered: the items around
// the positives have high probability and are each other's neighbours, so
// a candidate's reverse neighbours sit at the top of the ranking.
func ringModel(t testing.TB, rng *rand.Rand, n, deg int, coarse bool) *Model {
	t.Helper()
	nbr := make([][]int32, n)
	w := make([][]float64, n)
	for i := range nbr {
		for d := 1; d <= deg/2; d++ {
			v := math.Exp(-float64(d) / 10)
			if coarse {
				v = []float64{1, 0.5, 0.25}[min(d/4, 2)]
			}
			for _, j := range []int{(i + d) % n, (i - d + n) % n} {
				nbr[i] = append(nbr[i], int32(j))
				w[i] = append(w[i], v)
			}
		}
	}
	m, err := NewModel(nbr, w, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		base := rng.IntN(n)
		for s := 0; s < 5; s++ {
			if i := (base + 3*s) % n; !m.Observed(i) {
				m.Observe(i, true)
			}
		}
	}
	for c := 0; c < 10; c++ {
		if i := rng.IntN(n); !m.Observed(i) {
			m.Observe(i, false)
		}
	}
	return m
}

// TestENSFastPathsMatchFull checks the shortcuts of ENS's argmax against
// the full computations on random pools large enough for them to act: a
// candidate not marked by gainers has bitwise the bound of the full loop
// over its reverse neighbours; the fast score from changedTop's reduced
// lists is within rounding of the exact score; and Batch equals the greedy
// over exact scores of every candidate (lowest index on ties).
func TestENSFastPathsMatchFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	unmarked, reduced := 0, 0
	for trial := 0; trial < 36; trial++ {
		coarse := trial%2 == 0
		n := 500 + rng.IntN(1500)
		var m *Model
		if trial < 24 {
			m = randomModel(t, rng, n, 5+rng.IntN(25), 10+rng.IntN(50), coarse)
		} else {
			m = ringModel(t, rng, n, 10+rng.IntN(30), coarse)
		}
		k := []int{1, 3, 10, 40, 200, n + 5}[trial%6]
		e := ens{Fantasy: Fantasy(trial%4 < 2)}
		tab := newENSTable(m)
		top := tab.prefix[min(k, len(tab.sorted))]
		sk := 0.0
		if k < len(tab.sorted) {
			sk = tab.sorted[k]
		}
		gainer := tab.gainers(sk)
		var s ensScratch
		for x := 0; x < n; x++ {
			if m.Observed(x) {
				continue
			}
			if !gainer[x] {
				unmarked++
				if full, short := tab.upperBound(x, k, top, sk), tab.bound(x, k, top, sk, 0); math.Float64bits(full) != math.Float64bits(short) {
					t.Fatalf("trial %d k=%d: unmarked candidate %d has bound %.17g, full loop %.17g", trial, k, x, short, full)
				}
			}
			tab.changed(x, &s)
			all := len(s.removed) + len(s.newVals[0]) + len(s.newVals[1])
			tab.changedTop(x, k, &s)
			if len(s.removed)+len(s.newVals[0])+len(s.newVals[1]) < all {
				reduced++
			}
			fast, exact := e.candidateScore(tab, x, k, &s, false), e.candidateScore(tab, x, k, &s, true)
			if math.Abs(fast-exact) > scoreTol*(1+math.Abs(exact)) {
				t.Fatalf("trial %d k=%d: fast ENS(%d) = %.17g, exact %.17g", trial, k, x, fast, exact)
			}
		}
		const b = 5
		got, err := e.Batch(&State{Model: m, Remaining: k + b + 1, Workers: 1 + trial%2}, b)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Clone()
		var want []int
		for len(want) < b {
			ct := newENSTable(c)
			arg, best := -1, math.Inf(-1)
			for x := 0; x < n; x++ {
				if !c.Observed(x) {
					if v := e.candidateScore(ct, x, k, &s, true); v > best {
						arg, best = x, v
					}
				}
			}
			want = append(want, arg)
			c.Observe(arg, bool(e.Fantasy))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d k=%d: batch %v, exact greedy %v", trial, k, got, want)
		}
	}
	if unmarked == 0 || reduced == 0 {
		t.Fatalf("shortcuts not exercised: %d unmarked candidates, %d reduced lists", unmarked, reduced)
	}
	t.Logf("%d unmarked candidates, %d reduced lists", unmarked, reduced)
}

// TestENSTableObserveMatchesRebuild: after each fantasised pick the updated
// table is bitwise the table built from scratch on the updated model.
func TestENSTableObserveMatchesRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 4))
	for trial := 0; trial < 20; trial++ {
		n := 100 + rng.IntN(400)
		var m *Model
		if trial%2 == 0 {
			m = randomModel(t, rng, n, 3+rng.IntN(20), 5+rng.IntN(30), trial%4 == 0)
		} else {
			m = ringModel(t, rng, n, 6+rng.IntN(20), trial%4 == 1)
		}
		tab := newENSTable(m)
		for step := 0; step < 10; step++ {
			x := int(tab.order[rng.IntN(len(tab.order))])
			m.Observe(x, rng.IntN(2) == 0)
			tab.observe(x)
			want := newENSTable(m)
			if !slices.Equal(tab.order, want.order) {
				t.Fatalf("trial %d step %d: order %v, rebuilt %v", trial, step, tab.order, want.order)
			}
			for i := 0; i < n; i++ {
				if math.Float64bits(tab.p[i]) != math.Float64bits(want.p[i]) || !m.Observed(i) && tab.rank[i] != want.rank[i] {
					t.Fatalf("trial %d step %d: item %d has p %v rank %d, rebuilt p %v rank %d", trial, step, i, tab.p[i], tab.rank[i], want.p[i], want.rank[i])
				}
			}
			for r := range want.prefix {
				if math.Float64bits(tab.prefix[r]) != math.Float64bits(want.prefix[r]) || r < len(want.sorted) && math.Float64bits(tab.sorted[r]) != math.Float64bits(want.sorted[r]) {
					t.Fatalf("trial %d step %d: sorted/prefix differ at rank %d", trial, step, r)
				}
			}
			if len(tab.prefix) != len(want.prefix) || len(tab.sorted) != len(want.sorted) {
				t.Fatalf("trial %d step %d: %d sorted, rebuilt %d", trial, step, len(tab.sorted), len(want.sorted))
			}
		}
	}
}

// TestENSHugeHorizon: a horizon past the pool (--remaining
// 9223372036854775807) gives the batch and scores of any lookahead >= n,
// the definition's, instead of panicking in changedTop's k + in-degree.
func TestENSHugeHorizon(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	m := randomModel(t, rng, 40, 3, 5, true)
	for _, k := range []int{math.MaxInt, math.MaxInt - 3} {
		score := ens{}.Scores(m, k, 1)
		for x := 0; x < m.Len(); x++ {
			if !m.Observed(x) {
				if want := directENS(m, m.Len(), x); math.Abs(score[x]-want) > scoreTol {
					t.Fatalf("k=%d: ENS(%d) = %v, definition with k = n %v", k, x, score[x], want)
				}
			}
		}
	}
	got, err := ens{}.Batch(&State{Model: m, Remaining: math.MaxInt, Workers: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ens{}.Batch(&State{Model: m, Remaining: m.Len() + 4, Workers: 1}, 3)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("batch with remaining MaxInt %v, with k = n %v (%v)", got, want, err)
	}
}
