package bayesopt

import "context"

// Domain is a search space: a box with the task's own diversity distance
// between two solutions (rover: the one-way distance between trajectories;
// lunar: Euclidean in x, as in the ROBOT code). The engine (Engine) needs
// only this; Optimize also needs the objective.
type Domain interface {
	Name() string
	Dim() int
	// Bounds returns the lower and upper corners of the search box.
	Bounds() (lower, upper []float64)
	// Distance is the task's diversity distance between two solutions.
	Distance(a, b []float64) float64
}

// Objective is a black-box function to maximise over a Domain.
// Evaluate must be safe for concurrent use and deterministic.
type Objective interface {
	Domain
	// Evaluate returns f(x) for x inside the box.
	Evaluate(x []float64) float64
}

// BatchObjective is an Objective that evaluates a whole batch in one call
// (an external program, say); Optimize prefers it to Evaluate. It returns
// one value per point, in order, or an error that names what went wrong.
type BatchObjective interface {
	Objective
	EvaluateBatch(ctx context.Context, xs [][]float64) ([]float64, error)
}

// Snapper is a Domain whose admissible points are a subset of its box
// (integer parameters, say). Snap moves x (inside the box) in place to the
// nearest admissible point, also inside the box; it must be idempotent, so
// that a snapped point compares equal to itself snapped again. The engine
// snaps its initial design and every Thompson candidate before it samples,
// and never proposes a snapped point equal to an observed, pending or
// already proposed one.
type Snapper interface {
	Snap(x []float64)
}
