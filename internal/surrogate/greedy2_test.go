package surrogate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vs2 is VS_2 = (tr K)²/‖K‖²_F of items' Gram matrix, by brute force.
func vs2(kern featureKernel, items []int) float64 {
	g := gram(kern, items, 1)
	var f float64
	for _, v := range g {
		f += v * v
	}
	n := float64(len(items))
	return n * n / f
}

// greedyQ2 with history items against brute force: each step adds the
// candidate maximising the mean quality of prefix ∪ picks ∪ {c} times VS_2
// of that set ∪ history (the Gram matrix's Frobenius norm), the first of
// ties; with an empty history this is qVS_2 itself. A history counted in
// the quality, or left out of F or s, changes the picks or values.
func TestGreedyQ2HistoryMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	pool := randomPool(rng, 40, 0.3)
	kern := newTanimotoKernel(pool.Bits)
	members := []int{3, 7, 0, 1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13}
	quality := make([]float64, len(members))
	for i := range quality {
		quality[i] = rng.Float64()
	}
	const P, b = 2, 5
	for _, history := range [][]int{nil, {20, 21, 22, 23, 24, 25, 26, 27}} {
		picks, values := greedyQ2(kern, members, quality, P, b, history)
		in := map[int]bool{0: true, 1: true}
		for step := 0; step < b; step++ {
			best, bestV := -1, math.Inf(-1)
			for c := P; c < len(members); c++ {
				if in[c] {
					continue
				}
				var set []int
				var q float64
				for m := range members {
					if in[m] || m == c {
						set = append(set, members[m])
						q += quality[m]
					}
				}
				v := q / float64(len(set)) * vs2(kern, append(set, history...))
				if v > bestV*(1+1e-12) {
					best, bestV = c, v
				}
			}
			if picks[step] != best || math.Abs(values[step]-bestV) > 1e-9*bestV {
				t.Errorf("history %v step %d: pick %d value %v, brute force %d %v", history, step, picks[step], values[step], best, bestV)
			}
			in[best] = true
		}
	}
}

// rankQuality: 1 for the largest, 0 for the smallest, ties share the
// better rank, equal steps of 1/(n-1).
func TestRankQuality(t *testing.T) {
	got := rankQuality([]float64{0.5, 3, -1, 3, 2})
	want := []float64{0.25, 1, 0, 1, 0.5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rankQuality: %v, want %v", got, want)
		}
	}
	if q := rankQuality([]float64{7}); q[0] != 1 {
		t.Errorf("one item: %v", q)
	}
}
