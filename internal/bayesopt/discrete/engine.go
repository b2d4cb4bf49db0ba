package discrete

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Evaluation is one finished query: candidate Index (0-based row of the
// kernel) and its objective Value (maximised, finite).
type Evaluation struct {
	Index int
	Value float64
}

// Engine is the discrete search (Algorithm 3 and its baselines) as an
// ask/tell state machine. Its only state is the evaluation history, in the
// order told: Ask(b) returns the next batch and changes nothing, Tell
// appends finished evaluations. A campaign (Problem.Search) is a loop of
// Ask and Tell, and `qvs bayesopt suggest --kernel` tells a user's history
// and asks once, so both make the same choices from the same history.
//
// The iteration number of the next batch, which selects the random stream
// of the random method, is a function of the history length N alone
// (Iteration): 0 while N < Init (the initial design), then
// 1 + ceil((N - Init) / Batch). A campaign's history after t batches of
// Batch points has exactly that length; a user's file in which the last
// batch is unfinished counts that batch as done.
type Engine struct {
	name      string        // candidate-set name: part of every random stream
	kernel    *mat.SymDense // GP prior covariance
	diversity *mat.SymDense // unit-diagonal similarity of qVS
	s         Settings

	obs  []int     // evaluated items, in the order told
	y    []float64 // their values
	seen []bool

	acq *Acquisition // fitted to the current history on demand; reset by Tell
}

// NewEngine starts an engine with an empty history. kernel is the GP's
// prior covariance (n x n, PSD), diversity its unit-diagonal normalisation
// used by qVS (see Problem.Diversity; nil: computed from kernel); name and s.Seed, s.Repeat fix the
// random streams (initial design, random method). s.Budget is not used:
// the caller decides when to stop.
func NewEngine(name string, kernel, diversity *mat.SymDense, s Settings) (*Engine, error) {
	n := kernel.SymmetricDim()
	if diversity == nil {
		var err error
		if diversity, err = unitDiagonal(kernel); err != nil {
			return nil, err
		}
	}
	if diversity.SymmetricDim() != n {
		return nil, fmt.Errorf("discrete: kernel is %d x %d but the diversity kernel %d x %d", n, n, diversity.SymmetricDim(), diversity.SymmetricDim())
	}
	if err := s.validatePolicy(n); err != nil {
		return nil, err
	}
	return &Engine{name: name, kernel: kernel, diversity: diversity, s: s, seen: make([]bool, n)}, nil
}

// NewEngine starts an engine on the problem's candidate set.
func (p *Problem) NewEngine(s Settings) (*Engine, error) {
	return NewEngine(p.Set.Name, p.Set.Kernel, p.Diversity, s)
}

// Len is the number of evaluations told.
func (e *Engine) Len() int { return len(e.obs) }

// Observed reports whether item i has been evaluated.
func (e *Engine) Observed(i int) bool { return e.seen[i] }

// Iteration is the iteration the next Ask belongs to: 0 while fewer than
// Init evaluations were told, else 1 + ceil((N - Init) / Batch).
func (e *Engine) Iteration() int {
	n := len(e.obs)
	if n < e.s.Init {
		return 0
	}
	return 1 + (n-e.s.Init+e.s.Batch-1)/e.s.Batch
}

// Tell appends finished evaluations to the history. An index out of range,
// an item already evaluated or a non-finite value is an error, and then
// nothing of this call is recorded.
func (e *Engine) Tell(evals ...Evaluation) error {
	n := len(e.seen)
	fresh := make(map[int]bool, len(evals))
	for _, ev := range evals {
		switch {
		case ev.Index < 0 || ev.Index >= n:
			return fmt.Errorf("discrete: item %d out of range [0, %d)", ev.Index, n)
		case e.seen[ev.Index] || fresh[ev.Index]:
			return fmt.Errorf("discrete: item %d evaluated twice", ev.Index)
		case math.IsNaN(ev.Value) || math.IsInf(ev.Value, 0):
			return fmt.Errorf("discrete: item %d has value %v, expected a finite number", ev.Index, ev.Value)
		}
		fresh[ev.Index] = true
	}
	for _, ev := range evals {
		e.obs = append(e.obs, ev.Index)
		e.y = append(e.y, ev.Value)
		e.seen[ev.Index] = true
	}
	if len(evals) > 0 {
		e.acq = nil
	}
	return nil
}

// InitialDesign returns the Init initial items: drawn uniformly without
// replacement from (seed, candidate-set name, repeat) only, so every
// method of a repeat starts from the same points.
func (e *Engine) InitialDesign() []int { return initialDesign(e.s, e.name, len(e.seen)) }

func initialDesign(s Settings, name string, n int) []int {
	rng := campaign.RNG(s.Seed, name, "init", s.Repeat)
	return append([]int(nil), rng.Perm(n)[:s.Init]...)
}

// Acquisition holds a GP fitted to the history, its posterior and the UCB
// and qualities of Algorithm 3 for every item.
type Acquisition struct {
	GP       *GP
	Mean, SD []float64 // posterior mean and standard deviation of f, objective units
	UCB      []float64 // mu + sqrt(beta) sd, standardised units (the ranking of ucb and qvs)
	Quality  []float64 // UCB mapped to [0, 1] (see QualityFromUCB)
}

// ErrNoHistory is returned by Acquisition before any evaluation was told.
var ErrNoHistory = errors.New("discrete: the GP needs at least one evaluation")

// Acquisition fits the GP to the history (once per history) and returns
// its UCB and qualities. The GP works in standardised units (see GP); Mean
// and SD are mapped back to objective units.
func (e *Engine) Acquisition() (*Acquisition, error) {
	if e.acq != nil {
		return e.acq, nil
	}
	if len(e.obs) == 0 {
		return nil, ErrNoHistory
	}
	g, err := FitGP(e.kernel, e.obs, e.y)
	if err != nil {
		return nil, err
	}
	mu, sd := g.Posterior(nil, nil)
	u := UCB(mu, sd, e.s.Beta, nil)
	a := &Acquisition{GP: g, UCB: u, Quality: QualityFromUCB(u), Mean: make([]float64, len(mu)), SD: make([]float64, len(sd))}
	for i := range mu {
		a.Mean[i] = g.YMean + g.YScale*mu[i]
		a.SD[i] = g.YScale * sd[i]
	}
	e.acq = a
	return a, nil
}

// Ask returns the next b items to evaluate; it does not change the engine.
//
//   - Fewer than Init evaluations: the first min(b, Init - N) items of the
//     initial design not yet evaluated (a campaign asks for all Init at once).
//   - random: uniform without replacement among the unevaluated items, from
//     campaign.RNG(seed, name, "random", repeat, Iteration()).
//   - ucb: the b unevaluated items of largest UCB (ties: lowest index), as
//     the authors' baseline does (torch.topk of the UCB values).
//   - qvs: Algorithm 3. Starting from X = ∅, repeatedly add the unevaluated
//     x maximising qVS_q(D ∪ X ∪ {x}; k, s) with s = QualityFromUCB: the
//     history D is the fixed prefix of vendi.Greedy and counts in the score
//     with the qualities of its own UCB. For q = 0 the paper defines VS_0
//     as the count |X| (§2.3), so qVS_0 is the sum of qualities and the
//     greedy batch is exactly the top-b UCB batch: q = 0 is regular
//     BayesOpt, computed as such (vendi's numerical-rank VS_0 would differ
//     only by penalising exact duplicates).
func (e *Engine) Ask(b int) ([]int, error) {
	n := len(e.seen)
	if b < 1 {
		return nil, fmt.Errorf("discrete: batch of %d asked, expected at least 1", b)
	}
	free := make([]int, 0, n-len(e.obs))
	for i := 0; i < n; i++ {
		if !e.seen[i] {
			free = append(free, i)
		}
	}
	if b > len(free) {
		return nil, fmt.Errorf("discrete: %d queries asked but only %d candidates are not evaluated", b, len(free))
	}
	if len(e.obs) < e.s.Init {
		var out []int
		for _, i := range e.InitialDesign() {
			if len(out) < min(b, e.s.Init-len(e.obs)) && !e.seen[i] {
				out = append(out, i)
			}
		}
		return out, nil
	}
	if e.s.Method == MethodRandom {
		rng := campaign.RNG(e.s.Seed, e.name, "random", e.s.Repeat, e.Iteration())
		// Partial Fisher-Yates over the ascending free list.
		for k := 0; k < b; k++ {
			j := k + rng.IntN(len(free)-k)
			free[k], free[j] = free[j], free[k]
		}
		return free[:b:b], nil
	}
	acq, err := e.Acquisition()
	if err != nil {
		return nil, err
	}
	if e.s.Method == MethodUCB || e.s.Q == 0 {
		return TopK(acq.UCB, free, b), nil
	}
	res, err := vendi.Greedy(vendi.GreedyProblem{
		Kernel:  vendi.DenseKernel(e.diversity),
		Quality: acq.Quality,
		Prefix:  e.obs,
		K:       b,
		Q:       e.s.Q,
		Workers: e.s.Workers,
	})
	if err != nil {
		return nil, err
	}
	return res.Picks, nil
}
