package vendi

import (
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// The greedy on a FeatureKernel (embeddings X, K = X Xᵀ) works in the d x d
// dual. With C = Σ_{i ∈ S} x_i x_iᵀ = V Λ Vᵀ, the m x m kernel K_S = X_S X_Sᵀ
// and C share their nonzero eigenvalues, and adding a candidate x is the
// rank-one update C + x xᵀ. Writing w = Vᵀ x, the (d+1) x (d+1) arrowhead
//
//	A = [ Λ        Λ^½ w ] = Bᵀ B,   B = [ Λ^½  w ]  (d x (d+1)),
//	    [ wᵀ Λ^½   xᵀ x  ]
//
// has the nonzero spectrum of B Bᵀ = Λ + w wᵀ = Vᵀ (C + x xᵀ) V, which is the
// nonzero spectrum of the (m+1) x (m+1) kernel of S ∪ {x}. So the existing
// arrowhead solver gives the candidate's spectrum exactly from the secular
// equation on d poles, whatever m is; the poles at λ = 0 (m < d: C has rank
// at most m) have z = 0 and deflate, so the secular equation has
// min(m, d) + 1 roots: the size of the smaller of the two forms (m x m
// bordered, d x d rank-one). Computing w costs O(d²), so a pick costs
// O(n d²) plus one d x d eigendecomposition, against O(n (m d + m²)) for the
// bordered form; Greedy uses the dual whenever d <= dualDimCap (a d x d
// eigendecomposition per pick is then negligible) or d <= m + 1.
//
// # Bound-ordered pruning
//
// Most candidates are never solved exactly. Let μ be the spectrum of
// C + x xᵀ and δ its diagonal in the basis made of V's columns with λ_k > 0
// (P) and, in C's null space N (λ_k = 0), of the unit vector along x's
// component there plus any completion: δ_k = λ_k + w_k² on P, one entry
// ρ = Σ_N w_k² and zeros. (λ, xᵀx) is the diagonal of A. By Schur's theorem
// the eigenvalues of a symmetric matrix majorise its diagonal in every
// orthonormal basis, so for every Schur-concave function of the
// normalised spectrum — every Rényi entropy, hence VS_q for every q >= 0 —
//
//	VS_q(μ) <= VS_q(δ)   and   VS_q(μ) <= VS_q(λ ∪ {xᵀx})   (the pinching
//	                                                          bound: x isolated)
//
// with the same total tr C + xᵀx. VS_q(δ) would cost d logarithms; instead,
// with φ(t) = t log t (q = 1) or t^q, φ is convex for q >= 1 and concave for
// q < 1, and the tangent at λ_k > 0 gives Σ φ(λ_k + w_k²) >= (q >= 1) or <=
// (q < 1) Σ [φ(λ_k) + φ'(λ_k) w_k²], and N adds φ(ρ) (φ(0) = 0). VS_q is
// decreasing in Σ φ for q >= 1 and increasing for q < 1, so the relaxation
// keeps the bound valid. Both forms then gain moments.go's momentGain: the
// exact diagonal with Δ₂ = a² - Σ_P u_k² - ρ² and
// Δ₃ = 3ab + a³ - Σ_P (3λ_k u_k² + u_k³) - ρ³ (b = Σ_P λ_k u_k; the power
// sums of μ less the diagonal's), the tangent sum with Δ₂ = a² - ρ² and
// Δ₃ = 3ab + a³ - ρ³ (less the tangents of t² and t³ at λ_k). (Spreading ρ
// over the |N| null directions of V, as
// V's own diagonal does, gives |N| φ(ρ/|N|): a valid but looser bound, by
// far the loosest part while the chosen set has fewer than d items.) At
// q = ∞, VS = T / max μ and max μ >= every diagonal entry; at q = 0 the
// rank is at most rank(C) + 1.
//
// The exact VS (Order.FromRawSum) drops normalised eigenvalues <= zeroTol. That only
// lowers VS for q <= 1 and q = ∞; for q > 1 it can raise Σ p^q's reciprocal
// power by dropping at most d + 1 terms of at most zeroTol^q each, which the
// bound subtracts. At q = 1 the unnormalised form adds Σ_dropped p log T,
// covered by boundMargin's second term. Finally boundMargin (1e-9) absorbs
// rounding (the exact and bound paths agree to ~1e-13).
//
// Candidates are solved in decreasing order of their qVS bound, and the
// search stops when the bound falls below the best exact qVS less the tie
// tolerance: every unsolved candidate is then strictly worse than the best
// and outside the tie window, so the pick, the tie rule and the score are
// exactly those of solving every candidate.
// At q = 2 the closed form (tr)²/‖·‖²_F (exact for a PSD Gram) costs O(d)
// per candidate once w is known, and every candidate is scored.

// dualDimCap is the largest feature dimension for which Greedy uses the
// dual from the first pick on (a var so tests can cross the switch).
var dualDimCap = 64

// boundMargin is the relative slack added to every pruning bound to cover
// rounding in the bound and in the exact evaluation.
const boundMargin = 1e-9

type dualState struct {
	d    int
	gram []float64 // d x d, Σ over members of x xᵀ
	lam  []float64 // eigenvalues of gram, ascending, rounding noise set to 0
	vecs []float64 // row k = eigenvector k
	sq   []float64 // √λ_k
	tr   float64   // Σ λ
	fro2 float64   // Σ λ² = ‖C‖²_F
	fro3 float64   // Σ λ³
	rank int
	// tangent data for the bounds: φ(λ_k), φ'(λ_k) and Σ φ(λ_k)
	phiLam, dphiLam []float64
	sumPhi          float64
	// xcx[i] = x_iᵀ C x_i for the eligible items, up to date with the first
	// xcxDone[i] members (xcxOf), once the first stage has run
	// (dualprune.go); nil before.
	xcx     []float64
	xcxDone []int32
	// lazyD[i]: a bound on item i's increment σ(Σ φ(C + x_i x_iᵀ) - Σ φ(C))
	// from an earlier pick, still valid (lazy.go); nil where unused.
	lazyD    []float64
	norm2    []float64 // xᵀx of every item (dotSelf), for the lazy bounds
	maxNorm2 float64   // the largest of them
	// scratch of bestDual and lazyStage, reused from pick to pick
	cands []int
	logb  []float64
	evals int // exact evaluations in the last pick (for tests)
}

// dualReady reports whether the greedy runs in the dual (or switches to it
// now that the chosen set has reached d items).
func (g *greedyState) dualReady() bool {
	if g.feat == nil {
		return false
	}
	if g.dual != nil {
		return true
	}
	d := g.feat.Dim()
	return d <= dualDimCap || d <= g.members()+1
}

// enterDual builds the dual state from the current members.
func (g *greedyState) enterDual() error {
	d := g.feat.Dim()
	g.dual = &dualState{d: d, gram: make([]float64, d*d)}
	g.dual.lazyD = g.newLazy()
	for _, i := range g.memberItem {
		g.dual.addOuter(g.feat.Features(i))
	}
	return g.dual.factorize(g)
}

func (s *dualState) addOuter(x []float64) {
	d := s.d
	for a := 0; a < d; a++ {
		if x[a] == 0 {
			continue
		}
		row := s.gram[a*d : (a+1)*d]
		for b := range row {
			row[b] += x[a] * x[b]
		}
	}
}

// factorize eigendecomposes the Gram matrix and refreshes the per-pick
// constants. Eigenvalues at or below d·eps·λ_max (including negative
// rounding noise of a PSD matrix) are set to 0: they are within the
// eigensolver's own error, and exact zeros make their poles deflate.
func (s *dualState) factorize(g *greedyState) error {
	d := s.d
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(d, slices.Clone(s.gram)), true) {
		return errors.New("vendi: eigendecomposition of the chosen set's d x d Gram matrix did not converge")
	}
	if s.lam == nil {
		s.lam = make([]float64, d)
	}
	es.Values(s.lam)
	var V mat.Dense
	es.VectorsTo(&V)
	if s.vecs == nil {
		s.vecs = make([]float64, d*d)
		s.sq = make([]float64, d)
		s.phiLam = make([]float64, d)
		s.dphiLam = make([]float64, d)
	}
	lmax := math.Max(s.lam[d-1], 0)
	noise := float64(d) * 0x1p-52 * lmax
	s.tr, s.fro2, s.fro3, s.rank, s.sumPhi = 0, 0, 0, 0, 0
	for k, l := range s.lam {
		if l <= noise {
			l = 0
		}
		s.lam[k] = l
		s.sq[k] = math.Sqrt(l)
		s.tr += l
		s.fro2 += l * l
		s.fro3 += l * l * l
		s.phiLam[k], s.dphiLam[k] = 0, 0
		if l > 0 {
			s.rank++
			s.phiLam[k] = g.p.Q.Term(l)
			s.dphiLam[k] = g.p.Q.DTerm(l)
			s.sumPhi += s.phiLam[k]
		}
		for a := 0; a < d; a++ {
			s.vecs[k*d+a] = V.At(a, k)
		}
	}
	return nil
}

// project sets w = Vᵀ x and returns xᵀx.
func (s *dualState) project(x, w []float64) float64 {
	d := s.d
	a := dotSelf(x)
	x = x[:d]
	for k := 0; k < d; k++ {
		w[k] = dot(s.vecs[k*d:(k+1)*d], x)
	}
	return a
}

// project4 sets w[i] = Vᵀ x_i for four candidates at once: each row of V is
// loaded once for the four (a register-blocked product, about 1.5x the
// speed of four project calls in pure Go). The sums are grouped
// differently from project's, so the results may differ in the last bits.
func (s *dualState) project4(x0, x1, x2, x3 []float64, w [4][]float64) {
	d := s.d
	x0, x1, x2, x3 = x0[:d], x1[:d], x2[:d], x3[:d]
	for k := 0; k < d; k++ {
		v := s.vecs[k*d : (k+1)*d]
		// two accumulators per candidate: the adds are latency-bound otherwise
		var a0, a1, a2, a3, b0, b1, b2, b3 float64
		j := 0
		for ; j+2 <= d; j += 2 {
			va, vb := v[j], v[j+1]
			a0 += va * x0[j]
			b0 += vb * x0[j+1]
			a1 += va * x1[j]
			b1 += vb * x1[j+1]
			a2 += va * x2[j]
			b2 += vb * x2[j+1]
			a3 += va * x3[j]
			b3 += vb * x3[j+1]
		}
		if j < d {
			a0 += v[j] * x0[j]
			a1 += v[j] * x1[j]
			a2 += v[j] * x2[j]
			a3 += v[j] * x3[j]
		}
		w[0][k], w[1][k], w[2][k], w[3][k] = a0+b0, a1+b1, a2+b2, a3+b3
	}
}

// dotSelf is xᵀx, summed as project sums it.
func dotSelf(x []float64) float64 {
	var a float64
	for _, v := range x {
		a += v * v
	}
	return a
}

// order2 is the closed-form VS_2 of the members plus a candidate (PSD Gram):
// (tr C + a)² / (‖C‖²_F + 2 xᵀ C x + a²).
func (s *dualState) order2(w []float64, a float64) float64 {
	var xcx float64
	for k, l := range s.lam {
		xcx += l * w[k] * w[k]
	}
	tr := s.tr + a
	fro := s.fro2 + 2*xcx + a*a
	if tr <= 0 || fro <= 0 {
		return 0
	}
	return tr * tr / fro
}

// bound is an upper bound on the candidate's VS_q (see the comment at the
// top of the file); +Inf when none is available.
//
// With exactDiag the Schur-Horn term is Σ φ(λ_k + w_k²) itself (d
// logarithms or powers) instead of its tangent relaxation: tighter, used as
// a second filter on the candidates the cheap bound keeps.
func (g *greedyState) dualBound(w []float64, a float64, exactDiag bool) float64 {
	F, T, vs, done := g.dualBoundSum(w, a, exactDiag)
	if done {
		return vs
	}
	return g.vsBoundFromSum(F, T)
}

// dualBoundNoted is dualBound for item c, whose bound on Σ φ also tightens
// its lazy bound (lazy.go).
func (g *greedyState) dualBoundNoted(c int, w []float64, a float64, exactDiag bool) float64 {
	F, T, vs, done := g.dualBoundSum(w, a, exactDiag)
	if done {
		return vs
	}
	g.noteLazy(c, F)
	return g.vsBoundFromSum(F, T)
}

// dualBoundSum is dualBound before the last step: the bound F on Σ φ(μ) and
// the total T, or (done) the VS bound itself at q = 0, ∞ and T <= 0.
func (g *greedyState) dualBoundSum(w []float64, a float64, exactDiag bool) (F, T, vs float64, done bool) {
	s := g.dual
	q := float64(g.p.Q)
	T, vs, done = g.boundTotal(a)
	if done {
		return 0, T, vs, true
	}
	switch {
	case math.IsInf(q, 1):
		maxDiag := math.Max(a, s.lam[s.d-1])
		var rho float64 // the null-space entry ρ
		for k, l := range s.lam {
			maxDiag = math.Max(maxDiag, l+w[k]*w[k])
			if l <= 0 {
				rho += w[k] * w[k]
			}
		}
		maxDiag = math.Max(maxDiag, rho)
		return 0, T, T / maxDiag * (1 + boundMargin), true
	}
	// b = Σ_P λ_k u_k; with exactDiag also Σ_P u_k², Σ_P λ_k u_k², Σ_P u_k³
	// for the moment gain (u_k = w_k²).
	var fd, wn, b, su2, slu2, su3 float64
	nn := 0
	for k, l := range s.lam {
		u := w[k] * w[k]
		switch {
		case l <= 0:
			nn++
			wn += u
		case exactDiag:
			fd += g.p.Q.Term(l + u)
			b += l * u
			su2 += u * u
			slu2 += l * u * u
			su3 += u * u * u
		default:
			fd += s.phiLam[k] + s.dphiLam[k]*u
			b += l * u
		}
	}
	if nn > 0 {
		fd += g.p.Q.Term(wn)
	}
	// The moment gain (moments.go): Σ μ² and Σ μ³ less those of the
	// diagonal (exactDiag) or less the tangents of t² and t³ at λ_k on P
	// and the exact ρ², ρ³ (the tangent bound).
	d2 := a*a - wn*wn
	d3 := 3*a*b + a*a*a - wn*wn*wn
	if exactDiag {
		d2 -= su2
		d3 -= 3*slu2 + su3
	}
	fd += g.momentSign() * g.momentGainOf(d2, d3, a*a, 3*a*b+a*a*a, s.lam[s.d-1]+a)
	fiso := s.sumPhi + g.p.Q.Term(a)
	if q >= 1 {
		F = math.Max(fd, fiso) // lower bounds on Σ φ(μ)
	} else {
		F = math.Min(fd, fiso) // upper bounds
	}
	return F, T, 0, false
}

// momentSign is σ of moments.go: +1 where Σ φ is bounded below (q >= 1),
// -1 where it is bounded above (q < 1).
func (g *greedyState) momentSign() float64 {
	if g.p.Q >= 1 {
		return 1
	}
	return -1
}

// momentGainOf is momentGain with Δ₂ and Δ₃ widened by momentTol of the
// sums they cancel (scale2, scale3 >= them) in the safe direction.
func (g *greedyState) momentGainOf(d2, d3, scale2, scale3, top float64) float64 {
	d2Up, d3Up := momentUpper(g.p.Q)
	if d2Up {
		d2 += momentTol * scale2
	} else {
		d2 -= momentTol * scale2
	}
	if d3Up {
		d3 += momentTol * scale3
	} else {
		d3 -= momentTol * scale3
	}
	return momentGain(g.p.Q, d2, d3, top)
}

// boundTotal returns the total T = tr C + a of the chosen set plus a
// candidate with xᵀx = a and, with done, the bound when no sum is needed:
// +Inf if T <= 0 (no bound), rank C + 1 at q = 0.
func (g *greedyState) boundTotal(a float64) (T, vs float64, done bool) {
	s := g.dual
	T = s.tr + a
	switch {
	case T <= 0:
		return T, math.Inf(1), true
	case g.p.Q == 0:
		return T, float64(min(s.rank+1, s.d)), true
	}
	return T, 0, false
}

// vsBoundFromSum turns a bound F on Σ φ(μ) (a lower bound for q >= 1, an
// upper one for q < 1; 0 < q < ∞) and the total T into the bound on VS_q,
// with the zeroTol and rounding slack described at the top of the file.
func (g *greedyState) vsBoundFromSum(F, T float64) float64 {
	q := float64(g.p.Q)
	d := g.dual.d
	if q == 1 {
		slack := boundMargin + float64(d+1)*zeroTol*math.Max(0, math.Log(zeroTol*T))
		return math.Exp(math.Log(T)-F/T) * (1 + slack)
	}
	S := F / math.Pow(T, q)
	if q > 1 {
		S -= float64(d+1) * math.Pow(zeroTol, q)
		if S <= 0 {
			return math.Inf(1)
		}
	}
	return math.Pow(S, 1/(1-q)) * (1 + boundMargin)
}

// dualExact is the VS_q of the members plus the candidate with projection w
// and squared norm a, from the arrowhead's eigenvalues.
func (g *greedyState) dualExact(w []float64, a float64, ws *secularWork) float64 {
	s := g.dual
	if g.p.Q == 2 {
		return s.order2(w, a)
	}
	if cap(ws.zbuf) < s.d {
		ws.zbuf = make([]float64, s.d)
	}
	z := ws.zbuf[:s.d]
	for k := range z {
		z[k] = s.sq[k] * w[k]
	}
	if g.p.Q.IsInf() {
		// VS_∞ = total / λ_max: only the largest root is needed. The total
		// is the trace (the spectrum is PSD).
		total := s.tr + a
		top := arrowheadMax(s.lam, z, a, ws)
		if total <= 0 || top <= zeroTol*total {
			return 0
		}
		return total / top
	}
	ws.mus = ws.mus[:0]
	arrowhead(s.lam, z, a, ws, func(mu float64) { ws.mus = append(ws.mus, mu) })
	return g.vsOfSpectrum(ws.mus)
}

// vsOfSpectrum is VS_q of a raw spectrum (clipped at 0, zeroTol threshold),
// through the same φ sums as the block path.
func (g *greedyState) vsOfSpectrum(eig []float64) float64 {
	var total float64
	for _, mu := range eig {
		if mu > 0 {
			total += mu
		}
	}
	thr := zeroTol * total
	var f, maxEig float64
	rank := 0
	for _, mu := range eig {
		if mu > thr {
			f += g.p.Q.Term(mu)
			rank++
			maxEig = math.Max(maxEig, mu)
		}
	}
	return g.p.Q.FromRawSum(total, f, maxEig, rank)
}

// bestDual is best() in the dual: bounds for every candidate, exact
// evaluations in bound order until the bound drops below the best value.
func (g *greedyState) bestDual() (int, float64) {
	s := g.dual
	m := g.members()
	cands := s.cands[:0] // reused from pick to pick (10⁶ items: 8 MB)
	for c := 0; c < g.n; c++ {
		if g.eligible[c] {
			cands = append(cands, c)
		}
	}
	s.cands = cands
	if len(cands) == 0 {
		return -1, 0
	}
	weight := func(c int) float64 { return (g.sumQ + g.p.Quality[c]) / float64(m+1) }
	floor := math.Inf(-1)
	if g.p.MinVS != nil {
		floor = g.p.MinVS(m+1) * (1 - 1e-12)
	}
	firstStage := dualFirstStage && len(cands) >= firstStageMin
	if g.dual.lazyD != nil && len(cands) >= firstStageMin {
		keep, unknown := g.lazyStage(cands, weight, floor)
		for j, k := range keep {
			cands[j] = cands[k]
		}
		cands = cands[:len(keep)]
		// Once most candidates have a lazy bound, the ones it keeps are
		// projected without the first stage: their tangent bounds, noted,
		// keep them out of the next picks, where the first stage's looser
		// ones would let them back in (1,000,000 x 32: 12.5 CPU-s with the
		// first stage, 10.5 without, docs/performance.md).
		firstStage = firstStage && 2*unknown > len(cands)
	}
	if firstStage {
		keep := g.firstStage(cands, weight, floor)
		for j, k := range keep {
			cands[j] = cands[k]
		}
		cands = cands[:len(keep)]
	}
	order2 := g.p.Q == 2
	// vsb[k]: an upper bound on candidate k's VS (its exact VS at q = 2);
	// bounds[k] the corresponding bound on its qVS.
	vsb := make([]float64, len(cands))
	bounds := make([]float64, len(cands))
	// Every candidate costs one projection: equal chunks, one per worker.
	// Below q = 2 the projections only feed bounds (boundMargin covers their
	// rounding; the exact solve projects again with project), so they go
	// four candidates at a time (project4); at q = 2 the closed form is the
	// exact VS and keeps project's arithmetic.
	parallel.Split(len(cands), len(g.ws), 1, func(lo, hi int) {
		var wv [4][]float64
		for i := range wv {
			wv[i] = make([]float64, s.d)
		}
		k := lo
		if !order2 {
			for ; k+4 <= hi; k += 4 {
				c := cands[k : k+4]
				s.project4(g.feat.Features(c[0]), g.feat.Features(c[1]), g.feat.Features(c[2]), g.feat.Features(c[3]), wv)
				for i := range 4 {
					vsb[k+i] = g.dualBoundNoted(c[i], wv[i], dotSelf(g.feat.Features(c[i])), false)
					if wt := weight(c[i]); wt > 0 {
						bounds[k+i] = wt * vsb[k+i]
					}
				}
			}
		}
		for ; k < hi; k++ {
			c := cands[k]
			a := s.project(g.feat.Features(c), wv[0])
			if order2 {
				vsb[k] = s.order2(wv[0], a)
			} else {
				vsb[k] = g.dualBoundNoted(c, wv[0], a, false)
			}
			if wt := weight(c); wt > 0 {
				bounds[k] = wt * vsb[k]
			} // else the qVS is exactly 0 (and Inf * 0 would be NaN)
		}
	})
	s.evals = 0
	if order2 {
		// vsb holds the exact VS_2: no pruning needed.
		var kept []int
		var vals []float64
		bestVal := math.Inf(-1)
		for k, c := range cands {
			if vsb[k] < floor {
				continue
			}
			kept = append(kept, c)
			vals = append(vals, bounds[k])
			bestVal = math.Max(bestVal, bounds[k])
		}
		s.evals = len(cands)
		if len(kept) == 0 {
			return floorRejected, 0
		}
		return pickTied(kept, vals, nil, bestVal)
	}
	// A first exact value (the candidate with the largest bound) sets a
	// cut; only candidates whose bound reaches it are sorted and solved.
	order := g.reachCut(cands, bounds, weight, floor)
	slices.SortFunc(order, func(x, y int) int {
		if bounds[x] != bounds[y] {
			if bounds[x] > bounds[y] {
				return -1
			}
			return 1
		}
		return cands[x] - cands[y]
	})
	// Solve in bound order; workers take the next candidate until its bound
	// is below the best value found so far less the tie tolerance. The best
	// only grows, so every candidate left unsolved is strictly worse than
	// the final best and outside the tie window: the outcome does not
	// depend on the interleaving.
	vals := make([]float64, len(order))
	solved := make([]bool, len(order))
	// The queue is handed out under the lock that guards bestVal (the
	// cut-off), not by parallel.Blocks: see solveInOrder.
	var mu sync.Mutex
	var solves atomic.Int64
	next, bestVal := 0, math.Inf(-1)
	parallel.Workers(len(g.ws), func(w int) {
		ws := g.ws[w]
		for {
			mu.Lock()
			k := next
			if k >= len(order) || bounds[order[k]] < bestVal-TieTol*math.Abs(bestVal) {
				mu.Unlock()
				return
			}
			next++
			mu.Unlock()
			c := cands[order[k]]
			vs, pruned := g.dualExactItem(c, ws, func(vsBound float64) bool {
				mu.Lock()
				defer mu.Unlock()
				return weight(c)*vsBound < bestVal-TieTol*math.Abs(bestVal)
			})
			if pruned {
				continue
			}
			solves.Add(1)
			if vs < floor {
				continue
			}
			v := weight(c) * vs
			mu.Lock()
			vals[k], solved[k] = v, true
			bestVal = math.Max(bestVal, v)
			mu.Unlock()
		}
	})
	s.evals = int(solves.Load()) + 1 // + the first, top-bound candidate
	var evCands []int
	var evVals []float64
	for k, ok := range solved {
		if ok {
			evCands = append(evCands, cands[order[k]])
			evVals = append(evVals, vals[k])
		}
	}
	if len(evCands) == 0 {
		return floorRejected, 0
	}
	return pickTied(evCands, evVals, nil, bestVal)
}

// dualExactItem is dualExact for item c. If prune is given and q is not
// 0, 2 or ∞ (where the first bound is already the diagonal's), it is first
// asked with the tighter exactDiag bound and, when it answers true, c is not
// solved (pruned).
func (g *greedyState) dualExactItem(c int, ws *secularWork, prune func(vsBound float64) bool) (vs float64, pruned bool) {
	if cap(ws.wbuf) < g.dual.d {
		ws.wbuf = make([]float64, g.dual.d)
	}
	w := ws.wbuf[:g.dual.d]
	a := g.dual.project(g.feat.Features(c), w)
	if q := g.p.Q; prune != nil && q != 0 && q != 2 && !q.IsInf() {
		if prune(g.dualBoundNoted(c, w, a, true)) {
			return 0, true
		}
		if dualEarlyExit {
			return g.dualExactOrPrune(c, w, a, ws, prune)
		}
	}
	vs = g.dualExact(w, a, ws)
	if g.dual.lazyD != nil && g.p.Q != 2 {
		g.noteLazy(c, g.sumTerms(ws.mus))
	}
	return vs, false
}

// syncDual switches to the dual when it becomes the smaller form.
func (g *greedyState) syncDual() error {
	if g.dual == nil && g.dualReady() {
		return g.enterDual()
	}
	return nil
}
