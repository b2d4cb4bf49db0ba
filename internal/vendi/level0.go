package vendi

// # Level 0: a bound on VS_1 from exact power sums and interlacing boxes
//
// The first bound of prune.go brackets every positive root of a candidate's
// arrowhead (O(r²) far sums, O(r) near sums a root). Level 0 needs no root
// at all. For a candidate c touching one block with eigenvalues d_1 <= ...
// <= d_r (ascending, repeated ones allowed), z = Uᵀ k_c and a = k(c, c), the
// r+1 eigenvalues μ_0 <= ... <= μ_r of M = [[diag(d), z], [zᵀ, a]] satisfy
//
//   - interlacing (Cauchy, for any bordered matrix): μ_0 <= d_1 <= μ_1 <=
//     d_2 <= ... <= d_r <= μ_r, and by Weyl (M = diag(d, a) + E, ‖E‖ = ‖z‖)
//     μ_0 >= min(d_1, a) - ‖z‖, μ_r <= max(d_r, a) + ‖z‖: root j lies in box
//     B_j, the interval between its neighbouring poles (the end boxes closed
//     by those two bounds);
//   - the traces: in the scaled variable y = (x - c)/s (ỹ_k = (d_k - c)/s,
//     ã = (a - c)/s, w̃_k = z_k²/s², W_q = Σ w̃_k ỹ_k^q), the eigenvalues of
//     (M - cI)/s are y(μ_j) and, expanding tr of its powers,
//     Σ y(μ)   = Σ ỹ + ã,
//     Σ y(μ)²  = Σ ỹ² + ã² + 2 W_0,
//     Σ y(μ)³  = Σ ỹ³ + ã³ + 3 (W_1 + ã W_0),
//     Σ y(μ)⁴  = Σ ỹ⁴ + 2 W_2 + W_0² + 2 (W_2 + 2ã W_1 + ã² W_0) + (W_0 + ã²)²
//     (the last is ‖(M-cI)²/s²‖_F²), O(r) per candidate.
//
// Weak duality. For any function o and multipliers λ_1..λ_4, with P(x) =
// Σ_q λ_q y(x)^q, Σ_j o(μ_j) = Σ_j [o(μ_j) - P(μ_j)] + Σ_q λ_q Σ_j y(μ_j)^q >=
// Σ_j min_{B_j} (o - P) + Σ_q λ_q M_q, M_q the power sums above: a certified
// lower bound for every λ, however it was chosen (level0Box bounds each box's
// minimum from below). Three objectives are bounded: o = x⁺ (so Σ μ⁺ >= D_0),
// o = -x⁺ (Σ μ⁺ <= -D_1) and o = φ(x⁺) - ν x⁺ with φ(t) = t log t (paper eq.
// 1's summand at q = 1), which gives Σ φ(μ⁺) >= D_2 + ν Σ μ⁺ for a fixed ν.
// With the untouched part (positive total pOther, φ-sum fo above the
// threshold), T = pOther + Σ μ⁺ ∈ [tLo, tHi] and f >= fo + D_2 + ν (T -
// pOther), so VS_1 = exp(log T - f/T) <= exp(h(T)), h(T) = log T - C/T - ν
// with C = fo + D_2 - ν pOther; h' = (T + C)/T² changes sign at most once,
// from - to +, so h's maximum over [tLo, tHi] is at an end. Eigenvalues in
// (0, thr] (thr = zeroTol·T < 1/e) are left out of the exact f but have φ <=
// 0, so the exact f is only larger; the untouched part's threshold is
// handled as in spectrumUpper (no bound if an untouched eigenvalue lies
// between the two thresholds).
//
// The multipliers. Every box except the two end boxes is the same for all
// candidates touching the block, so for each λ of a small library (per
// objective, the optima of the dual of a few candidates, level0Learn a
// block and pick, kept across picks in the scaled variable) the interior
// boxes' sum is computed once per pick; a candidate takes, per objective,
// the entry with the largest λ·M plus that sum and adds its two end boxes:
// O(r) for the traces, O(library) for the choice. ν = 1 + f̂/T̂ of the
// chosen set (dT's coefficient in f near the current spectrum).
//
// Rounding: the power sums and box values are sums of at most a few r terms
// of magnitude at most (r+1)·ymax^q |λ_q| and Σ|box values|, each with a
// relative error of a few r·eps (1e-13 at r = 300); level0Slack subtracts
// 1e-11 of those magnitudes, and the VS bound is further multiplied by 1 +
// boundMargin as every bound is.

import (
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/qvs-dev/qvs/internal/parallel"
)

const (
	level0Keep   = 8   // multipliers kept per objective (the newest)
	level0Learn  = 2   // candidates a large block and pick whose dual is optimised
	level0Evals  = 150 // Nelder-Mead evaluations per objective and learnt candidate
	level0Inner  = 16  // pieces per interior box (once per pick)
	level0Outer  = 4   // pieces per end box (per candidate)
	level0Coarse = 2   // pieces per box while learning
	level0Slack  = 1e-11
)

// noLevel0 disables the level-0 bound (tests compare both ways).
var noLevel0 = false

// l0lam is a multiplier vector λ_1..λ_4 in the scaled variable.
type l0lam [4]float64

// level0Block is a block's level-0 data for one pick.
type level0Block struct {
	c, s, nu float64
	ys       []float64  // (d_k - c)/s
	ps       [5]float64 // Σ ỹ^q, q = 0..4
	sum      float64    // Σ d_k
	sumAbs   float64    // Σ |d_k|
	lam      [3][]l0lam // the library at this pick
	gint     [3][]float64
	gabs     [3][]float64 // Σ |interior box values|, for the slack
}

// level0 reports whether the level-0 bound is used: at q = 1 with pruning.
func (g *greedyState) level0() bool {
	return !noLevel0 && g.p.Q == 1 && g.pruning()
}

// level0Obj returns objective o (0: x⁺, 1: -x⁺, 2: φ(x⁺) - ν x⁺) at x.
func level0Obj(o int, nu, x float64) float64 {
	if x <= 0 {
		return 0
	}
	switch o {
	case 0:
		return x
	case 1:
		return -x
	}
	return x*math.Log(x) - nu*x
}

// level0P returns P(x) = Σ λ_q y^q, y = (x - c)/s.
func level0P(l *l0lam, c, s, x float64) float64 {
	y := (x - c) / s
	return y * (l[0] + y*(l[1]+y*(l[2]+y*l[3])))
}

// level0MinP2 returns the minimum over [l, u] of P″ (in x).
func level0MinP2(lm *l0lam, c, s, l, u float64) float64 {
	pp := func(y float64) float64 { return 2*lm[1] + 6*lm[2]*y + 12*lm[3]*y*y }
	a, b := (l-c)/s, (u-c)/s
	m := min(pp(a), pp(b))
	if lm[3] > 0 {
		if v := -lm[2] / (4 * lm[3]); v > a && v < b {
			m = min(m, pp(v))
		}
	}
	return m / (s * s)
}

// level0Box returns a lower bound on min over [l, u] of o - P, and the sum
// of the magnitudes it added (for the rounding slack). Proof: on a piece
// [x0, x1] where o is at least a line ℓ (o itself where it is linear: x⁺
// on a piece not straddling 0; for φ, convex, its tangent at t ∈ [x0, x1]:
// x log x >= (1 + log t) x - t; on the first piece below u·2⁻¹² the tangent
// at its end over e), ℓ - P has
// second derivative -P″ <= K = max(0, -min P″), so ℓ - P - (K/2)(x -
// x0)(x - x1) is concave and at least its smaller end value: ℓ - P >=
// min(end values) - K (x1 - x0)²/8 on the piece. The box is cut at 0 (x⁺
// and φ(x⁺) have a kink there) and into pieces of width at most (u -
// l)/pieces, and for φ of ratio x1/x0 at most 1.5 (the tangent's error),
// after a first piece [l, u·2⁻¹²] when l is below its end.
func level0Box(o int, nu float64, lm *l0lam, c, s, l, u float64, pieces int) (lb, mag float64) {
	if l < 0 && u > 0 {
		a, ma := level0Box(o, nu, lm, c, s, l, 0, pieces)
		b, mb := level0Box(o, nu, lm, c, s, 0, u, pieces)
		return min(a, b), ma + mb
	}
	if !(u > l) {
		v := level0Obj(o, nu, l) - level0P(lm, c, s, l)
		return v, math.Abs(v)
	}
	maxw := (u - l) / float64(pieces)
	lb = math.Inf(1)
	piece := func(x0, x1, l0, l1 float64) {
		K := max(0, -level0MinP2(lm, c, s, x0, x1))
		v0, v1 := l0-level0P(lm, c, s, x0), l1-level0P(lm, c, s, x1)
		w := x1 - x0
		lb = min(lb, v0-K*w*w/8, v1-K*w*w/8)
		mag += math.Abs(v0) + math.Abs(v1)
	}
	if o != 2 || u <= 0 {
		for x0 := l; x0 < u; {
			x1 := math.Min(u, x0+maxw)
			if !(x1 > x0) { // maxw below x0's ulp
				x1 = u
			}
			piece(x0, x1, level0Obj(o, nu, x0), level0Obj(o, nu, x1))
			x0 = x1
		}
		return lb, mag
	}
	x0 := l
	if l < u*0x1p-12 {
		// One piece up to u·2⁻¹² (the tangent bounds x log x on all of
		// x >= 0), so that a box from 0 or from a pole just above it
		// needs about 21 geometric pieces, not one per factor 1.5 down
		// to l.
		x0 = u * 0x1p-12
		t := x0 / math.E
		sl := 1 + math.Log(t) - nu
		piece(l, x0, sl*l-t, sl*x0-t)
	}
	for x0 < u {
		x1 := math.Min(u, math.Min(1.5*x0, x0+maxw))
		if !(x1 > x0) {
			x1 = u
		}
		t := math.Sqrt(x0 * x1)
		sl := 1 + math.Log(t) - nu
		piece(x0, x1, sl*x0-t, sl*x1-t)
		x0 = x1
	}
	return lb, mag
}

// level0Cand is one candidate's part of the level-0 bound: the scaled power
// sums M_1..M_4, their magnitude bound per q, and the end boxes.
type level0Cand struct {
	m, mabs  [4]float64
	lo, hi   float64 // the end boxes [lo, d_1] and [d_r, hi]
	t0       float64 // at most Σ μ (the trace)
	dlo, dhi float64
}

// moments returns the candidate's power sums from its similarities z
// in the block's eigenbasis (d the block's eigenvalues), a = k(c, c).
func (lb *level0Block) moments(d, z []float64, a float64) (lc level0Cand) {
	var w0, w1, w2, zn2 float64
	s2 := lb.s * lb.s
	for k, zk := range z {
		wk := zk * zk
		zn2 += wk
		y := lb.ys[k]
		w0 += wk
		w1 += wk * y
		w2 += wk * y * y
	}
	w0, w1, w2 = w0/s2, w1/s2, w2/s2
	at := (a - lb.c) / lb.s
	a2 := at * at
	lc.m[0] = lb.ps[1] + at
	lc.m[1] = lb.ps[2] + a2 + 2*w0
	lc.m[2] = lb.ps[3] + a2*at + 3*(w1+at*w0)
	lc.m[3] = lb.ps[4] + 2*w2 + w0*w0 + 2*(w2+2*at*w1+a2*w0) + (w0+a2)*(w0+a2)
	r := len(d)
	zn := math.Sqrt(zn2)
	slack := 1e-14 * math.Max(math.Max(math.Abs(d[0]), math.Abs(d[r-1])), math.Abs(a)+zn)
	lc.dlo, lc.dhi = d[0], d[r-1]
	lc.lo = math.Min(d[0], a) - zn - slack
	lc.hi = math.Max(d[r-1], a) + zn + slack
	ymax := math.Max(math.Abs(lc.lo-lb.c), math.Abs(lc.hi-lb.c)) / lb.s
	yq := 1.0
	for q := range lc.mabs {
		yq *= ymax
		lc.mabs[q] = float64(r+1) * yq
	}
	// Σ μ = Σ d + a, less its rounding.
	lc.t0 = lb.sum + a - 1e-12*(lb.sumAbs+math.Abs(a))
	return lc
}

// dual returns the certified dual value of objective o at library entry k
// (interior boxes from the table, the end boxes with the given pieces).
func (lb *level0Block) dual(o int, lm *l0lam, gint, gabs float64, lc *level0Cand, pieces int) float64 {
	v, mag := gint, gabs
	for q := range lm {
		v += lm[q] * lc.m[q]
		mag += math.Abs(lm[q]) * lc.mabs[q]
	}
	b0, m0 := level0Box(o, lb.nu, lm, lb.c, lb.s, lc.lo, lc.dlo, pieces)
	b1, m1 := level0Box(o, lb.nu, lm, lb.c, lb.s, lc.dhi, lc.hi, pieces)
	return v + b0 + b1 - level0Slack*(mag+m0+m1)
}

// interior returns Σ over the interior boxes [d_k, d_k+1] of level0Box and
// the magnitudes' sum.
func (lb *level0Block) interior(o int, lm *l0lam, d []float64, pieces int) (v, mag float64) {
	for k := 1; k < len(d); k++ {
		b, m := level0Box(o, lb.nu, lm, lb.c, lb.s, d[k-1], d[k], pieces)
		v += b
		mag += m
	}
	return v, mag
}

// newLevel0Block returns the scaling (d_1 and d_r to -1 and 1) and power
// sums of the ascending poles d (d_r > d_1), without library.
func newLevel0Block(d []float64, nu float64) *level0Block {
	r := len(d)
	lb := &level0Block{c: 0.5 * (d[0] + d[r-1]), s: 0.5 * (d[r-1] - d[0]), nu: nu, ys: make([]float64, r)}
	for k, x := range d {
		y := (x - lb.c) / lb.s
		lb.ys[k] = y
		lb.sum += x
		lb.sumAbs += math.Abs(x)
		yq := 1.0
		lb.ps[0]++
		for q := 1; q <= 4; q++ {
			yq *= y
			lb.ps[q] += yq
		}
	}
	return lb
}

// prepareLevel0 sets every large block's level-0 data for this pick: the
// scaling, ν, new library entries learnt on level0Learn candidates touching
// the block alone (Nelder-Mead on the certified dual with coarse boxes,
// from the newest entry; deterministic: fixed samples, each on its own), and
// the interior boxes' sums for every library entry. touches and cands are
// best's.
func (g *greedyState) prepareLevel0(cands []int, touches func(k int, buf []touch) []touch) {
	fh, _ := g.all.above(zeroTol * g.totPos)
	nu := 1.0
	if g.totPos > 0 {
		nu = 1 + fh/g.totPos
	}
	for bi, b := range g.blocks {
		b.l0 = nil
		r := len(b.eig)
		if !b.alive || r < pruneMin || r < 2 || b.vecs == nil || !(b.eig[r-1] > b.eig[0]) {
			continue
		}
		lb := newLevel0Block(b.eig, nu)
		// Samples: candidates touching this block alone, spread over the
		// list and shifted every pick.
		var single []int
		for k, c := range cands {
			t := touches(k, nil)
			if len(t) == 0 || !g.eligible[c] {
				continue
			}
			alone := true
			for _, e := range t {
				if g.memberBlock[e.member] != int32(bi) {
					alone = false
					break
				}
			}
			if alone {
				single = append(single, k)
			}
		}
		var samples []int
		if n := len(single); n > 0 {
			for j := 0; j < min(level0Learn, n); j++ {
				samples = append(samples, single[((2*j+1)*n/(2*level0Learn)+7919*g.members())%n])
			}
		}
		var start [3]l0lam
		for o := range start {
			if n := len(g.l0lib[o]); n > 0 {
				start[o] = g.l0lib[o][n-1]
			}
		}
		learnt := make([][3]l0lam, len(samples))
		parallel.Blocks(len(samples), 1, len(g.ws), func(wk, lo, hi int) {
			ws := g.ws[wk]
			for i := lo; i < hi; i++ {
				k := samples[i]
				c := cands[k]
				t := touches(k, nil)
				_, z := g.project(t, []int32{int32(bi)}, ws)
				lc := lb.moments(b.eig, z, g.p.Kernel.At(c, c))
				for o := 0; o < 3; o++ {
					f := func(x []float64) float64 {
						lm := l0lam(x)
						gi, ga := lb.interior(o, &lm, b.eig, level0Coarse)
						return -lb.dual(o, &lm, gi, ga, &lc, level0Coarse)
					}
					x0 := start[o]
					res, err := optimize.Minimize(optimize.Problem{Func: f}, x0[:], &optimize.Settings{FuncEvaluations: level0Evals}, &optimize.NelderMead{})
					learnt[i][o] = x0
					if res != nil && len(res.X) == 4 && !math.IsNaN(res.F) && !math.IsInf(res.F, 0) {
						learnt[i][o] = l0lam(res.X)
					}
					_ = err // the evaluation limit: res holds the best point
				}
			}
		})
		for _, l := range learnt {
			for o := range l {
				g.l0lib[o] = append(g.l0lib[o], l[o])
				if n := len(g.l0lib[o]); n > level0Keep {
					g.l0lib[o] = append(g.l0lib[o][:0], g.l0lib[o][n-level0Keep:]...)
				}
			}
		}
		for o := 0; o < 3; o++ {
			lb.lam[o] = append([]l0lam(nil), g.l0lib[o]...)
			lb.gint[o] = make([]float64, len(lb.lam[o]))
			lb.gabs[o] = make([]float64, len(lb.lam[o]))
			for k := range lb.lam[o] {
				lb.gint[o][k], lb.gabs[o][k] = lb.interior(o, &lb.lam[o][k], b.eig, level0Inner)
			}
		}
		if len(lb.lam[0]) > 0 {
			b.l0 = lb
		}
	}
}

// level0Upper returns the level-0 upper bound on VS_1 of the chosen set plus
// candidate c (similarities t), or ok = false where it does not apply: c
// touches several blocks, or a block without level-0 data, or its exact
// roots or first-bound brackets are cached (cheaper), or no bound results.
func (g *greedyState) level0Upper(c int, t []touch, ws *secularWork) (vsb float64, ok bool) {
	if len(t) == 0 {
		return 0, false
	}
	bi := g.memberBlock[t[0].member]
	for _, e := range t[1:] {
		if g.memberBlock[e.member] != bi {
			return 0, false
		}
	}
	b := g.blocks[bi]
	lb := b.l0
	if lb == nil {
		return 0, false
	}
	tb := []int32{bi}
	if cc := g.cache.peek(c); sameBlocks(cc.blocks, tb) || sameBlocks(cc.bblocks, tb) {
		return 0, false
	}
	_, z := g.project(t, tb, ws)
	lc := lb.moments(b.eig, z, g.p.Kernel.At(c, c))
	// Per objective, the full dual (end boxes included) of the library
	// entry whose interior part λ·M + Σ interior is largest: any entry
	// gives a valid bound, and the end boxes rarely change the order.
	var v [3]float64
	for o := range v {
		best, bv := -1, math.Inf(-1)
		for k := range lb.lam[o] {
			lm := &lb.lam[o][k]
			if ck := lb.gint[o][k] + lm[0]*lc.m[0] + lm[1]*lc.m[1] + lm[2]*lc.m[2] + lm[3]*lc.m[3]; best < 0 || ck > bv {
				best, bv = k, ck
			}
		}
		v[o] = lb.dual(o, &lb.lam[o][best], lb.gint[o][best], lb.gabs[o][best], &lc, level0Outer)
	}
	pOther := g.totPos - b.pos
	// Σ μ⁺ >= Σ μ (the trace) and <= Σ max(box top, 0).
	tLo := pOther + math.Max(v[0], lc.t0)
	tHi := pOther + math.Min(-v[1], b.pos+math.Max(lc.hi, 0))
	if !(tLo > 0) || !(tHi >= tLo) || zeroTol*tHi >= 1/math.E {
		return 0, false
	}
	thl, thh := zeroTol*tLo, zeroTol*tHi
	fo, no := g.otherAbove(tb, thh)
	if _, n := g.otherAbove(tb, thl); n != no {
		return 0, false
	}
	cc := fo + v[2] - lb.nu*pOther
	h := func(T float64) float64 { return math.Log(T) - cc/T - lb.nu }
	vsb = math.Exp(math.Max(h(tLo), h(tHi)))
	return vsb, !math.IsNaN(vsb) && !math.IsInf(vsb, 0)
}
