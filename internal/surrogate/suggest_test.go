package surrogate

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// scoredPool is a pool of n fingerprints and a score for every item (a
// smooth function of a few bits plus noise), with the first m items of a
// random order scored.
func scoredPool(seed uint64, n, m int) (*datasets.Pool, []int, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	pool := randomPool(rng, n, 0.25)
	truth := make([]float64, n)
	for i := range truth {
		w := pool.Bits[i][0]
		truth[i] = float64((w&0xf)+(w>>4&0x7)) + 0.3*rng.NormFloat64()
	}
	obs := rng.Perm(n)[:m]
	y := make([]float64, m)
	for k, i := range obs {
		y[k] = truth[i]
	}
	return pool, obs, y, truth
}

// bruteGreedy is greedy qVS_q by brute force: each step adds the candidate
// maximising mean quality × VS_q of prefix ∪ picks ∪ {c} (testutil.BruteVS
// on the kernel's submatrix), ties within vendi.TieTol to the lowest index.
func bruteGreedy(k vendi.Kernel, quality []float64, prefix, cand []int, b int, q float64) []int {
	set := append([]int(nil), prefix...)
	var picks []int
	used := map[int]bool{}
	for t := 0; t < b; t++ {
		best, bestV := -1, math.Inf(-1)
		for _, c := range cand {
			if used[c] {
				continue
			}
			s := append(append([]int(nil), set...), c)
			var mq float64
			for _, i := range s {
				mq += quality[i]
			}
			v := mq / float64(len(s)) * testutil.BruteVS(vendi.Submatrix(k, s), q)
			if best < 0 || v > bestV+vendi.TieTol*math.Abs(bestV) || (math.Abs(v-bestV) <= vendi.TieTol*math.Abs(bestV) && c < best) {
				best, bestV = c, v
			}
		}
		used[best] = true
		set = append(set, best)
		picks = append(picks, best)
	}
	return picks
}

// The qvs batch is brute-force greedy qVS over the candidates (all free
// items here) with the acquisition's qualities and the diversity kernel.
func TestQVSBatchMatchesBruteGreedy(t *testing.T) {
	for _, c := range []struct {
		acq, div string
		q        vendi.Order
		pending  []int
	}{
		{acqUCB, diversityKNN, 1, nil},
		{acqPHit, diversityDense, 1, nil},
		{acqEI, diversityDense, 2, nil},
		{acqUCB, diversityDense, 2, nil},
		{acqPHit, diversityDense, 2, nil},
		{acqUCB, diversityDense, vendi.OrderInf, nil},
		{acqMean, diversityKNN, 0.5, nil},
	} {
		pool, obs, y, _ := scoredPool(7, 30, 10)
		free := []int{}
		scored := map[int]bool{}
		for _, i := range obs {
			scored[i] = true
		}
		for i := 0; i < 30; i++ {
			if !scored[i] {
				free = append(free, i)
			}
		}
		pending := free[:2]
		free = free[2:]
		req := Request{Observed: obs, Values: y, Pending: pending, Batch: 4, Acquisition: c.acq, Q: c.q, Diversity: c.div, History: historyNone, DiversityK: 4, Candidates: len(free), Seed: 3, Workers: 2}
		res, err := Suggest(context.Background(), pool, req)
		if err != nil {
			t.Fatal(err)
		}
		// the same pieces, composed by hand
		kern := newTanimotoKernel(pool.Bits)
		m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: defaultMaxExact, inducing: 10, fitSubset: defaultFitSubset, seed: 3, workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		tau := hitThreshold(y, Request{HitTopFraction: DefaultHitTopFraction})
		a := acquirer{kind: c.acq, sqrtBeta: 1, tau: (tau - m.YMean) / m.YScale, best: (maxOf(y) - m.YMean) / m.YScale, sdMax: math.Sqrt(m.Hyper.SignalVar)}
		members := append(append([]int(nil), pending...), free...)
		mu, sd := make([]float64, len(members)), make([]float64, len(members))
		m.Predict(members, mu, sd)
		acq := make([]float64, len(members))
		for i := range acq {
			acq[i] = a.value(mu[i], sd[i])
		}
		quality := a.quality(acq)
		K, err := diversityKernel(c.div, gram(kern, members, 1), len(members), 4)
		if err != nil {
			t.Fatal(err)
		}
		cand := make([]int, len(free))
		for i := range cand {
			cand[i] = len(pending) + i
		}
		want := bruteGreedy(K, quality, []int{0, 1}, cand, 4, float64(c.q))
		for i, w := range want {
			want[i] = members[w]
		}
		if !slices.Equal(res.Picks, want) {
			t.Errorf("%s %s q=%v: picks %v, brute force %v", c.acq, c.div, c.q, res.Picks, want)
		}
		// Values: qVS_q of the pending items and the picks so far, by brute force.
		pos := map[int]int{}
		for p, i := range members {
			pos[i] = p
		}
		set := []int{0, 1}
		for k, x := range res.Picks {
			set = append(set, pos[x])
			var mq float64
			for _, p := range set {
				mq += quality[p]
			}
			v := mq / float64(len(set)) * testutil.BruteVS(vendi.Submatrix(K, set), float64(c.q))
			if math.Abs(res.Values[k]-v) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("%s %s q=%v: value %d = %v, brute force %v", c.acq, c.div, c.q, k, res.Values[k], v)
			}
		}
	}
}

// shortlist returns the exact top C by acquisition, computing fewer sds
// than items when the bound allows.
func TestShortlistIsExactTop(t *testing.T) {
	// 200 labels: one block of the sd's solve; 601: three (solveBlock),
	// whose per-row results must not depend on the rows solved together
	for _, labels := range []int{200, 601} {
		testShortlistIsExactTop(t, labels)
	}
}

func testShortlistIsExactTop(t *testing.T, labels int) {
	pool, obs, y, _ := scoredPool(11, 3000, labels)
	kern := newTanimotoKernel(pool.Bits)
	m, err := fit(context.Background(), kern, obs, y, fitOptions{maxExact: 1000, inducing: 100, fitSubset: 600, workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Form != formExact {
		t.Fatalf("form %s", m.Form)
	}
	scored := map[int]bool{}
	for _, i := range obs {
		scored[i] = true
	}
	var free []int
	for i := 0; i < pool.Len(); i++ {
		if !scored[i] {
			free = append(free, i)
		}
	}
	mu, sd := make([]float64, len(free)), make([]float64, len(free))
	m.Predict(free, mu, sd)
	for _, kind := range []string{acqUCB, acqEI, acqPHit, acqMean} {
		a := acquirer{kind: kind, sqrtBeta: 1, tau: 1, best: 1.5, sdMax: math.Sqrt(m.Hyper.SignalVar)}
		all := make([]float64, len(free))
		for i := range all {
			all[i] = a.value(mu[i], sd[i])
		}
		for _, C := range []int{1, 50, 400} {
			want := topK(free, all, C)
			got, vals, evaluated := shortlist(m, a, free, C, len(free))
			if !slices.Equal(got, want) {
				t.Errorf("%d labels %s C=%d: shortlist %v..., full ranking %v...", labels, kind, C, got[:min(5, C)], want[:min(5, C)])
			}
			if kind == acqUCB && C == 50 && evaluated > C+shortlistStep {
				t.Errorf("%d labels ucb C=50: %d sds computed, the bound should stop within one step", labels, evaluated)
			}
			for t2, i := range got {
				if k := slices.Index(free, i); vals[t2] != all[k] {
					t.Fatalf("%s: acquisition of %d = %v, want %v", kind, i, vals[t2], all[k])
				}
			}
		}
	}
}

// acquirer.bound bounds the acquisition at every sd up to the prior's.
func TestAcquisitionBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	for _, kind := range Acquisitions {
		a := acquirer{kind: kind, sqrtBeta: 1.3, tau: 0.4, best: 0.9, sdMax: 0.8}
		for range 10000 {
			mu, sd := 3*rng.NormFloat64(), 0.8*rng.Float64()
			if v, b := a.value(mu, sd), a.bound(mu); v > b {
				t.Fatalf("%s: value(%v, %v) = %v above bound %v", kind, mu, sd, v, b)
			}
		}
	}
}

func TestMinimizeIsNegation(t *testing.T) {
	pool, obs, y, _ := scoredPool(13, 200, 40)
	neg := make([]float64, len(y))
	for i, v := range y {
		neg[i] = -v
	}
	for _, method := range []string{MethodQVS, MethodGreedy, MethodTop} {
		a, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 5, Method: method, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: neg, Minimize: true, Batch: 5, Method: method, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Picks, b.Picks) {
			t.Fatalf("%s: picks %v, minimising the negated scores %v", method, a.Picks, b.Picks)
		}
		for i := range a.Picks {
			if math.Abs(a.Mean[i]+b.Mean[i]) > 1e-9 || math.Abs(a.SD[i]-b.SD[i]) > 1e-9 || math.Abs(a.Acquisition[i]+b.Acquisition[i]) > 1e-9 {
				t.Errorf("%s pick %d: mean %v sd %v acq %v; minimised: %v %v %v", method, i, a.Mean[i], a.SD[i], a.Acquisition[i], b.Mean[i], b.SD[i], b.Acquisition[i])
			}
		}
		if a.HitThreshold != -b.HitThreshold || a.Hits != b.Hits {
			t.Errorf("hit threshold %v (%d hits), minimised %v (%d)", a.HitThreshold, a.Hits, b.HitThreshold, b.Hits)
		}
	}
}

// Failed measurements are neither fitted nor suggested.
func TestFailedValues(t *testing.T) {
	pool, obs, y, _ := scoredPool(17, 200, 40)
	withFailed := append([]float64(nil), y...)
	for k := 0; k < 40; k += 4 {
		withFailed[k] = math.NaN()
	}
	var okObs []int
	var okY []float64
	for k := range obs {
		if !math.IsNaN(withFailed[k]) {
			okObs = append(okObs, obs[k])
			okY = append(okY, y[k])
		}
	}
	a, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: withFailed, Batch: 160, Method: MethodGreedy, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Suggest(context.Background(), pool, Request{Observed: okObs, Values: okY, Batch: 5, Method: MethodGreedy, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hyper != b.Hyper || a.Failed != 10 || a.Scored != 30 {
		t.Errorf("with failures: %+v (%d failed, %d scored); without: %+v", a.Hyper, a.Failed, a.Scored, b.Hyper)
	}
	for k := 0; k < 40; k += 4 {
		if slices.Contains(a.Picks, obs[k]) {
			t.Errorf("failed item %d suggested", obs[k])
		}
	}
	if _, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: withFailed, Batch: 161, Seed: 1}); err == nil {
		t.Error("a batch larger than the items neither scored nor failed was accepted")
	}
	// Only failures: a cold start, the most diverse batch of random candidates.
	all := make([]float64, 40)
	for i := range all {
		all[i] = math.NaN()
	}
	c, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: all, Batch: 3, Seed: 1})
	if err != nil || !c.ColdStart || len(c.Picks) != 3 {
		t.Fatalf("cold start: %+v, %v", c, err)
	}
}

func TestGreedyIsTopMean(t *testing.T) {
	pool, obs, y, _ := scoredPool(19, 300, 50)
	res, err := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 7, Method: MethodGreedy})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := fit(context.Background(), newTanimotoKernel(pool.Bits), obs, y, fitOptions{maxExact: defaultMaxExact, inducing: 50, fitSubset: defaultFitSubset, workers: 1})
	scored := map[int]bool{}
	for _, i := range obs {
		scored[i] = true
	}
	var free []int
	for i := 0; i < 300; i++ {
		if !scored[i] {
			free = append(free, i)
		}
	}
	mu := make([]float64, len(free))
	m.Predict(free, mu, nil)
	if want := topK(free, mu, 7); !slices.Equal(res.Picks, want) {
		t.Errorf("greedy %v, top posterior means %v", res.Picks, want)
	}
	for i := 1; i < len(res.Mean); i++ {
		if res.Mean[i] > res.Mean[i-1] {
			t.Errorf("means not decreasing: %v", res.Mean)
		}
	}
}

func TestRandomReproducible(t *testing.T) {
	pool, obs, y, _ := scoredPool(23, 100, 10)
	a, _ := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 5, Method: MethodRandom, Seed: 4})
	b, _ := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 5, Method: MethodRandom, Seed: 4})
	c, _ := Suggest(context.Background(), pool, Request{Observed: obs, Values: y, Batch: 5, Method: MethodRandom, Seed: 5})
	if !slices.Equal(a.Picks, b.Picks) || slices.Equal(a.Picks, c.Picks) {
		t.Errorf("seed 4: %v and %v; seed 5: %v", a.Picks, b.Picks, c.Picks)
	}
}

func TestRequestErrors(t *testing.T) {
	pool, obs, y, _ := scoredPool(29, 50, 10)
	for name, req := range map[string]Request{
		"length":      {Observed: obs, Values: y[:3], Batch: 1},
		"range":       {Observed: []int{50}, Values: []float64{1}, Batch: 1},
		"twice":       {Observed: []int{1, 1}, Values: []float64{1, 2}, Batch: 1},
		"inf":         {Observed: []int{1}, Values: []float64{math.Inf(1)}, Batch: 1},
		"pending":     {Observed: obs, Values: y, Pending: []int{obs[0]}, Batch: 1},
		"batch":       {Observed: obs, Values: y, Batch: 41},
		"method":      {Observed: obs, Values: y, Batch: 1, Method: "ens"},
		"acquisition": {Observed: obs, Values: y, Batch: 1, Acquisition: "pi"},
		"kernel":      {Observed: obs, Values: y, Batch: 1, Kernel: "rbf"},
		"diversity":   {Observed: obs, Values: y, Batch: 1, Diversity: "graph"},
		"fraction":    {Observed: obs, Values: y, Batch: 1, HitTopFraction: 2},
		"history":     {Observed: obs, Values: y, Batch: 1, History: "some"},
	} {
		if _, err := Suggest(context.Background(), pool, req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
