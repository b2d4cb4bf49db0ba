package bayesopt

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/rng"
)

// Engine is the optimiser as a state machine driven by its evaluation
// history: InitialDesign gives iteration 0's points, Ask(b) the next batch
// (each point with the trust region that proposed it) and Tell(evaluations)
// adds one iteration's results and updates the trust regions. Optimize (the
// campaign loop) and `qvs bayesopt suggest` drive the same two calls, so an
// Engine told a run's first iterations asks exactly the batch the run
// evaluated next.
//
// The state after Tell is a deterministic function of (domain, settings,
// RunID, the evaluations told, grouped by iteration): the trust regions are
// replayed from the history, never stored. Every draw of iteration t comes
// from rng.New(Seed, Key, t, ...), so Ask is deterministic too.
//
// The policy pieces are separate methods of the unexported runner: centre
// choice (runner.centres), per-region proposals (runner.propose) and the
// trust-region update (runner.updateRegions).
type Engine struct {
	r  *runner
	it int // the iteration the next Tell belongs to
	// cs caches the centres of iteration csIt computed from csN evaluations,
	// so Ask and the Tell that follows select them once.
	cs        []centre
	csIt, csN int
}

// NewEngine returns an engine with no evaluations. s.Budget is not used
// (the caller decides when to stop); the other settings are validated as by
// Settings.Validate.
func NewEngine(dom Domain, s Settings, id RunID) (*Engine, error) {
	s.defaults()
	if s.Budget < s.Init {
		s.Budget = s.Init
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r, err := newRunner(dom, s, id)
	if err != nil {
		return nil, err
	}
	return &Engine{r: r, csIt: -1}, nil
}

// Iteration is the iteration the next Tell belongs to (0: the initial design).
func (e *Engine) Iteration() int { return e.it }

// Evaluations is the number of evaluations told so far, failed ones
// included (they spend budget).
func (e *Engine) Evaluations() int { return len(e.r.all) }

// Failures is the number of failed evaluations told so far.
func (e *Engine) Failures() int { return len(e.r.failedU) }

// TrustRegions returns a copy of the trust-region states (rank order).
func (e *Engine) TrustRegions() []TrustRegion { return append([]TrustRegion(nil), e.r.trs...) }

// InitialDesign returns iteration 0: Settings.Init uniform points drawn from
// rng.New(Seed, "init", Repeat) (shared by every method of a repeat),
// snapped for a Snapper domain, with Region -1. The first k points of a
// design of Init > k points are the design of Init = k.
func (e *Engine) InitialDesign() []Evaluation { return e.Design(e.r.s.Init) }

// Design returns the first n points of the initial-design stream (n may
// exceed Settings.Init: the stream goes on).
func (e *Engine) Design(n int) []Evaluation {
	r := e.r
	us := uniformPoints(rng.New(r.id.Seed, "init", r.id.Repeat), n, r.d)
	out := make([]Evaluation, len(us))
	for i, u := range us {
		out[i] = Evaluation{Iteration: 0, Region: -1, X: r.unitToX(u)}
	}
	return out
}

// Ask returns the next batch of at most b points of iteration Iteration()
// (>= 1: the initial design is told first), with Value unset. ROBOT may
// return fewer (its diversity filter can empty a region). pending holds
// points being evaluated elsewhere (a user's running experiments): the
// batch never repeats them, and they count as already picked in this
// iteration: ROBOT keeps its candidates tau away from them and qvs starts
// its greedy batch from them (with quality 1, the top of the scale, since
// they were chosen as good points). Without pending points, Ask(b) equals
// the batch Optimize evaluates.
func (e *Engine) Ask(ctx context.Context, b int, pending [][]float64) ([]Evaluation, error) {
	r := e.r
	if e.it == 0 {
		return nil, fmt.Errorf("ask before the initial design was told: tell InitialDesign's evaluations first")
	}
	if b < 1 {
		return nil, configkeys.Invalid("batch", b, "must be at least 1")
	}
	for i, x := range pending {
		if len(x) != r.d {
			return nil, fmt.Errorf("pending point %d has %d coordinates, expected %d", i+1, len(x), r.d)
		}
	}
	taken := newPointSet()
	for _, ev := range r.all {
		if !ev.Failed || !r.s.RetryFailed {
			taken.add(ev.X)
		}
	}
	for _, x := range pending {
		taken.add(x)
	}
	var props [][]float64
	var regions []int
	if r.s.Method == MethodRandom || len(r.H) == 0 {
		// Without one successful evaluation there is no model: uniform
		// points, as random search draws them.
		props = r.randomBatch(e.it, b, taken)
	} else {
		cs, err := e.centres()
		if err == nil {
			props, regions, err = r.propose(ctx, e.it, cs, b, pending, taken)
		}
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", e.it, err)
		}
	}
	out := make([]Evaluation, len(props))
	for i, u := range props {
		reg := -1
		if regions != nil {
			reg = regions[i]
		}
		out[i] = Evaluation{Iteration: e.it, Region: reg, X: r.unitToX(u)}
	}
	return out, nil
}

// Tell adds the evaluations of iteration Iteration() (any points, in any
// number, an empty batch included, failed ones too: see Evaluation.Failed)
// and moves to the next iteration. From
// iteration 1 on, every region is recentred on the centre the method picks
// from the history before this batch and updated with the values of the
// points it proposed (Evaluation.Region; -1 counts for no region).
func (e *Engine) Tell(evs []Evaluation) error {
	r := e.r
	for i, ev := range evs {
		switch {
		case ev.Iteration != e.it:
			return fmt.Errorf("evaluation %d is of iteration %d, expected %d", i+1, ev.Iteration, e.it)
		case len(ev.X) != r.d:
			return fmt.Errorf("evaluation %d has %d coordinates, expected %d", i+1, len(ev.X), r.d)
		case ev.Region < -1 || ev.Region >= r.s.Regions:
			return fmt.Errorf("evaluation %d: region %d out of range [-1, %d]", i+1, ev.Region, r.s.Regions-1)
		}
		// Non-finite or huge values (|v| > MaxAbsObjective) would overflow
		// the GP's standardisation and reach the qVS greedy as NaN. A
		// failed evaluation has no value.
		if err := CheckObjective(ev.Value); err != nil && !ev.Failed {
			return fmt.Errorf("evaluation %d: value %w", i+1, err)
		}
		for j, x := range ev.X {
			if !(x >= r.lo[j] && x <= r.hi[j]) {
				return fmt.Errorf("evaluation %d: coordinate %d = %v is outside [%v, %v]", i+1, j, x, r.lo[j], r.hi[j])
			}
		}
	}
	if e.it > 0 && r.s.Method != MethodRandom && len(r.H) > 0 {
		cs, err := e.centres()
		if err != nil {
			return fmt.Errorf("iteration %d: %w", e.it, err)
		}
		var ok []Evaluation // failed points count for no region
		for _, ev := range evs {
			if !ev.Failed {
				ok = append(ok, ev)
			}
		}
		r.updateRegions(cs, ok)
	}
	r.add(evs)
	e.it++
	return nil
}

// Result selects the final solutions from the evaluations so far and
// summarises them (see Result).
func (e *Engine) Result() (*Result, error) { return e.r.result() }

// RegionOf returns the trust region of the current iteration that would
// have proposed engine point x: among the regions whose box (centre ±
// Length/2 in the unit cube) contains x, the one with the nearest centre
// (ties: the better rank); -1 if none does, for random search, before
// the initial design was told, and when the centres cannot be selected (an
// error Ask and Tell return). suggest uses it for evaluation files without
// a region column.
func (e *Engine) RegionOf(x []float64) int {
	r := e.r
	if e.it == 0 || r.s.Method == MethodRandom {
		return -1
	}
	u := r.toUnit(x)
	best, bestD := -1, math.Inf(1)
	cs, err := e.centres()
	if err != nil {
		return -1 // Ask and Tell report the error
	}
	for m, c := range cs {
		d, inside := 0.0, true
		for j := range u {
			t := math.Abs(u[j] - c.u[j])
			inside = inside && t <= r.trs[m].Length/2
			d += t * t
		}
		if inside && d < bestD {
			best, bestD = m, d
		}
	}
	return best
}

// centres returns the centres of the current iteration (cached).
func (e *Engine) centres() ([]centre, error) {
	if e.csIt != e.it || e.csN != len(e.r.H) {
		cs, err := e.r.centres(e.it, true)
		if err != nil {
			return nil, err
		}
		e.cs, e.csIt, e.csN = cs, e.it, len(e.r.H)
	}
	return e.cs, nil
}

// randomBatch draws b uniform points from rng.New(Seed, Key, it); for a
// Snapper domain a point whose snap is taken, and any point near a failed
// evaluation (runner.nearFailure), is redrawn, at most 100 times per point,
// after which the batch ends short (a small integer space can run out of
// new points).
func (r *runner) randomBatch(it, b int, taken pointSet) [][]float64 {
	rng := rng.New(r.id.Seed, r.id.Key, it)
	out := make([][]float64, 0, b)
	for len(out) < b {
		u := uniformPoints(rng, 1, r.d)[0]
		for try := 1; (r.snap != nil && taken.has(r.unitToX(u))) || r.nearFailure(r.unitToX(u)); try++ {
			if try == 100 {
				return out
			}
			u = uniformPoints(rng, 1, r.d)[0]
		}
		taken.add(r.unitToX(u))
		out = append(out, u)
	}
	return out
}

// pointSet holds points by their exact bits.
type pointSet map[string]bool

func newPointSet() pointSet { return pointSet{} }

func pointKey(x []float64) string {
	var sb strings.Builder
	for _, v := range x {
		sb.WriteString(strconv.FormatUint(math.Float64bits(v), 16))
		sb.WriteByte(',')
	}
	return sb.String()
}

func (p pointSet) add(x []float64)      { p[pointKey(x)] = true }
func (p pointSet) has(x []float64) bool { return p[pointKey(x)] }
