package vendi

import (
	"math"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// # Bounds from a partial projection (dual greedy, first stage)
//
// bestDual's bounds (greedydual.go) need w = Vᵀx, O(d²) per candidate and
// pick: on 10⁶ x 32 embeddings that is most of the cost of a pick. The
// first stage bounds every candidate from two numbers kept per item,
// a = xᵀx (fixed) and b = xᵀ C x = Σ_{i ∈ S} (x_iᵀ x)², which grows by
// (x_newᵀ x)² when x_new joins the chosen set S (O(d) per candidate and
// pick, xcxOf), and from the exact components w_k = v_kᵀx along the t
// (firstStageDirs) smallest positive eigenvalues of C, the set K (O(t·d)).
// Only candidates whose first-stage bound reaches the exact qVS of the
// best-bounded candidate (less the tie tolerance) are projected in full
// and go through bestDual's bound-ordered search, so the picks, tie rule
// and scores are exactly those of the unpruned pass.
//
// Proof of the bound. With u_k = w_k² >= 0 in the eigenbasis of C (Λ' its
// thresholded eigenvalues, P = {k : λ_k > 0}, N the others; K ⊂ P the
// directions projected, R = P \ K the rest, λ_min^R <= λ_k <= λ_max on R),
// the candidate set's VS is that of Λ' + w wᵀ, whose trace is
// T = tr C + a. The known sums are Σ_k u_k = a, Σ_k λ_k u_k = b (λ = 0 on N)
// and every u_k on K; so a_R = a - Σ_K u_k = Σ_R u_k + ρ with ρ = Σ_N u_k,
// b_R = b - Σ_K λ_k u_k = Σ_R λ_k u_k, and
// ρ ∈ [max(0, a_R - b_R/λ_min^R), a_R - b_R/λ_max]. By Schur's theorem the
// eigenvalues majorise the diagonal in every orthonormal basis; in the one
// whose N part has the unit vector along x's null component as a basis
// vector the diagonal is λ_k + u_k on P, ρ once and zeros, so every Rényi
// entropy — VS_q for every q — is at most that of this diagonal (the same
// majorisation as greedydual.go's bound; paper eq. 1 and 3). With
// φ(t) = t log t (q = 1) or t^q:
//
//   - q >= 1: φ is convex, so Σ φ(λ_k + u_k) >= Σ_P [φ(λ_k) + φ'(λ_k) u_k]
//     + φ(ρ) (tangents on P). The terms on K are known. On R, φ' (log t + 1,
//     or q t^(q-1)) is concave for q <= 2, so on [λ_min^R, λ_max] it lies
//     above its chord α + βλ; for q > 2 it is convex and lies above its
//     tangent α + βλ at any t₀ (t₀ = b_R/(a_R - ρ_lo), the weighted mean of
//     λ over R when N is empty). Hence Σ φ >= L(ρ) = Σ_P φ(λ_k) +
//     Σ_K φ'(λ_k) u_k + α(a_R - ρ) + β b_R + φ(ρ), convex in ρ, minimised at
//     φ'(ρ) = α clamped to ρ's interval. VS_q decreases in Σ φ for q >= 1,
//     so VS_q <= VS_q(L).
//   - q < 1: φ is concave: the same steps with every inequality reversed
//     (tangents above, φ' = q t^(q-1) convex so below its chord on
//     [λ_min^R, λ_max]); L is concave in ρ and maximised at the same
//     stationary point; VS_q increases in Σ φ.
//   - Before the relaxation of Σ_R φ'(λ_k) u_k, the tangent sum gains the
//     moment gain of moments.go, σ·momentGain(a² - ρ², 3ab + a³ - ρ³) (the
//     tangent form of its lemma; the ‖Cx‖² terms cancel), with the end of
//     ρ's interval that makes it smallest.
//   - Both combine with the pinching bound VS_q(λ ∪ {a}) (x isolated), as in
//     dualBound, and pass through the same ZeroTol slack (vsBoundFromSum).
//   - q = ∞: VS_∞ = T / max μ and max μ >= the Rayleigh quotient of
//     C + x xᵀ at x, (b + a²)/a, and >= λ_max (interlacing).
//   - q = 0: the rank is at most rank C + 1 (no projection either).
//
// With t = 0 this is the bound from a and b alone: the chord of φ' over the
// whole positive spectrum, the best affine minorant given only those two
// sums, and loose on a spread spectrum; the t smallest eigenvalues are
// where the chord is furthest from φ' and where a candidate's mass raises
// the VS most. Measured on 20,000 x 32 clustered rows (docs/performance.md)
// t = 4 beat 0, 2 and 8 (t = 8 kept 2.5x fewer candidates than t = 0 but
// cost more in the partial projections).
//
// Rounding: b is accumulated over the picks (relative error about m·eps),
// b_R subtracts the K terms from it (clipped at 0), and the bound uses C's
// thresholded eigenvalues (greedydual.go's factorize) while b comes from C
// itself, a difference of about d·eps·λ_max·a. The first stage therefore
// multiplies its bound by 1 + cheapMargin (1e-6), far above those errors.

// cheapMargin is the relative slack of the first-stage bound.
const cheapMargin = 1e-6

// dualFirstStage switches the first-stage bounds on (tests compare against
// the unpruned pass with it off).
var dualFirstStage = true

// cheapConsts are the per-pick constants of the first-stage bound.
type cheapConsts struct {
	k0, k1      int     // the directions projected exactly: V's rows k0 .. k1-1 (K)
	lmin, lmax  float64 // smallest and largest eigenvalue of C on R (positive, not in K)
	alpha, beta float64 // chord of φ' on [lmin, lmax] (q <= 2)
	nNull       int
}

// firstStageDirs is the number of C's smallest positive eigendirections on
// which the first stage projects every candidate exactly (t·d per candidate
// instead of d²), at most rank C - 1 (a var so tests can vary it).
var firstStageDirs = 4

// prepCheap computes the per-pick constants from the factorised C. The
// eigenvalues are ascending, so the null ones come first, then K.
func (g *greedyState) prepCheap() cheapConsts {
	s := g.dual
	var c cheapConsts
	c.nNull = s.d - s.rank
	c.k0 = c.nNull
	c.k1 = c.k0 + max(0, min(firstStageDirs, s.rank-1))
	c.lmin = math.Inf(1)
	for _, l := range s.lam[c.k1:] {
		if l > 0 {
			c.lmin = math.Min(c.lmin, l)
			c.lmax = math.Max(c.lmax, l)
		}
	}
	if s.rank > 0 {
		q := g.p.Q
		dl, dh := q.DTerm(c.lmin), q.DTerm(c.lmax)
		if c.lmax > c.lmin {
			c.beta = (dh - dl) / (c.lmax - c.lmin)
		}
		c.alpha = dl - c.beta*c.lmin
	}
	return c
}

// cheapProject returns, for x, a = xᵀx and the sums over K of u_k = (v_kᵀx)²,
// λ_k u_k and φ'(λ_k) u_k.
func (g *greedyState) cheapProject(c *cheapConsts, x []float64) (a, uK, luK, fK float64) {
	s := g.dual
	a = dotSelf(x)
	for k := c.k0; k < c.k1; k++ {
		w := dot(s.vecs[k*s.d:(k+1)*s.d], x)
		u := w * w
		uK += u
		luK += s.lam[k] * u
		fK += s.dphiLam[k] * u
	}
	return a, uK, luK, fK
}

// ensureXCX computes b = xᵀ C x for every item from the Gram matrix the first
// time the first stage runs (O(n d²) once); xcxOf brings an item's b up to
// date when it is needed (O(d) per member added since).
func (g *greedyState) ensureXCX() {
	s := g.dual
	if s.xcx != nil {
		return
	}
	s.xcx = make([]float64, g.n)
	s.xcxDone = make([]int32, g.n)
	m := int32(g.members())
	if m == 0 {
		return
	}
	d := s.d
	parallel.Split(g.n, len(g.ws), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.xcxDone[i] = m
			if !g.eligible[i] {
				continue
			}
			x := g.feat.Features(i)
			var b float64
			for r := 0; r < d; r++ {
				b += x[r] * dot(s.gram[r*d:(r+1)*d], x)
			}
			s.xcx[i] = b
		}
	})
}

// xcxOf returns item i's b = xᵀ C x (after ensureXCX), adding (x_jᵀ x)² for
// the members j that joined since it was last brought up to date: b only
// grows, and an item the lazy bounds prune (lazyStage) is not touched.
func (g *greedyState) xcxOf(i int) float64 {
	s := g.dual
	x := g.feat.Features(i)[:s.d]
	b := s.xcx[i]
	for _, j := range g.memberItem[s.xcxDone[i]:] {
		t := dot(g.feat.Features(j), x)
		b += t * t
	}
	s.xcx[i] = b
	s.xcxDone[i] = int32(g.members())
	return b
}

// cheapBound is the first-stage upper bound on VS_q of the chosen set plus
// an item with xᵀx = a and xᵀ C x = b, whose sums over K (cheapProject) are
// uK, luK and fK (see the comment at the top of the file); +Inf when none is
// available.
func (g *greedyState) cheapBound(c *cheapConsts, a, b, uK, luK, fK float64) float64 {
	F, T, vs, done := g.cheapBoundSum(c, a, b, uK, luK, fK)
	if done {
		return vs
	}
	return g.vsBoundFromSum(F, T) * (1 + cheapMargin)
}

// cheapBoundSum is cheapBound before the last step: the bound F on Σ φ(μ)
// and the total T, or (done) the VS bound itself at q = 0, ∞ and T <= 0.
func (g *greedyState) cheapBoundSum(c *cheapConsts, a, b, uK, luK, fK float64) (F, T, vs float64, done bool) {
	s := g.dual
	q := g.p.Q
	T, vs, done = g.boundTotal(a)
	if done {
		return 0, T, vs, true
	}
	if q.IsInf() {
		top := s.lam[s.d-1]
		if a > 0 {
			top = math.Max(top, a+b/a)
		}
		if top <= 0 {
			return 0, T, math.Inf(1), true
		}
		return 0, T, T / top * (1 + cheapMargin), true
	}
	qf := float64(q)
	// The mass and λ-weighted mass outside K, on R ∪ N (>= 0 up to rounding).
	aR := math.Max(a-uK, 0)
	bR := math.Max(b-luK, 0)
	// ρ's interval, widened by a relative 1e-9 of a for rounding.
	rlo, rhi := 0.0, aR
	if s.rank > 0 {
		rlo = math.Max(0, aR-bR/c.lmin-1e-9*a)
		rhi = math.Min(aR, math.Max(0, aR-bR/c.lmax+1e-9*a))
	}
	if c.nNull == 0 {
		rlo, rhi = 0, 0
	} else if s.rank == 0 {
		rlo, rhi = aR, aR
	}
	rlo = math.Min(rlo, rhi)
	alpha, beta := c.alpha, c.beta
	if qf > 2 && s.rank > 0 {
		t0 := c.lmax
		if p := aR - rlo; p > 0 && bR > 0 {
			t0 = math.Min(math.Max(bR/p, c.lmin), c.lmax)
		}
		beta = qf * (qf - 1) * math.Pow(t0, qf-2)
		alpha = q.DTerm(t0) - beta*t0
	}
	// Stationary point of L(ρ): φ'(ρ) = α.
	rho := rlo
	if c.nNull > 0 && rhi > rlo {
		var t float64
		switch {
		case q == 1:
			t = math.Exp(alpha - 1)
		case alpha > 0:
			t = math.Pow(alpha/qf, 1/(qf-1))
		case qf < 1:
			t = math.Inf(1) // φ' > 0 >= α: L increases in ρ
		}
		rho = math.Min(math.Max(t, rlo), rhi)
	}
	F = s.sumPhi + fK
	if s.rank > 0 {
		F += alpha*(aR-rho) + beta*bR
	}
	if c.nNull > 0 {
		F += q.Term(rho)
	}
	// The moment gain of the tangent sum (moments.go), with the end of ρ's
	// interval that lowers it: Δ₂ = a² - ρ², Δ₃ = 3ab + a³ - ρ³.
	r2, r3 := rhi, rhi
	if d2Up, d3Up := momentUpper(q); d2Up {
		r2 = rlo
	} else if d3Up {
		r3 = rlo
	}
	F += g.momentSign() * g.momentGainOf(a*a-r2*r2, 3*a*b+a*a*a-r3*r3*r3, a*a, 3*a*b+a*a*a, s.lam[s.d-1]+a)
	fiso := s.sumPhi + q.Term(a)
	if qf >= 1 {
		F = math.Max(F, fiso)
	} else {
		F = math.Min(F, fiso)
	}
	return F, T, 0, false
}

// firstStage returns the indices k of cands whose first-stage qVS bound
// reaches the exact qVS of the candidate with the largest bound, less the
// tie tolerance (every candidate when that one fails the floor).
func (g *greedyState) firstStage(cands []int, weight func(int) float64, floor float64) []int {
	g.ensureXCX()
	cc := g.prepCheap()
	bounds := make([]float64, len(cands))
	parallel.Split(len(cands), len(g.ws), 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			c := cands[k]
			if wt := weight(c); wt > 0 {
				a, uK, luK, fK := g.cheapProject(&cc, g.feat.Features(c))
				F, T, vs, done := g.cheapBoundSum(&cc, a, g.xcxOf(c), uK, luK, fK)
				if !done {
					g.noteLazy(c, F)
					vs = g.vsBoundFromSum(F, T) * (1 + cheapMargin)
				}
				bounds[k] = wt * vs
			}
		}
	})
	return g.reachCut(cands, bounds, weight, floor)
}

// reachCut solves the candidate with the largest qVS bound exactly and
// returns the indices k of the candidates whose bound reaches its qVS less
// the tie tolerance (all when it fails the floor). A NaN bound keeps its
// candidate, and the top one is kept whatever its bound.
func (g *greedyState) reachCut(cands []int, bounds []float64, weight func(int) float64, floor float64) []int {
	top := 0
	for k := range bounds {
		if bounds[k] > bounds[top] {
			top = k
		}
	}
	cut := math.Inf(-1)
	if v, _ := g.dualExactItem(cands[top], g.ws[0], nil); v >= floor {
		cut = weight(cands[top]) * v
		cut -= TieTol * math.Abs(cut)
	}
	var keep []int
	for k, b := range bounds {
		if !(b < cut) || k == top {
			keep = append(keep, k)
		}
	}
	return keep
}

// firstStageMin is the number of candidates from which bestDual runs the
// first stage (a var so tests can force it on small problems).
var firstStageMin = 256

// # Stopping an exact solve early
//
// The exact VS of a candidate needs every root of its secular equation
// (greedydual.go), but a candidate that loses is usually recognisable from
// its few largest roots. dualExactOrPrune solves the roots from the largest
// down and, after 1, 2, 4, 8, ... of them, bounds the VS from the roots
// known so far: the unknown roots are those of the intervals j = 0 .. u-1
// between consecutive poles (lo, p_0), (p_0, p_1), ..., (p_{u-2}, p_{u-1})
// — each holds exactly one root, the interlacing of a rank-one update, and
// the solver's bracket keeps the computed root inside it — and their sum is
// the trace T = tr C + xᵀx less the known eigenvalues (the deflated ones and
// the solved roots). Among vectors with entries in those boxes and that
// sum, the water-filled one (fill the boxes from the lowest up: boxes below
// the level at their upper end, one partly, the rest at their lower end) is
// majorised by every other (the boxes are ordered and touch, so raising the
// level fills them one after the other). Σ φ over the unknown roots is then
// at least (q >= 1, φ convex) or at most (q < 1, φ concave) its value at the
// water-filled vector, and with the known roots' exact φ this bounds Σ φ(μ)
// as vsBoundFromSum needs (paper eq. 1; the same ZeroTol and rounding
// slack as dualBound: the computed roots sum to T within about (d+1)·eps·T,
// far inside boundMargin). The unknown roots majorise the water-filled
// vector v, so the bound also gains momentGain of their second and third
// power sums (those of the whole spectrum, moments.go, less the known
// roots') over v's. Negative boxes are clipped at 0 (the spectrum of
// the PSD C + x xᵀ is >= 0; Term is 0 at and below 0).
//
// When the candidate is not pruned every root is solved and the spectrum is
// assembled in arrowhead's order (deflated values, then roots 0 .. s), so
// vsOfSpectrum sums exactly what dualExact sums: the same VS, bit for bit.

// dualEarlyExit switches the early stop of exact solves on (tests compare
// against the unpruned pass with it off).
var dualEarlyExit = true

// dualExactOrPrune is dualExact (0 < q < ∞, q != 2) that asks prune with
// the bound described above after 1, 2, 4, ... roots and gives up (pruned)
// when it answers true.
func (g *greedyState) dualExactOrPrune(c int, w []float64, a float64, ws *secularWork, prune func(vsBound float64) bool) (vs float64, pruned bool) {
	s := g.dual
	if cap(ws.zbuf) < s.d {
		ws.zbuf = make([]float64, s.d)
	}
	z := ws.zbuf[:s.d]
	for k := range z {
		z[k] = s.sq[k] * w[k]
	}
	ws.mus = ws.mus[:0]
	p, wt, lo, hi, ok := ws.deflate(s.lam, z, a, func(mu float64) { ws.mus = append(ws.mus, mu) })
	if !ok {
		if s.lazyD != nil {
			g.noteLazy(c, g.sumTerms(ws.mus))
		}
		return g.vsOfSpectrum(ws.mus), false
	}
	np := len(p)
	if cap(ws.roots) < np+1 {
		ws.roots = make([]float64, np+1)
	}
	roots := ws.roots[:np+1]
	T := s.tr + a
	// Σ μ² and Σ μ³ of the whole spectrum (moments.go).
	var b, c2 float64
	for k, l := range s.lam {
		u := w[k] * w[k]
		b += l * u
		c2 += l * l * u
	}
	M2 := s.fro2 + 2*b + a*a
	M3 := s.fro3 + 3*c2 + 3*a*b + a*a*a
	next := 1
	for done := 1; done <= np+1; done++ {
		j := np + 1 - done
		roots[j] = secularRoot(a, p, wt, lo, hi, j, ws.diff)
		if done == next && j >= 2 {
			next *= 2
			F := g.knownPlusFilled(ws.mus, roots[j:], p[:j], lo, T, M2, M3)
			if prune(g.vsBoundFromSum(F, T)) {
				g.noteLazy(c, F)
				return 0, true
			}
		}
	}
	ws.mus = append(ws.mus, roots...)
	if s.lazyD != nil {
		g.noteLazy(c, g.sumTerms(ws.mus))
	}
	return g.vsOfSpectrum(ws.mus), false
}

// knownPlusFilled is Σ φ over the known eigenvalues (deflated and solved)
// plus Σ φ over the water-filled values of the u = len(poles) unknown
// roots, which lie in (lo, poles[0]), (poles[0], poles[1]), ... and sum to
// T less the known ones (see dualExactOrPrune).
func (g *greedyState) knownPlusFilled(deflated, solved, poles []float64, lo, T, M2, M3 float64) float64 {
	q := g.p.Q
	var F, known, k2, k3 float64
	for _, mu := range deflated {
		F += q.Term(mu)
		known += math.Max(mu, 0)
		k2 += mu * mu
		k3 += mu * mu * mu
	}
	for _, mu := range solved {
		F += q.Term(mu)
		known += math.Max(mu, 0)
		k2 += mu * mu
		k3 += mu * mu * mu
	}
	// Box j is [l_j, r_j] = [max(lo, 0), poles[0]] for j = 0, else
	// [poles[j-1], poles[j]]; all at their lower ends sum to base.
	low := math.Max(lo, 0)
	base := low
	for _, pl := range poles[:len(poles)-1] {
		base += pl
	}
	extra := math.Max(T-known-base, 0)
	l := low
	var v2, v3 float64 // Σ v², Σ v³ of the water-filled v
	for _, r := range poles {
		width := r - l
		var v float64
		switch {
		case extra >= width: // box full: at its upper end
			v = r
			extra -= width
		case extra > 0: // the partly filled box
			v = l + extra
			extra = 0
		default:
			v = l
		}
		F += q.Term(v)
		v2 += v * v
		v3 += v * v * v
		l = r
	}
	// The unknown roots majorise v: the moment gain of their power sums
	// (those of the spectrum less the known ones) over v's.
	top := poles[len(poles)-1]
	return F + g.momentSign()*g.momentGainOf(M2-k2-v2, M3-k3-v3, M2, M3, top)
}
