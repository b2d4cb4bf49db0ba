package vendi

import (
	"math"
	"sort"
)

// arrowhead computes the eigenvalues of the symmetric arrowhead matrix
//
//	[ diag(d)  z ]
//	[ zᵀ       a ]
//
// (the bordered matrix of a block's eigendecomposition plus one new item) and
// calls emit for each of its len(d)+1 eigenvalues. It uses the workspace ws.
//
// Method: sort the poles d; deflate entries with negligible z (their d is an
// eigenvalue) and merge poles closer than a relative 1e-13 (one copy stays an
// eigenvalue, the weights z² add up); the remaining s distinct poles p with
// weights w = z² > 0 give s+1 eigenvalues, one in each interval of
// (lo, p_1, ..., p_s, hi), roots of the strictly decreasing secular function
//
//	φ(μ) = a - μ + Σ_k w_k / (μ - p_k).
//
// Each root is found by Newton's method safeguarded by bisection, in a
// variable shifted to the nearer pole so that roots close to a pole keep full
// relative accuracy. Cost O(s) per iteration, O(s²) in all.
func arrowhead(d, z []float64, a float64, ws *secularWork, emit func(mu float64)) {
	p, w, lo, hi, ok := ws.deflate(d, z, a, emit)
	if !ok {
		return
	}
	for j := 0; j <= len(p); j++ {
		emit(secularRoot(a, p, w, lo, hi, j, ws.diff))
	}
}

// arrowheadMax returns the largest eigenvalue of the arrowhead matrix of
// arrowhead (VS_∞ needs nothing else): the largest deflated value or the
// root right of the last pole, O(r) per iteration instead of O(r²) in all.
func arrowheadMax(d, z []float64, a float64, ws *secularWork) float64 {
	top := math.Inf(-1)
	p, w, lo, hi, ok := ws.deflate(d, z, a, func(mu float64) { top = math.Max(top, mu) })
	if ok {
		top = math.Max(top, secularRoot(a, p, w, lo, hi, len(p), ws.diff))
	}
	return top
}

// deflate sorts the poles, emits the deflated eigenvalues and returns the
// remaining distinct poles p with weights w and the bracket (lo, hi) of all
// roots; ok is false when nothing is left to solve (every eigenvalue
// emitted).
func (ws *secularWork) deflate(d, z []float64, a float64, emit func(mu float64)) (p, w []float64, lo, hi float64, ok bool) {
	r := len(d)
	ws.grow(r)
	idx := ws.idx[:r]
	sorted := true
	for i := range idx {
		idx[i] = i
		if i > 0 && d[i] < d[i-1] {
			sorted = false
		}
	}
	if !sorted {
		sort.Slice(idx, func(x, y int) bool { return d[idx[x]] < d[idx[y]] })
	}
	scale := math.Abs(a)
	var znorm2 float64
	for i := 0; i < r; i++ {
		scale = math.Max(scale, math.Abs(d[i]))
		znorm2 += z[i] * z[i]
	}
	scale = math.Max(scale, math.Sqrt(znorm2))
	if scale == 0 {
		for i := 0; i <= r; i++ {
			emit(0)
		}
		return nil, nil, 0, 0, false
	}
	ztol := 1e-15 * scale
	dtol := 1e-13 * scale
	p = ws.p[:0]
	w = ws.w[:0]
	for _, i := range idx {
		zi := z[i]
		if math.Abs(zi) <= ztol {
			emit(d[i]) // deflated: eigenvector unchanged
			continue
		}
		if n := len(p); n > 0 && d[i]-p[n-1] <= dtol {
			// Merge with the previous pole: a rotation in the plane of the two
			// leaves one eigenvalue at the pole and one combined weight.
			emit(d[i])
			w[n-1] += zi * zi
			continue
		}
		p = append(p, d[i])
		w = append(w, zi*zi)
	}
	s := len(p)
	if s == 0 {
		emit(a)
		return nil, nil, 0, 0, false
	}
	zn := math.Sqrt(znorm2)
	lo = math.Min(p[0], a) - zn - ztol
	hi = math.Max(p[s-1], a) + zn + ztol
	return p, w, lo, hi, true
}

// secularRoot returns the root of the secular equation in interval j of
// (lo, p_1, ..., p_s, hi), using diff (len >= s) as workspace.
func secularRoot(a float64, p, w []float64, lo, hi float64, j int, diff []float64) float64 {
	s := len(p)
	var left, right float64
	if j == 0 {
		left = lo
	} else {
		left = p[j-1]
	}
	if j == s {
		right = hi
	} else {
		right = p[j]
	}
	// Choose the origin: the pole nearer the root.
	var origin float64
	var blo, bhi float64 // bracket for δ = μ - origin
	switch {
	case j == 0:
		origin, blo, bhi = p[0], lo-p[0], 0
	case j == s:
		origin, blo, bhi = p[s-1], 0, hi-p[s-1]
	default:
		mid := 0.5 * (left + right)
		if secular(a, p, w, mid) > 0 { // root in (mid, right)
			origin, blo, bhi = right, mid-right, 0
		} else {
			origin, blo, bhi = left, 0, mid-left
		}
	}
	diff = diff[:s]
	for k := 0; k < s; k++ {
		diff[k] = origin - p[k]
	}
	return origin + solveShifted(a-origin, diff, w, blo, bhi)
}

// secularTol scales the rounding-error bound of the secular function at
// which solveShifted stops (machine epsilon).
const secularTol = 0x1p-52

// secular evaluates φ(μ) directly (used only to pick the origin).
func secular(a float64, p, w []float64, mu float64) float64 {
	f := a - mu
	for k := range p {
		f += w[k] / (mu - p[k])
	}
	return f
}

// solveShifted finds δ in (blo, bhi) with ψ(δ) = a0 - δ + Σ w_k/(δ + diff_k) = 0,
// where ψ is strictly decreasing on the bracket and diff[k0] = 0 is the pole
// at the origin (an end of the bracket).
//
// Iteration (a "fixed weight" rational method): keep the origin pole term
// w0/δ exact and replace the rest R(δ) by its tangent at the current iterate;
// the model a0 - δ + w0/δ + R(x) + R'(x)(δ - x) = 0 is a quadratic in δ with
// exactly one root of the bracket's sign. This converges quadratically even
// next to the pole, where plain Newton overshoots; every step is safeguarded
// by the bracket (bisection when the model root leaves it).
func solveShifted(a0 float64, diff, w []float64, blo, bhi float64) float64 {
	k0 := -1
	for k, dk := range diff {
		if dk == 0 {
			k0 = k
			break
		}
	}
	w0 := w[k0]
	positive := bhi > 0 // root on the right of the origin pole
	x := 0.5 * (blo + bhi)
	for it := 0; it < 200; it++ {
		// The sum over the poles other than the origin, in pole order. The
		// root lies between the origin and its neighbour pole, so x + diff_k
		// is > 0 left of the origin (k < k0) and < 0 right of it, and with
		// w_k >= 0 the term |w_k t| is w_k t or -(w_k t) exactly: the same
		// bits as taking its absolute value, without the branch per pole.
		var R, dR, absSum float64
		for k, dk := range diff[:k0] {
			t := 1 / (x + dk)
			wt := w[k] * t
			R += wt
			dR -= wt * t
			absSum += wt
		}
		for k := k0 + 1; k < len(diff); k++ {
			t := 1 / (x + diff[k])
			wt := w[k] * t
			R += wt
			dR -= wt * t
			absSum -= wt
		}
		f := a0 - x + w0/x + R
		// Stop once f is within the rounding error of its own evaluation
		// (LAPACK dlaed4's test): x is then a root of a matrix within a few
		// ulps of the input, and further steps only chase rounding noise,
		// which used to cost 20-50 bisection-like iterations per root.
		if math.Abs(f) <= secularTol*float64(len(diff)+2)*(absSum+math.Abs(a0)+math.Abs(x)+math.Abs(w0/x)) {
			return x
		}
		if f > 0 {
			blo = x
		} else {
			bhi = x
		}
		// Quadratic model A δ² + B δ + C = 0.
		A := dR - 1
		B := a0 + R - dR*x
		C := w0
		disc := math.Sqrt(B*B - 4*A*C)
		qq := -0.5 * (B + math.Copysign(disc, B))
		r1, r2 := qq/A, C/qq
		nx := r1
		if (r1 > 0) != positive {
			nx = r2
		}
		if !(nx > blo && nx < bhi) || math.IsNaN(nx) {
			nx = 0.5 * (blo + bhi)
		}
		if math.Abs(nx-x) <= 2e-16*math.Abs(nx) || bhi-blo <= 2e-16*math.Max(math.Abs(blo), math.Abs(bhi)) {
			return nx
		}
		x = nx
	}
	return x
}

// secularWork holds reusable buffers of one worker.
type secularWork struct {
	idx  []int
	p, w []float64
	diff []float64
	// buffers of the greedy scorer
	dbuf, zbuf, mus []float64
	wbuf            []float64 // projections of the dual greedy
	roots           []float64 // secular roots of dualExactOrPrune, by interval
	bbuf            []float64 // far sums and root brackets of scoreUpper
	groups          []int     // runs of merged poles of scoreUpper
	solved          int       // secular equations solved (GreedyResult.Solved)
}

func (ws *secularWork) grow(r int) {
	if cap(ws.idx) < r {
		ws.idx = make([]int, r)
		ws.p = make([]float64, 0, r)
		ws.w = make([]float64, 0, r)
		ws.diff = make([]float64, r)
	}
}
