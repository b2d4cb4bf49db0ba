package rover

import (
	"math"
)

// Task constants (Wang et al. 2018's rover domain as the ROBOT code sets it
// up for 30 steps).
const (
	// Dim is the number of inputs: 30 steps (dx, dy), interleaved.
	Dim = 60
	// numSteps is the number of steps (control points after the start).
	numSteps = Dim / 2
	// numSamples is the number of trajectory points the cost integrates over.
	numSamples = 1000
	// pointCost is the cost per unit length everywhere.
	pointCost = 0.05
	// obstacleCost is the extra cost per unit length inside an obstacle.
	obstacleCost = 20.0
	// goalWeight multiplies the L1 distance from the last point to the goal.
	goalWeight = 100.0
	// offset is added to minus the cost so that good paths score about 5.
	offset = 5.0
	// obstacleSide is the side of each square obstacle.
	obstacleSide = 0.1
)

// Lower and Upper bound every coordinate of x: [-2/d, 4/d] with d = 60, as
// the original code computes them (-0.5*4/dim, 4/dim).
var (
	Lower = -0.5 * 4 / float64(Dim)
	Upper = 4 / float64(Dim)
)

// Start and Goal are the rover's start point and goal.
var (
	Start = [2]float64{0.05, 0.05}
	Goal  = [2]float64{0.95, 0.95}
)

// degeneratePenalty is f(x) when the control points have fewer than 4
// distinct consecutive entries, so that no cubic spline can be fitted (scipy
// raises an error there). It is the value of a rover that never leaves the
// start: no path cost and the full goal term, 5 - 100 * |goal - start|_1 =
// -175. Such x needs at least 27 of the 30 steps to be exactly zero.
const degeneratePenalty = offset - goalWeight*1.8

// obstacleCentres are the centres of the grid {0, .2, .4, .6, .8, 1} per
// axis; the squares are the product of these except (0,0) and (1,1).
var obstacleCentres = [6]float64{0.0, 0.2, 0.4, 0.6, 0.8, 1.0}

// Per-axis edges of the squares, computed as the original does (c -+ 0.1/2)
// so that the half-open boundaries round the same way.
var obstacleLow, obstacleHigh [6]float64

func init() {
	for i, c := range obstacleCentres {
		obstacleLow[i] = c - obstacleSide/2
		obstacleHigh[i] = c + obstacleSide/2
	}
}

// Obstacle is an axis-aligned square [Low, High) in each coordinate.
type Obstacle struct {
	Low, High [2]float64
}

// Obstacles returns the 34 square obstacles (the region outside [0,1)^2 also
// costs obstacleCost but is not listed).
func Obstacles() []Obstacle {
	var out []Obstacle
	for i := range obstacleCentres {
		for j := range obstacleCentres {
			if (i == 0 && j == 0) || (i == 5 && j == 5) {
				continue
			}
			out = append(out, Obstacle{
				Low:  [2]float64{obstacleLow[i], obstacleLow[j]},
				High: [2]float64{obstacleHigh[i], obstacleHigh[j]},
			})
		}
	}
	return out
}

// inObstacle reports whether p lies in an obstacle: one of the 34 squares
// (half-open, low <= p < high) or outside [0, 1)^2.
func inObstacle(p [2]float64) bool {
	if !(p[0] >= 0 && p[0] < 1 && p[1] >= 0 && p[1] < 1) {
		return true
	}
	i, j := squareIndex(p[0]), squareIndex(p[1])
	if i < 0 || j < 0 {
		return false
	}
	return !((i == 0 && j == 0) || (i == 5 && j == 5))
}

// squareIndex returns the index of the obstacle interval holding v, or -1.
// The intervals are disjoint, so at most one holds v.
func squareIndex(v float64) int {
	for i := range obstacleLow {
		if obstacleLow[i] <= v && v < obstacleHigh[i] {
			return i
		}
	}
	return -1
}

// controlPoints returns the 31 control points: the start followed by the
// cumulative sums of the steps (x[2i], x[2i+1]).
func controlPoints(x []float64) [][2]float64 {
	if len(x) != Dim {
		panic("rover: x must have 60 entries")
	}
	pts := make([][2]float64, numSteps+1)
	pts[0] = Start
	for i := 0; i < numSteps; i++ {
		pts[i+1] = [2]float64{pts[i][0] + x[2*i], pts[i][1] + x[2*i+1]}
	}
	return pts
}

// distinctPoints drops every control point equal to its successor (as the
// ROBOT code's fix does), keeping the last point.
func distinctPoints(pts [][2]float64) [][2]float64 {
	out := make([][2]float64, 0, len(pts))
	for i := 0; i+1 < len(pts); i++ {
		if math.Abs(pts[i+1][0]-pts[i][0])+math.Abs(pts[i+1][1]-pts[i][1]) > 0 {
			out = append(out, pts[i])
		}
	}
	return append(out, pts[len(pts)-1])
}

// sampleParameters are t = linspace(0, 1, 1000) computed as numpy does
// (i * (1/999), last exactly 1).
var sampleParameters = func() []float64 {
	t := make([]float64, numSamples)
	step := 1.0 / float64(numSamples-1)
	for i := range t {
		t[i] = float64(i) * step
	}
	t[numSamples-1] = 1
	return t
}()

// Trajectory returns the rover's path for x: numSamples points of the
// not-a-knot cubic spline through the distinct control points, at chord
// parameters linspace(0, 1, 1000). In the degenerate case (fewer than 4
// distinct points, see degeneratePenalty) it returns the polyline through them
// sampled the same way, so the path can still be drawn and compared.
func Trajectory(x []float64) [][2]float64 {
	traj, _ := trajectory(x)
	return traj
}

// trajectory also reports whether the spline could be fitted.
func trajectory(x []float64) ([][2]float64, bool) {
	pts := distinctPoints(controlPoints(x))
	out := make([][2]float64, numSamples)
	switch {
	case len(pts) >= 4:
		newSpline2(pts).sample(sampleParameters, out)
		return out, true
	case len(pts) == 1:
		for i := range out {
			out[i] = pts[0]
		}
	default:
		u := chordParameter(pts)
		j := 0
		for i, t := range sampleParameters {
			for j < len(pts)-2 && t >= u[j+1] {
				j++
			}
			w := (t - u[j]) / (u[j+1] - u[j])
			out[i] = [2]float64{
				pts[j][0] + w*(pts[j+1][0]-pts[j][0]),
				pts[j][1] + w*(pts[j+1][1]-pts[j][1]),
			}
		}
	}
	return out, false
}

// pathCost integrates the point cost (pointCost, plus obstacleCost inside an
// obstacle) along the polyline through traj with the trapezoid rule.
func pathCost(traj [][2]float64) float64 {
	cost := func(p [2]float64) float64 {
		if inObstacle(p) {
			return pointCost + obstacleCost
		}
		return pointCost
	}
	total := 0.0
	prev := cost(traj[0])
	for i := 1; i < len(traj); i++ {
		c := cost(traj[i])
		dx := traj[i][0] - traj[i-1][0]
		dy := traj[i][1] - traj[i-1][1]
		total += 0.5 * (prev + c) * math.Sqrt(dx*dx+dy*dy)
		prev = c
	}
	return total
}

// reward is the rover objective (to maximise):
// f(x) = 5 - (path cost + 100 |last point - goal|_1), or degeneratePenalty.
// A NaN in x gives NaN.
func reward(x []float64) float64 {
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	traj, ok := trajectory(x)
	if !ok {
		return degeneratePenalty
	}
	last := traj[len(traj)-1]
	goal := math.Abs(last[0]-Goal[0]) + math.Abs(last[1]-Goal[1])
	return offset - (pathCost(traj) + goalWeight*goal)
}
