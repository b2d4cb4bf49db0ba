package bayesopt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// trustRegionCandidates returns n Thompson-sampling candidates (rows, in the
// unit cube) for the trust region centred at centre with side length (a
// fraction of the domain width): the box centre ± length/2 clipped to
// [0, 1]^d is filled with scrambled Sobol' points; each coordinate of a
// candidate takes the Sobol' value with probability min(20/d, 1) and keeps
// the centre's value otherwise, and a candidate with no perturbed coordinate
// gets one, chosen uniformly among all d (TuRBO's perturbation mask; the
// original draws it among the first d-1 only).
func trustRegionCandidates(centre []float64, length float64, n int, rng *rand.Rand) (*mat.Dense, error) {
	d := len(centre)
	sob, err := NewSobol(d)
	if err != nil {
		return nil, fmt.Errorf("trust-region candidates: %w", err)
	}
	sob.Scramble(rng)
	pts := sob.Points(n)
	lo, hi := make([]float64, d), make([]float64, d)
	for i, c := range centre {
		lo[i] = math.Max(c-length/2, 0)
		hi[i] = math.Min(c+length/2, 1)
	}
	prob := math.Min(20/float64(d), 1)
	out := mat.NewDense(n, d, nil)
	mask := make([]bool, d)
	for r := 0; r < n; r++ {
		any := false
		for i := range mask {
			mask[i] = rng.Float64() < prob
			any = any || mask[i]
		}
		if !any {
			mask[rng.IntN(d)] = true
		}
		row := out.RawRowView(r)
		for i := range row {
			if mask[i] {
				row[i] = lo[i] + (hi[i]-lo[i])*pts[r][i]
			} else {
				row[i] = centre[i]
			}
		}
	}
	return out, nil
}

// descending returns the indices of v sorted by decreasing value (ties: lower
// index first; NaN last).
func descending(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		va, vb := v[idx[a]], v[idx[b]]
		if math.IsNaN(vb) {
			return !math.IsNaN(va)
		}
		return va > vb
	})
	return idx
}

// thompsonPicks picks one candidate per joint posterior sample: the argmax of
// samples[s] among candidates not yet picked and allowed (allowed may be nil;
// it is called lazily, at most once per candidate, in decreasing sample
// order, so an expensive feasibility test runs only where needed). A sample
// with no eligible candidate left picks nothing, so fewer than len(samples)
// indices may return.
func thompsonPicks(samples [][]float64, allowed func(i int) bool) []int {
	if len(samples) == 0 {
		return nil
	}
	n := len(samples[0])
	picked := make([]bool, n)
	verdict := make([]int8, n) // 0 unknown, 1 allowed, -1 not
	var out []int
	for _, s := range samples {
		for _, i := range descending(s) {
			if picked[i] {
				continue
			}
			if allowed != nil {
				if verdict[i] == 0 {
					verdict[i] = -1
					if allowed(i) {
						verdict[i] = 1
					}
				}
				if verdict[i] < 0 {
					continue
				}
			}
			picked[i] = true
			out = append(out, i)
			break
		}
	}
	return out
}
