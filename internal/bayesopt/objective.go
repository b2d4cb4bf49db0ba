package bayesopt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qvs-dev/qvs/internal/parallel"
)

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
	// Evaluate returns f(x) for x inside the box, or an error when f(x)
	// could not be computed (x of the wrong length, an external program
	// that failed, ctx done). A finite value is the only valid result:
	// the engine refuses NaN and ±Inf from Evaluate. A failed experiment
	// (NaN, recorded as failed) is a BatchObjective's to report.
	Evaluate(ctx context.Context, x []float64) (float64, error)
}

// BatchObjective is an Objective that evaluates a whole batch in one call
// (an external program, say); Optimize prefers it to Evaluate. It returns
// one value per point, in order, or an error that names what went wrong.
type BatchObjective interface {
	Objective
	EvaluateBatch(ctx context.Context, xs [][]float64) ([]float64, error)
}

// snapper is a Domain whose admissible points are a subset of its box
// (integer parameters, say). Snap moves x (inside the box) in place to the
// nearest admissible point, also inside the box; it must be idempotent, so
// that a snapped point compares equal to itself snapped again. The engine
// snaps its initial design and every Thompson candidate before it samples,
// and never proposes a snapped point equal to an observed, pending or
// already proposed one.
type snapper interface {
	Snap(x []float64)
}

// EvaluatePoints evaluates obj at every point of xs (row-major, dim =
// obj.Dim() numbers per point) on up to workers goroutines and returns the
// values in order. A coordinate outside the box, an error of Evaluate and
// a non-finite value are errors naming the point's row (1-based) and, for
// the box, its column; nothing is returned then. Once ctx is done no
// further point starts and ctx.Err() is returned.
func EvaluatePoints(ctx context.Context, obj Objective, xs []float64, workers int) ([]float64, error) {
	d := obj.Dim()
	if d <= 0 || len(xs)%d != 0 {
		return nil, fmt.Errorf("%d numbers are not points of task %s, which has %d dimensions", len(xs), obj.Name(), d)
	}
	n := len(xs) / d
	lo, hi := obj.Bounds()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := xs[i*d+j]; !(v >= lo[j] && v <= hi[j]) {
				return nil, fmt.Errorf("row %d, column %d: %v is outside the box [%v, %v] of task %s", i+1, j+1, v, lo[j], hi[j], obj.Name())
			}
		}
	}
	values := make([]float64, n)
	err := parallel.Each(ctx, n, workers, func(i int) error {
		v, err := obj.Evaluate(ctx, xs[i*d:(i+1)*d])
		switch {
		case err != nil:
			return fmt.Errorf("row %d: task %s: %w", i+1, obj.Name(), err)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("row %d: task %s returned %v", i+1, obj.Name(), v)
		}
		values[i] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return values, nil
}

// Encoder is a Domain whose points the GP models through a feature map
// (a mixed space's categorical parameters one-hot, its inactive
// conditional parameters at a fixed neutral value). Encode maps a point in
// the unit cube of the box (snapped, for a Snapper) to its features; the
// feature count may differ from Dim but must be the same for every point.
// Without an Encoder the GP sees the unit-cube point itself.
type Encoder interface {
	Encode(u []float64) []float64
}

// CandidateMixer is a Domain with coordinates a box trust region cannot
// move along (categories): MixCandidates rewrites, in place, those
// coordinates of the unit-cube candidates (rows of cand, drawn in the box
// trust region of side length around centre), drawing only from rng. A
// mixed space keeps each candidate's categories within a Hamming distance
// of the centre's that grows with length (CASMOPOLITAN's categorical trust
// region). The engine calls it before snapping.
type CandidateMixer interface {
	MixCandidates(centre []float64, cand [][]float64, length float64, rng *rand.Rand)
}
