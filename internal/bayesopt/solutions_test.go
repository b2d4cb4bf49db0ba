package bayesopt

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// bruteBand is SelectBand by brute force: sort, cut the band, then at each
// step the band member maximising mean(quality)·VS_q of the set, each set
// scored from scratch by vendi.Score (ties: the lower band position).
func bruteBand(t *testing.T, values []float64, sim func(i, j int) float64, m int, q vendi.Order, frac float64) []int {
	n := len(values)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpDesc(values[a], values[b]) })
	k := min(n, max(m, int(math.Ceil(frac*float64(n)))))
	band := order[:k]
	lo := math.Inf(-1)
	if k < n {
		lo = values[order[k]]
	}
	hi := values[band[0]]
	qual := func(i int) float64 {
		if math.IsInf(lo, -1) || hi == lo {
			return 1
		}
		return (values[i] - lo) / (hi - lo)
	}
	var set []int
	for len(set) < min(m, k) {
		best, bestV := -1, math.Inf(-1)
		for _, c := range band {
			if slices.Contains(set, c) {
				continue
			}
			try := append(slices.Clone(set), c)
			K := mat.NewSymDense(len(try), nil)
			mq := 0.0
			for a, i := range try {
				mq += qual(i) / float64(len(try))
				for b, j := range try[:a+1] {
					v := 1.0
					if a != b {
						v = sim(i, j)
					}
					K.SetSym(a, b, v)
				}
			}
			vs, err := vendi.Score(K, q)
			if err != nil {
				t.Fatal(err)
			}
			if v := mq * vs; v > bestV*(1+1e-9) {
				best, bestV = c, v
			}
		}
		set = append(set, best)
	}
	return set
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TestSelectBand: SelectBand equals the brute force on random problems,
// and no solution lies outside the band however diverse it is.
func TestSelectBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 40; trial++ {
		n := 3 + rng.IntN(40)
		values := make([]float64, n)
		xs := make([][]float64, n)
		for i := range values {
			values[i] = rng.NormFloat64() * 100
			xs[i] = []float64{rng.Float64() * 3, rng.Float64() * 3}
		}
		sim := func(i, j int) float64 { return similarity(dist(xs[i], xs[j])) }
		m := 1 + rng.IntN(4)
		q := []vendi.Order{0.5, 1, 2, vendi.OrderInf}[trial%4]
		frac := []float64{0.1, 0.3, 1}[trial%3]
		got, err := SelectBand(values, sim, m, q, frac)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteBand(t, values, sim, m, q, frac); !slices.Equal(got, want) {
			t.Errorf("trial %d (n %d, m %d, q %v, frac %v): %v, brute force %v", trial, n, m, q, frac, got, want)
		}
	}
	// Rosenbrock-like values: ten good points clustered, ninety far apart
	// and poor. The paper's greedy over all of them (min-max quality over
	// all) picks far, poor points; the band rule stays in the best tenth.
	var values []float64
	var xs [][]float64
	for i := 0; i < 100; i++ {
		if i < 10 {
			values = append(values, -float64(60+i))
			xs = append(xs, []float64{0.5 + 0.01*float64(i), 0.5})
		} else {
			values = append(values, -float64(1000*i))
			xs = append(xs, []float64{float64(i%10) * 0.3, float64(i/10) * 0.3})
		}
	}
	got, err := SelectBand(values, func(i, j int) float64 { return similarity(dist(xs[i], xs[j])) }, 3, 1, SolutionBandFraction)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range got {
		if i >= 10 {
			t.Errorf("solution %d (value %v) outside the best tenth", i, values[i])
		}
	}
	if got[0] != 0 {
		t.Errorf("first solution %d, want the best (0)", got[0])
	}
}

// TestSelectSolutionsSkipsFailed: failed evaluations are never solutions
// and indices refer to the full list.
func TestSelectSolutionsSkipsFailed(t *testing.T) {
	b := &bumps{d: 2}
	evs := []Evaluation{
		{X: []float64{0, 1}, Value: math.NaN(), Failed: true},
		{X: []float64{0.1, 0.9}, Value: 2},
		{X: []float64{1, 0}, Value: 1},
		{X: []float64{0.5, 0.5}, Value: math.NaN(), Failed: true},
	}
	got, err := SelectSolutions(b, evs, 3, 1)
	if err != nil || !slices.Equal(got, []int{1, 2}) {
		t.Errorf("%v %v, want [1 2]", got, err)
	}
	set, err := Summarise(b, evs, got)
	d := dist(evs[1].X, evs[2].X)
	// VS_1 of two points at similarity s: eigenvalues (1 ± s)/2, exp of
	// their entropy.
	s := math.Exp(-d * d / 2)
	l1, l2 := (1+s)/2, (1-s)/2
	want := math.Exp(-l1*math.Log(l1) - l2*math.Log(l2))
	if err != nil || math.Abs(set.VS-want) > 1e-12 || set.MeanValue != 1.5 || set.Distances[0][1] != d {
		t.Errorf("summary %+v %v; want VS %v", set, err, want)
	}
}
