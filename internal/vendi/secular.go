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
	// Roots in pairs (secularRootPair), the last alone when s+1 is odd.
	j := 0
	for ; j+1 <= len(p); j += 2 {
		r1, r2 := secularRootPair(a, p, w, lo, hi, j, ws)
		emit(r1)
		emit(r2)
	}
	if j == len(p) {
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
		scale = max(scale, math.Abs(d[i])) // the builtin: math.Max's value on non-NaN input, inlined
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
	var fmid float64
	if mid, interior := rootMid(p, lo, hi, j); interior {
		fmid = secular(a, p, w, mid)
	}
	origin, blo, bhi := rootOrigin(p, lo, hi, j, fmid)
	diff = shiftPoles(diff, p, origin)
	return origin + solveShifted(a-origin, diff, w, blo, bhi)
}

// secularRootPair returns the roots in the intervals j and j+1 (j+1 <= s),
// bit for bit those of secularRoot, with the two iterations interleaved:
// each pass over the poles then carries six independent sums instead of
// three, and a pass is bound by the latency of its sums, not by the
// divisions, so two roots take little more than one.
func secularRootPair(a float64, p, w []float64, lo, hi float64, j int, ws *secularWork) (float64, float64) {
	var f1, f2 float64
	mid1, in1 := rootMid(p, lo, hi, j)
	mid2, in2 := rootMid(p, lo, hi, j+1)
	switch {
	case in1 && in2:
		f1, f2 = secular2(a, p, w, mid1, mid2)
	case in1:
		f1 = secular(a, p, w, mid1)
	case in2:
		f2 = secular(a, p, w, mid2)
	}
	o1, blo1, bhi1 := rootOrigin(p, lo, hi, j, f1)
	o2, blo2, bhi2 := rootOrigin(p, lo, hi, j+1, f2)
	if len(ws.diff2) < len(p) {
		ws.diff2 = make([]float64, len(p))
	}
	d1 := shiftPoles(ws.diff, p, o1)
	d2 := shiftPoles(ws.diff2, p, o2)
	x1 := newShifted(a-o1, d1, w, blo1, bhi1)
	x2 := newShifted(a-o2, d2, w, blo2, bhi2)
	n := len(p)
	for it := 0; it < 200; it++ {
		R1, dR1, abs1, R2, dR2, abs2 := poleSums2(&x1, d1, &x2, d2, w)
		r1, done1 := x1.update(n, R1, dR1, abs1)
		r2, done2 := x2.update(n, R2, dR2, abs2)
		switch {
		case done1 && done2:
			return o1 + r1, o2 + r2
		case done1:
			return o1 + r1, o2 + x2.solve(it+1, d2, w)
		case done2:
			return o1 + x1.solve(it+1, d1, w), o2 + r2
		}
	}
	return o1 + x1.x, o2 + x2.x
}

// rootMid returns the midpoint of interval j of (lo, p_1, ..., p_s, hi)
// and whether the interval is interior (between two poles), where the
// sign of the secular function there chooses the origin.
func rootMid(p []float64, lo, hi float64, j int) (float64, bool) {
	s := len(p)
	if j == 0 || j == s {
		return 0, false
	}
	return 0.5 * (p[j-1] + p[j]), true
}

// rootOrigin returns the origin of the root in interval j (the pole nearer
// the root) and the bracket (blo, bhi) of δ = μ - origin; fmid is φ at the
// midpoint of an interior interval (rootMid).
func rootOrigin(p []float64, lo, hi float64, j int, fmid float64) (origin, blo, bhi float64) {
	s := len(p)
	switch {
	case j == 0:
		return p[0], lo - p[0], 0
	case j == s:
		return p[s-1], 0, hi - p[s-1]
	}
	left, right := p[j-1], p[j]
	mid := 0.5 * (left + right)
	if fmid > 0 { // root in (mid, right)
		return right, mid - right, 0
	}
	return left, 0, mid - left
}

// shiftPoles fills diff[:len(p)] with origin - p_k and returns it.
func shiftPoles(diff, p []float64, origin float64) []float64 {
	diff = diff[:len(p)]
	for k := range diff {
		diff[k] = origin - p[k]
	}
	return diff
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

// secular2 is secular at two points in one pass (the same sums, in the
// same order, bit for bit).
func secular2(a float64, p, w []float64, mu1, mu2 float64) (float64, float64) {
	f1, f2 := a-mu1, a-mu2
	w = w[:len(p)]
	for k, pk := range p {
		f1 += w[k] / (mu1 - pk)
		f2 += w[k] / (mu2 - pk)
	}
	return f1, f2
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
	x := newShifted(a0, diff, w, blo, bhi)
	return x.solve(0, diff, w)
}

// shifted is the state of solveShifted's iteration: the current iterate x
// in the bracket (blo, bhi), the origin pole k0 and its weight w0.
type shifted struct {
	a0, w0, x, blo, bhi float64
	k0                  int
	positive            bool // root on the right of the origin pole
}

func newShifted(a0 float64, diff, w []float64, blo, bhi float64) shifted {
	k0 := -1
	for k, dk := range diff {
		if dk == 0 {
			k0 = k
			break
		}
	}
	return shifted{a0: a0, w0: w[k0], x: 0.5 * (blo + bhi), blo: blo, bhi: bhi, k0: k0, positive: bhi > 0}
}

// solve iterates from iteration from (of at most 200) to the root.
func (s *shifted) solve(from int, diff, w []float64) float64 {
	for it := from; it < 200; it++ {
		R, dR, absSum := poleSums(s.x, diff, w, s.k0)
		if r, done := s.update(len(diff), R, dR, absSum); done {
			return r
		}
	}
	return s.x
}

// poleSums returns, at x, the sum R over the poles other than the origin
// k0 of w_k/(x + diff_k), its derivative dR and the sum of the terms'
// absolute values, in pole order. The root lies between the origin and its
// neighbour pole, so x + diff_k is > 0 left of the origin (k < k0) and < 0
// right of it, and with w_k >= 0 the term |w_k t| is w_k t or -(w_k t)
// exactly: the same bits as taking its absolute value, without the branch
// per pole.
func poleSums(x float64, diff, w []float64, k0 int) (R, dR, absSum float64) {
	w = w[:len(diff)]
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
	return R, dR, absSum
}

// poleSums2 is poleSums at x1.x over d1 and at x2.x over d2 in one pass,
// each sum in pole order as there (bit for bit).
func poleSums2(x1 *shifted, d1 []float64, x2 *shifted, d2 []float64, w []float64) (R1, dR1, abs1, R2, dR2, abs2 float64) {
	n := len(w)
	d1, d2 = d1[:n], d2[:n]
	y1, y2 := x1.x, x2.x
	k1, k2 := x1.k0, x2.k0
	lo, hi := min(k1, k2), max(k1, k2)
	// Left of both origins.
	for k := 0; k < lo; k++ {
		t1 := 1 / (y1 + d1[k])
		t2 := 1 / (y2 + d2[k])
		wt1 := w[k] * t1
		wt2 := w[k] * t2
		R1 += wt1
		dR1 -= wt1 * t1
		abs1 += wt1
		R2 += wt2
		dR2 -= wt2 * t2
		abs2 += wt2
	}
	// Between them: each root by the side of its own origin.
	for k := lo; k <= hi; k++ {
		if k != k1 {
			t1 := 1 / (y1 + d1[k])
			wt1 := w[k] * t1
			R1 += wt1
			dR1 -= wt1 * t1
			if k < k1 {
				abs1 += wt1
			} else {
				abs1 -= wt1
			}
		}
		if k != k2 {
			t2 := 1 / (y2 + d2[k])
			wt2 := w[k] * t2
			R2 += wt2
			dR2 -= wt2 * t2
			if k < k2 {
				abs2 += wt2
			} else {
				abs2 -= wt2
			}
		}
	}
	// Right of both.
	for k := hi + 1; k < n; k++ {
		t1 := 1 / (y1 + d1[k])
		t2 := 1 / (y2 + d2[k])
		wt1 := w[k] * t1
		wt2 := w[k] * t2
		R1 += wt1
		dR1 -= wt1 * t1
		abs1 -= wt1
		R2 += wt2
		dR2 -= wt2 * t2
		abs2 -= wt2
	}
	return
}

// update ends an iteration from the pole sums at s.x (poleSums over n
// poles): done with the root, or s.x moved to the next iterate.
func (s *shifted) update(n int, R, dR, absSum float64) (root float64, done bool) {
	x, a0, w0 := s.x, s.a0, s.w0
	f := a0 - x + w0/x + R
	// Stop once f is within the rounding error of its own evaluation
	// (LAPACK dlaed4's test): x is then a root of a matrix within a few
	// ulps of the input, and further steps only chase rounding noise,
	// which used to cost 20-50 bisection-like iterations per root.
	if math.Abs(f) <= secularTol*float64(n+2)*(absSum+math.Abs(a0)+math.Abs(x)+math.Abs(w0/x)) {
		return x, true
	}
	if f > 0 {
		s.blo = x
	} else {
		s.bhi = x
	}
	// Quadratic model A δ² + B δ + C = 0.
	A := dR - 1
	B := a0 + R - dR*x
	C := w0
	disc := math.Sqrt(B*B - 4*A*C)
	qq := -0.5 * (B + math.Copysign(disc, B))
	r1, r2 := qq/A, C/qq
	nx := r1
	if (r1 > 0) != s.positive {
		nx = r2
	}
	if !(nx > s.blo && nx < s.bhi) || math.IsNaN(nx) {
		nx = 0.5 * (s.blo + s.bhi)
	}
	if math.Abs(nx-x) <= 2e-16*math.Abs(nx) || s.bhi-s.blo <= 2e-16*max(math.Abs(s.blo), math.Abs(s.bhi)) {
		return nx, true
	}
	s.x = nx
	return 0, false
}

// secularWork holds reusable buffers of one worker.
type secularWork struct {
	idx         []int
	p, w        []float64
	diff, diff2 []float64
	// buffers of the greedy scorer
	dbuf, zbuf, mus []float64
	wbuf            []float64 // projections of the dual greedy
	roots           []float64 // secular roots of dualExactOrPrune, by interval
	bbuf            []float64 // far sums and root brackets of scoreUpper
	groups          []int     // runs of merged poles of scoreUpper
	own, cpos       []int32   // mixedTable's pole locations
	wloc            []float64 // and local weights
	others          []int     // and poles outside its table
	solved          int       // secular equations solved (GreedyResult.Solved)
	tabled          int       // first bounds from a member's table (PruneStats.Tabled)
	tb              []int32   // touched blocks of the greedy's score
}

func (ws *secularWork) grow(r int) {
	if cap(ws.idx) < r {
		ws.idx = make([]int, r)
		ws.p = make([]float64, 0, r)
		ws.w = make([]float64, 0, r)
		ws.diff = make([]float64, r)
	}
}
