package toy

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Defaults of Figure 1 (paper section 2.4).
var defaultOrders = []vendi.Order{0, 0.1, 1, 5, vendi.OrderInf}

const (
	DefaultN       = 10   // points per batch, "a batch X_* of size n = 10"
	DefaultStarts  = 48   // random starts per panel (the paper does not say)
	defaultMaxIter = 2000 // projected-gradient iterations per start
	defaultTol     = 1e-9 // stop when the projected gradient step is this small
	// MaxN bounds the batch size. Every iteration eigendecomposes the n x n
	// kernel, so a figure costs ~n^3: n = 10 takes ~5 s, 30 ~40 s on one
	// core, 100 ~25 min; n = 100,000 would need an 80 GB kernel.
	MaxN = 100
	// MaxStarts bounds the random starts per panel: each start's result
	// is kept until the panel's best is chosen (10^11 starts asked for a
	// 6.4 TB slice up front), and at ~0.1 s a start 100,000 already take
	// hours.
	MaxStarts = 100000
)

// Config describes a multi-start maximisation.
type Config struct {
	N       int     // points per batch
	Starts  int     // random starts; the best local maximum is kept
	Workers int     // starts run in parallel on this many goroutines
	Seed    uint64  // master seed: start i of a panel draws from rng.New(Seed, "toy", row, q, N, i)
	MaxIter int     // iterations per start (0: defaultMaxIter)
	Tol     float64 // projected-gradient stopping tolerance (0: defaultTol)
}

func (c Config) check() error {
	switch {
	case c.N < 1 || c.N > MaxN:
		return fmt.Errorf("toy: batch size n must be 1 to %d, got %d", MaxN, c.N)
	case c.Starts < 1 || c.Starts > MaxStarts:
		return fmt.Errorf("toy: starts must be 1 to %d, got %d", MaxStarts, c.Starts)
	case c.Workers < 1:
		return fmt.Errorf("toy: workers must be at least 1, got %d", c.Workers)
	case c.MaxIter < 0:
		return fmt.Errorf("toy: max iterations must be >= 0, got %d", c.MaxIter)
	case c.Tol < 0:
		return fmt.Errorf("toy: tolerance must be >= 0, got %v", c.Tol)
	}
	return nil
}

// Panel is one cell of Figure 1: the best batch found for a row (targetVS or
// targetQVS) and an order q.
type Panel struct {
	Row       Target      // targetVS (top row) or targetQVS (bottom row)
	Q         vendi.Order // order q of the column
	Maximised Target      // the function actually ascended (see Note)
	Empty     bool        // nothing to maximise: the VS_0 panel
	Points    []Point     // the best batch; nil when Empty
	VS, QVS   float64     // VS_q and qVS_q of Points (vendi.Score)
	Starts    int         // random starts run
	BestStart int         // index of the start that found Points
	Evals     int         // objective evaluations over all starts
	Note      string      // why a q = 0 panel looks the way it does
}

// maximize runs cfg.Starts projected-gradient ascents of the target of
// panel (row, q) from uniform random batches in [-1, 1]^2 and returns the
// best local maximum (ties: lowest start index, so the result does not
// depend on scheduling). For q = 0 it follows the paper's reading of VS_0 as
// a count: VS_0 is piecewise constant with zero gradient, so the VS panel is
// left empty and the qVS panel ascends the mean quality (the only term with
// a gradient), which puts every point at the centre.
func maximize(ctx context.Context, row Target, q vendi.Order, cfg Config) (Panel, error) {
	if err := cfg.check(); err != nil {
		return Panel{}, err
	}
	if err := q.Validate(); err != nil {
		return Panel{}, err
	}
	if row != targetVS && row != targetQVS {
		return Panel{}, fmt.Errorf("toy: row must be VS or qVS, got %v", row)
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = defaultMaxIter
	}
	if cfg.Tol == 0 {
		cfg.Tol = defaultTol
	}
	p := Panel{Row: row, Q: q, Maximised: row, Starts: cfg.Starts, BestStart: -1}
	if q == 0 {
		if row == targetVS {
			p.Empty = true
			p.Note = "VS_0 counts distinct points: its gradient is zero everywhere, nothing to ascend, panel left empty as in the paper"
			return p, nil
		}
		p.Maximised = targetMeanQuality
		p.Note = "qVS_0 = mean quality x VS_0 and VS_0 is piecewise constant, so gradient ascent maximises the mean quality: all points at the centre (coinciding points have VS_0 = 1)"
	}

	type result struct {
		res ascendResult
		err error
	}
	results := make([]result, cfg.Starts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each worker keeps one objective (its scratch) for the starts it takes;
	// the first failure cancels the starts not yet begun.
	workers := min(cfg.Workers, cfg.Starts)
	objs := make([]*objective, max(workers, 1))
	parallel.Blocks(cfg.Starts, 1, workers, func(w, s, _ int) {
		if ctx.Err() != nil {
			return
		}
		if objs[w] == nil {
			objs[w] = newObjective(p.Maximised, q, cfg.N)
		}
		rng := rng.New(cfg.Seed, "toy", row.String(), q.String(), cfg.N, s)
		z0 := make([]float64, 2*cfg.N)
		for i := range z0 {
			z0[i] = lo + (hi-lo)*rng.Float64()
		}
		r, err := ascend(ctx, objs[w], z0, cfg.MaxIter, cfg.Tol)
		results[s] = result{r, err}
		if err != nil {
			cancel()
		}
	})
	for s, r := range results {
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			return Panel{}, fmt.Errorf("toy: %v q=%s start %d: %w", row, q.String(), s, r.err)
		}
	}
	if err := ctx.Err(); err != nil {
		return Panel{}, err
	}

	best := -1
	for s, r := range results {
		p.Evals += r.res.evals
		if best < 0 || r.res.value > results[best].res.value {
			best = s
		}
	}
	p.BestStart = best
	z := results[best].res.z
	p.Points = make([]Point, cfg.N)
	for i := range p.Points {
		p.Points[i] = Point{z[2*i], z[2*i+1]}
	}
	var err error
	if p.VS, p.QVS, err = Scores(p.Points, q); err != nil {
		return Panel{}, err
	}
	return p, nil
}

// Figure1 maximises every panel of Figure 1: the VS row then the qVS row,
// one column per order.
func Figure1(ctx context.Context, orders []vendi.Order, cfg Config) ([]Panel, error) {
	if len(orders) == 0 {
		return nil, errors.New("toy: no orders")
	}
	var panels []Panel
	for _, row := range []Target{targetVS, targetQVS} {
		for _, q := range orders {
			p, err := maximize(ctx, row, q, cfg)
			if err != nil {
				return nil, err
			}
			panels = append(panels, p)
		}
	}
	return panels, nil
}

// stackTol is the distance below which two points of a batch are drawn and
// counted as one location. VS maximisers for large q pile several points
// onto the same corner (coinciding points add one effective item between
// them, but sit as far as possible from the rest); the optimiser leaves
// them equal to rounding, far below this.
const stackTol = 1e-6

// Stack is a location of a batch and how many points sit on it.
type Stack struct {
	At    Point
	Count int
}

// Stacks groups the points of x that lie within stackTol of each other
// (single linkage in input order: each point joins the first stack whose
// location is within stackTol).
func Stacks(x []Point) []Stack {
	var out []Stack
	for _, p := range x {
		found := false
		for i := range out {
			if math.Hypot(p[0]-out[i].At[0], p[1]-out[i].At[1]) <= stackTol {
				out[i].Count++
				found = true
				break
			}
		}
		if !found {
			out = append(out, Stack{At: p, Count: 1})
		}
	}
	return out
}
