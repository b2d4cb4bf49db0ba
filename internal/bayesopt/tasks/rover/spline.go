package rover

import "math"

// spline2 is an interpolating cubic spline through 2-D points, parameterised
// by chord length normalised to [0, 1], with not-a-knot end conditions in
// each coordinate. It is the curve scipy's splprep(k=3, s=0) builds: FITPACK's
// interpolating cubic with s = 0 places interior knots at u_2..u_{m-3}, which
// is exactly the not-a-knot condition (third derivative continuous at u_1 and
// u_{m-2}). Requires at least 4 points with distinct consecutive entries.
type spline2 struct {
	u []float64    // breakpoints, u[0] = 0, u[n-1] = 1
	c [][4]float64 // x coefficients of piece j: x = c0 + s(c1 + s(c2 + s c3)), s = t - u[j]
	d [][4]float64 // y coefficients of piece j
}

// chordParameter returns the cumulative chord length of pts normalised to
// [0, 1] (splprep's default parameter).
func chordParameter(pts [][2]float64) []float64 {
	u := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		dx := pts[i][0] - pts[i-1][0]
		dy := pts[i][1] - pts[i-1][1]
		u[i] = u[i-1] + math.Sqrt(dx*dx+dy*dy)
	}
	total := u[len(u)-1]
	for i := range u {
		u[i] /= total
	}
	return u
}

// newSpline2 fits the not-a-knot spline through pts (len >= 4, no two
// consecutive points equal).
func newSpline2(pts [][2]float64) *spline2 {
	n := len(pts)
	if n < 4 {
		panic("rover: spline needs at least 4 points")
	}
	u := chordParameter(pts)
	h := make([]float64, n-1)
	for i := range h {
		h[i] = u[i+1] - u[i]
	}
	// Tridiagonal system for the slopes s_i (one matrix, two right-hand
	// sides), in the form of scipy's CubicSpline(bc_type="not-a-knot"):
	// interior rows h_i s_{i-1} + 2(h_{i-1}+h_i) s_i + h_{i-1} s_{i+1} =
	// 3(h_i delta_{i-1} + h_{i-1} delta_i); first and last rows impose a
	// continuous third derivative at u_1 and u_{n-2}.
	sub := make([]float64, n)  // sub[i]: coefficient of s_{i-1} in row i
	diag := make([]float64, n) // diag[i]: coefficient of s_i
	sup := make([]float64, n)  // sup[i]: coefficient of s_{i+1}
	rhs := make([][2]float64, n)
	delta := make([][2]float64, n-1)
	for i := range delta {
		for k := 0; k < 2; k++ {
			delta[i][k] = (pts[i+1][k] - pts[i][k]) / h[i]
		}
	}
	d0 := u[2] - u[0]
	diag[0], sup[0] = h[1], d0
	for k := 0; k < 2; k++ {
		rhs[0][k] = ((h[0]+2*d0)*h[1]*delta[0][k] + h[0]*h[0]*delta[1][k]) / d0
	}
	for i := 1; i < n-1; i++ {
		sub[i], diag[i], sup[i] = h[i], 2*(h[i-1]+h[i]), h[i-1]
		for k := 0; k < 2; k++ {
			rhs[i][k] = 3 * (h[i]*delta[i-1][k] + h[i-1]*delta[i][k])
		}
	}
	dn := u[n-1] - u[n-3]
	sub[n-1], diag[n-1] = dn, h[n-3]
	for k := 0; k < 2; k++ {
		rhs[n-1][k] = (h[n-2]*h[n-2]*delta[n-3][k] + (2*dn+h[n-2])*h[n-3]*delta[n-2][k]) / dn
	}
	slopes := solveTridiagonal(sub, diag, sup, rhs)

	sp := &spline2{u: u, c: make([][4]float64, n-1), d: make([][4]float64, n-1)}
	for j := 0; j < n-1; j++ {
		for k := 0; k < 2; k++ {
			s0, s1, dj, hj := slopes[j][k], slopes[j+1][k], delta[j][k], h[j]
			coef := [4]float64{
				pts[j][k],
				s0,
				(3*dj - 2*s0 - s1) / hj,
				(s0 + s1 - 2*dj) / (hj * hj),
			}
			if k == 0 {
				sp.c[j] = coef
			} else {
				sp.d[j] = coef
			}
		}
	}
	return sp
}

// solveTridiagonal solves the tridiagonal system with Gaussian elimination
// and partial pivoting (as LAPACK's dgtsv), for two right-hand sides. The
// not-a-knot first row is not diagonally dominant, hence the pivoting.
func solveTridiagonal(sub, diag, sup []float64, rhs [][2]float64) [][2]float64 {
	n := len(diag)
	// Row i of the working matrix holds a[i] (column i), b[i] (column i+1)
	// and f[i] (column i+2, fill-in from pivoting).
	a := append([]float64(nil), diag...)
	b := append([]float64(nil), sup...)
	f := make([]float64, n)
	r := append([][2]float64(nil), rhs...)
	s := append([]float64(nil), sub...) // s[i+1] is the entry below a[i]
	for i := 0; i < n-1; i++ {
		if math.Abs(a[i]) >= math.Abs(s[i+1]) {
			m := s[i+1] / a[i]
			a[i+1] -= m * b[i]
			if i+1 < n-1 {
				b[i+1] -= m * f[i]
			}
			r[i+1][0] -= m * r[i][0]
			r[i+1][1] -= m * r[i][1]
		} else {
			// Swap rows i and i+1.
			m := a[i] / s[i+1]
			a[i] = s[i+1]
			oldB := b[i]
			b[i] = a[i+1]
			a[i+1] = oldB - m*a[i+1]
			if i+1 < n-1 {
				f[i] = b[i+1]
				b[i+1] = -m * b[i+1]
			}
			r[i], r[i+1] = r[i+1], [2]float64{r[i][0] - m*r[i+1][0], r[i][1] - m*r[i+1][1]}
		}
	}
	x := make([][2]float64, n)
	for k := 0; k < 2; k++ {
		x[n-1][k] = r[n-1][k] / a[n-1]
		if n > 1 {
			x[n-2][k] = (r[n-2][k] - b[n-2]*x[n-1][k]) / a[n-2]
		}
		for i := n - 3; i >= 0; i-- {
			x[i][k] = (r[i][k] - b[i]*x[i+1][k] - f[i]*x[i+2][k]) / a[i]
		}
	}
	return x
}

// sample evaluates the spline at the increasing parameters t into dst.
func (sp *spline2) sample(t []float64, dst [][2]float64) {
	j := 0
	last := len(sp.u) - 2
	for i, ti := range t {
		for j < last && ti >= sp.u[j+1] {
			j++
		}
		s := ti - sp.u[j]
		c, d := &sp.c[j], &sp.d[j]
		dst[i] = [2]float64{
			c[0] + s*(c[1]+s*(c[2]+s*c[3])),
			d[0] + s*(d[1]+s*(d[2]+s*d[3])),
		}
	}
}
