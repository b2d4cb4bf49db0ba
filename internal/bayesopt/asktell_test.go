package bayesopt

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestEngineAskTellErrors: the state machine refuses out-of-order calls.
func TestEngineAskTellErrors(t *testing.T) {
	e, err := NewEngine(&bumps{d: 2}, smallSettings(MethodTuRBO), RunID{Seed: 1, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Ask(context.Background(), 3, nil); err == nil || !strings.Contains(err.Error(), "initial design") {
		t.Errorf("Ask before the initial design: %v", err)
	}
	init := e.InitialDesign()
	for i := range init {
		init[i].Value = 1
	}
	bad := append([]Evaluation(nil), init...)
	bad[2] = Evaluation{Iteration: 1, Region: -1, X: init[2].X}
	if err := e.Tell(bad); err == nil || !strings.Contains(err.Error(), "evaluation 3 is of iteration 1, expected 0") {
		t.Errorf("wrong iteration: %v", err)
	}
	bad[2] = Evaluation{Region: -1, X: []float64{5, 0}, Value: 1}
	if err := e.Tell(bad); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("point outside the box: %v", err)
	}
	bad[2] = Evaluation{Region: 3, X: init[2].X, Value: 1}
	if err := e.Tell(bad); err == nil || !strings.Contains(err.Error(), "region 3") {
		t.Errorf("region out of range: %v", err)
	}
	// 1e308 is finite but overflows the GP's standardisation (the audit's
	// qVS-greedy panic); NaN is not a value at all.
	for _, v := range []float64{1e308, -2 * maxAbsObjective, math.NaN(), math.Inf(1)} {
		bad[2] = Evaluation{Region: -1, X: init[2].X, Value: v}
		if err := e.Tell(bad); err == nil || !strings.Contains(err.Error(), "evaluation 3: value") {
			t.Errorf("value %v: %v", v, err)
		}
	}
	if e.Evaluations() != 0 {
		t.Fatal("a refused Tell changed the state")
	}
	if err := e.Tell(init); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Ask(context.Background(), 0, nil); err == nil {
		t.Error("Ask(0): no error")
	}
}

// TestProposeQVSIsGreedy: the qvs batch is the greedy qVS_q maximiser over
// the candidates it considered (each region's top-b by its sample), checked
// by brute force: at every step the pick maximises mean quality × VS_q of
// the pending prefix, the picks so far and the candidate, computed from
// scratch with vendi.QualityWeighted.
func TestProposeQVSIsGreedy(t *testing.T) {
	const d, M, nc, b = 2, 3, 12, 4
	for _, q := range []vendi.Order{0.5, 1, 2, vendi.OrderInf} {
		for _, withPending := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(7, uint64(q*10)))
			s := smallSettings(MethodQVS)
			s.Q, s.Regions, s.Batch = q, M, b
			obj := &bumps{d: d}
			r, err := newRunner(obj, s, RunID{})
			if err != nil {
				t.Fatal(err)
			}
			models := make([]regionModel, M)
			for m := range models {
				cand := mat.NewDense(nc, d, nil)
				sample := make([]float64, nc)
				for i := 0; i < nc; i++ {
					cand.Set(i, 0, rng.Float64())
					cand.Set(i, 1, rng.Float64())
					sample[i] = rng.NormFloat64()
				}
				models[m] = regionModel{cand: cand, samples: [][]float64{sample}}
			}
			var pending [][]float64
			if withPending {
				pending = [][]float64{r.unitToX([]float64{0.5, 0.5}), r.unitToX([]float64{0.1, 0.9})}
			}
			props, regions, err := r.proposeQVS(models, b, pending, newPointSet())
			if err != nil {
				t.Fatal(err)
			}
			// Brute force over the same pool.
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, mod := range models {
				for _, v := range mod.samples[0] {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			type item struct {
				x    []float64
				qual float64
				m    int
			}
			var pool []item
			for m, mod := range models {
				for _, i := range descending(mod.samples[0])[:b] {
					pool = append(pool, item{r.unitToX(mod.cand.RawRowView(i)), (mod.samples[0][i] - lo) / (hi - lo), m})
				}
			}
			var chosen []item
			for _, x := range pending {
				chosen = append(chosen, item{x, 1, -1})
			}
			used := make([]bool, len(pool))
			for step := 0; step < b; step++ {
				best, bestV := -1, math.Inf(-1)
				for c, it := range pool {
					if used[c] {
						continue
					}
					set := append(append([]item(nil), chosen...), it)
					K := mat.NewSymDense(len(set), nil)
					qual := make([]float64, len(set))
					for a := range set {
						qual[a] = set[a].qual
						for bb := a; bb < len(set); bb++ {
							K.SetSym(a, bb, similarity(obj.Distance(set[a].x, set[bb].x)))
						}
					}
					v, err := vendi.QualityWeighted(K, qual, q)
					if err != nil {
						t.Fatal(err)
					}
					if v > bestV+1e-12 { // ties: the lower index, as vendi.Greedy
						best, bestV = c, v
					}
				}
				used[best] = true
				chosen = append(chosen, pool[best])
				got := r.unitToX(props[step])
				for j := range got {
					if got[j] != pool[best].x[j] || regions[step] != pool[best].m {
						t.Fatalf("q = %v, pending %v, step %d: picked %v (region %d), brute force %v (region %d)", q, withPending, step, got, regions[step], pool[best].x, pool[best].m)
					}
				}
			}
		}
	}
}

// TestAskPendingAndRegionOf: pending points are never proposed again and
// ROBOT keeps tau from them; RegionOf finds the region a proposal came from.
func TestAskPendingAndRegionOf(t *testing.T) {
	for _, method := range []string{MethodTuRBO, MethodROBOT, MethodQVS} {
		s := smallSettings(method)
		e, err := NewEngine(&bumps{d: 2}, s, RunID{Seed: 3, Key: method})
		if err != nil {
			t.Fatal(err)
		}
		init := e.InitialDesign()
		obj := &bumps{d: 2}
		for i := range init {
			init[i].Value = obj.value(init[i].X)
		}
		if err := e.Tell(init); err != nil {
			t.Fatal(err)
		}
		plain, err := e.Ask(context.Background(), s.Batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending := [][]float64{plain[0].X, plain[1].X}
		next, err := e.Ask(context.Background(), s.Batch, pending)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range next {
			for _, x := range pending {
				if dist(p.X, x) == 0 {
					t.Errorf("%s: proposed pending point %v again", method, x)
				}
				if method == MethodROBOT && obj.Distance(p.X, x) < s.Tau {
					t.Errorf("robot: proposal %v within tau of pending %v", p.X, x)
				}
			}
		}
		if method == MethodTuRBO {
			for _, p := range plain {
				// A TuRBO proposal lies in its region's box; RegionOf may
				// name another region only if that box holds it too.
				if got := e.RegionOf(p.X); got < 0 {
					t.Errorf("RegionOf(%v) = -1 for a point proposed by region %d", p.X, p.Region)
				}
			}
		}
	}
}
