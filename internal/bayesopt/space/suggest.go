package space

import (
	"context"
	"fmt"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Request is everything a suggestion depends on.
type Request struct {
	Space    *Space
	Settings bayesopt.Settings // Budget is not used
	ID       bayesopt.RunID
	Observed []Observation // in file order
	Pending  []Observation
	Batch    int // number of suggestions
}

// DefaultInit is suggest's default initial-design size for d parameters:
// the smallest multiple of batch that is at least max(2d, regions) (TuRBO
// starts from 2d points; every region needs a centre), so the design ends
// with a full batch.
func DefaultInit(d, batch, regions int) int {
	need := max(2*d, regions, 1)
	return (need + batch - 1) / batch * batch
}

// Suggestion is one suggested experiment.
type Suggestion struct {
	Values []float64 // parameter values, in the space's order
	Region int       // trust region that proposed it; -1 for initial-design and random points
}

// maxDesignDraws bounds the initial-design points examined per suggestion
// when skipping repeats (integer spaces).
const maxDesignDraws = 100

// Suggest rebuilds the engine's state from the observed rows and returns
// the next batch, the same answer for the same (space, observed rows in
// file order, pending rows, settings, seed).
//
// The history rule, i.e. what counts as one iteration:
//   - a file with an iteration column (the records `qvs bayesopt` writes,
//     or suggest's output with the column added) is grouped by it: rows of
//     iteration 0 are the initial design, rows of iteration t form
//     iteration t (values never decrease; skipped numbers are iterations
//     that proposed nothing);
//   - otherwise the first Settings.Init rows are the initial design and
//     each following run of Settings.Batch rows is one iteration, in file
//     order (the last may be shorter).
//
// Each row of iteration t >= 1 counts for its region column if the file
// has one, else for the region whose trust region contains it with the
// nearest centre (Engine.RegionOf; -1 if none). While the initial design is
// incomplete (fewer observed rows than Settings.Init and no later
// iteration), the batch is the next points of the initial-design stream
// after the observed and pending ones (the stream continues past Init, so
// the batch is always full). Otherwise the engine is told every iteration
// and asked for Batch points with the pending rows as pending points.
//
// A failed row (Observation.Failed) is a row for the history rule and
// spends its place in an iteration, but it never enters a GP, a centre
// choice or a trust region's counts, and nothing is suggested within
// bayesopt.FailureRadiusFraction·sqrt(d) of it in the unit cube unless
// Settings.RetryFailed (bayesopt.Evaluation.Failed).
func Suggest(ctx context.Context, req Request) ([]Suggestion, error) {
	s := req.Space
	e, err := bayesopt.NewEngine(s.Domain(), req.Settings, req.ID)
	if err != nil {
		return nil, err
	}
	if req.Batch < 1 {
		return nil, configkeys.Invalid("batch", req.Batch, "must be at least 1")
	}
	// Every row's region is checked, the initial design's and rows read
	// while the design is incomplete included (a region >= --regions was
	// accepted there and ignored).
	for _, o := range req.Observed {
		if o.HasRegion && o.Region >= req.Settings.Regions {
			return nil, regionError(o, req.Settings.Regions)
		}
	}
	groups, err := iterations(req.Observed, req.Settings.Init, req.Settings.Batch)
	if err != nil {
		return nil, err
	}
	pending := make([][]float64, len(req.Pending))
	for i, p := range req.Pending {
		pending[i] = p.engine(s)
	}
	if len(groups) <= 1 && len(req.Observed) < req.Settings.Init {
		return designBatch(e, s, req, pending), nil
	}
	for t, g := range groups {
		// Each iteration chooses its centres over the rows before it:
		// replaying a long file runs for minutes, and must answer an
		// interrupt.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		evs := make([]bayesopt.Evaluation, len(g))
		for i, o := range g {
			x := o.engine(s)
			reg := -1
			switch {
			case t == 0:
			case o.HasRegion:
				reg = o.Region
			default:
				reg = e.RegionOf(x)
			}
			evs[i] = bayesopt.Evaluation{Iteration: t, Region: reg, X: x, Value: o.Value, Failed: o.Failed}
		}
		if err := e.Tell(evs); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", t, err)
		}
	}
	asked, err := e.Ask(ctx, req.Batch, pending)
	if err != nil {
		return nil, err
	}
	out := make([]Suggestion, len(asked))
	for i, a := range asked {
		out[i] = Suggestion{Values: s.Values(a.X), Region: a.Region}
	}
	return out, nil
}

// engine is the observation's engine point: as read from a run's records,
// else mapped from its values.
func (o Observation) engine(s *Space) []float64 {
	if o.X != nil {
		return o.X
	}
	return s.Engine(o.Values)
}

// iterations groups observed rows into the engine's iterations by the
// history rule of Suggest. Group t is iteration t (possibly empty).
func iterations(obs []Observation, init, batch int) ([][]Observation, error) {
	if len(obs) == 0 {
		return nil, nil
	}
	if obs[0].Iteration >= 0 {
		if obs[0].Iteration != 0 {
			return nil, fileio.FieldErrorf("", obs[0].Line, "iteration", "the first row is of iteration %d, expected 0 (the initial design)", obs[0].Iteration)
		}
		var groups [][]Observation
		for _, o := range obs {
			if o.Iteration > len(obs) {
				return nil, fileio.FieldErrorf("", o.Line, "iteration", "%d is more than the number of rows (%d)", o.Iteration, len(obs))
			}
			for len(groups) <= o.Iteration {
				groups = append(groups, nil)
			}
			groups[o.Iteration] = append(groups[o.Iteration], o)
		}
		return groups, nil
	}
	n0 := min(init, len(obs))
	groups := [][]Observation{obs[:n0]}
	for i := n0; i < len(obs); i += batch {
		groups = append(groups, obs[i:min(i+batch, len(obs))])
	}
	return groups, nil
}

// designBatch returns the next Batch points of the initial-design stream
// after the first len(observed)+len(pending), skipping points equal to an
// observed, pending or already chosen one, and points near a failed one
// (bayesopt.NearFailed; unless Settings.RetryFailed).
func designBatch(e *bayesopt.Engine, s *Space, req Request, pending [][]float64) []Suggestion {
	taken := map[string]bool{}
	key := func(x []float64) string { return fmt.Sprint(s.Values(x)) }
	for _, o := range req.Observed {
		taken[key(o.engine(s))] = true
	}
	for _, x := range pending {
		taken[key(x)] = true
	}
	var failed [][]float64
	for _, o := range req.Observed {
		if o.Failed && !req.Settings.RetryFailed {
			failed = append(failed, o.engine(s))
		}
	}
	start := len(req.Observed) + len(req.Pending)
	design := e.Design(start + maxDesignDraws*req.Batch)
	var out []Suggestion
	for _, d := range design[start:] {
		if len(out) == req.Batch {
			break
		}
		k := key(d.X)
		if taken[k] || bayesopt.NearFailed(s, failed, d.X) {
			continue
		}
		taken[k] = true
		out = append(out, Suggestion{Values: s.Values(d.X), Region: -1})
	}
	return out
}

// regionError: o's region column names a trust region the request does not
// have.
func regionError(o Observation, regions int) error {
	return fileio.FieldErrorf("", o.Line, "region", "%d, but there are only regions 0..%d (--regions %d)", o.Region, regions-1, regions)
}
