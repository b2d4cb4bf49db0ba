package vendi

// # Bound-ordered pruning on indefinite kernels (block greedy)
//
// Scoring a candidate c that touches chosen blocks with spectrum d (r
// values) means solving the arrowhead [[diag(d), z], [zᵀ, a]] (z = Uᵀ k_c,
// a = k(c, c)): O(r²). The kernels here (symmetrised kNN graphs) are
// indefinite and VS_q clips negative eigenvalues, so the majorisation bounds
// of the PSD dual (greedydual.go) do not apply. Instead best bounds each
// candidate's new eigenvalues one by one:
//
//  1. Interlacing puts root j in interval j of (lo, d_1, ..., d_r, hi);
//     rootBrackets narrows every such interval to a certified bracket
//     [bl_j, bh_j] by keeping the 2L+2 nearest poles of the secular
//     function exact and bounding the rest (a monotone function on the
//     interval) by its values at the interval's ends, which are the rows
//     of the block's Cauchy matrix 1/(d_i - d_k) times w = z² (tabulated
//     once per block and pick). The brackets are certified by evaluating
//     the near part, so they hold whatever the iteration that found them.
//  2. spectrumUpper turns the brackets, the trace Σμ = Σd + a and the
//     untouched blocks into an upper bound on VS_q for every q > 0,
//     including the ZeroTol threshold (proof there).
//  3. best bounds every candidate touching a large block (first bound: only
//     intervals that can hold a positive root, L = 3; roots <= 0 add
//     nothing to T or f), and solveInOrder solves them in decreasing bound
//     order while weight·bound·(1 + boundMargin) reaches the best exact qVS
//     less the tie tolerance, trying the tighter second bound (every
//     interval, L = 8, the trace route for T) first.
//
// The pick is exactly that of solving every candidate: an unsolved one has
// qVS <= its bound < best·(1 - TieTol) <= final best·(1 - TieTol), so it is
// neither the maximum nor in the tie window, and the tie rule sees every
// candidate that could be. With MinVS the best is taken over candidates
// that pass the floor only, so the same holds among those. On Fashion-MNIST
// (a 153-member block, half of its eigenvalues negative) 99.3-99.9% of the
// bounded candidates are never solved.

import (
	"math"
	"slices"
	"sort"
	"sync"

	gonumblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// bracketWindow is the number of poles on each side of an interval, beyond
// its two end poles, that rootBrackets keeps exact (the "near" poles), in
// the first bound and in the tighter second one.
var bracketWindow = [2]int{3, 8}

// rootBrackets encloses every eigenvalue of the arrowhead matrix
// [[diag(p), z], [zᵀ, a]] with w = z², poles p strictly increasing (s >= 1)
// and (lo, hi) enclosing the whole spectrum: on return μ_j ∈ [bl[j], bh[j]]
// for j = 0..s, where μ_j is the root in interval j of (lo, p_0, ..., p_{s-1}, hi).
// base[i] must hold Σ_{k ∉ [i-1-L, i+1+L]} w_k/(p_i - p_k) (the far-field
// sum of row i of the Cauchy matrix; L near poles on each side) and full[i]
// the whole row's sum Σ_{k ≠ i}, for i >= from-1 (farBase). Intervals j <
// from are not solved: their brackets are the intervals themselves.
//
// Proof. The eigenvalues are the roots of F(x) = x - a - Σ_k w_k/(x - p_k)
// (poles with w_k = 0 are eigenvalues themselves and lie on interval ends),
// and by Cauchy interlacing (Weyl for the ends) μ_j lies in the closed
// interval j, [left, right]. Split the sum into the near poles N_j (indices
// j-1-L..j+L) and the far ones: F = H - G with H(x) = x - a - Σ_{N_j}
// w_k/(x - p_k) and G(x) = Σ_far w_k/(x - p_k). No far pole lies in the
// interval, so G is decreasing on it and G(right) <= G(μ_j) <= G(left);
// H is increasing there. If H(x) <= G(right) then H(x) <= G(μ_j) = H(μ_j),
// so x <= μ_j; if H(x) >= G(left) then x >= μ_j. certify and solveNear
// return only such points (checked by evaluating H) or the interval's own
// ends, so the brackets hold up to the rounding of H and G, which the
// pruning margin covers. (A run of equal poles is merged by the caller
// first: mergePoles.)
func rootBrackets(a float64, p, w []float64, lo, hi float64, L, from int, base, full, bl, bh []float64) {
	s := len(p)
	term := func(i, k int) float64 { return w[k] / (p[i] - p[k]) }
	for j := 0; j <= s; j++ {
		left, right := lo, hi
		if j > 0 {
			left = p[j-1]
		}
		if j < s {
			right = p[j]
		}
		if j < from {
			bl[j], bh[j] = left, right
			continue
		}
		kLo, kHi := max(0, j-1-L), min(s-1, j+L)
		var gl, gr float64
		if j == 0 {
			for k := kHi + 1; k < s; k++ {
				gl += w[k] / (lo - p[k])
			}
		} else {
			gl = base[j-1]
			if k := j - 2 - L; k >= 0 {
				gl += term(j-1, k)
			}
		}
		if j == s {
			for k := 0; k < kLo; k++ {
				gr += w[k] / (hi - p[k])
			}
		} else {
			gr = base[j]
			if k := j + 1 + L; k < s {
				gr += term(j, k)
			}
		}
		near, nw := p[kLo:kHi+1], w[kLo:kHi+1]
		start, pole, est := rootEstimate(a, p, w, full, j, left, right)
		if !est {
			pole = -1
		}
		var ok bool
		bl[j], bh[j], ok = bracketNear(a, near, nw, j-kLo, gr, gl, left, right, start, pole-kLo)
		if !ok {
			bl[j] = solveNear(a, near, nw, gr, left, right, false)
			bh[j] = solveNear(a, near, nw, gl, left, right, true)
		}
	}
}

// bracketNear is the fast path of rootBrackets for one interval (local index
// jl of the near poles p): certify takes Newton steps towards H = gr and
// H = gl until a point is certified (H(x) <= gr, resp. >= gl, evaluated);
// the interval's ends are certified by interlacing. The steps start from
// the estimate start next to pole if there is one; only if they leave a
// side uncertified or the bracket wider than 1/16 of the interval are they
// redone from nearRoot's approximation of H(x) = gm, gm = (gr + gl)/2 (from
// the estimate, most roots need no nearRoot iteration: a fifth less CPU per
// qVS-AS batch on Fashion-MNIST, the brackets as tight). Every bracket end
// returned is certified either way. ok is false if nearRoot fails
// (solveNear then bisects).
func bracketNear(a float64, p, w []float64, jl int, gr, gl, left, right, start float64, pole int) (lo, hi float64, ok bool) {
	if pole >= 0 && pole < len(p) && start > left && start < right {
		// Newton's steps of certify from the estimate itself usually
		// certify both sides; where they do not, nearRoot's point follows.
		hx, dh, d2h := nearEval(a, p, w, start)
		tol := 0x1p-6 * (gl - gr) / dh
		lo = certify(a, p, w, gr, left, right, start, hx-gr, dh, d2h, tol, false)
		hi = certify(a, p, w, gl, left, right, start, hx-gl, dh, d2h, tol, true)
		if lo > left && hi < right && hi-lo <= 0x1p-4*(right-left) {
			return lo, hi, true
		}
	}
	gm := 0.5 * (gr + gl)
	x, _, _, ok := nearRoot(a+gm, p, w, jl, left, right, start, pole)
	if !ok {
		return 0, 0, false
	}
	hx, dh, d2h := nearEval(a, p, w, x)
	tol := 0x1p-6 * (gl - gr) / dh
	lo = certify(a, p, w, gr, left, right, x, hx-gr, dh, d2h, tol, false)
	hi = certify(a, p, w, gl, left, right, x, hx-gl, dh, d2h, tol, true)
	return lo, hi, true
}

// nearRoot approximates the root of Φ(x) = x - c - Σ w_k/(x - p_k) in
// interval jl of the poles p (between p[jl-1] and p[jl]; left and right
// are its ends, finite also for the outer intervals) to a relative 1e-6 of
// its distance to the nearer pole, and returns a point x near it with Φ(x)
// and Φ'(x) evaluated there. start, next to pole (a local index; -1: none),
// is an estimate to begin with. The iteration is solveShifted's (the nearer
// pole's term exact, the others linearised), with a looser stop: the
// point only seeds certify's Newton steps. ok is false if a weight is 0 or
// the iteration fails.
func nearRoot(c float64, p, w []float64, jl int, left, right, start float64, pole int) (x, f, df float64, ok bool) {
	m := len(p)
	for _, wk := range w {
		if wk == 0 {
			return 0, 0, 0, false
		}
	}
	// Origin: the pole nearer the root, decided by the sign of Φ at the
	// interval's midpoint, which is also the first iterate; or, given an
	// estimate start next to pole, that pole, start and the whole interval.
	var k0 int
	var blo, bhi, d float64
	switch {
	case pole >= 0 && pole < m && (pole == jl-1 || pole == jl):
		k0, blo, bhi, d = pole, left-p[pole], right-p[pole], start-p[pole]
	case jl == 0:
		k0, blo, bhi = 0, left-p[0], 0
		d = 0.5 * blo
	case jl == m:
		k0, blo, bhi = m-1, 0, right-p[m-1]
		d = 0.5 * bhi
	default:
		k0 = jl - 1
		mid := 0.5 * (p[jl-1] + p[jl])
		fm := mid - c
		for k, pk := range p {
			fm -= w[k] / (mid - pk)
		}
		if fm < 0 { // root in (mid, p[jl])
			k0 = jl
		}
		d = mid - p[k0]
		if k0 == jl {
			blo, bhi = d, 0
		} else {
			blo, bhi = 0, d
		}
	}
	p0, w0 := p[k0], w[k0]
	positive := bhi > 0
	for it := 0; it < 40; it++ {
		var R, dR float64
		for k, pk := range p {
			if k == k0 {
				continue
			}
			t := 1 / (d + (p0 - pk))
			R += w[k] * t
			dR -= w[k] * t * t
		}
		f = d + (p0 - c) - w0/d - R
		df = 1 + w0/(d*d) - dR
		if f < 0 {
			blo = d
		} else {
			bhi = d
		}
		// Model δ + (p0 - c) - w0/δ - R - dR (δ - d) = 0, times δ.
		A := 1 - dR
		B := p0 - c - R + dR*d
		qq := -0.5 * (B + math.Copysign(math.Sqrt(B*B+4*A*w0), B))
		nd := qq / A
		if (nd > 0) != positive {
			nd = -w0 / qq
		}
		if !(nd > blo && nd < bhi) {
			nd = 0.5 * (blo + bhi)
		}
		if math.Abs(nd-d) <= 1e-3*math.Abs(nd) || bhi-blo <= 1e-15*math.Abs(d) {
			return p0 + d, f, df, true
		}
		d = nd
	}
	return 0, 0, 0, false
}

// rootEstimate returns a first-order estimate of the root in interval j
// (between p[j-1] and p[j]) from the secular function without the singular
// term at the poles, D_i = p_i - a - full[i]: next to a pole the root is
// where D_i = w_i/(μ - p_i). Of the two poles' estimates the one closer to
// its pole is taken; false if neither lies inside (left, right).
func rootEstimate(a float64, p, w, full []float64, j int, left, right float64) (x float64, pole int, ok bool) {
	s := len(p)
	best := math.Inf(1)
	if j > 0 {
		if d := p[j-1] - a - full[j-1]; d > 0 {
			if del := w[j-1] / d; del < best && p[j-1]+del < right {
				x, best, pole = p[j-1]+del, del, j-1
			}
		}
	}
	if j < s {
		if d := p[j] - a - full[j]; d < 0 {
			if del := -w[j] / d; del < best && p[j]-del > left {
				x, best, pole = p[j]-del, del, j
			}
		}
	}
	return x, pole, best > 0 && !math.IsInf(best, 1) && x > left && x < right
}

// nearEval returns H(x) = x - a - Σ w_k/(x - p_k), H'(x) and |H″(x)|.
func nearEval(a float64, p, w []float64, x float64) (h, dh, d2h float64) {
	h, dh = x-a, 1
	for k, pk := range p {
		t := 1 / (x - pk)
		wt := w[k] * t
		h -= wt
		dh += wt * t
		d2h -= wt * t * t
	}
	return h, dh, 2 * math.Abs(d2h)
}

// certify returns a point of (left, right) with H(x) >= g (upper) or
// H(x) <= g (lower), by Newton steps from x (where H(x) - g = h, H'(x) =
// dh, |H″(x)| = d2h). A Newton step on a convex or concave H can stop
// short of the solution by about |H″|/(2H')·step², so each step is
// lengthened by twice that (and 2^-20 of itself) to overshoot it; once a
// point is certified, further steps from it (still overshooting) tighten it
// until the next step would be below tol or fails to certify. Returns the
// interval's end (right for upper, left for lower: valid by interlacing)
// if no point is certified in a few steps. (At a
// pole itself H is ±Inf and certifies nothing: only interior points count.)
func certify(a float64, p, w []float64, g, left, right, x, h, dh, d2h, tol float64, upper bool) float64 {
	cx, found := 0.0, false
	for it := 0; it < 8 && x > left && x < right; it++ {
		if upper && h >= 0 || !upper && h <= 0 {
			cx, found = x, true
		} else if found {
			break
		}
		step := -h / dh
		if found && math.Abs(step) <= tol {
			break
		}
		push := d2h/dh*step*step + 0x1p-20*math.Abs(step) + 4e-16*math.Abs(x)
		x += math.Copysign(math.Abs(step)+push, step)
		h, dh, d2h = nearEval(a, p, w, x)
		h -= g
	}
	if found {
		return cx
	}
	if upper {
		return right
	}
	return left
}

// farBase fills base[i] = Σ_{k ∉ [i-1-L, i+1+L]} w_k/(p_i - p_k) (see
// rootBrackets) and full[i] = Σ_{k ≠ i} w_k/(p_i - p_k) for i >= from.
// With cauchy non-nil (row-major s x s, cauchy[i*s+k] = 1/(p_i - p_k)) it
// takes the reciprocals from there: a dot product per row, no division.
func farBase(p, w, base, full []float64, L, from int, cauchy []float64) {
	s := len(p)
	for i := max(from, 0); i < s; i++ {
		a, b := max(0, i-1-L), min(s, i+2+L)
		if cauchy != nil {
			row := cauchy[i*s : (i+1)*s]
			base[i] = dot(row[:a], w[:a]) + dot(row[b:], w[b:])
			full[i] = base[i] + dot(row[a:b], w[a:b]) // row[i] = 0
			continue
		}
		var sum float64
		pi := p[i]
		for k := 0; k < a; k++ {
			sum += w[k] / (pi - p[k])
		}
		for k := b; k < s; k++ {
			sum += w[k] / (pi - p[k])
		}
		base[i] = sum
		for k := a; k < b; k++ {
			if k != i {
				sum += w[k] / (pi - p[k])
			}
		}
		full[i] = sum
	}
}

// dot is Σ x_k y_k: gonum's SSE2 kernel (two-wide, unrolled), about twice
// the scalar four-accumulator loop this replaced on the far sums. The far
// sums enter only the pruning bounds, whose rounding the margin covers.
func dot(x, y []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return gonumblas.Implementation{}.Ddot(len(x), x, 1, y, 1)
}

// solveNear returns a point x of [left, right] certified to lie on one side
// of the solution of H(x) = g, H(x) = x - a - Σ w_k/(x - p_k) increasing on
// the interval: with upper, H(x) >= g (or x = right); otherwise H(x) <= g
// (or x = left). The distance to the solution is at most about 1e-7 of the
// interval plus rounding.
func solveNear(a float64, p, w []float64, g, left, right float64, upper bool) float64 {
	xl, xh := left, right
	tol := 1e-7*(right-left) + 4e-16*math.Max(math.Abs(left), math.Abs(right))
	x := 0.5 * (xl + xh)
	for it := 0; it < 100 && xh-xl > tol; it++ {
		h, dh := x-a-g, 1.0
		for k, pk := range p {
			t := 1 / (x - pk)
			h -= w[k] * t
			dh += w[k] * t * t
		}
		if h <= 0 {
			xl = x
		} else {
			xh = x
		}
		nx := x - h/dh
		if math.Abs(nx-x) <= 0.25*tol {
			// Converged: step just past the solution to certify the other side.
			if h <= 0 {
				nx = x + 0.5*tol
			} else {
				nx = x - 0.5*tol
			}
		}
		if !(nx > xl && nx < xh) {
			nx = 0.5 * (xl + xh)
		}
		x = nx
	}
	if upper {
		return xh
	}
	return xl
}

// spectrumUpper returns an upper bound on VS_q of the chosen set plus a
// candidate from brackets [bl_j, bh_j] of the touched blocks' new
// eigenvalues (their sum is t0 exactly: the trace) and the untouched part:
// positive total pOther, its largest eigenvalue maxOther and fOther(thr),
// the φ-sum and count of its eigenvalues above thr. +Inf when no bound is
// available.
//
// Proof. The total T = pOther + Σ max(μ_j, 0) lies in [tLo, tHi] (from the
// brackets, and from Σ μ_j = t0 through the negative parts). The threshold
// thr = ZeroTol·T then lies in [θl, θh]; if an untouched eigenvalue falls in
// (θl, θh] the bound gives up. A root contributes φ(μ_j) if μ_j > thr, else
// 0, so its contribution lies between the min and max of {0 if bl <= θh} ∪
// φ([max(bl, θl), bh]); summing gives fLo <= f <= fHi. Finally VS_1 =
// exp(log T - f/T) is decreasing in f, and h(T) = log T - fLo/T has no
// interior maximum (h' = (T + fLo)/T² changes sign once, from - to +), so
// VS_1 <= exp(max(h(tLo), h(tHi))); VS_q = (f/T^q)^(1/(1-q)) is at most
// (fHi/tLo^q)^(1/(1-q)) for q < 1 (increasing in f/T^q) and
// (fLo/tHi^q)^(1/(1-q)) for q > 1 (decreasing; fLo > 0); VS_∞ = T/max μ
// over μ > thr and the untouched maximum, at most tHi / max(maxOther,
// max{bl_j : bl_j > θh}). Only fLo (q >= 1) or fHi (q < 1) is computed, with
// one logarithm or power a root (phiMin).
func (g *greedyState) spectrumUpper(bl, bh []float64, t0, pOther, maxOther float64, fOther func(thr float64) (float64, int)) float64 {
	q := float64(g.p.Q)
	var posLo, posHi, negLo, negHi float64
	for j := range bl {
		posLo += math.Max(bl[j], 0)
		posHi += math.Max(bh[j], 0)
		negLo += math.Min(bl[j], 0)
		negHi += math.Min(bh[j], 0)
	}
	tLo := pOther + math.Max(posLo, t0-negHi)
	tHi := pOther + math.Min(posHi, t0-negLo)
	if !(tLo > 0) || tHi < tLo {
		return math.Inf(1)
	}
	thl, thh := ZeroTol*tLo, ZeroTol*tHi
	if math.IsInf(q, 1) {
		// The exact max counts roots above thr only.
		maxLo := maxOther
		for _, l := range bl {
			if l > thh {
				maxLo = math.Max(maxLo, l)
			}
		}
		if maxLo <= 0 {
			return math.Inf(1)
		}
		return tHi / maxLo
	}
	fo, no := fOther(thh)
	if _, n := fOther(thl); n != no {
		return math.Inf(1)
	}
	// Only one side is used: fHi for q < 1, fLo otherwise.
	upper := q < 1
	fB := fo
	for j := range bl {
		v := math.Inf(1)
		if upper {
			v = math.Inf(-1)
		}
		if bl[j] <= thh {
			v = 0
		}
		if x, y := math.Max(bl[j], thl), bh[j]; y > thl {
			if upper {
				v = math.Max(v, g.p.Q.Term(y)) // t^q is increasing
			} else {
				v = math.Min(v, g.phiMin(x, y))
			}
		}
		fB += v
	}
	fLo, fHi := fB, fB
	switch {
	case q == 1:
		h := func(T float64) float64 { return math.Log(T) - fLo/T }
		return math.Exp(math.Max(h(tLo), h(tHi)))
	case q < 1:
		return math.Pow(fHi/math.Pow(tLo, q), 1/(1-q))
	default:
		if !(fLo > 0) {
			return math.Inf(1)
		}
		return math.Pow(fLo/math.Pow(tHi, q), 1/(1-q))
	}
}

// phiMin returns a lower bound on the minimum of φ on [x, y], 0 < x <= y
// (q ∉ {0, ∞}), with one logarithm or power: t^q is increasing (q > 1:
// φ(x)); t log t is convex with its minimum at 1/e, and for y <= 1/e the
// minimum φ(y) = y log y >= y log x + (y - x) (log y >= log x + (y-x)/y,
// log being concave).
func (g *greedyState) phiMin(x, y float64) float64 {
	if g.p.Q != 1 {
		return g.p.Q.Term(x)
	}
	switch {
	case x >= 1/math.E:
		return x * math.Log(x)
	case y <= 1/math.E:
		return y*math.Log(x) + (y - x)
	}
	return -1 / math.E
}

// scoreUpper returns an upper bound on score(c, t, ...), computed as there
// (touched spectrum, z) but with rootBrackets and spectrumUpper in place of
// the secular equation. ok is false when the candidate is better solved
// exactly (cached roots, a touched spectrum smaller than pruneMin) or no
// bound is available.
func (g *greedyState) scoreUpper(c int, t []touch, ws *secularWork, mark []int32, stamp int32, tight bool) (vsb float64, ok bool) {
	if len(t) == 0 {
		return 0, false
	}
	a := g.p.Kernel.At(c, c)
	tb := g.touchedBlocks(t, mark, stamp, nil)
	r := 0
	for _, b := range tb {
		r += len(g.blocks[b].eig)
	}
	if r < pruneMin || sameBlocks(g.cache[c].blocks, tb) {
		return 0, false
	}
	pOther := g.totPos
	for _, b := range tb {
		pOther -= g.blocks[b].pos
	}
	// The brackets depend only on the touched blocks (never reused ids) and
	// c's similarities: kept across picks like the exact roots.
	cc := &g.cache[c]
	var bl, bh []float64
	var t0 float64
	if sameBlocks(cc.bblocks, tb) && (cc.tight || !tight) {
		bl, bh, t0 = cc.bl, cc.bh, cc.t0
	} else {
		bl, bh, t0 = g.candidateBrackets(t, tb, a, ws, tight)
		cc.bblocks = append(cc.bblocks[:0], tb...)
		cc.bl = append(cc.bl[:0], bl...)
		cc.bh = append(cc.bh[:0], bh...)
		cc.t0, cc.tight = t0, tight
	}
	maxOther := 0.0
	for k := len(g.all.eig) - 1; k >= 0; k-- {
		if mark[g.allBlock[k]] != stamp {
			maxOther = g.all.eig[k]
			break
		}
	}
	fOther := func(thr float64) (float64, int) {
		f, n := g.all.above(thr)
		for _, b := range tb {
			fb, nb := g.blocks[b].above(thr)
			f -= fb
			n -= nb
		}
		return f, n
	}
	vsb = g.spectrumUpper(bl, bh, t0, pOther, maxOther, fOther)
	return vsb, !math.IsInf(vsb, 1) && !math.IsNaN(vsb)
}

// poleMergeTol: poles closer than this relative to the largest |pole| are
// merged (a block with a repeated eigenvalue, as duplicated items give).
const poleMergeTol = 1e-12

// poleGroups appends to starts the first index of every run of p
// (ascending) whose consecutive gaps are at most poleMergeTol·max|p|.
func poleGroups(p []float64, starts []int) []int {
	s := len(p)
	tol := poleMergeTol * math.Max(math.Abs(p[0]), math.Abs(p[s-1]))
	for k := 0; k < s; k++ {
		if k == 0 || p[k]-p[k-1] > tol {
			starts = append(starts, k)
		}
	}
	return starts
}

// mergePoles compacts the runs starts of p (weights w) to one pole each,
// the run's first, with the run's total weight, and writes brackets of the
// other len(run)-1 eigenvalues of every run, [run min - span, run max +
// span], to fl/fh; it returns span, the widest run's width.
//
// Proof. Moving every pole of a run to the run's first changes the matrix
// by at most span in norm, so (Weyl) each eigenvalue moves by at most span.
// In the moved matrix a run is one eigenvalue repeated len(run) times; a
// rotation within its eigenspace puts all of z's weight on one vector, so
// len(run)-1 eigenvalues equal the pole and the rest solve the secular
// equation with the merged pole. Brackets of the moved matrix's
// eigenvalues widened by span therefore enclose the original ones.
func mergePoles(p, w []float64, starts []int, fl, fh []float64) (span float64) {
	n := 0
	for gi, k := range starts {
		e := len(p)
		if gi+1 < len(starts) {
			e = starts[gi+1]
		}
		lo, hi := p[k], p[e-1]
		span = math.Max(span, hi-lo)
		var ws float64
		for i := k; i < e; i++ {
			ws += w[i]
		}
		for i := k + 1; i < e; i++ {
			fl[n], fh[n] = lo, hi
			n++
		}
		p[gi], w[gi] = lo, ws
	}
	for i := 0; i < n; i++ {
		fl[i] -= span
		fh[i] += span
	}
	return span
}

// pruneMin is the smallest touched spectrum for which Greedy bounds a
// candidate before solving it (smaller ones are cheap to solve exactly),
// and the smallest block whose Cauchy matrix prepareBounds tabulates. A
// var so tests can prune small blocks.
var pruneMin = 32

// noPrune disables the pruning (tests compare both ways).
var noPrune = false

// pruning reports whether best bounds candidates before solving them: not
// at q = 0 (the rank), nor for the closed form VS_2 (already O(touches)).
func (g *greedyState) pruning() bool {
	return !noPrune && g.p.Q != 0 && !g.frobenius2()
}

// solveInOrder solves the bounded candidates order (indices into cands,
// vals[k] holding their qVS bounds) exactly, in decreasing bound order,
// until the bound falls below the best value less the tie tolerance; it
// sets vals, vss and solved of the ones solved that pass the floor and
// raises bestVal. Workers take the next candidate in turn; the best only
// grows, so every candidate left unsolved is strictly worse than the final
// best and outside the tie window: the outcome does not depend on the
// interleaving.
func (g *greedyState) solveInOrder(cands []int, touches func(k int, buf []touch) []touch, order []int, vals, vss []float64, solved []bool, floor float64, bestVal *float64, weight func(int) float64) {
	bounds := make([]float64, len(order))
	for i, k := range order {
		bounds[i] = vals[k]
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		if bounds[x] != bounds[y] {
			if bounds[x] > bounds[y] {
				return -1
			}
			return 1
		}
		return cands[order[x]] - cands[order[y]]
	})
	// Not parallel.Blocks: the next candidate is handed out under the lock
	// that guards bestVal, because whether to take it at all depends on
	// the best value solved so far (the cut-off), which every solve may
	// raise. A queue fixed in advance would solve candidates the cut-off
	// excludes.
	var mu sync.Mutex
	next, nsolved := 0, 0
	parallel.Workers(len(g.ws), func(w int) {
		ws := g.ws[w]
		mark := make([]int32, len(g.blocks))
		var buf []touch
		for {
			mu.Lock()
			if next >= len(idx) || bounds[idx[next]] < *bestVal-TieTol*math.Abs(*bestVal) {
				mu.Unlock()
				return
			}
			k := order[idx[next]]
			next++
			mu.Unlock()
			c := cands[k]
			t := touches(k, buf)
			buf = t[:0]
			// Second filter: the tighter bound (every interval, wider
			// near window), worth it for the few candidates the first
			// one keeps.
			if vsb, ok := g.scoreUpper(c, t, ws, mark, int32(2*k+1), true); ok {
				mu.Lock()
				below := weight(c)*vsb*(1+boundMargin) < *bestVal-TieTol*math.Abs(*bestVal)
				mu.Unlock()
				if below {
					continue
				}
			}
			mu.Lock()
			nsolved++
			mu.Unlock()
			vs := g.score(c, t, ws, mark, int32(2*k+2))
			v := weight(c) * vs
			mu.Lock()
			vals[k], vss[k] = v, vs
			if vs >= floor {
				solved[k] = true
				*bestVal = math.Max(*bestVal, v)
			}
			mu.Unlock()
		}
	})
	g.stats.Bounded += len(order)
	g.stats.Pruned += len(order) - nsolved
}

// prepareBounds tabulates the Cauchy matrix of every alive block of at
// least pruneMin members whose eigenvalues poleGroups leaves unmerged.
func (g *greedyState) prepareBounds() {
	for _, b := range g.blocks {
		r := len(b.eig)
		if !b.alive || r < pruneMin || b.cauchy != nil || b.vecs == nil {
			continue
		}
		if len(poleGroups(b.eig, nil)) < r {
			continue // repeated eigenvalues: candidates merge them (no table)
		}
		b.cauchy = make([]float64, r*r)
		for i := 0; i < r; i++ {
			for k := 0; k < r; k++ {
				if k != i {
					b.cauchy[i*r+k] = 1 / (b.eig[i] - b.eig[k])
				}
			}
		}
	}
}

// candidateBrackets returns brackets of the touched blocks' eigenvalues
// with candidate similarities t (self-similarity a) and their sum t0 (the
// trace), in ws's buffers: the touched spectrum sorted, runs of equal poles
// merged (mergePoles), then rootBrackets on the rest.
func (g *greedyState) candidateBrackets(t []touch, tb []int32, a float64, ws *secularWork, tight bool) (bl, bh []float64, t0 float64) {
	d, z := g.project(t, tb, ws)
	s := len(d)
	ws.grow(s)
	idx := ws.idx[:s]
	for i := range idx {
		idx[i] = i
	}
	if len(tb) > 1 {
		sort.Slice(idx, func(x, y int) bool { return d[idx[x]] < d[idx[y]] })
	}
	p, w := ws.p[:s], ws.w[:s]
	var zn2 float64
	for k, i := range idx {
		p[k], w[k] = d[i], z[i]*z[i]
		zn2 += w[k]
		t0 += d[i]
	}
	t0 += a
	zn := math.Sqrt(zn2)
	if cap(ws.bbuf) < 4*s+2 {
		ws.bbuf = make([]float64, 4*s+2)
	}
	// Merge runs of (nearly) equal poles (see mergePoles): fixed roots go
	// to the end of bl/bh, the merged system's first.
	ws.groups = poleGroups(p, ws.groups[:0])
	nf := s - len(ws.groups)
	bl, bh = ws.bbuf[2*s:3*s+1], ws.bbuf[3*s+1:4*s+2]
	span := mergePoles(p, w, ws.groups, bl[s+1-nf:], bh[s+1-nf:])
	sm := s - nf
	p, w = p[:sm], w[:sm]
	base, full := ws.bbuf[:sm], ws.bbuf[s:s+sm]
	slack := 1e-14*math.Max(math.Max(math.Abs(p[0]), math.Abs(p[sm-1])), math.Abs(a)+zn) + span
	lo := math.Min(p[0], a) - zn - slack
	hi := math.Max(p[sm-1], a) + zn + slack
	// Intervals right of no positive pole hold roots <= 0, which add
	// nothing to T or f: no bracket needed.
	from := sort.SearchFloat64s(p, math.Nextafter(0, 1))
	L := bracketWindow[0]
	if tight {
		from, L = 0, bracketWindow[1]
	}
	var cauchy []float64
	if len(tb) == 1 && nf == 0 {
		cauchy = g.blocks[tb[0]].cauchy
	}
	farBase(p, w, base, full, L, from-1, cauchy)
	rootBrackets(a, p, w, lo, hi, L, from, base, full, bl[:sm+1], bh[:sm+1])
	if span > 0 {
		for j := 0; j <= sm; j++ {
			bl[j] -= span
			bh[j] += span
		}
	}
	return bl, bh, t0
}
