package bayesopt

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// failingThird is bumps (d = 2) whose experiments fail for x0 < 0: the
// first third of the box [-1, 2]^2, whose edge cuts the highest bump at
// (0, 1) in half.
type failingThird struct{ bumps }

func (f *failingThird) EvaluateBatch(_ context.Context, xs [][]float64) ([]float64, error) {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f.value(x)
		if x[0] < 0 {
			out[i] = math.NaN()
		}
	}
	return out, nil
}

// lateFailures runs method on failingThird (budget 60, batches of 5) for
// seeds and returns the failures among the last 30 evaluations, summed.
func lateFailures(t *testing.T, method string, seeds int) (late, total int) {
	t.Helper()
	for seed := 0; seed < seeds; seed++ {
		obj := &failingThird{bumps{d: 2}}
		s := Settings{Method: method, Q: 1, Budget: 60, Init: 10, Batch: 5, Regions: 3, Tau: 0.5, Candidates: 200, Final: finalBand}
		res, err := Optimize(context.Background(), obj, s, RunID{Seed: uint64(seed + 1), Key: method}, nil, func([]Evaluation) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range res.Evaluations {
			if e.Failed && i >= 30 {
				late++
			}
			total++
		}
	}
	return late, total
}

// TestFeasibilityLeavesFailingThird: with the feasibility model the
// failures among the last half of the evaluations fall to at most 10 %
// (3 seeds, qvs and turbo), and below what the failure radius alone leaves
// (the model switched off: about a third, as uniform sampling would).
func TestFeasibilityLeavesFailingThird(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 optimisations")
	}
	for _, method := range []string{MethodQVS, MethodTuRBO} {
		with, _ := lateFailures(t, method, 3)
		feasibilityOff = true
		without, _ := lateFailures(t, method, 3)
		feasibilityOff = false
		t.Logf("%s: failures among the last 30 of 3 runs: %d with the model, %d without", method, with, without)
		if with > 9 || with >= without {
			t.Errorf("%s: %d failures among the last 90 evaluations with the feasibility model (want <= 9 and < %d without it)", method, with, without)
		}
	}
}

// TestFeasibilityProb checks the classifier against hand computations: far
// from every evaluation p is the smoothed success rate p0 = (s+1)/(n+2);
// at one evaluation with every other far away it is (A·p0 + s_i)/(A + 1).
func TestFeasibilityProb(t *testing.T) {
	feats := [][]float64{{0, 0}, {1, 1}, {0, 1}}
	f := newFeasibility(feats, []bool{true, false, true})
	p0 := 3.0 / 5
	if got := f.Prob([]float64{100, 100}); math.Abs(got-p0) > 1e-12 {
		t.Errorf("far away: p = %v, want p0 = %v", got, p0)
	}
	// The bandwidth is at most 0.4·sqrt(2) = 0.57: the other points, at
	// distance >= 1, weigh at most exp(-1/0.64) = 0.2 each, so compute exactly.
	want := func(x []float64) float64 {
		num, den := feasibilityPriorWeight*p0, feasibilityPriorWeight
		for i, y := range feats {
			w := math.Exp(-sqDist(x, y) * f.inv2h)
			num += w * []float64{1, 0, 1}[i]
			den += w
		}
		return num / den
	}
	for _, x := range [][]float64{{1, 1}, {0, 0}, {0.5, 0.5}} {
		if got := f.Prob(x); math.Abs(got-want(x)) > 1e-12 {
			t.Errorf("p(%v) = %v, want %v", x, got, want(x))
		}
	}
	if f.Prob([]float64{1, 1}) >= p0 || f.Prob([]float64{0, 0}) <= p0 {
		t.Errorf("p at the failure %v, at a success %v: want below and above p0 = %v", f.Prob([]float64{1, 1}), f.Prob([]float64{0, 0}), p0)
	}
	// Leave-one-out picks the bandwidth: recompute each candidate's
	// log-likelihood by brute force and check the chosen one is the best.
	var fs [][]float64
	var ok []bool
	for i := 0; i < 10; i++ {
		fs = append(fs, []float64{float64(i) * 0.05, 0}, []float64{0.3 + float64(i)*0.05, 0.1})
		ok = append(ok, true, i%3 != 0)
	}
	g := newFeasibility(fs, ok)
	loo := func(h float64) float64 {
		ll := 0.0
		for i := range fs {
			sub := newFeasibility(nil, nil)
			sub.p0, sub.inv2h = g.p0, 1/(2*h*h)
			for j := range fs {
				if j != i {
					sub.feats = append(sub.feats, fs[j])
					sub.ok = append(sub.ok, map[bool]float64{true: 1, false: 0}[ok[j]])
				}
			}
			if p := sub.Prob(fs[i]); ok[i] {
				ll += math.Log(p)
			} else {
				ll += math.Log(1 - p)
			}
		}
		return ll
	}
	chosen := math.Sqrt(1 / (2 * g.inv2h))
	for _, frac := range feasibilityBandwidths {
		h := frac * math.Sqrt(2)
		if loo(h) > loo(chosen)+1e-9 {
			t.Errorf("bandwidth %v has LOO log-likelihood %v > the chosen %v's %v", h, loo(h), chosen, loo(chosen))
		}
	}
	if loo(feasibilityBandwidths[0]*math.Sqrt(2)) == loo(feasibilityBandwidths[len(feasibilityBandwidths)-1]*math.Sqrt(2)) {
		t.Error("degenerate case: every bandwidth fits alike")
	}
}

// TestFeasibilityManyEvaluations: beyond feasibilityMaxHeldOut evaluations
// the leave-one-out holds out a stride of them; the model still finds a
// failing band (x0 < 0.3 of a uniform 2-d sample of 1,500): a finite
// bandwidth, p below 0.1 inside the band and above 0.9 outside.
func TestFeasibilityManyEvaluations(t *testing.T) {
	var feats [][]float64
	var ok []bool
	for i := 0; i < 1500; i++ {
		// A deterministic low-discrepancy sample (R2 sequence).
		x := []float64{math.Mod(0.5+float64(i)*0.7548776662466927, 1), math.Mod(0.5+float64(i)*0.5698402909980532, 1)}
		feats = append(feats, x)
		ok = append(ok, x[0] >= 0.3)
	}
	f := newFeasibility(feats, ok)
	if f.inv2h == 0 {
		t.Fatal("infinite bandwidth for a sharp failing band")
	}
	if p := f.Prob([]float64{0.1, 0.5}); p > 0.1 {
		t.Errorf("p inside the failing band = %v", p)
	}
	if p := f.Prob([]float64{0.7, 0.5}); p < 0.9 {
		t.Errorf("p outside the failing band = %v", p)
	}
}

// TestFeasibilityBandwidthOnePass: the bandwidth newFeasibility chooses
// (all bandwidths' leave-one-out sums in one pass over the pairs) is the
// one of the direct transcription, one bandwidth at a time, bit for bit,
// on clustered and scattered failures, with and without the held-out
// stride.
func TestFeasibilityBandwidthOnePass(t *testing.T) {
	direct := func(feats [][]float64, ok []float64, p0 float64) float64 {
		n, D := len(feats), float64(len(feats[0]))
		step := max(1, (n+feasibilityMaxHeldOut-1)/feasibilityMaxHeldOut)
		best, out := math.Inf(-1), 0.0
		for _, frac := range feasibilityBandwidths {
			h := frac * math.Sqrt(D)
			inv := 1 / (2 * h * h)
			ll := 0.0
			for i := 0; i < n; i += step {
				num, den := feasibilityPriorWeight*p0, feasibilityPriorWeight
				for j := 0; j < n; j++ {
					if j != i {
						w := math.Exp(-sqDist(feats[i], feats[j]) * inv)
						num += w * ok[j]
						den += w
					}
				}
				if p := num / den; ok[i] == 1 {
					ll += math.Log(p)
				} else {
					ll += math.Log1p(-p)
				}
			}
			if ll > best {
				best, out = ll, inv
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(21, 4))
	chosen := map[float64]bool{}
	for trial := 0; trial < 12; trial++ {
		n, d := []int{40, 300, 1100}[trial%3], 1+trial%4
		feats := make([][]float64, n)
		success := make([]bool, n)
		for i := range feats {
			feats[i] = make([]float64, d)
			for j := range feats[i] {
				feats[i][j] = rng.Float64()
			}
			if trial%2 == 0 {
				success[i] = feats[i][0] < 0.6 // a failing region
			} else {
				success[i] = rng.IntN(4) > 0 // failures anywhere
			}
		}
		f := newFeasibility(feats, success)
		if want := direct(feats, f.ok, f.p0); math.Float64bits(f.inv2h) != math.Float64bits(want) {
			t.Errorf("trial %d (n %d, d %d): 1/(2h²) %v, direct %v", trial, n, d, f.inv2h, want)
		}
		chosen[f.inv2h] = true
	}
	if len(chosen) < 2 {
		t.Errorf("every trial chose the same bandwidth: the comparison is weak")
	}
}
