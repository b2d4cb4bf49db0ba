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
//     function exact and bounding the rest (the far poles left of the
//     interval, a convex function on it, and those right of it, a concave
//     one) between two lines, chords and tangents from the far sums' values
//     and slopes at the interval's ends: rows of the block's Cauchy matrix
//     1/(d_i - d_k) and of its squares times w = z² (tabulated once per
//     block and pick; a candidate touching several blocks takes its largest
//     block's rows from that table and only the other blocks' terms by
//     division, farBaseMixed; a candidate similar to one member alone
//     reads that member's sums, tabulated once per block, times v²:
//     prepareSingles). The brackets are certified by evaluating the near
//     part, so they hold whatever the iteration that found them.
//  2. spectrumUpper turns the brackets, the trace Σμ = Σd + a and the
//     untouched blocks into an upper bound on VS_q for every q > 0,
//     including the zeroTol threshold (proof there).
//  0. At q = 1, a candidate touching one large block alone is first bounded
//     without any root (level0.go: four exact power sums, interlacing boxes,
//     Lagrangian multipliers from a small library); solveInOrder gives it
//     the first bound below only when its turn comes, and queues it again
//     by that bound.
//  3. best bounds every candidate touching a large block (first bound: only
//     intervals that can hold a positive root, L = 1, coarse brackets: the
//     first certified point on each side; roots <= 0 add nothing to T or
//     f), and solveInOrder solves them in decreasing bound
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
// the first bound and in the tighter second one. With the far field
// bounded by lines (farLines) L = 1 prunes as well as L = 3 did with
// constants (on BenchmarkQVSBatchFashionSpread's state: 99.30 % of the
// bounded candidates against 99.19 %, 132-191 second bounds per pick
// against 160-170) with half the near poles per evaluation.
var bracketWindow = [2]int{1, 8}

// bracketTol is certify's stopping step relative to the bracket width
// the far field's lines leave (see bracketNear), in the second bound; the
// first bound's brackets are coarse (rootBrackets).
const bracketTol = 0x1p-6

// rootBrackets encloses every eigenvalue of the arrowhead matrix
// [[diag(p), z], [zᵀ, a]] with w = z², poles p strictly increasing (s >= 1)
// and (lo, hi) enclosing the whole spectrum: on return μ_j ∈ [bl[j], bh[j]]
// for j = 0..s, where μ_j is the root in interval j of (lo, p_0, ..., p_{s-1}, hi).
// f holds the far-field sums of farBase (L near poles on each side) for
// rows i >= from-1. Intervals j < from are not solved: their brackets are
// the intervals themselves. With coarse, each side ends at the first point
// certified (no tightening steps after it) and a bracket certified on both
// sides is kept however wide (bracketNear): the first bound's brackets,
// of which almost all are thrown away with their candidate.
//
// Proof. The eigenvalues are the roots of F(x) = x - a - Σ_k w_k/(x - p_k)
// (poles with w_k = 0 are eigenvalues themselves and lie on interval ends),
// and by Cauchy interlacing (Weyl for the ends) μ_j lies in the closed
// interval j, [left, right]. Split the sum into the near poles N_j (indices
// j-1-L..j+L) and the far ones: F = H - G_L - G_R with H(x) = x - a -
// Σ_{N_j} w_k/(x - p_k), G_L the far poles left of the interval and G_R
// those right of it. No far pole lies in the interval, so on it G_L is
// positive, decreasing and convex, G_R negative, decreasing and concave,
// and H is increasing. Hence, for any lines ℓ below G_L + G_R (a tangent of
// G_L plus the chord of G_R) and u above it (the chord of G_L plus a
// tangent of G_R), H(x) <= ℓ(x) gives F(x) <= 0, so x <= μ_j, and H(x) >=
// u(x) gives x >= μ_j. H - ℓ and H - u increase too (every chord and
// tangent of a decreasing function falls); certify and solveNear return
// only points checked on them (see line), or the interval's own ends,
// so the brackets hold up to the rounding of H and of the sums, which the
// pruning margin covers. Against the constants G(right) <= G <= G(left)
// (the outer intervals keep those: an end there is no pole, with no
// tabulated row) the lines leave a gap of second order in the interval's
// width instead of first, so a window of L = 1 brackets about as tightly
// as L = 3 did with constants, with half the near poles. (A run of
// equal poles is merged by the caller first: mergePoles.)
func rootBrackets(a float64, p, w []float64, lo, hi float64, L, from int, f *farField, bl, bh []float64, coarse bool) {
	s := len(p)
	for j := 0; j <= s; j++ {
		left, right := interval(p, lo, hi, j)
		if j < from {
			bl[j], bh[j] = left, right
			continue
		}
		kLo, kHi := max(0, j-1-L), min(s-1, j+L)
		start, pole, est := rootEstimate(a, p, w, f.full, j, left, right)
		xe := 0.5 * (left + right)
		if est {
			xe = start
		}
		vl, ml, vu, mu := farLines(p, w, lo, hi, L, j, xe, f)
		// H(x) - ℓ(x) = x - (a + vl) - ml (x - left) - Σ_near, likewise for u.
		lower, upper := line{a + vl, ml, left}, line{a + vu, mu, left}
		near, nw := p[kLo:kHi+1], w[kLo:kHi+1]
		if !est {
			pole = -1
		}
		var ok bool
		bl[j], bh[j], ok = bracketNear(lower, upper, near, nw, j-kLo, left, right, start, pole-kLo, coarse)
		if !ok {
			bl[j] = solveNear(lower, near, nw, left, right, false)
			bh[j] = solveNear(upper, near, nw, left, right, true)
		}
	}
}

// interval returns the ends of interval j of (lo, p_0, ..., p_{s-1}, hi).
func interval(p []float64, lo, hi float64, j int) (left, right float64) {
	left, right = lo, hi
	if j > 0 {
		left = p[j-1]
	}
	if j < len(p) {
		right = p[j]
	}
	return left, right
}

// farLines returns lines ℓ(x) = vl + ml (x - left) and u(x) = vu + mu (x -
// left) with ℓ <= G_L + G_R <= u on interval j (left, right) of (lo, p_0,
// ..., p_{s-1}, hi), the far field of rootBrackets (poles outside j-1-L..j+L,
// sums in f), chosen to be tight near xe: on an inner interval ℓ is the
// higher of G_L's tangents at the two ends (at xe) plus G_R's chord and u
// the chord of G_L plus the lower of G_R's tangents; on the outer ones
// (an end that is no pole, no tabulated row) the constants G(right) and
// G(left).
func farLines(p, w []float64, lo, hi float64, L, j int, xe float64, f *farField) (vl, ml, vu, mu float64) {
	s := len(p)
	term := func(i, k int) (float64, float64) {
		t := 1 / (p[i] - p[k])
		wt := w[k] * t
		return wt, wt * t
	}
	kLo, kHi := max(0, j-1-L), min(s-1, j+L)
	if j == 0 || j == s {
		var gl, gr float64
		if j == 0 {
			for k := kHi + 1; k < s; k++ {
				gl += w[k] / (lo - p[k])
			}
		} else {
			gl = f.left[j-1] + f.right[j-1]
			if k := j - 2 - L; k >= 0 {
				t, _ := term(j-1, k)
				gl += t
			}
		}
		if j == s {
			for k := 0; k < kLo; k++ {
				gr += w[k] / (hi - p[k])
			}
		} else {
			gr = f.left[j] + f.right[j]
			if k := j + 1 + L; k < s {
				t, _ := term(j, k)
				gr += t
			}
		}
		return gr, 0, gl, 0
	}
	// G_L, G_R and their slopes' magnitudes at both ends.
	left, right := p[j-1], p[j]
	i0, i1 := j-1, j
	gLl, dLl := f.left[i0], f.dleft[i0]
	if k := i0 - 1 - L; k >= 0 {
		t, t2 := term(i0, k)
		gLl += t
		dLl += t2
	}
	gRl, dRl := f.right[i0], f.dright[i0]
	gLr, dLr := f.left[i1], f.dleft[i1]
	gRr, dRr := f.right[i1], f.dright[i1]
	if k := i1 + 1 + L; k < s {
		t, t2 := term(i1, k)
		gRr += t
		dRr += t2
	}
	width := right - left
	mR := (gRr - gRl) / width
	if gLl-dLl*(xe-left) >= gLr-dLr*(xe-right) {
		vl, ml = gLl+gRl, mR-dLl
	} else {
		vl, ml = gLr+dLr*width+gRl, mR-dLr
	}
	mL := (gLr - gLl) / width
	if gRl-dRl*(xe-left) <= gRr-dRr*(xe-right) {
		vu, mu = gLl+gRl, mL-dRl
	} else {
		vu, mu = gLl+gRr+dRr*width, mL-dRr
	}
	return vl, ml, vu, mu
}

// line is the function x - c - m (x - x0) - Σ w_k/(x - p_k) of the near
// poles p (the secular function's near part less a line of the far field,
// kept relative to x0 = the interval's left end, so that a steep line costs
// no cancellation); m <= 0, so it increases on every interval.
type line struct{ c, m, x0 float64 }

// at returns the line's part x - c - m (x - x0) and its slope.
func (ln line) at(x float64) (v, dv float64) { return x - ln.c - ln.m*(x-ln.x0), 1 - ln.m }

// bracketNear is the fast path of rootBrackets for one interval (local index
// jl of the near poles p): certify takes Newton steps towards the roots of
// the lower and the upper function (see line) until a point is certified
// (lower(x) <= 0, resp. upper(x) >= 0, evaluated); the interval's ends are
// certified by interlacing. The steps start from the estimate start next
// to pole if there is one; only if they leave a side uncertified or the
// bracket wider than 1/16 of the interval are they redone from nearRoot's
// approximation of the root of the mean of the two. Every bracket end
// returned is certified either way. With coarse, certify stops at its
// first certified point and a bracket certified on both sides is not
// redone however wide. ok is false if nearRoot fails (solveNear then
// bisects).
func bracketNear(lower, upper line, p, w []float64, jl int, left, right, start float64, pole int, coarse bool) (lo, hi float64, ok bool) {
	// lower - upper at x: the gap between the far field's two lines, over
	// the slope the width it leaves the bracket.
	gap := func(x float64) float64 { return upper.c - lower.c + (upper.m-lower.m)*(x-left) }
	both := func(x float64) (lo, hi float64) {
		s, ds, d2s := nearSum(p, w, x)
		vl, dl := lower.at(x)
		vu, du := upper.at(x)
		tol := bracketTol * gap(x) / (dl + ds)
		if coarse {
			tol = math.Inf(1)
		}
		lo = certify(lower, p, w, left, right, x, vl-s, dl+ds, d2s, tol, false)
		hi = certify(upper, p, w, left, right, x, vu-s, du+ds, d2s, tol, true)
		return lo, hi
	}
	if pole >= 0 && pole < len(p) && start > left && start < right {
		// Newton's steps of certify from the estimate itself usually
		// certify both sides; where they do not, nearRoot's point follows.
		lo, hi = both(start)
		if lo > left && hi < right && (coarse || hi-lo <= 0x1p-4*(right-left)) {
			return lo, hi, true
		}
	}
	mid := line{0.5 * (lower.c + upper.c), 0.5 * (lower.m + upper.m), left}
	x, _, _, ok := nearRoot(mid, p, w, jl, left, right, start, pole)
	if !ok {
		return 0, 0, false
	}
	lo, hi = both(x)
	return lo, hi, true
}

// nearRoot approximates the root of Φ(x) = ln(x) (see line) in interval jl
// of the poles p (between p[jl-1] and p[jl]; left and right are its ends,
// finite also for the outer intervals) to a relative 1e-6 of its distance
// to the nearer pole, and returns a point x near it with Φ(x) and Φ'(x)
// evaluated there. start, next to pole (a local index; -1: none), is an
// estimate to begin with. The iteration is solveShifted's (the nearer
// pole's term exact, the others linearised), with a looser stop: the
// point only seeds certify's Newton steps. ok is false if a weight is 0 or
// the iteration fails.
func nearRoot(ln line, p, w []float64, jl int, left, right, start float64, pole int) (x, f, df float64, ok bool) {
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
		fm, _ := ln.at(mid)
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
	// Φ(p0 + δ) = sc δ + f0 - w0/δ - R(δ).
	f0, sc := ln.at(p0)
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
		f = sc*d + f0 - w0/d - R
		df = sc + w0/(d*d) - dR
		if f < 0 {
			blo = d
		} else {
			bhi = d
		}
		// Model sc δ + f0 - w0/δ - R - dR (δ - d) = 0, times δ.
		A := sc - dR
		B := f0 - R + dR*d
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

// nearEval returns H(x) = ln(x) (see line), H'(x) and |H″(x)|.
func nearEval(ln line, p, w []float64, x float64) (h, dh, d2h float64) {
	s, ds, d2h := nearSum(p, w, x)
	v, dv := ln.at(x)
	return v - s, dv + ds, d2h
}

// nearSum returns S(x) = Σ w_k/(x - p_k), -S'(x) and |S″(x)|.
func nearSum(p, w []float64, x float64) (s, ds, d2s float64) {
	for k, pk := range p {
		t := 1 / (x - pk)
		wt := w[k] * t
		s += wt
		ds += wt * t
		d2s -= wt * t * t
	}
	return s, ds, 2 * math.Abs(d2s)
}

// certify returns a point of (left, right) with H(x) >= 0 (upper) or
// H(x) <= 0 (lower), H = ln (see line) increasing, by
// Newton steps from x (where H(x) = h, H'(x) = dh, |H″(x)| = d2h). A Newton
// step on a convex or concave H can stop short of the solution by about
// |H″|/(2H')·step², so each step is lengthened by twice that (and 2^-20 of
// itself) to overshoot it; once a point is certified, further steps from it
// (still overshooting) tighten it until the next step would be below tol or
// fails to certify. Returns the interval's end (right for upper, left for
// lower: valid by interlacing) if no point is certified in a few steps. (At
// a pole itself H is ±Inf and certifies nothing: only interior points
// count.)
func certify(ln line, p, w []float64, left, right, x, h, dh, d2h, tol float64, upper bool) float64 {
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
		h, dh, d2h = nearEval(ln, p, w, x)
	}
	if found {
		return cx
	}
	if upper {
		return right
	}
	return left
}

// farField holds the far-field sums of rootBrackets for rows i of the
// touched spectrum's Cauchy matrix (poles p, weights w, L near poles on
// each side): left[i] = Σ_{k < i-1-L} w_k/(p_i - p_k) and right[i] =
// Σ_{k > i+1+L} w_k/(p_i - p_k), dleft[i] and dright[i] the same sums of
// w_k/(p_i - p_k)² (the slopes' magnitudes), and full[i] = Σ_{k ≠ i}
// w_k/(p_i - p_k).
type farField struct {
	left, right, dleft, dright, full []float64
}

// farBase fills f's rows i >= from. With cauchy non-nil (row-major s x s,
// cauchy[i*s+k] = 1/(p_i - p_k), cauchy2 its squares) it takes the
// reciprocals from there: dot products per row, no division.
func farBase(p, w []float64, L, from int, cauchy, cauchy2 []float64, f *farField) {
	s := len(p)
	for i := max(from, 0); i < s; i++ {
		a, b := max(0, i-1-L), min(s, i+2+L)
		if cauchy != nil {
			row, row2 := cauchy[i*s:(i+1)*s], cauchy2[i*s:(i+1)*s]
			f.left[i], f.right[i] = dot(row[:a], w[:a]), dot(row[b:], w[b:])
			f.dleft[i], f.dright[i] = dot(row2[:a], w[:a]), dot(row2[b:], w[b:])
			f.full[i] = f.left[i] + f.right[i] + dot(row[a:b], w[a:b]) // row[i] = 0
			continue
		}
		farRowDirect(p, w, i, a, b, f)
	}
}

// farRowDirect fills row i of f with divisions: left of a, from b on, and
// the window between (full only).
func farRowDirect(p, w []float64, i, a, b int, f *farField) {
	s := len(p)
	pi := p[i]
	var sl, sr, dl, dr, mid float64
	for k := 0; k < a; k++ {
		t := 1 / (pi - p[k])
		sl += w[k] * t
		dl += w[k] * t * t
	}
	for k := b; k < s; k++ {
		t := 1 / (pi - p[k])
		sr += w[k] * t
		dr += w[k] * t * t
	}
	for k := a; k < b; k++ {
		if k != i {
			mid += w[k] / (pi - p[k])
		}
	}
	f.left[i], f.right[i], f.dleft[i], f.dright[i] = sl, sr, dl, dr
	f.full[i] = sl + sr + mid
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
// of the root of H = ln (see line), increasing on the interval: with
// upper, H(x) >= 0 (or x = right); otherwise H(x) <= 0 (or x = left). The
// distance to the root is at most about 1e-7 of the interval plus rounding.
func solveNear(ln line, p, w []float64, left, right float64, upper bool) float64 {
	xl, xh := left, right
	tol := 1e-7*(right-left) + 4e-16*math.Max(math.Abs(left), math.Abs(right))
	x := 0.5 * (xl + xh)
	for it := 0; it < 100 && xh-xl > tol; it++ {
		h, dh := ln.at(x)
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
// thr = zeroTol·T then lies in [θl, θh]; if an untouched eigenvalue falls in
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
	thl, thh := zeroTol*tLo, zeroTol*tHi
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
	if r < pruneMin || sameBlocks(g.cache.peek(c).blocks, tb) {
		return 0, false
	}
	pOther := g.totPos
	for _, b := range tb {
		pOther -= g.blocks[b].pos
	}
	// The brackets depend only on the touched blocks (never reused ids) and
	// c's similarities: kept across picks like the exact roots.
	cc := g.cache.peek(c)
	var bl, bh []float64
	var t0 float64
	if sameBlocks(cc.bblocks, tb) && (cc.tight || !tight) {
		bl, bh, t0 = cc.bl, cc.bh, cc.t0
	} else {
		bl, bh, t0 = g.candidateBrackets(t, tb, a, ws, tight)
		cc = g.cache.at(c)
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
	fOther := func(thr float64) (float64, int) { return g.otherAbove(tb, thr) }
	vsb = g.spectrumUpper(bl, bh, t0, pOther, maxOther, fOther)
	return vsb, !math.IsInf(vsb, 1) && !math.IsNaN(vsb)
}

// otherAbove returns the φ-sum and the count of the chosen set's
// eigenvalues above thr outside the blocks tb: the untouched part of a
// candidate's bound (scoreUpper, level0Upper).
func (g *greedyState) otherAbove(tb []int32, thr float64) (f float64, n int) {
	f, n = g.all.above(thr)
	for _, b := range tb {
		fb, nb := g.blocks[b].above(thr)
		f -= fb
		n -= nb
	}
	return f, n
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

// noSingles makes every first bound sum its far field itself instead of
// reading a member's table (prepareSingles; tests compare both ways).
var noSingles = false

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
// interleaving. A candidate with lvl0[k] set holds only its level-0 bound
// (level0.go): when its turn comes its first bound is computed, and unless
// that prunes it, it goes back in the queue with that bound (a heap beside
// the sorted list), so candidates are still solved in the order of their
// first bounds.
func (g *greedyState) solveInOrder(cands []int, touches func(k int, buf []touch) []touch, order []int, lvl0 []bool, vals, vss []float64, solved []bool, floor float64, bestVal *float64, weight func(int) float64) {
	bounds := make([]float64, len(order))
	for i, k := range order {
		bounds[i] = vals[k]
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	// before reports whether position x comes before y: larger bound, then
	// lower item index.
	before := func(x, y int) bool {
		if bounds[x] != bounds[y] {
			return bounds[x] > bounds[y]
		}
		return cands[order[x]] < cands[order[y]]
	}
	slices.SortFunc(idx, func(x, y int) int {
		if before(x, y) {
			return -1
		}
		if before(y, x) {
			return 1
		}
		return 0
	})
	// Not parallel.Blocks: the next candidate is handed out under the lock
	// that guards bestVal, because whether to take it at all depends on
	// the best value solved so far (the cut-off), which every solve may
	// raise. A queue fixed in advance would solve candidates the cut-off
	// excludes.
	var mu sync.Mutex
	var requeued posHeap // positions whose first bound replaced the level-0 one
	requeued.before = before
	next, nsolved, nfirst := 0, 0, 0
	parallel.Workers(len(g.ws), func(w int) {
		ws := g.ws[w]
		mark := make([]int32, len(g.blocks))
		var buf []touch
		for {
			mu.Lock()
			cut := *bestVal - TieTol*math.Abs(*bestVal)
			var i int
			switch {
			case len(requeued.p) > 0 && (next >= len(idx) || before(requeued.p[0], idx[next])):
				i = requeued.pop()
			case next < len(idx):
				i = idx[next]
				next++
			default:
				mu.Unlock()
				return
			}
			if bounds[i] < cut {
				mu.Unlock()
				return
			}
			k := order[i]
			first := lvl0 != nil && lvl0[k]
			if first {
				lvl0[k] = false
				nfirst++
			}
			mu.Unlock()
			c := cands[k]
			t := touches(k, buf)
			buf = t[:0]
			bound := func(vsb float64) float64 { return weight(c) * vsb * (1 + boundMargin) }
			if first {
				// Bounded by level 0 only: the first bound, then back in
				// the queue unless it prunes.
				if vsb, ok := g.scoreUpper(c, t, ws, mark, int32(2*k+1), false); ok {
					mu.Lock()
					if b := bound(vsb); b >= *bestVal-TieTol*math.Abs(*bestVal) {
						bounds[i] = math.Min(bounds[i], b)
						requeued.push(i)
					}
					mu.Unlock()
					continue
				}
			}
			// Second filter: the tighter bound (every interval, wider
			// near window), worth it for the few candidates the first
			// one keeps.
			if vsb, ok := g.scoreUpper(c, t, ws, mark, int32(2*k+1), true); ok {
				mu.Lock()
				below := bound(vsb) < *bestVal-TieTol*math.Abs(*bestVal)
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
	if lvl0 != nil {
		for _, k := range order {
			if lvl0[k] { // never given a first bound
				g.stats.Level0++
			}
		}
	}
}

// posHeap is a binary max-heap of positions under before.
type posHeap struct {
	p      []int
	before func(x, y int) bool
}

func (h *posHeap) push(i int) {
	h.p = append(h.p, i)
	for c := len(h.p) - 1; c > 0; {
		par := (c - 1) / 2
		if !h.before(h.p[c], h.p[par]) {
			break
		}
		h.p[c], h.p[par] = h.p[par], h.p[c]
		c = par
	}
}

func (h *posHeap) pop() int {
	top := h.p[0]
	last := len(h.p) - 1
	h.p[0] = h.p[last]
	h.p = h.p[:last]
	for c := 0; ; {
		l, r, m := 2*c+1, 2*c+2, c
		if l < len(h.p) && h.before(h.p[l], h.p[m]) {
			m = l
		}
		if r < len(h.p) && h.before(h.p[r], h.p[m]) {
			m = r
		}
		if m == c {
			break
		}
		h.p[c], h.p[m] = h.p[m], h.p[c]
		c = m
	}
	return top
}

// prepareBounds tabulates the Cauchy matrix of every alive block of at
// least pruneMin members. A block with repeated eigenvalues gets one too:
// its candidates merge those poles (mergePoles), and farBaseMixed reads
// the table only in rows of unmerged poles, with weight 0 on the merged
// ones' columns (cauchyTables leaves no infinity there).
func (g *greedyState) prepareBounds() {
	for _, b := range g.blocks {
		r := len(b.eig)
		if !b.alive || r < pruneMin || b.cauchy != nil || b.vecs == nil {
			continue
		}
		if c, c2, ok := cauchyTables(b.eig); ok {
			b.cauchy, b.cauchy2 = c, c2
		}
	}
}

// cauchyTables returns the Cauchy matrix of the ascending values p,
// c[i*r+k] = 1/(p_i - p_k) (0 on the diagonal and wherever p_i = p_k),
// and its squares, row-major r x r; ok is false if a square overflows
// (values within about 1e-154 of each other but unequal).
func cauchyTables(p []float64) (c, c2 []float64, ok bool) {
	r := len(p)
	c, c2 = make([]float64, r*r), make([]float64, r*r)
	for i := 0; i < r; i++ {
		for k := 0; k < r; k++ {
			if p[k] != p[i] {
				t := 1 / (p[i] - p[k])
				if math.IsInf(t*t, 0) {
					return nil, nil, false
				}
				c[i*r+k], c2[i*r+k] = t, t*t
			}
		}
	}
	return c, c2, true
}

// candidateBrackets returns brackets of the touched blocks' eigenvalues
// with candidate similarities t (self-similarity a) and their sum t0 (the
// trace), in ws's buffers: the touched spectrum sorted, runs of equal poles
// merged (mergePoles), then rootBrackets on the rest.
func (g *greedyState) candidateBrackets(t []touch, tb []int32, a float64, ws *secularWork, tight bool) (bl, bh []float64, t0 float64) {
	ah := g.candidateFar(t, tb, a, ws, tight, true)
	p, w, sm := ah.p, ah.w, len(ah.p)
	bl, bh = ah.bl, ah.bh
	rootBrackets(a, p, w, ah.lo, ah.hi, ah.L, ah.from, &ah.far, bl[:sm+1], bh[:sm+1], !tight)
	if ah.span > 0 {
		for j := 0; j <= sm; j++ {
			bl[j] -= ah.span
			bh[j] += ah.span
		}
	}
	return bl, bh, ah.t0
}

// arrowParts is candidateFar's result: the merged arrowhead (poles p,
// weights w), its far sums from row from-1 on (window L), the spectrum's
// enclosure (lo, hi), the merge's widening span, the trace t0, and the
// bracket buffers bl, bh (s+1 entries; mergePoles's fixed roots at the
// end).
type arrowParts struct {
	p, w         []float64
	far          farField
	bl, bh       []float64
	L, from      int
	lo, hi, span float64
	t0           float64
}

// candidateFar is candidateBrackets up to the root brackets: the touched
// spectrum sorted and merged, the window and the first interval to
// bracket, and the far sums (from the member's table, prepareSingles,
// when singles is set and the candidate is similar to one member alone).
func (g *greedyState) candidateFar(t []touch, tb []int32, a float64, ws *secularWork, tight, singles bool) (ah arrowParts) {
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
		ah.t0 += d[i]
	}
	ah.t0 += a
	zn := math.Sqrt(zn2)
	if cap(ws.bbuf) < 7*s+2 {
		ws.bbuf = make([]float64, 7*s+2)
	}
	// Merge runs of (nearly) equal poles (see mergePoles): fixed roots go
	// to the end of bl/bh, the merged system's first.
	ws.groups = poleGroups(p, ws.groups[:0])
	nf := s - len(ws.groups)
	ah.bl, ah.bh = ws.bbuf[2*s:3*s+1], ws.bbuf[3*s+1:4*s+2]
	ah.span = mergePoles(p, w, ws.groups, ah.bl[s+1-nf:], ah.bh[s+1-nf:])
	sm := s - nf
	p, w = p[:sm], w[:sm]
	ah.p, ah.w = p, w
	ah.far = farField{left: ws.bbuf[:sm], right: ws.bbuf[s : s+sm], full: ws.bbuf[4*s+2 : 4*s+2+sm],
		dleft: ws.bbuf[5*s+2 : 5*s+2+sm], dright: ws.bbuf[6*s+2 : 6*s+2+sm]}
	slack := 1e-14*math.Max(math.Max(math.Abs(p[0]), math.Abs(p[sm-1])), math.Abs(a)+zn) + ah.span
	ah.lo = math.Min(p[0], a) - zn - slack
	ah.hi = math.Max(p[sm-1], a) + zn + slack
	// Intervals right of no positive pole hold roots <= 0, which add
	// nothing to T or f: no bracket needed.
	ah.from = sort.SearchFloat64s(p, math.Nextafter(0, 1))
	ah.L = bracketWindow[0]
	if tight {
		ah.from, ah.L = 0, bracketWindow[1]
	}
	if singles && !tight && len(t) == 1 && len(tb) == 1 && !noSingles {
		if tab := g.blocks[tb[0]].singleTable(g.memberLocal[t[0].member]); tab != nil {
			farSingle(tab, t[0].v, ah.from-1, &ah.far)
			ws.tabled++
			return ah
		}
	}
	if len(tb) == 1 && nf == 0 {
		blk := g.blocks[tb[0]]
		farBase(p, w, ah.L, ah.from-1, blk.cauchy, blk.cauchy2, &ah.far)
	} else if tab, ok := g.mixedTable(tb, idx, ws); ok {
		farBaseMixed(p, w, ah.L, ah.from-1, tab, &ah.far)
	} else {
		farBase(p, w, ah.L, ah.from-1, nil, nil, &ah.far)
	}
	return ah
}

// mixedTable is the Cauchy table of farBaseMixed for a candidate touching
// several blocks (or one whose poles mergePoles merged): the largest
// touched block with a table (prepareBounds), its poles located in the
// sorted, merged touched spectrum. idx is candidateBrackets' sort of the
// concatenated spectrum (project's order: the blocks tb one after another)
// and ws.groups the runs mergePoles merged. ok is false when no touched
// block has a table.
func (g *greedyState) mixedTable(tb []int32, idx []int, ws *secularWork) (tab mixedCauchy, ok bool) {
	off, bo := 0, -1
	var big *vblock
	for _, b := range tb {
		blk := g.blocks[b]
		if blk.cauchy != nil && (big == nil || len(blk.eig) > len(big.eig)) {
			big, bo = blk, off
		}
		off += len(blk.eig)
	}
	if big == nil {
		return tab, false
	}
	rb, sm := len(big.eig), len(ws.groups)
	if cap(ws.own) < sm {
		ws.own = make([]int32, sm)
	}
	if cap(ws.wloc) < rb {
		ws.wloc, ws.cpos = make([]float64, rb), make([]int32, rb)
	}
	tab = mixedCauchy{c: big.cauchy, c2: big.cauchy2, r: rb, own: ws.own[:sm], wloc: ws.wloc[:rb], cpos: ws.cpos[:rb]}
	tab.others = ws.others[:0]
	for gi, k := range ws.groups {
		e := len(idx)
		if gi+1 < len(ws.groups) {
			e = ws.groups[gi+1]
		}
		tab.own[gi] = -1
		for n := k; n < e; n++ {
			if l := idx[n] - bo; l >= 0 && l < rb {
				tab.cpos[l] = int32(gi)
				tab.wloc[l] = 0
				if e-k == 1 {
					tab.own[gi] = int32(l)
				}
			}
		}
		if tab.own[gi] < 0 {
			tab.others = append(tab.others, gi)
		}
	}
	ws.others = tab.others
	return tab, true
}

// mixedCauchy locates one block's Cauchy table (c, c2: r x r, as vblock's)
// among merged poles p: own[k] is the block's local index of pole k if
// pole k is that block's pole alone (a run of one), else -1 (others lists
// those k); cpos[l] is the merged index of the block's local pole l, and
// wloc[l] is left for farBaseMixed (the weight of l if it owns a pole, else 0).
type mixedCauchy struct {
	c, c2     []float64
	r         int
	own, cpos []int32
	wloc      []float64
	others    []int
}

// farBaseMixed fills f's rows i >= from as farBase does, for poles p of
// several blocks: a row i owned by the table's block (tab.own) takes the
// terms of that block's other poles from the table (dot products of
// contiguous local ranges, since the block's poles keep their order among
// p) and the few others' directly; every other row is summed directly.
// The sums are farBase's up to rounding (the order of the terms differs),
// which the pruning margin covers (see dot).
func farBaseMixed(p, w []float64, L, from int, tab mixedCauchy, f *farField) {
	s, r := len(p), tab.r
	for k, l := range tab.own {
		if l >= 0 {
			tab.wloc[l] = w[k]
		}
	}
	cl, cr := 0, 0 // locals with cpos < a, resp. < b
	for i := max(from, 0); i < s; i++ {
		a, b := max(0, i-1-L), min(s, i+2+L)
		for cl < r && int(tab.cpos[cl]) < a {
			cl++
		}
		for cr < r && int(tab.cpos[cr]) < b {
			cr++
		}
		li := int(tab.own[i])
		if li < 0 {
			farRowDirect(p, w, i, a, b, f)
			continue
		}
		row, row2, wl := tab.c[li*r:(li+1)*r], tab.c2[li*r:(li+1)*r], tab.wloc
		sl, sr := dot(row[:cl], wl[:cl]), dot(row[cr:], wl[cr:])
		dl, dr := dot(row2[:cl], wl[:cl]), dot(row2[cr:], wl[cr:])
		mid := dot(row[cl:cr], wl[cl:cr]) // row[li] = 0
		pi := p[i]
		for _, k := range tab.others {
			t := 1 / (pi - p[k])
			switch {
			case k < a:
				sl += w[k] * t
				dl += w[k] * t * t
			case k >= b:
				sr += w[k] * t
				dr += w[k] * t * t
			default:
				mid += w[k] * t
			}
		}
		f.left[i], f.right[i], f.dleft[i], f.dright[i] = sl, sr, dl, dr
		f.full[i] = sl + sr + mid
	}
}

// prepareSingles tabulates, for every member of a large block (at least
// pruneMin members) that two or more candidates touch alone (lists:
// touchLists'; nothing for a dense kernel), the first bound's far sums of
// a candidate similar to that member alone with similarity 1
// (vblock.single): candidateFar's sums for w = u_l², u_l the member's row
// of the block's eigenvectors, poles merged as for any candidate of the
// block (the merge depends on the spectrum alone; merged weights are sums
// of w). A candidate with the one similarity v has z = v u_l, w = v² u_l²,
// and every far sum is linear in w: its sums are the member's times v²
// (farSingle), O(r) instead of O(r²) per candidate. Blocks never change, so
// a member is tabulated at most once per block.
func (g *greedyState) prepareSingles(lists [][]touch) {
	if lists == nil {
		return
	}
	count := map[int32]int{}
	for _, t := range lists {
		if len(t) == 1 {
			count[t[0].member]++
		}
	}
	var todo []int32
	for m, n := range count {
		b := g.blocks[g.memberBlock[m]]
		if n < 2 || len(b.eig) < pruneMin || b.vecs == nil {
			continue
		}
		if b.single == nil {
			b.single = make([][]float64, len(b.eig))
		}
		if b.single[g.memberLocal[m]] == nil {
			todo = append(todo, m)
		}
	}
	slices.Sort(todo) // the work split does not depend on map order
	parallel.Blocks(len(todo), 4, len(g.ws), func(wk, lo, hi int) {
		ws := g.ws[wk]
		for _, m := range todo[lo:hi] {
			tb := []int32{g.memberBlock[m]}
			ah := g.candidateFar([]touch{{m, 1}}, tb, 1, ws, false, false)
			sm, from := len(ah.p), max(ah.from-1, 0)
			tab := make([]float64, 1+5*sm)
			tab[0] = float64(from)
			f := ah.far
			for k, v := range [][]float64{f.left, f.right, f.dleft, f.dright, f.full} {
				copy(tab[1+k*sm+from:1+(k+1)*sm], v[from:])
			}
			g.blocks[tb[0]].single[g.memberLocal[m]] = tab
		}
	})
}

// singleTable returns local member l's far-sum table (prepareSingles), or
// nil: tab[0] is the first row held, then the five sums (left, right,
// dleft, dright, full) of the merged spectrum's rows, one block each.
func (b *vblock) singleTable(l int32) []float64 {
	if b.single == nil {
		return nil
	}
	return b.single[l]
}

// farSingle fills f's rows from `from` on (from >= the table's first row:
// candidateFar's of the same block) for a candidate whose one similarity v
// is to the member of table tab (prepareSingles): each sum times v². The
// candidate's own sums would be Σ c_ik (v u_k)²; these are the same terms
// times v², each within a few ulps of the direct one, so the difference
// is rounding that the pruning margin covers as it covers dot's order.
func farSingle(tab []float64, v float64, from int, f *farField) {
	sm := (len(tab) - 1) / 5
	from = max(from, int(tab[0]))
	v2 := v * v
	b := tab[1:]
	for i := from; i < sm; i++ {
		f.left[i] = v2 * b[i]
		f.right[i] = v2 * b[sm+i]
		f.dleft[i] = v2 * b[2*sm+i]
		f.dright[i] = v2 * b[3*sm+i]
		f.full[i] = v2 * b[4*sm+i]
	}
}
