package discrete

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/campaign"
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

// Settings of one search run. Defaults (DefaultSettings) are the authors'
// MOF settings (reference notes §4).
type Settings struct {
	Method  string
	Q       float64 // order of qVS (MethodQVS only); math.Inf(1) = ∞
	Init    int     // initial points drawn uniformly at random (same for every method of a repeat)
	Budget  int     // evaluations per run, initial points included (as `qvs bayesopt --budget`)
	Batch   int     // queries per iteration
	Beta    float64 // UCB = mu + sqrt(Beta) sd
	Seed    uint64  // master seed
	Repeat  int     // repeat number: selects the initial points
	Workers int     // goroutines of the greedy qVS step (<= 1: serial)
}

// DefaultSettings: 2 initial points then 100 queries in batches of 5
// (budget 102 evaluations), beta = 2.
func DefaultSettings() Settings {
	return Settings{Init: 2, Budget: 102, Batch: 5, Beta: 2}
}

// Validate checks the settings against a candidate set of n items.
func (s Settings) Validate(n int) error {
	switch s.Method {
	case MethodRandom, MethodUCB, MethodQVS:
	default:
		return fmt.Errorf("unknown method %q: expected one of random, ucb, qvs", s.Method)
	}
	if err := vendi.CheckOrder(s.Q); err != nil {
		return err
	}
	switch {
	case s.Init < 1:
		return fmt.Errorf("init = %d: at least one initial point is needed to fit the GP", s.Init)
	case s.Budget < s.Init:
		return fmt.Errorf("budget = %d: must be at least init = %d (the budget counts every evaluation, initial points included)", s.Budget, s.Init)
	case s.Batch < 1:
		return fmt.Errorf("batch = %d: must be >= 1", s.Batch)
	case s.Budget > n:
		return fmt.Errorf("budget = %d exceeds the %d candidates", s.Budget, n)
	case math.IsNaN(s.Beta) || math.IsInf(s.Beta, 0) || s.Beta < 0:
		return fmt.Errorf("beta = %v: must be finite and >= 0", s.Beta)
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

// NewProblem prepares set for search.
func NewProblem(set *datasets.KernelSet, goodThreshold float64) (*Problem, error) {
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

// InitialDesign returns the s.Init initial items of repeat s.Repeat: drawn
// uniformly without replacement from (seed, set name, repeat) only, so every
// method of a repeat starts from the same points.
func (p *Problem) InitialDesign(s Settings) []int {
	rng := campaign.RNG(s.Seed, p.Set.Name, "init", s.Repeat)
	return append([]int(nil), rng.Perm(p.Set.Len())[:s.Init]...)
}

// Acquisition holds a fitted GP's UCB of every item and the qualities of
// Algorithm 3.
type Acquisition struct {
	GP      *GP
	UCB     []float64 // mu + sqrt(beta) sd, standardised units, every item
	Quality []float64 // UCB mapped to [0, 1] (see QualityFromUCB)
}

// Acquire fits the GP to the observed items and computes UCB and quality.
func (p *Problem) Acquire(observed []int, beta float64) (*Acquisition, error) {
	y := make([]float64, len(observed))
	for a, i := range observed {
		y[a] = p.Set.Objective[i]
	}
	g, err := FitGP(p.Set.Kernel, observed, y)
	if err != nil {
		return nil, err
	}
	mu, sd := g.Posterior(nil, nil)
	u := UCB(mu, sd, beta, nil)
	return &Acquisition{GP: g, UCB: u, Quality: QualityFromUCB(u)}, nil
}

// QualityFromUCB maps UCB values to qualities in [0, 1] by min-max scaling
// over every item of the candidate set, observed ones included:
// s_i = (u_i - min u) / (max u - min u), or 1 for all if the UCB is
// constant. qVS needs non-negative qualities (reference notes §1) and UCB
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

// NextBatch chooses the next size queries given the observed items.
//
//   - random: uniform without replacement among the unobserved items, from
//     campaign.RNG(seed, set, "random", repeat, iteration).
//   - ucb: the size unobserved items of largest UCB (ties: lowest index),
//     as the authors' baseline does (torch.topk of the UCB values).
//   - qvs: Algorithm 3. Starting from X = ∅, repeatedly add the unobserved
//     x maximising qVS_q(D ∪ X ∪ {x}; k, s) with s = QualityFromUCB: the
//     observed data D is the fixed prefix of vendi.Greedy and counts in
//     the score with the qualities of its own UCB. For q = 0 the paper
//     defines VS_0 as the count |X| (§2.3), so qVS_0 is the sum of
//     qualities and the greedy batch is exactly the top-b UCB batch: q = 0
//     is regular BayesOpt, computed as such (vendi's numerical-rank VS_0
//     would differ only by penalising exact duplicates).
func (p *Problem) NextBatch(s Settings, observed []int, iteration, size int) ([]int, error) {
	n := p.Set.Len()
	inD := make([]bool, n)
	for _, i := range observed {
		inD[i] = true
	}
	var free []int
	for i := 0; i < n; i++ {
		if !inD[i] {
			free = append(free, i)
		}
	}
	if size > len(free) {
		return nil, fmt.Errorf("discrete: %d queries asked but only %d candidates left", size, len(free))
	}
	if s.Method == MethodRandom {
		rng := campaign.RNG(s.Seed, p.Set.Name, "random", s.Repeat, iteration)
		// Partial Fisher-Yates over the ascending free list.
		for k := 0; k < size; k++ {
			j := k + rng.IntN(len(free)-k)
			free[k], free[j] = free[j], free[k]
		}
		return append([]int(nil), free[:size]...), nil
	}
	acq, err := p.Acquire(observed, s.Beta)
	if err != nil {
		return nil, err
	}
	if s.Method == MethodUCB || s.Q == 0 {
		return TopK(acq.UCB, free, size), nil
	}
	res, err := vendi.Greedy(vendi.GreedyProblem{
		Kernel:  vendi.DenseKernel(p.Diversity),
		Quality: acq.Quality,
		Prefix:  observed,
		K:       size,
		Q:       s.Q,
		Workers: s.Workers,
	})
	if err != nil {
		return nil, err
	}
	return res.Picks, nil
}

// TopK returns the k items of cand with the largest score, in decreasing
// score order; ties go to the lowest index.
func TopK(score []float64, cand []int, k int) []int {
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
// iteration (iteration 0 = the initial design). prior holds the batches of
// an interrupted run (prior[t] = items of iteration t), which are replayed
// without recomputation after checking they are consistent; onBatch is
// called for every newly chosen batch (including the initial design when
// prior is empty) before the next one is computed. Every random draw
// derives from (seed, set name, repeat, iteration), so a resumed search
// makes exactly the choices of an uninterrupted one.
func (p *Problem) Search(ctx context.Context, s Settings, prior [][]int, onBatch func(iteration int, batch []int) error) ([][]int, error) {
	n := p.Set.Len()
	if err := s.Validate(n); err != nil {
		return nil, err
	}
	T := s.Iterations()
	if len(prior) > T+1 {
		return nil, fmt.Errorf("discrete: %d recorded iterations, but this search has %d", len(prior), T+1)
	}
	seen := make([]bool, n)
	var observed []int
	var iters [][]int
	accept := func(t int, batch []int, replayed bool) error {
		want := s.Init
		if t > 0 {
			want = s.batchSize(t)
		}
		if len(batch) != want {
			return fmt.Errorf("discrete: iteration %d has %d queries, expected %d", t, len(batch), want)
		}
		for _, i := range batch {
			if i < 0 || i >= n || seen[i] {
				return fmt.Errorf("discrete: iteration %d queries item %d twice or out of range", t, i)
			}
			seen[i] = true
		}
		observed = append(observed, batch...)
		iters = append(iters, batch)
		if !replayed && onBatch != nil {
			return onBatch(t, batch)
		}
		return nil
	}
	init := p.InitialDesign(s)
	if len(prior) > 0 {
		if fmt.Sprint(prior[0]) != fmt.Sprint(init) {
			return nil, fmt.Errorf("discrete: recorded initial points %v differ from this seed's %v", prior[0], init)
		}
		if err := accept(0, prior[0], true); err != nil {
			return nil, err
		}
	} else if err := accept(0, init, false); err != nil {
		return nil, err
	}
	for t := 1; t <= T; t++ {
		if t < len(prior) {
			if err := accept(t, prior[t], true); err != nil {
				return nil, err
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return iters, err
		}
		batch, err := p.NextBatch(s, observed, t, s.batchSize(t))
		if err != nil {
			return iters, fmt.Errorf("iteration %d: %w", t, err)
		}
		if err := accept(t, batch, false); err != nil {
			return iters, err
		}
	}
	return iters, nil
}

// CurvePoint is the best objective found after an iteration.
type CurvePoint struct {
	Iteration   int
	Evaluations int // items queried so far, initial points included
	Best        float64
}

// Outcome summarises a finished search.
type Outcome struct {
	Queried   []int // in query order
	Curve     []CurvePoint
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
		o.Curve = append(o.Curve, CurvePoint{Iteration: t, Evaluations: len(o.Queried), Best: o.BestValue})
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
