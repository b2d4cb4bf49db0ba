package surrogate

import (
	"math"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// greedyQ2 is vendi.Greedy for q = 2 on a positive semidefinite kernel with
// unit diagonal, in closed form and without the members' Gram matrix:
// VS_2(S) = (tr K_S)² / ‖K_S‖²_F = s² / F(S) (paper eq. 1 with Σ λ̄² =
// ‖K_S/s‖²_F), so eq. 2's
//
//	qVS_2(S) = (Σ_{i∈S} quality_i / s) · s² / F(S) = (Σ_{i∈S} quality_i) · s / F(S),
//
// and adding c to S gives F + 1 + 2 Σ_{j∈S} k(c, j)². Each candidate keeps
// its sum r_c = Σ_{j∈S} k(c, j)², updated with one kernel row per pick:
// O(picks × candidates) kernel values in all. Ties within vendi.TieTol go
// to the lowest member position, as in vendi.Greedy. members are pool items
// (the first len(prefix) of them the prefix, the rest the candidates);
// picks and values are as vendi.GreedyResult's, in member positions.
//
// history items (not members, never picked) enter the diversity term only:
// with them the value is the mean quality of the members in S times VS_2
// of S ∪ history, (Σ_{i∈S} quality_i / s) · (s+h)² / F(S ∪ history), which
// is the above when history is empty.
func greedyQ2(kern featureKernel, members []int, quality []float64, P, b int, history []int) (picks []int, values []float64) {
	L := len(members)
	r := make([]float64, L) // Σ_{j∈S ∪ history} k(c, j)²
	in := make([]bool, L)
	var Q, F float64
	s := 0 // members in S
	h := len(history)
	row := make([]float64, L)
	for a, x := range history {
		// F(history): 1 per item and twice each pair's k² (the history's
		// own Gram row up to a)
		var pair float64
		hrow := make([]float64, a)
		kern.Fill(x, history[:a], hrow)
		for _, v := range hrow {
			pair += v * v
		}
		F += 1 + 2*pair
		kern.Fill(x, members, row)
		for c, v := range row {
			r[c] += v * v
		}
	}
	add := func(m int) {
		kern.Fill(members[m], members, row)
		F += 1 + 2*r[m]
		Q += quality[m]
		s++
		in[m] = true
		for c, v := range row {
			r[c] += v * v
		}
	}
	value := func(c int) float64 {
		// h = 0: the factor (s+h+1)/(s+1) is exactly 1
		return (Q + quality[c]) * float64(s+h+1) / (F + 1 + 2*r[c]) * (float64(s+h+1) / float64(s+1))
	}
	return greedyLoop(L, P, b, in, value, add)
}

// greedyLoop adds the members 0..P-1 (the prefix), then makes b greedy
// picks among the members P..L-1 not in yet: each the member of largest
// value, ties within vendi.TieTol to the lowest position, recorded by add
// (which must set in). values are the picks' values.
func greedyLoop(L, P, b int, in []bool, value func(c int) float64, add func(m int)) (picks []int, values []float64) {
	for m := 0; m < P; m++ {
		add(m)
	}
	for t := 0; t < b; t++ {
		best, bestV := -1, math.Inf(-1)
		for c := P; c < L; c++ {
			if in[c] {
				continue
			}
			if v := value(c); best < 0 || v > bestV+vendi.TieTol*math.Abs(bestV) {
				best, bestV = c, v
			}
		}
		if best < 0 {
			break
		}
		add(best)
		picks = append(picks, best)
		values = append(values, bestV)
	}
	return picks, values
}
