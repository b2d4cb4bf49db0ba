package discrete

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Evaluation is one finished query: candidate Index (0-based row of the
// kernel) and its objective Value (maximised, finite), or a failed
// experiment (Failed; Value is ignored, NaN by convention).
type Evaluation struct {
	Index  int
	Value  float64
	Failed bool
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
//
// A failed evaluation (Evaluation.Failed) counts in N (it spent its place
// in the initial design or its batch) but never enters the GP or the qVS
// history D, and its item is never asked again: for a discrete pool the
// failure radius is the item itself, since the kernel gives no distance
// in which a neighbour is "the same experiment". With Settings.RetryFailed
// a failed item is a candidate again; an item that failed may be told
// again (a retry), one that succeeded may not.
type Engine struct {
	name      string        // candidate-set name: part of every random stream
	kernel    *mat.SymDense // GP prior covariance
	diversity *mat.SymDense // unit-diagonal similarity of qVS
	s         Settings

	obs    []int     // successfully evaluated items, in the order told
	y      []float64 // their values
	seen   []bool    // evaluated successfully
	failed []bool    // failed, and no success since
	told   int       // evaluations told, failures included
	nFail  int       // failed evaluations told

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
	return &Engine{name: name, kernel: kernel, diversity: diversity, s: s, seen: make([]bool, n), failed: make([]bool, n)}, nil
}

// NewEngine starts an engine on the problem's candidate set.
func (p *Problem) NewEngine(s Settings) (*Engine, error) {
	return NewEngine(p.Set.Name, p.Set.Kernel, p.Diversity, s)
}

// Len is the number of evaluations told, failed ones included.
func (e *Engine) Len() int { return e.told }

// Failures is the number of failed evaluations told.
func (e *Engine) Failures() int { return e.nFail }

// Successes is the number of successful evaluations told (the GP's data).
func (e *Engine) Successes() int { return len(e.obs) }

// Observed reports whether item i has been evaluated successfully.
func (e *Engine) Observed(i int) bool { return e.seen[i] }

// Failed reports whether item i failed and has not succeeded since.
func (e *Engine) Failed(i int) bool { return e.failed[i] }

// Available is the number of items Ask may return: neither evaluated
// successfully nor (without Settings.RetryFailed) failed.
func (e *Engine) Available() int { return len(e.free()) }

// free lists the items Ask may return, ascending.
func (e *Engine) free() []int {
	out := make([]int, 0, len(e.seen)-len(e.obs))
	for i, ok := range e.seen {
		if !ok && (!e.failed[i] || e.s.RetryFailed) {
			out = append(out, i)
		}
	}
	return out
}

// Iteration is the iteration the next Ask belongs to: 0 while fewer than
// Init evaluations were told, else 1 + ceil((N - Init) / Batch).
func (e *Engine) Iteration() int {
	n := e.told
	if n < e.s.Init {
		return 0
	}
	return 1 + (n-e.s.Init+e.s.Batch-1)/e.s.Batch
}

// Tell appends finished evaluations to the history. An index out of range,
// an item already evaluated successfully (in the history or this call) or
// a non-finite value of a successful evaluation is an error, and then
// nothing of this call is recorded. A failed evaluation may follow failed
// ones of the same item, and a success may follow them.
func (e *Engine) Tell(evals ...Evaluation) error {
	n := len(e.seen)
	fresh := make(map[int]bool, len(evals))
	for _, ev := range evals {
		switch {
		case ev.Index < 0 || ev.Index >= n:
			return fmt.Errorf("discrete: item %d out of range [0, %d)", ev.Index, n)
		case e.seen[ev.Index] || fresh[ev.Index]:
			return fmt.Errorf("discrete: item %d evaluated twice", ev.Index)
		case ev.Failed:
			continue
		case math.IsNaN(ev.Value) || math.IsInf(ev.Value, 0):
			return fmt.Errorf("discrete: item %d has value %v, expected a finite number", ev.Index, ev.Value)
		}
		fresh[ev.Index] = true
	}
	for _, ev := range evals {
		e.told++
		if ev.Failed {
			e.nFail++
			e.failed[ev.Index] = true
			continue
		}
		e.obs = append(e.obs, ev.Index)
		e.y = append(e.y, ev.Value)
		e.seen[ev.Index] = true
		e.failed[ev.Index] = false
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
	return designOrder(s, name, n)[:s.Init:s.Init]
}

// designOrder is the initial design's stream: a uniform permutation of the
// n items from (seed, name, repeat); its first Init items are the initial
// design, and a history without a successful evaluation continues it.
func designOrder(s Settings, name string, n int) []int {
	return rng.New(s.Seed, name, "init", s.Repeat).Perm(n)
}

// Acquisition holds a GP fitted to the history, its posterior and the UCB
// and qualities of Algorithm 3 for every item.
type Acquisition struct {
	GP       *GP
	Mean, SD []float64 // posterior mean and standard deviation of f, objective units
	UCB      []float64 // mu + sqrt(beta) sd, standardised units (the ranking of ucb and qvs)
	Quality  []float64 // UCB mapped to [0, 1] (see QualityFromUCB)
}

// ErrNoHistory is returned by Acquisition before any successful
// evaluation was told.
var ErrNoHistory = errors.New("discrete: the GP needs at least one successful evaluation")

// Acquisition fits the GP to the successful evaluations of the history
// (once per history) and returns its UCB and qualities. The GP works in standardised units (see GP); Mean
// and SD are mapped back to objective units.
func (e *Engine) Acquisition() (*Acquisition, error) {
	if e.acq != nil {
		return e.acq, nil
	}
	if len(e.obs) == 0 {
		return nil, ErrNoHistory
	}
	g, err := fitGP(e.kernel, e.obs, e.y)
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
//   - No successful evaluation (every one failed), ucb or qvs: the next b
//     items of the initial design's stream (designOrder) that Ask may return,
//     as a longer initial design would.
//   - random: uniform without replacement among the unevaluated items, from
//     rng.New(seed, name, "random", repeat, Iteration()).
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
//
// Ask never returns an item evaluated successfully, nor a failed one unless
// Settings.RetryFailed.
func (e *Engine) Ask(b int) ([]int, error) {
	n := len(e.seen)
	if b < 1 {
		return nil, fmt.Errorf("discrete: batch of %d asked, expected at least 1", b)
	}
	free := e.free()
	if b > len(free) {
		if e.nFail > 0 && !e.s.RetryFailed {
			return nil, fmt.Errorf("discrete: %d queries asked but only %d candidates are neither evaluated nor failed", b, len(free))
		}
		return nil, fmt.Errorf("discrete: %d queries asked but only %d candidates are not evaluated", b, len(free))
	}
	askable := func(i int) bool { return !e.seen[i] && (!e.failed[i] || e.s.RetryFailed) }
	if e.told < e.s.Init {
		var out []int
		for _, i := range e.InitialDesign() {
			if len(out) < min(b, e.s.Init-e.told) && askable(i) {
				out = append(out, i)
			}
		}
		return out, nil
	}
	if len(e.obs) == 0 && e.s.Method != MethodRandom {
		var out []int
		for _, i := range designOrder(e.s, e.name, n) {
			if len(out) < b && askable(i) {
				out = append(out, i)
			}
		}
		return out, nil
	}
	if e.s.Method == MethodRandom {
		rng := rng.New(e.s.Seed, e.name, "random", e.s.Repeat, e.Iteration())
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
		return topK(acq.UCB, free, b), nil
	}
	// Candidates nil (every item not in the prefix) unless failed items
	// must be left out: the same greedy as before failures existed.
	var cand []int
	if len(free) != n-len(e.obs) {
		cand = free
	}
	res, err := vendi.Greedy(vendi.GreedyProblem{
		Kernel:     vendi.DenseKernel(e.diversity),
		Quality:    acq.Quality,
		Prefix:     e.obs,
		Candidates: cand,
		K:          b,
		Q:          e.s.Q,
		Workers:    e.s.Workers,
	})
	if err != nil {
		return nil, err
	}
	return res.Picks, nil
}
