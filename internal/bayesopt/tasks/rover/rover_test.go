package rover

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomX(rng *rand.Rand) []float64 {
	x := make([]float64, Dim)
	for i := range x {
		x[i] = Lower + (Upper-Lower)*rng.Float64()
	}
	return x
}

// bruteOneWay is the definition evaluated on all 10^6 point pairs.
func bruteOneWay(a, b [][2]float64) float64 {
	oneSide := func(a, b [][2]float64) float64 {
		sum := 0.0
		for _, p := range a {
			best := math.Inf(1)
			for _, q := range b {
				dx, dy := p[0]-q[0], p[1]-q[1]
				best = math.Min(best, dx*dx+dy*dy)
			}
			sum += math.Sqrt(best)
		}
		return sum / float64(len(a))
	}
	return 0.5 * (oneSide(a, b) + oneSide(b, a))
}

func TestOneWayDistanceMatchesBruteForce(t *testing.T) {
	// The index only prunes; minima are the same squared distances, summed in
	// the same order, so the results agree to the last bit (tol is slack).
	const tol = 1e-15
	rng := rand.New(rand.NewPCG(1, 1))
	task := New()
	var trajs [][][2]float64
	var xs [][]float64
	for range 4 {
		x := randomX(rng)
		xs = append(xs, x)
		trajs = append(trajs, Trajectory(x))
	}
	line := func(x0, y0, x1, y1 float64, n int) [][2]float64 {
		out := make([][2]float64, n)
		for i := range out {
			w := float64(i) / float64(n-1)
			out[i] = [2]float64{x0 + w*(x1-x0), y0 + w*(y1-y0)}
		}
		return out
	}
	// A far-apart pair of segments and a tiny set with duplicates.
	trajs = append(trajs, line(0, 0, 1, 0, 1000), line(0, 3, 1, 3, 7), [][2]float64{{0.5, 0.5}, {0.5, 0.5}, {0.2, 0.1}})
	brute := make([][]float64, len(trajs))
	for i := range trajs {
		brute[i] = make([]float64, len(trajs))
		for j := range trajs {
			if j < i {
				brute[i][j] = brute[j][i] // symmetric by definition
				continue
			}
			brute[i][j] = bruteOneWay(trajs[i], trajs[j])
		}
	}
	for i := range trajs {
		for j := range trajs {
			got := oneWayDistance(trajs[i], trajs[j])
			if math.Abs(got-brute[i][j]) > tol*math.Max(1, brute[i][j]) {
				t.Errorf("pair (%d,%d): OneWayDistance = %.17g, brute force %.17g", i, j, got, brute[i][j])
			}
		}
	}
	// Segments [0,1]x{0} and [0,1]x{3}: every point is 3 from the other
	// segment's nearest sample or a little more (7 samples on the second).
	if d := oneWayDistance(trajs[4], trajs[5]); d < 3 || d > math.Hypot(3, 1.0/12) {
		t.Errorf("distance between segments 3 apart = %v, want within [3, hypot(3, 1/12)]", d)
	}
	for i := range xs {
		if d := task.Distance(xs[i], xs[i]); d != 0 {
			t.Errorf("Distance(x, x) = %v, want 0", d)
		}
		for j := range xs {
			dij, dji := task.Distance(xs[i], xs[j]), task.Distance(xs[j], xs[i])
			if dij != dji {
				t.Errorf("Distance not symmetric: %v vs %v", dij, dji)
			}
			if math.Abs(dij-brute[i][j]) > tol*math.Max(1, brute[i][j]) {
				t.Errorf("Task.Distance(%d,%d) = %v, brute force %v", i, j, dij, brute[i][j])
			}
		}
	}
}

func TestSplineInterpolatesAndIsNotAKnot(t *testing.T) {
	// An interpolating spline passes through every control point (at its chord
	// parameter), and not-a-knot makes the first two pieces one cubic: the
	// third derivative (6 c3) agrees across u_1 and u_{n-2}.
	const tol = 1e-12 // a few ulps of O(1) quantities after a 31x31 solve
	rng := rand.New(rand.NewPCG(1, 1))
	pts := distinctPoints(controlPoints(randomX(rng)))
	sp := newSpline2(pts)
	out := make([][2]float64, len(pts))
	sp.sample(sp.u, out)
	for i := range pts {
		if math.Abs(out[i][0]-pts[i][0]) > tol || math.Abs(out[i][1]-pts[i][1]) > tol {
			t.Fatalf("spline at u_%d = %v, want control point %v", i, out[i], pts[i])
		}
	}
	n := len(sp.c)
	relClose := func(a, b float64) bool { return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(a)) }
	// c3 are ~1/h^3 large (h ~ 1/30), hence the relative tolerance.
	if !relClose(sp.c[0][3], sp.c[1][3]) || !relClose(sp.d[0][3], sp.d[1][3]) {
		t.Errorf("third derivative jumps at u_1: %v vs %v", sp.c[0][3], sp.c[1][3])
	}
	if !relClose(sp.c[n-2][3], sp.c[n-1][3]) || !relClose(sp.d[n-2][3], sp.d[n-1][3]) {
		t.Errorf("third derivative jumps at u_{n-2}: %v vs %v", sp.c[n-2][3], sp.c[n-1][3])
	}
	// Continuity of value, first and second derivative at every knot.
	for j := 0; j+1 < n; j++ {
		h := sp.u[j+1] - sp.u[j]
		for k, cs := range [][][4]float64{sp.c, sp.d} {
			c, nx := cs[j], cs[j+1]
			v := c[0] + h*(c[1]+h*(c[2]+h*c[3]))
			d1 := c[1] + h*(2*c[2]+3*h*c[3])
			d2 := 2*c[2] + 6*h*c[3]
			if !relClose(v, nx[0]) || !relClose(d1, nx[1]) || !relClose(d2, 2*nx[2]) {
				t.Fatalf("coordinate %d: spline not C2 at knot %d", k, j+1)
			}
		}
	}
}

func TestSplineReproducesLineAndApproximatesCurve(t *testing.T) {
	ts := make([]float64, 101)
	for i := range ts {
		ts[i] = float64(i) / 100
	}
	out := make([][2]float64, len(ts))
	// Equally spaced collinear points: chord parameter = x, and not-a-knot
	// interpolation reproduces the line exactly (up to rounding).
	const tol = 1e-12
	pts := make([][2]float64, 17)
	for i := range pts {
		pts[i] = [2]float64{float64(i) / 16, 0.5}
	}
	newSpline2(pts).sample(ts, out)
	for i, p := range out {
		if math.Abs(p[0]-ts[i]) > tol || math.Abs(p[1]-0.5) > tol {
			t.Fatalf("line not reproduced at t=%v: %v", ts[i], p)
		}
	}
	// Points on y = x^3: a cubic spline's error falls as h^4, so doubling
	// the number of pieces must cut the largest deviation from the curve by
	// about 16 (observed 18 and 17 going 8 -> 16 -> 32 pieces).
	maxErr := func(m int) float64 {
		pts := make([][2]float64, m+1)
		for i := range pts {
			s := float64(i) / float64(m)
			pts[i] = [2]float64{s, s * s * s}
		}
		dense := make([]float64, 1001)
		for i := range dense {
			dense[i] = float64(i) / 1000
		}
		out := make([][2]float64, len(dense))
		newSpline2(pts).sample(dense, out)
		e := 0.0
		for _, p := range out {
			e = math.Max(e, math.Abs(p[1]-p[0]*p[0]*p[0]))
		}
		return e
	}
	e8, e16, e32 := maxErr(8), maxErr(16), maxErr(32)
	if e8/e16 < 12 || e16/e32 < 12 || e32 > 1e-5 {
		t.Errorf("errors %g, %g, %g do not fall as h^4", e8, e16, e32)
	}
}

func TestSolveTridiagonalAgainstDense(t *testing.T) {
	// Random tridiagonal systems, including ones needing pivots (tiny
	// diagonal), against the residual of the dense product.
	const tol = 1e-10
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 4, 7, 31} {
		sub, diag, sup := make([]float64, n), make([]float64, n), make([]float64, n)
		rhs := make([][2]float64, n)
		for i := range diag {
			diag[i] = rng.NormFloat64() * 1e-3
			if i > 0 {
				sub[i] = rng.NormFloat64()
			}
			if i < n-1 {
				sup[i] = rng.NormFloat64()
			}
			rhs[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		}
		x := solveTridiagonal(sub, diag, sup, rhs)
		for i := range n {
			for k := 0; k < 2; k++ {
				r := diag[i] * x[i][k]
				if i > 0 {
					r += sub[i] * x[i-1][k]
				}
				if i < n-1 {
					r += sup[i] * x[i+1][k]
				}
				if math.Abs(r-rhs[i][k]) > tol*(1+math.Abs(rhs[i][k])) {
					t.Fatalf("n=%d: residual row %d = %v", n, i, r-rhs[i][k])
				}
			}
		}
	}
}

func TestObstacles(t *testing.T) {
	obs := Obstacles()
	if len(obs) != 34 {
		t.Fatalf("got %d obstacles, want 34", len(obs))
	}
	cases := []struct {
		p    [2]float64
		want bool
	}{
		{[2]float64{0.05, 0.05}, false},              // start: corner square (0,0) excluded
		{[2]float64{0.95, 0.95}, false},              // goal: corner square (1,1) excluded
		{[2]float64{0.2, 0.2}, true},                 // centre of a square
		{[2]float64{0.15000000000000002, 0.2}, true}, // low edge is inside (0.2 - 0.05 rounds up)
		{[2]float64{0.25, 0.2}, false},               // high edge is outside
		{[2]float64{0.1, 0.1}, false},                // corridor between squares
		{[2]float64{0.0, 0.5}, false},                // x = 0 is in [0,1); no square at y=0.5
		{[2]float64{0.02, 0.2}, true},                // square centred on (0, 0.2)
		{[2]float64{-1e-9, 0.5}, true},               // outside the unit square
		{[2]float64{0.5, 1.0}, true},                 // y = 1 is outside [0,1)
		{[2]float64{0.97, 0.99}, false},              // near the goal, corner square excluded
		{[2]float64{0.97, 0.81}, true},               // square (1, 0.8)
	}
	for _, c := range cases {
		if got := inObstacle(c.p); got != c.want {
			t.Errorf("InObstacle(%v) = %v, want %v", c.p, got, c.want)
		}
		// Cross-check against the explicit list.
		list := !(c.p[0] >= 0 && c.p[0] < 1 && c.p[1] >= 0 && c.p[1] < 1)
		for _, o := range obs {
			if o.Low[0] <= c.p[0] && c.p[0] < o.High[0] && o.Low[1] <= c.p[1] && c.p[1] < o.High[1] {
				list = true
			}
		}
		if list != c.want {
			t.Errorf("obstacle list disagrees at %v", c.p)
		}
	}
}

func TestRewardStraightDiagonalClosedForm(t *testing.T) {
	// x = 0.03 everywhere runs straight from (0.05,0.05) to the goal along the
	// diagonal: length 0.9 sqrt 2, and the 8 boundary crossings of the four
	// diagonal squares fall exactly on sample points, so only the interior
	// length is closed form: cost ~ 0.05 * 0.9 sqrt2 + 20 * 4 * 0.1 sqrt2.
	x := make([]float64, Dim)
	for i := range x {
		x[i] = 0.03
	}
	got := reward(x)
	approx := offset - (pointCost*0.9*math.Sqrt2 + obstacleCost*4*obstacleSide*math.Sqrt2)
	// Trapezoid: each square edge moves the integral by at most one half
	// segment of cost 20: 8 edges * 10 * 0.9 sqrt2/999.
	if tol := 8 * 10 * 0.9 * math.Sqrt2 / 999; math.Abs(got-approx) > tol {
		t.Errorf("Reward = %v, closed form %v (tol %v)", got, approx, tol)
	}
	traj := Trajectory(x)
	if math.Abs(traj[0][0]-Start[0]) > 1e-15 || math.Abs(traj[numSamples-1][0]-Goal[0]) > 1e-12 {
		t.Errorf("trajectory runs from %v to %v", traj[0], traj[numSamples-1])
	}
}

func TestRewardDegenerateAndNaN(t *testing.T) {
	x := make([]float64, Dim) // every step zero: one distinct point
	if got := reward(x); got != degeneratePenalty {
		t.Errorf("all-zero steps: Reward = %v, want %v", got, degeneratePenalty)
	}
	// Two non-zero steps: 3 distinct points, still degenerate; the drawn path
	// is the polyline through them.
	x[0], x[1] = 0.05, 0.02
	x[10], x[11] = 0.01, 0.06
	if got := reward(x); got != degeneratePenalty {
		t.Errorf("3 distinct points: Reward = %v, want %v", got, degeneratePenalty)
	}
	traj := Trajectory(x)
	last := traj[numSamples-1]
	if math.Abs(last[0]-0.11) > 1e-12 || math.Abs(last[1]-0.13) > 1e-12 {
		t.Errorf("degenerate path ends at %v, want (0.11, 0.13)", last)
	}
	// Three non-zero steps: 4 distinct points, a single cubic, a real value.
	x[20], x[21] = 0.02, 0.02
	if got := reward(x); got == degeneratePenalty || math.IsNaN(got) {
		t.Errorf("4 distinct points: Reward = %v, want a spline value", got)
	}
	x[5] = math.NaN()
	if got := reward(x); !math.IsNaN(got) {
		t.Errorf("NaN input: Reward = %v, want NaN", got)
	}
}

func TestRandomRewardsMatchNotes(t *testing.T) {
	// Reference notes: random x average about -81 (10^4 draws here: -81.26,
	// sd 21.7). With 400 draws the mean's standard error is 1.1; accept
	// +-5 (4.5 standard errors).
	rng := rand.New(rand.NewPCG(1, 1))
	sum := 0.0
	const n = 400
	for range n {
		sum += reward(randomX(rng))
	}
	if mean := sum / n; mean < -86 || mean > -76 {
		t.Errorf("mean reward of random x = %v, want about -81", mean)
	}
}

func TestTaskBoundsAndCacheConcurrency(t *testing.T) {
	task := New()
	lo, hi := task.Bounds()
	if len(lo) != 60 || lo[0] != -1.0/30 || hi[59] != 1.0/15 {
		t.Fatalf("bounds %v..%v", lo[0], hi[0])
	}
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([][]float64, 8)
	for i := range xs {
		xs[i] = randomX(rng)
	}
	want := task.Distance(xs[0], xs[1])
	done := make(chan float64)
	for range 8 {
		go func() { done <- New().Distance(xs[0], xs[1]) }()
		go func() { done <- task.Distance(xs[0], xs[1]) }()
	}
	for range 16 {
		if got := <-done; got != want {
			t.Errorf("concurrent Distance = %v, want %v", got, want)
		}
	}
}
