package discrete

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Methods (policies) of the discrete search.
const (
	MethodRandom = "random" // uniform over the unqueried candidates
	MethodUCB    = "ucb"    // top-b UCB: regular, diversity-blind BayesOpt (q = 0)
	MethodQVS    = "qvs"    // Algorithm 3: greedy qVS_q with quality = UCB mapped to [0, 1]
)

// Methods lists the method names in table order.
var Methods = []string{MethodRandom, MethodUCB, MethodQVS}

// Settings of one search run. Defaults (DefaultSettings) are the MOF
// settings of Liu et al. 2024: UCB beta = 2, 2 initial points, batches of 5.
type Settings struct {
	Method  string
	Q       vendi.Order // order of qVS (MethodQVS only)
	Init    int         // initial points drawn uniformly at random (same for every method of a repeat)
	Budget  int         // evaluations per run, initial points included (as `qvs bayesopt --budget`)
	Batch   int         // queries per iteration
	Beta    float64     // UCB = mu + sqrt(Beta) sd
	Seed    uint64      // master seed
	Repeat  int         // repeat number: selects the initial points
	Workers int         // goroutines of the greedy qVS step (<= 1: serial)
	// RetryFailed lets Ask return failed items again (Engine; `qvs
	// bayesopt suggest --kernel --retry-failed`). A campaign's evaluations
	// never fail, so it never reads this.
	RetryFailed bool
}

// DefaultSettings: 2 initial points then 100 queries in batches of 5
// (budget 102 evaluations), beta = 2.
func DefaultSettings() Settings {
	return Settings{Init: 2, Budget: 102, Batch: 5, Beta: 2}
}

// Validate checks the settings of a campaign run against a candidate set
// of n items: the policy (validatePolicy) and the budget.
func (s Settings) Validate(n int) error {
	if err := s.validatePolicy(n); err != nil {
		return err
	}
	switch {
	case s.Budget < s.Init:
		return configkeys.Invalid("budget", s.Budget, "must be at least init = %d (the budget counts every evaluation, initial points included)", s.Init)
	case s.Budget > n:
		return configkeys.Invalid("budget", s.Budget, "exceeds the %d candidates", n)
	}
	return nil
}

// validatePolicy checks what an Engine needs: method, order, initial
// design, batch size and beta.
func (s Settings) validatePolicy(n int) error {
	switch s.Method {
	case MethodRandom, MethodUCB, MethodQVS:
	default:
		return fmt.Errorf("unknown method %q: expected one of random, ucb, qvs", s.Method)
	}
	if err := s.Q.Validate(); err != nil {
		return err
	}
	switch {
	case s.Init < 1:
		return configkeys.Invalid("init", s.Init, "at least one initial point is needed to fit the GP")
	case s.Init > n:
		return configkeys.Invalid("init", s.Init, "exceeds the %d candidates", n)
	case s.Batch < 1:
		return configkeys.Invalid("batch", s.Batch, "must be >= 1")
	case math.IsNaN(s.Beta) || math.IsInf(s.Beta, 0) || s.Beta < 0:
		return configkeys.Invalid("beta", s.Beta, "must be finite and >= 0")
	}
	return nil
}

// Problem is a candidate set prepared for search.
type Problem struct {
	Set *datasets.KernelSet
	// Diversity is the unit-diagonal similarity used by qVS and the EDC:
	// the kernel normalised to a correlation, K_ij / sqrt(K_ii K_jj) (the
	// Vendi score needs k(x, x) = 1; the GP uses K itself).
	Diversity *mat.SymDense
	// GoodThreshold: an item is "good" if its objective >= GoodThreshold
	// (MOF: storage capacity >= 15; photoswitch: lambda-max >= 450 nm).
	GoodThreshold float64
}

// newProblem prepares set for search.
func newProblem(set *datasets.KernelSet, goodThreshold float64) (*Problem, error) {
	if set.Kernel.SymmetricDim() != set.Len() || len(set.Objective) != set.Len() {
		return nil, fmt.Errorf("discrete: candidate set %q: %d ids, %d objective values, %d x %d kernel",
			set.Name, set.Len(), len(set.Objective), set.Kernel.SymmetricDim(), set.Kernel.SymmetricDim())
	}
	if math.IsNaN(goodThreshold) {
		return nil, fmt.Errorf("discrete: good threshold is NaN")
	}
	C, err := unitDiagonal(set.Kernel)
	if err != nil {
		return nil, fmt.Errorf("discrete: candidate set %q: %w", set.Name, err)
	}
	return &Problem{Set: set, Diversity: C, GoodThreshold: goodThreshold}, nil
}

// unitDiagonal returns K itself if its diagonal is already 1, else its
// correlation normalisation with the diagonal set to exactly 1 (the
// division K_ii / (√K_ii √K_ii) can round to 1 - 2⁻⁵²).
func unitDiagonal(K *mat.SymDense) (*mat.SymDense, error) {
	n := K.SymmetricDim()
	for i := 0; i < n; i++ {
		if K.At(i, i) != 1 {
			C, err := vendi.Normalize(K)
			if err != nil {
				return nil, err
			}
			for j := 0; j < n; j++ {
				C.SetSym(j, j, 1)
			}
			return C, nil
		}
	}
	return K, nil
}

// InitialDesign returns the s.Init initial items of repeat s.Repeat (see
// Engine.InitialDesign): every method of a repeat starts from them.
func (p *Problem) InitialDesign(s Settings) []int {
	return initialDesign(s, p.Set.Name, p.Set.Len())
}

// evaluations pairs items with their objective values from the set.
func (p *Problem) evaluations(items []int) []Evaluation {
	ev := make([]Evaluation, len(items))
	for k, i := range items {
		ev[k] = Evaluation{Index: i, Value: p.Set.Objective[i]}
	}
	return ev
}

// QualityFromUCB maps UCB values to qualities in [0, 1] by min-max scaling
// over every item of the candidate set, observed ones included:
// s_i = (u_i - min u) / (max u - min u), or 1 for all if the UCB is
// constant. qVS needs non-negative qualities (eq. 2: a mean quality that
// can be negative does not count high-quality items) and UCB
// in standardised units is negative for below-average items; min-max keeps
// the UCB ranking, so q = 0 still reduces to top-b UCB.
func QualityFromUCB(u []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range u {
		lo = math.Min(lo, v)
		hi = math.Max(hi, v)
	}
	s := make([]float64, len(u))
	for i, v := range u {
		if hi > lo {
			s[i] = (v - lo) / (hi - lo)
		} else {
			s[i] = 1
		}
	}
	return s
}

// topK returns the k items of cand with the largest score, in decreasing
// score order; ties go to the lowest index.
func topK(score []float64, cand []int, k int) []int {
	c := append([]int(nil), cand...)
	sort.SliceStable(c, func(a, b int) bool {
		sa, sb := score[c[a]], score[c[b]]
		if sa != sb {
			return sa > sb
		}
		return c[a] < c[b]
	})
	return c[:k]
}

// batchSize is the number of queries of iteration t >= 1 (the last batch
// may be smaller so that the run makes exactly Budget evaluations).
func (s Settings) batchSize(t int) int {
	return min(s.Batch, s.Budget-s.Init-(t-1)*s.Batch)
}

// Iterations is the number of query batches after the initial design.
func (s Settings) Iterations() int { return (s.Budget - s.Init + s.Batch - 1) / s.Batch }

// Search runs the campaign of one repeat and returns the queried items per
// iteration (iteration 0 = the initial design): a loop that asks an Engine
// for each batch and tells it the batch's objective values from the set.
// prior holds the batches of an interrupted run (prior[t] = items of
// iteration t), which are told without asking after checking they are
// consistent; onBatch is called for every newly chosen batch (including
// the initial design when prior is empty) before the next one is computed.
// Every random draw derives from (seed, set name, repeat, iteration), so a
// resumed search makes exactly the choices of an uninterrupted one.
func (p *Problem) Search(ctx context.Context, s Settings, prior [][]int, onBatch func(iteration int, batch []int) error) ([][]int, error) {
	if err := s.Validate(p.Set.Len()); err != nil {
		return nil, err
	}
	T := s.Iterations()
	if len(prior) > T+1 {
		return nil, fmt.Errorf("discrete: %d recorded iterations, but this search has %d", len(prior), T+1)
	}
	e, err := p.NewEngine(s)
	if err != nil {
		return nil, err
	}
	var iters [][]int
	for t := 0; t <= T; t++ {
		want := s.Init
		if t > 0 {
			want = s.batchSize(t)
		}
		replayed := t < len(prior)
		var batch []int
		switch {
		case replayed:
			batch = prior[t]
			if len(batch) != want {
				return iters, fmt.Errorf("discrete: iteration %d has %d queries, expected %d", t, len(batch), want)
			}
			if init := e.InitialDesign(); t == 0 && fmt.Sprint(batch) != fmt.Sprint(init) {
				return nil, fmt.Errorf("discrete: recorded initial points %v differ from this seed's %v", batch, init)
			}
		default:
			if t > 0 {
				if err := ctx.Err(); err != nil {
					return iters, err
				}
			}
			if batch, err = e.Ask(want); err != nil {
				return iters, fmt.Errorf("iteration %d: %w", t, err)
			}
		}
		if err := e.Tell(p.evaluations(batch)...); err != nil {
			return iters, fmt.Errorf("iteration %d: %w", t, err)
		}
		iters = append(iters, batch)
		if !replayed && onBatch != nil {
			if err := onBatch(t, batch); err != nil {
				return iters, err
			}
		}
	}
	return iters, nil
}

// curvePoint is the best objective found after an iteration.
type curvePoint struct {
	Iteration   int
	Evaluations int // items queried so far, initial points included
	Best        float64
}

// Outcome summarises a finished search.
type Outcome struct {
	Queried   []int // in query order
	Curve     []curvePoint
	BestIndex int // the first queried item with the largest objective
	BestValue float64
	Good      int     // queried items with objective >= GoodThreshold
	EDC       float64 // VS_1 of the good items on the Diversity kernel (0 if none)
}

// Evaluate computes the metrics of a search: the best value after every
// iteration, the best item, and the effective discovery count EDC = VS_1 of
// the good items among everything queried (initial points included, as in
// the authors' saved runs), on the unit-diagonal kernel (paper §4.2).
func (p *Problem) Evaluate(iters [][]int) (Outcome, error) {
	var o Outcome
	o.BestIndex = -1
	o.BestValue = math.Inf(-1)
	var good []int
	for t, batch := range iters {
		for _, i := range batch {
			v := p.Set.Objective[i]
			if v > o.BestValue {
				o.BestValue, o.BestIndex = v, i
			}
			if v >= p.GoodThreshold {
				good = append(good, i)
			}
			o.Queried = append(o.Queried, i)
		}
		o.Curve = append(o.Curve, curvePoint{Iteration: t, Evaluations: len(o.Queried), Best: o.BestValue})
	}
	o.Good = len(good)
	if len(good) > 0 {
		v, err := vendi.Score(vendi.Submatrix(vendi.DenseKernel(p.Diversity), good), 1)
		if err != nil {
			return o, fmt.Errorf("EDC: %w", err)
		}
		o.EDC = v
	}
	return o, nil
}
