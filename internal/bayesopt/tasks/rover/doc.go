// Package rover is the 60-dimensional rover trajectory planning task of the
// paper's diverse Bayesian optimisation experiments (section 4.2, Figure 3),
// after Wang et al. (2018) as the ROBOT code (Maus et al. 2023) sets it up.
//
// x holds 30 steps (dx, dy), each coordinate in [-1/30, 1/15]. The control
// points are the start (0.05, 0.05) followed by the cumulative sums of the
// steps; consecutive duplicate points are dropped; an interpolating cubic
// spline (chord-length parameter normalised to [0, 1], not-a-knot ends, the
// curve scipy's splprep(k=3, s=0) fits) is sampled at 1000 evenly spaced
// parameters. The path cost integrates 0.05 per unit length, plus 20 inside
// any obstacle (34 squares of side 0.1 and everything outside [0, 1)^2), with
// the trapezoid rule along the sampled polyline. The reward is
//
//	f(x) = 5 - (path cost + 100 * |last point - (0.95, 0.95)|_1),
//
// to be maximised; random x average about -81, the best corridor paths reach
// about 4.92. Fewer than 4 distinct control points cannot be splined: f is
// then DegeneratePenalty (documented there), never a crash.
//
// The diversity distance between two solutions compares their trajectories A
// and B (1000 points each) with the symmetric one-way distance
//
//	d(A, B) = 0.5 * (mean_{a in A} min_{b in B} |a - b| + mean_{b in B} min_{a in A} |a - b|),
//
// computed exactly with a uniform grid so that a pair costs far less than the
// 10^6 point pairs of the brute force.
//
//	task := rover.New()
//	f, err := task.Evaluate(ctx, x) // reward
//	d := task.Distance(x1, x2)     // trajectory distance
//	path := rover.Trajectory(x)    // for plots, with rover.Obstacles()
package rover
