package vendi

import (
	"math"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// # Lazy bounds: a candidate's increment only moves one way
//
// For 1 <= q <= 2 the sum Σ φ(μ) of the dual greedy (φ(t) = t log t at
// q = 1, t^q otherwise) changes monotonically, pick after pick, in the
// increment a candidate x brings:
//
//	I(C) = tr φ(C + x xᵀ) - tr φ(C)
//
// is nondecreasing in C (in the Loewner order). Proof: the derivative of I
// at C in a direction H ⪰ 0 is tr[(φ'(C + x xᵀ) - φ'(C)) H]; φ'(t) =
// log t + 1 (q = 1) and q t^(q-1) (1 < q <= 2) are operator monotone on
// (0, ∞) (Löwner–Heinz: log and t^s for 0 <= s <= 1), so
// φ'(C + x xᵀ) ⪰ φ'(C) and the trace with H ⪰ 0 is >= 0. (For a singular
// C, apply this to C + εI and let ε → 0: tr φ is continuous.) The chosen
// set's Gram C only grows by x_j x_jᵀ ⪰ 0 from one pick to the next, so I
// never decreases. Hence, if at an earlier pick (Gram C₀) a lower bound L
// on Σ φ(C₀ + x xᵀ) was known (any of the first-stage, tangent, diagonal
// or early-exit bounds, or the exact value), then now
//
//	Σ φ(C + x xᵀ) >= Σ φ(C) + (L - Σ φ(C₀)) = Σ φ(C) + D,
//
// with D the candidate's stored increment bound (lazyD, the best of all
// noted so far). (For 0 < q < 1 the same argument shows I nonincreasing,
// but t^q is not Lipschitz at 0: an eigenvalue at rounding level, 1e-15,
// adds 0.03 to Σ φ at q = 0.1, far above any margin, so the lazy bounds are
// not used there.) This is the submodularity argument of the lazy greedy
// (Minoux's accelerated greedy), here for the sum Σ φ rather than the
// score; the bound on Σ φ gives one on VS_q through vsBoundFromSum with the
// new total T = tr C + xᵀx. At n = 20,000 x 32 clustered rows the exact
// increments of the previous pick leave 1-9 candidates whose lazy bound
// reaches the best qVS (docs/performance.md).
//
// Rounding: the stored sums come from computed eigenvalues (the chosen
// set's, thresholded, and the candidates' roots or bounds), each within
// about d·eps of the exact ones, and a first-stage sum carries the
// first stage's own error; the lazy bound is therefore multiplied by
// 1 + cheapMargin (1e-6), the first stage's slack.

// dualLazy switches the lazy bounds on (tests compare against the pass
// without them).
var dualLazy = true

// newLazy returns the lazy increment bounds of a new dual state, all
// unknown (-∞), or nil where they are not used (q < 1, q > 2, ∞) or are
// switched off.
func (g *greedyState) newLazy() []float64 {
	q := float64(g.p.Q)
	if !dualLazy || !(q >= 1 && q <= 2) {
		return nil
	}
	D := make([]float64, g.n)
	for i := range D {
		D[i] = math.Inf(-1)
	}
	return D
}

// noteLazy tightens item c's increment bound with F, a lower bound on Σ φ
// of the chosen set plus c at the current pick. Safe from concurrent
// workers for distinct items.
func (g *greedyState) noteLazy(c int, F float64) {
	s := g.dual
	if s.lazyD == nil || math.IsNaN(F) {
		return
	}
	s.lazyD[c] = math.Max(s.lazyD[c], F-s.sumPhi)
}

// sumTerms is Σ φ over a computed spectrum, every root counted (Term is 0
// at and below 0): the exact sum noteLazy takes, without vsOfSpectrum's
// zeroTol cut, which is not a bound in either direction.
func (g *greedyState) sumTerms(eig []float64) float64 {
	var f float64
	for _, mu := range eig {
		f += g.p.Q.Term(mu)
	}
	return f
}

// lazyStage returns the indices k of cands whose lazy qVS bound reaches the
// exact qVS of a candidate with the largest one, less the tie tolerance
// (as reachCut): the others are strictly worse than that candidate, so the
// pick, tie rule and score are those of the full pass.
//
// At q = 1 a first pass needs no logarithm per candidate: with
// S = Σ q_i over the chosen set (> 0), t = tr C (> 0) and the candidate's
// quality q_c and xᵀx = a, log is concave, so log(S + q_c) <= log S + q_c/S
// and log(t + a) <= log t + a/t, and the log of the lazy bound,
//
//	log(S + q_c) - log(m + 1) + log(t + a) - (Σ φ(C) + D)/(t + a) + log(1 + slack),
//
// is at most the same with those tangents and log(1 + slack) <= slack
// (the slack of vsBoundFromSum and the lazy margin, largest at the largest
// t + a). Candidates below log(cut) there are below the cut; the rest are
// bounded exactly as at other orders.
func (g *greedyState) lazyStage(cands []int, weight func(int) float64, floor float64) (keep []int, unknown int) {
	s := g.dual
	if s.norm2 == nil {
		s.norm2 = make([]float64, g.n)
		parallel.Split(g.n, len(g.ws), 4096, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				s.norm2[i] = dotSelf(g.feat.Features(i))
			}
		})
		for _, a := range s.norm2 {
			if a > s.maxNorm2 {
				s.maxNorm2 = a
			}
		}
	}
	exact := func(c int) float64 {
		wt := weight(c)
		if !(wt > 0) {
			return 0 // the qVS is exactly 0 (and Inf * 0 would be NaN)
		}
		return wt * g.vsBoundFromSum(s.sumPhi+s.lazyD[c], s.tr+s.norm2[c]) * (1 + cheapMargin)
	}
	sumQ, tr := g.sumQ, s.tr
	if g.p.Q != 1 || !(sumQ > 0) || !(tr > 0) {
		bounds := make([]float64, len(cands))
		parallel.Split(len(cands), len(g.ws), 4096, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				bounds[k] = exact(cands[k])
			}
		})
		keep = g.reachCut(cands, bounds, weight, floor)
		return keep, g.countUnknown(cands, keep)
	}
	// The first pass: upper bounds on the log of every lazy bound (the
	// slack at the largest total of any item).
	Tmax := tr + s.maxNorm2
	base := math.Log(sumQ) - math.Log(float64(g.members()+1)) + math.Log(tr) +
		boundMargin + float64(s.d+1)*zeroTol*math.Max(0, math.Log(zeroTol*Tmax)) + cheapMargin
	if cap(s.logb) < len(cands) {
		s.logb = make([]float64, len(cands))
	}
	logb := s.logb[:len(cands)]
	parallel.Split(len(cands), len(g.ws), 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			c := cands[k]
			a := s.norm2[c]
			logb[k] = base + g.p.Quality[c]/sumQ + a/tr - (s.sumPhi+s.lazyD[c])/(tr+a)
		}
	})
	// The cut: the best exact qVS of the lazyCutSolves candidates with the
	// largest first-pass bounds (a stale bound at the top would otherwise
	// set a low cut; one solve is about 20 projections).
	top := topIndices(logb, lazyCutSolves)
	vals := make([]float64, len(top))
	parallel.Blocks(len(top), 1, len(g.ws), func(w, lo, _ int) {
		c := cands[top[lo]]
		vals[lo] = math.Inf(-1)
		if v, _ := g.dualExactItem(c, g.ws[w], nil); v >= floor {
			vals[lo] = weight(c) * v
		}
	})
	best := 0
	for i := range vals {
		if vals[i] > vals[best] {
			best = i
		}
	}
	cut := vals[best]
	cut -= TieTol * math.Abs(cut)
	logCut := math.Inf(-1)
	if cut > 0 {
		logCut = math.Log(cut)
	}
	for k, lb := range logb {
		if k == top[best] || (!(lb < logCut) && !(exact(cands[k]) < cut)) {
			keep = append(keep, k)
		}
	}
	return keep, g.countUnknown(cands, keep)
}

// countUnknown is the number of the kept candidates cands[k] without a
// lazy bound yet.
func (g *greedyState) countUnknown(cands, keep []int) int {
	n := 0
	for _, k := range keep {
		if math.IsInf(g.dual.lazyD[cands[k]], 0) {
			n++
		}
	}
	return n
}

// lazyCutSolves is the number of candidates lazyStage solves exactly for
// its cut.
const lazyCutSolves = 16

// topIndices returns the indices of the (at most) k largest values of v,
// NaN counted as largest, in no particular order. O(len(v)) plus O(k) per
// replacement of the smallest kept value.
func topIndices(v []float64, k int) []int {
	idx := make([]int, 0, k)
	low, lowVal := -1, math.Inf(1) // the kept index with the smallest value
	for i, x := range v {
		if math.IsNaN(x) {
			x = math.Inf(1)
		}
		switch {
		case len(idx) < k:
			idx = append(idx, i)
			if x < lowVal {
				low, lowVal = len(idx)-1, x
			}
			continue
		case !(x > lowVal):
			continue
		}
		idx[low] = i
		low, lowVal = 0, math.Inf(1)
		for j, t := range idx {
			y := v[t]
			if math.IsNaN(y) {
				y = math.Inf(1)
			}
			if y < lowVal {
				low, lowVal = j, y
			}
		}
	}
	return idx
}
