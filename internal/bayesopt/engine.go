package bayesopt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Method names (paper §4.2; TuRBO: Eriksson et al. 2019; ROBOT: Maus et
// al. 2023).
const (
	MethodRandom = "random" // uniform random points
	MethodTuRBO  = "turbo"  // TuRBO-M: centres = top-M points
	MethodROBOT  = "robot"  // rank-ordered centres at distance >= Tau
	MethodQVS    = "qvs"    // qVS-BayesOpt (Algorithm 1)
)

// DefaultTau is ROBOT's distance threshold (Settings.Tau) where the paper
// gives none: the campaigns of synthetic and of a user's space (qvs
// bayesopt --space) and qvs bayesopt suggest --space all default to it, so
// suggest --method robot continues a campaign's run. It is a distance of
// the task's Distance: for a space, the Euclidean distance in the
// unit-scaled box divided by the length scale, where the box's diagonal is
// sqrt(d). (Rover and lunar use the paper's 0.15 and 0.6.)
const DefaultTau = 0.5

// Methods lists the method names in the order of the paper's figures.
var Methods = []string{MethodRandom, MethodTuRBO, MethodROBOT, MethodQVS}

// Settings configure one optimisation run.
type Settings struct {
	Method  string
	Q       vendi.Order // order of the qVS (qvs; random's final solutions use q = 1)
	Budget  int         // total evaluations, initial design included
	Init    int         // uniform random initial points (iteration 0)
	Batch   int         // evaluations per iteration (the last may be smaller)
	Regions int         // M: trust regions, and the number of final solutions
	Tau     float64     // ROBOT's diversity threshold on the task's distance
	// TauFloor (qvs only) adds the authors' code's diversity floor, which
	// the paper does not describe (its eq. 6 drops tau): a centre pick is
	// rejected when the VS_q of the centres so far plus the pick falls
	// below the VS_q of as many points pairwise exactly Tau apart
	// (vendi.GreedyProblem.MinVS); regions left without a centre get a
	// random one at distance >= Tau, as ROBOT's do. The authors compute the
	// floor at q = 1 whatever the run's q; we use the run's q, so the floor
	// and the score it bounds are the same function.
	TauFloor bool
	// Mode is the qvs algorithm: ModePaper ("" means paper) or modeAuthors,
	// the authors' code (see modeAuthors). Other methods ignore it.
	Mode string
	// FailureTolerance, if > 0, replaces TuRBO's ceil(max(4/b, d/b)) as the
	// failure count that halves a trust region (ROBOT's code: 32).
	FailureTolerance int
	// FailurePerPoint: a failed batch adds its number of points to the
	// failure counter (TrustRegionRules.FailurePerPoint).
	FailurePerPoint bool
	// Candidates is the number of Thompson-sampling candidates per region
	// (default 1000).
	Candidates int
	// Sampler draws the Thompson samples: SamplerExact ("" means exact) or
	// SamplerPathwise (random features, for thousands of candidates).
	Sampler string
	// MaxTrain caps each region's GP training set: the MaxTrain evaluated
	// points nearest the region's centre in the unit cube (default 300).
	MaxTrain int
	// FitIterations caps the L-BFGS iterations of each GP fit (default 30).
	FitIterations int
	// Workers fit region models and evaluate batch points in parallel
	// (default 1). Results do not depend on it.
	Workers int
	// Final is the rule for the final M solutions: finalCentres ("" means
	// centres) or finalBand.
	Final string
	// RetryFailed lets the engine propose points again within
	// FailureRadius of a failed experiment (Evaluation.Failed), the failed
	// point itself included, and switches the feasibility model off
	// (feasibility.go). Failed experiments never enter the GPs either way.
	RetryFailed bool
	// InitBatches makes Optimize evaluate and record the initial design in
	// batches of Batch points (the last may be smaller), as suggest hands
	// it out, instead of as one batch of Init points; it is still
	// iteration 0, and a run interrupted inside it resumes after its last
	// recorded batch. (Campaigns on a user's space.)
	InitBatches bool
}

// Defaults of Settings, Protocol and `qvs bayesopt suggest`: Thompson
// candidates per region, GP training points per region, L-BFGS iterations
// per GP fit.
const (
	DefaultCandidates    = 1000
	DefaultMaxTrain      = 300
	DefaultFitIterations = 30
)

// failureRadiusFraction is the radius around a failed experiment inside
// which the engine proposes nothing (unless Settings.RetryFailed), as a
// fraction of the diagonal of the unit cube the engine works in (each
// parameter scaled to [0, 1], log parameters in log units): the radius is
// 0.05·sqrt(d) in Euclidean distance. A failure usually says something about
// a neighbourhood (a solver that diverges, a synthesis that does not take),
// but its size is unknown; 5% of the diagonal keeps suggestions off the
// point and its immediate surroundings while the excluded volume stays
// small (a disc of 1.6% of the box in d = 2, under 10^-4 of it from d = 6),
// so a failure next to the optimum cannot wall it off, and a shrunk trust
// region (side down to 0.5^7 of the box) around it still finds candidates
// once it restarts.
const failureRadiusFraction = 0.05

func (s *Settings) defaults() {
	if s.Candidates == 0 {
		s.Candidates = DefaultCandidates
	}
	if s.MaxTrain == 0 {
		s.MaxTrain = DefaultMaxTrain
	}
	if s.FitIterations == 0 {
		s.FitIterations = DefaultFitIterations
	}
	if s.Workers < 1 {
		s.Workers = 1
	}
}

// Validate reports the first invalid setting by its config key.
func (s Settings) Validate() error {
	s.defaults()
	switch s.Method {
	case MethodRandom, MethodTuRBO, MethodROBOT, MethodQVS:
	default:
		return configkeys.Invalid("method", s.Method, "expected one of %v", Methods)
	}
	switch {
	case s.Init < 1:
		return configkeys.Invalid("init", s.Init, "need at least 1 initial point")
	case s.Budget < s.Init:
		return configkeys.Invalid("budget", s.Budget, "must be at least init = %d", s.Init)
	case s.Batch < 1:
		return configkeys.Invalid("batch", s.Batch, "must be at least 1")
	case s.Regions < 1:
		return configkeys.Invalid("regions", s.Regions, "must be at least 1")
	case s.Method != MethodRandom && s.Init < s.Regions:
		return configkeys.Invalid("init", s.Init, "%s needs at least regions = %d initial points to place its centres", s.Method, s.Regions)
	case s.Tau < 0 || math.IsNaN(s.Tau):
		return configkeys.Invalid("tau", s.Tau, "must be >= 0")
	case s.Candidates < s.Batch:
		return configkeys.Invalid("candidates", s.Candidates, "must be at least batch = %d", s.Batch)
	case s.MaxTrain < 1:
		return configkeys.Invalid("max_train", s.MaxTrain, "must be at least 1")
	case s.TauFloor && s.Method != MethodQVS:
		return configkeys.Invalid("qvs_floor", nil, "applies to method qvs only, not %s", s.Method)
	case s.TauFloor && !(s.Tau > 0):
		return configkeys.Invalid("qvs_floor", nil, "needs tau > 0, got %v", s.Tau)
	case s.Mode != "" && s.Mode != ModePaper && s.Mode != modeAuthors:
		return configkeys.Invalid("qvs_mode", s.Mode, "expected %s or %s", ModePaper, modeAuthors)
	case s.authors() && s.TauFloor:
		return configkeys.Invalid("qvs_floor", nil, "qvs_mode %s has its own floor (VS_1 of points tau apart); drop qvs_floor", modeAuthors)
	case s.authors() && !(s.Tau > 0):
		return configkeys.Invalid("qvs_mode", nil, "%s needs tau > 0 for its diversity floor, got %v", modeAuthors, s.Tau)
	case s.Final != "" && s.Final != finalCentres && s.Final != finalBand:
		return configkeys.Invalid("final", s.Final, "expected %s or %s", finalCentres, finalBand)
	case s.Sampler != "" && s.Sampler != SamplerExact && s.Sampler != SamplerPathwise:
		return configkeys.Invalid("sampler", s.Sampler, "expected %s or %s", SamplerExact, SamplerPathwise)
	case s.FailureTolerance < 0:
		return configkeys.Invalid("failure_tolerance", s.FailureTolerance, "must be >= 0 (0: TuRBO's ceil(max(4/b, d/b)))")
	case s.Method == MethodQVS:
		if err := s.Q.Validate(); err != nil {
			return fmt.Errorf("q: %w", err)
		}
	}
	return nil
}

// RunID seeds a run: the initial design is drawn from
// rng.New(Seed, "init", Repeat), shared by every method of a repeat so
// they start from the same points; iteration t >= 1 draws from
// rng.New(Seed, Key, t, ...), never from a stream that outlives it.
type RunID struct {
	Seed   uint64
	Key    string
	Repeat int
}

// Evaluation is one evaluated point. Region is the trust region (rank 0..M-1)
// that proposed it, or -1 for initial and random points. Failed marks an
// experiment that ran but produced no value (Optuna's FAIL state; Value is
// NaN): it counts against the budget and is kept in the records, but it
// never enters a GP, a centre choice or a trust region's success or failure
// count, and the engine proposes nothing within failureRadiusFraction of it
// unless Settings.RetryFailed. Failed and successful evaluations together
// train the feasibility model (feasibility.go), whose probability of
// success weighs every later proposal's quality.
type Evaluation struct {
	Iteration int
	Region    int
	X         []float64
	Value     float64
	Seconds   float64
	Failed    bool
}

// Solution is one of the final M solutions.
type Solution struct {
	Index int // into Result.Evaluations (failed ones included)
	X     []float64
	Value float64
}

// Result is the outcome of a run.
type Result struct {
	Evaluations []Evaluation // every evaluation, failed ones included, in order
	Solutions   []Solution   // in rank (selection) order
	Distances   [][]float64  // task distance between solutions i and j
	BestValue   float64
	// SolutionsMeanValue is the mean value of the solutions;
	// SolutionsMeanDistance the mean pairwise task distance (0 for fewer
	// than two); SolutionsVS the Vendi score of order 1 of the solutions
	// under the similarity exp(-d²/2).
	SolutionsMeanValue, SolutionsMeanDistance, SolutionsVS float64
	Restarts                                               int // trust-region restarts during the run
	// TrustRegions are the final trust-region states (nil for random).
	TrustRegions []TrustRegion
}

// BestSoFar returns the best value after each evaluation (failed ones
// leave it unchanged; -Inf before the first success).
func (r *Result) BestSoFar() []float64 {
	out := make([]float64, len(r.Evaluations))
	best := math.Inf(-1)
	for i, e := range r.Evaluations {
		if !e.Failed {
			best = math.Max(best, e.Value)
		}
		out[i] = best
	}
	return out
}

// Failures counts the failed evaluations.
func (r *Result) Failures() int {
	n := 0
	for _, e := range r.Evaluations {
		if e.Failed {
			n++
		}
	}
	return n
}

// centre is a trust region's centre for one iteration.
type centre struct {
	index int       // into the evaluations, or -1 for an unevaluated random centre
	u     []float64 // unit-cube coordinates
	value float64   // -Inf when unevaluated
}

type runner struct {
	dom    Domain
	snap   snapper        // nil unless dom implements it
	enc    Encoder        // nil unless dom implements it
	mixer  CandidateMixer // nil unless dom implements it
	s      Settings
	id     RunID
	d      int
	lo, hi []float64
	H      []Evaluation // the successful evaluations, in order
	U      [][]float64  // unit-cube coordinates of H
	// all holds every evaluation in order, failed ones included; pos[i] is
	// H[i]'s position in it; failedU the unit-cube coordinates of the
	// failed ones.
	all     []Evaluation
	pos     []int
	failedU [][]float64
	trs     []TrustRegion
	dcache  map[[2]int]float64 // task distances between evaluated points
	// order holds H by decreasing value and vlo, vhi the least and
	// greatest value in H (the min-max scaling of qVS's quality); memo is
	// the last qVS centre greedy (replay.go), which answered memoHits
	// greedies of more evaluations.
	order    valueOrder
	vlo, vhi float64
	memo     *centreMemo
	memoHits int
}

// Optimize runs one optimisation of obj (maximisation) with settings s: a
// loop over Engine.Ask and Engine.Tell that evaluates each batch.
// prior holds the evaluations of an interrupted earlier attempt (records of
// whole iterations, in order): they are told to the engine without
// re-evaluating the objective (the state, trust regions included, is a
// deterministic function of the evaluation history) and the run continues;
// the result equals that of an uninterrupted run. record is called with each
// new iteration's evaluations before the next iteration starts.
//
// An objective that implements BatchObjective evaluates each batch in one
// call; otherwise points are evaluated on s.Workers goroutines.
func Optimize(ctx context.Context, obj Objective, s Settings, id RunID, prior []Evaluation, record func([]Evaluation) error) (*Result, error) {
	s.defaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	e, err := NewEngine(obj, s, id)
	if err != nil {
		return nil, err
	}
	if keep, err := completeIterations("the records", prior, s); err != nil {
		return nil, err
	} else if keep < len(prior) {
		return nil, fmt.Errorf("the records end inside iteration %d (%d of its evaluations): resume from the complete iterations (CompleteIterations)", prior[keep].Iteration, len(prior)-keep)
	}
	next := 0 // position in prior
	take := func(it int) []Evaluation {
		j := next
		for j < len(prior) && prior[j].Iteration == it {
			j++
		}
		out := prior[next:j]
		next = j
		return out
	}

	// Iteration 0: the initial design.
	init := e.InitialDesign()
	var done0 []Evaluation // InitBatches: the initial design's batches recorded so far
	if rows := take(0); len(rows) > 0 {
		if s.InitBatches && len(rows) < len(init) {
			done0 = rows
			for i, ev := range rows {
				if !slices.Equal(ev.X, init[i].X) {
					return nil, fmt.Errorf("recorded initial point %d differs from this seed's initial design: use a fresh output directory", i)
				}
			}
		} else {
			for i, ev := range rows {
				if !slices.Equal(ev.X, init[i].X) {
					return nil, fmt.Errorf("recorded initial point %d differs from this seed's initial design: use a fresh output directory", i)
				}
			}
			if err := e.Tell(rows); err != nil {
				return nil, err
			}
		}
	}
	if s.InitBatches && e.Iteration() == 0 {
		copy(init, done0)
		for k := len(done0); k < len(init); k += s.Batch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			chunk := init[k:min(k+s.Batch, len(init))]
			if err := evaluateBatch(ctx, obj, s.Workers, chunk); err != nil {
				return nil, err
			}
			if err := record(chunk); err != nil {
				return nil, err
			}
		}
		if err := e.Tell(init); err != nil {
			return nil, err
		}
	}

	for e.Evaluations() < s.Budget {
		it := e.Iteration()
		if it > 0 {
			if rows := take(it); len(rows) > 0 {
				if err := e.Tell(rows); err != nil {
					return nil, err
				}
				continue
			}
		}
		if next < len(prior) {
			return nil, fmt.Errorf("recorded evaluations jump from iteration %d to %d", it-1, prior[next].Iteration)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := init
		if it > 0 {
			batch, err = e.Ask(ctx, min(s.Batch, s.Budget-e.Evaluations()), nil)
			if err != nil {
				return nil, err
			}
			if len(batch) == 0 {
				// Every point tried is taken (a space of integer
				// parameters exhausted) or within the failure radius of
				// a failed experiment; asking again would propose
				// nothing again, and the loop would never end.
				return nil, fmt.Errorf("iteration %d: no new point can be proposed after %d evaluations (%d failed): every point tried was evaluated already or lies near a failed experiment", it, e.Evaluations(), e.Failures())
			}
		}
		if err := evaluateBatch(ctx, obj, s.Workers, batch); err != nil {
			return nil, err
		}
		if err := record(batch); err != nil {
			return nil, err
		}
		if err := e.Tell(batch); err != nil {
			return nil, err
		}
	}
	if next < len(prior) {
		return nil, fmt.Errorf("recorded run has %d evaluations, more than budget = %d: use a fresh output directory", len(prior), s.Budget)
	}
	return e.Result()
}

func newRunner(dom Domain, s Settings, id RunID) (*runner, error) {
	d := dom.Dim()
	lo, hi := dom.Bounds()
	if d < 1 || len(lo) != d || len(hi) != d {
		return nil, fmt.Errorf("objective %s: dimension %d with bounds of length %d and %d", dom.Name(), d, len(lo), len(hi))
	}
	for i := range lo {
		if !(hi[i] > lo[i]) || math.IsInf(hi[i]-lo[i], 0) {
			return nil, fmt.Errorf("objective %s: bound %d is [%v, %v], need finite lower < upper", dom.Name(), i, lo[i], hi[i])
		}
	}
	if d > maxSobolDim && s.Method != MethodRandom {
		return nil, fmt.Errorf("objective %s: %d dimensions, Sobol' candidates support at most %d", dom.Name(), d, maxSobolDim)
	}
	per := float64(s.Batch) / float64(s.Regions)
	rules := DefaultTrustRegionRules(d, per)
	if s.FailureTolerance > 0 {
		rules.FailureTolerance = s.FailureTolerance
	}
	rules.FailurePerPoint = s.FailurePerPoint
	trs := make([]TrustRegion, s.Regions)
	for m := range trs {
		trs[m] = NewTrustRegion(rules)
	}
	r := &runner{dom: dom, s: s, id: id, d: d, lo: lo, hi: hi, trs: trs, dcache: map[[2]int]float64{},
		vlo: math.Inf(1), vhi: math.Inf(-1)}
	r.snap, _ = dom.(snapper)
	r.enc, _ = dom.(Encoder)
	r.mixer, _ = dom.(CandidateMixer)
	return r, nil
}

func uniformPoints(rng *rand.Rand, n, d int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range out[i] {
			out[i][j] = rng.Float64()
		}
	}
	return out
}

// fromUnit maps unit-cube coordinate u of dimension j into the box; the
// result is clamped so rounding never leaves the box.
func (r *runner) fromUnit(u float64, j int) float64 {
	return math.Min(math.Max(r.lo[j]+u*(r.hi[j]-r.lo[j]), r.lo[j]), r.hi[j])
}

func (r *runner) toUnit(x []float64) []float64 {
	u := make([]float64, len(x))
	for j, v := range x {
		u[j] = (v - r.lo[j]) / (r.hi[j] - r.lo[j])
	}
	return u
}

// add appends one iteration's evaluations: the successful ones to H, the
// failed ones to failedU, all of them to all.
func (r *runner) add(evs []Evaluation) {
	for _, e := range evs {
		if e.Failed {
			r.failedU = append(r.failedU, r.toUnit(e.X))
		} else {
			r.pos = append(r.pos, len(r.all))
			r.H = append(r.H, e)
			r.U = append(r.U, r.toUnit(e.X))
			r.order.add(e.Value)
			r.vlo, r.vhi = math.Min(r.vlo, e.Value), math.Max(r.vhi, e.Value)
		}
		r.all = append(r.all, e)
	}
}

// nearFailure reports whether point x (task coordinates) lies within
// failureRadiusFraction·sqrt(d) of a failed evaluation in the unit cube
// (always false with Settings.RetryFailed).
func (r *runner) nearFailure(x []float64) bool {
	if r.s.RetryFailed || len(r.failedU) == 0 {
		return false
	}
	return withinFailureRadius(r.failedU, r.toUnit(x))
}

// NearFailed reports whether point x of dom lies within
// failureRadiusFraction·sqrt(d) of one of the failed points, in the unit
// cube of dom's bounds (the rule the engine applies to its proposals).
func NearFailed(dom Domain, failed [][]float64, x []float64) bool {
	lo, hi := dom.Bounds()
	unit := func(x []float64) []float64 {
		u := make([]float64, len(x))
		for j, v := range x {
			u[j] = (v - lo[j]) / (hi[j] - lo[j])
		}
		return u
	}
	fu := make([][]float64, len(failed))
	for i, f := range failed {
		fu[i] = unit(f)
	}
	return withinFailureRadius(fu, unit(x))
}

func withinFailureRadius(failedU [][]float64, u []float64) bool {
	rad2 := failureRadiusFraction * failureRadiusFraction * float64(len(u))
	for _, f := range failedU {
		s := 0.0
		for j := range f {
			s += (f[j] - u[j]) * (f[j] - u[j])
		}
		if s <= rad2 {
			return true
		}
	}
	return false
}

// evaluateBatch sets the Value and Seconds of every evaluation of one
// iteration: in one call for a BatchObjective (Seconds = the batch's wall
// time shared equally), else with workers goroutines. A BatchObjective
// reports a failed experiment as NaN (Failed is set); from Evaluate, NaN is
// an error (a function that cannot fail returned nonsense), and so is ±Inf
// from either.
func evaluateBatch(ctx context.Context, obj Objective, workers int, evs []Evaluation) error {
	check := func(i int, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("objective %s returned %v at iteration %d, point %d", obj.Name(), v, evs[i].Iteration, i)
		}
		evs[i].Value = v
		return nil
	}
	if bo, ok := obj.(BatchObjective); ok {
		if len(evs) == 0 {
			return nil
		}
		xs := make([][]float64, len(evs))
		for i := range evs {
			xs[i] = evs[i].X
		}
		t0 := time.Now()
		vals, err := bo.EvaluateBatch(ctx, xs)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", evs[0].Iteration, err)
		}
		if len(vals) != len(evs) {
			return fmt.Errorf("objective %s returned %d values for the %d points of iteration %d", obj.Name(), len(vals), len(evs), evs[0].Iteration)
		}
		sec := time.Since(t0).Seconds() / float64(len(evs))
		for i, v := range vals {
			evs[i].Seconds = sec
			if math.IsNaN(v) {
				evs[i].Value, evs[i].Failed = v, true
				continue
			}
			if err := check(i, v); err != nil {
				return err
			}
		}
		return nil
	}
	return parallel.Each(ctx, len(evs), workers, func(i int) error {
		t0 := time.Now()
		v, err := obj.Evaluate(ctx, evs[i].X)
		evs[i].Seconds = time.Since(t0).Seconds()
		if err != nil {
			return fmt.Errorf("iteration %d, point %d: %w", evs[i].Iteration, i, err)
		}
		return check(i, v)
	})
}

// distance is the task distance between evaluated points i and j, cached.
func (r *runner) distance(i, j int) float64 {
	if i == j {
		return 0
	}
	k := [2]int{min(i, j), max(i, j)}
	if v, ok := r.dcache[k]; ok {
		return v
	}
	v := r.dom.Distance(r.H[i].X, r.H[j].X)
	if len(r.dcache) >= maxDistanceCache {
		clear(r.dcache)
	}
	r.dcache[k] = v
	return v
}

// similarity is the diversity kernel exp(-d²/2) of the paper's BayesOpt
// experiments (the k_δ of §3.2, as the authors' code derives it from the
// distance), d the task's distance.
func similarity(d float64) float64 { return math.Exp(-d * d / 2) }

// minMaxQuality maps values to [0, 1] by (v - min) / (max - min) over the
// values themselves (all 1 when they are equal). This is the quality of
// qVS-BayesOpt: the objective is often negative (rover, lunar), and qVS
// needs non-negative quality (eq. 2: with negative qualities the mean no
// longer counts high-quality items).
func minMaxQuality(v []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = minMaxScale(x, lo, hi)
	}
	return out
}

// rankByValue returns evaluation indices by decreasing value (ties: earlier first).
func (r *runner) rankByValue() []int {
	v := make([]float64, len(r.H))
	for i, e := range r.H {
		v[i] = e.Value
	}
	return descending(v)
}

// centres selects the M trust-region centres from the evaluations so far.
// During the run (live = true) ROBOT (and qvs with TauFloor) may need a
// random centre when fewer than M evaluated points are feasible; for the
// final solutions it does not, so a run may end with fewer than M.
func (r *runner) centres(it int, live bool) ([]centre, error) {
	var idx []int
	var err error
	M := r.s.Regions
	switch r.s.Method {
	case MethodTuRBO:
		for i := range r.byValue() {
			if len(idx) == M {
				break
			}
			idx = append(idx, i)
		}
	case MethodROBOT:
		for i := range r.byValue() {
			if len(idx) == M {
				break
			}
			if r.feasible(i, idx) {
				idx = append(idx, i)
			}
		}
	case MethodQVS:
		if r.s.authors() {
			return r.authorsCentres(it, live)
		}
		idx, err = r.qvsGreedy(r.s.Q, M, r.s.TauFloor)
	case MethodRandom:
		idx, err = r.qvsGreedy(1, M, false)
	}
	if err != nil {
		return nil, err
	}
	cs := make([]centre, 0, M)
	for _, i := range idx {
		cs = append(cs, centre{index: i, u: r.U[i], value: r.H[i].Value})
	}
	if live && len(cs) < M {
		cs = append(cs, r.randomCentres(it, cs, M-len(cs))...)
	}
	return cs, nil
}

// feasible: evaluated point i is at task distance >= Tau from every point in chosen.
func (r *runner) feasible(i int, chosen []int) bool {
	for _, c := range chosen {
		if r.distance(i, c) < r.s.Tau {
			return false
		}
	}
	return true
}

// randomCentres draws k unevaluated ROBOT centres uniformly, each at
// distance >= Tau from the centres so far (1000 tries each; the last draw is
// kept if none is feasible). ROBOT's code evaluates such a point; we use it
// as a centre without spending budget on it.
func (r *runner) randomCentres(it int, have []centre, k int) []centre {
	return r.randomCentresFrom(rng.New(r.id.Seed, r.id.Key, it, "centres"), have, k)
}

// randomCentresFrom is randomCentres drawing from rng.
func (r *runner) randomCentresFrom(rng *rand.Rand, have []centre, k int) []centre {
	var xs [][]float64
	for _, c := range have {
		x := make([]float64, r.d)
		for j := range x {
			x[j] = r.fromUnit(c.u[j], j)
		}
		xs = append(xs, x)
	}
	var out []centre
	for n := 0; n < k; n++ {
		var u, x []float64
		for try := 0; try < 1000; try++ {
			u = uniformPoints(rng, 1, r.d)[0]
			x = make([]float64, r.d)
			for j := range x {
				x[j] = r.fromUnit(u[j], j)
			}
			ok := true
			for _, y := range xs {
				if r.dom.Distance(x, y) < r.s.Tau {
					ok = false
					break
				}
			}
			if ok {
				break
			}
		}
		xs = append(xs, x)
		out = append(out, centre{index: -1, u: u, value: math.Inf(-1)})
	}
	return out
}

// qvsGreedy returns the greedy qVS_q maximiser of size k over all evaluated
// points (paper eq. 5 and §3.2, eq. 6): quality = min-max scaled objective,
// similarity exp(-d²/2). With floor (Settings.TauFloor) it may return fewer
// than k points. It starts from the previous call's greedy when that gives
// the same picks (centreMemo.incremental), else it scores every point.
func (r *runner) qvsGreedy(q vendi.Order, k int, floor bool) ([]int, error) {
	n := len(r.H)
	k = min(k, n)
	if !straightCentres && r.memo.matches(q, k, floor, r.vlo, r.vhi) && n >= r.memo.n {
		picks, tied, ok, err := r.memo.incremental(r, n)
		if err != nil {
			return nil, fmt.Errorf("qVS greedy: %w", err)
		}
		if ok {
			if n > r.memo.n {
				r.memoHits++
			}
			r.memo.n, r.memo.picks, r.memo.tied = n, picks, tied
			return picks, nil
		}
	}
	picks, tied, err := r.greedyOver(nil, q, k, floor)
	if err != nil {
		return nil, fmt.Errorf("qVS greedy: %w", err)
	}
	r.memo = &centreMemo{q: q, k: k, floor: floor, lo: r.vlo, hi: r.vhi, n: n, picks: picks, tied: tied}
	return picks, nil
}

// tauFloorVS is the VS_q of size points pairwise at task distance tau
// (similarity exp(-tau²/2)): the floor of Settings.TauFloor.
func tauFloorVS(size int, tau float64, q vendi.Order) float64 {
	c := similarity(tau)
	K := mat.NewSymDense(size, nil)
	for i := 0; i < size; i++ {
		for j := i; j < size; j++ {
			K.SetSym(i, j, c)
		}
		K.SetSym(i, i, 1)
	}
	vs, err := vendi.Score(K, q)
	if err != nil {
		// Not an input error: Validate checked q and tau, and K is finite
		// with a unit diagonal. Only a failed eigendecomposition of this
		// equicorrelated matrix could land here, and the floor is called
		// from GreedyProblem.MinVS, which cannot return an error.
		panic(fmt.Sprintf("bayesopt: tau floor: %v", err))
	}
	return vs
}

// updateRegions recentres every region and applies the values its proposals
// earned this iteration (regions without proposals are left unchanged).
func (r *runner) updateRegions(cs []centre, evs []Evaluation) {
	vals := make([][]float64, len(r.trs))
	for _, e := range evs {
		if e.Region >= 0 && e.Region < len(r.trs) {
			vals[e.Region] = append(vals[e.Region], e.Value)
		}
	}
	for m := range r.trs {
		if m < len(cs) {
			value := cs[m].value
			if r.s.authors() && cs[m].index < 0 {
				// The authors' random centre was evaluated among the
				// region's points (Ask puts it first): its value is the
				// region's reference, and it counts in the region's
				// evaluations (it cannot be a success against itself).
				x := r.unitToX(cs[m].u)
				for _, e := range evs {
					if e.Region == m && slices.Equal(e.X, x) {
						value = e.Value
						break
					}
				}
			}
			r.trs[m].Recenter(value)
		}
		r.trs[m].Update(vals[m])
	}
}

// regionModel is one region's Thompson-sampling state for an iteration.
type regionModel struct {
	cand    *mat.Dense  // candidates (unit cube), one per row
	samples [][]float64 // joint posterior samples over the candidates
	w       []float64   // feasibility weights of the candidates; nil without failures
}

// trainingSet returns the indices of the MaxTrain evaluated points nearest to
// u in the unit cube (ties: earlier first).
func (r *runner) trainingSet(u []float64) []int {
	n := len(r.H)
	if n <= r.s.MaxTrain {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	d2 := make([]float64, n)
	for i, p := range r.U {
		s := 0.0
		for j := range p {
			s += (p[j] - u[j]) * (p[j] - u[j])
		}
		d2[i] = -s // descending() sorts by decreasing value
	}
	idx := descending(d2)[:r.s.MaxTrain]
	sort.Ints(idx)
	return idx
}

// fit fits a GP on the evaluated points idx (fitGP: deterministic, no
// random draw).
func (r *runner) fit(idx []int) (*gp, error) {
	X := mat.NewDense(len(idx), len(r.features(r.U[0])), nil)
	y := make([]float64, len(idx))
	for a, i := range idx {
		X.SetRow(a, r.features(r.U[i]))
		y[a] = r.H[i].Value
	}
	return fitGP(X, y, gpFitOptions{MaxIterations: r.s.FitIterations})
}

// fits returns each region's GP, fitted on its training set (the MaxTrain
// evaluated points nearest its centre; nil where need[m] is false). Regions
// with the same training set (all of them while at most MaxTrain points are
// evaluated) share one fit: fitGP is a deterministic function of the
// training set, so sharing changes no bit and saves M-1 fits.
func (r *runner) fits(ctx context.Context, cs []centre, need []bool) ([]*gp, error) {
	M := len(need)
	sets := make([][]int, M)
	owner := make([]int, M) // the region whose fit region m uses
	for m := range sets {
		owner[m] = -1
		if !need[m] {
			continue
		}
		sets[m] = r.trainingSet(cs[m].u)
		owner[m] = m
		for o := 0; o < m; o++ {
			if owner[o] == o && slices.Equal(sets[o], sets[m]) {
				owner[m] = o
				break
			}
		}
	}
	gps := make([]*gp, M)
	err := parallel.Each(ctx, M, r.s.Workers, func(m int) error {
		if owner[m] != m {
			return nil
		}
		var err error
		if gps[m], err = r.fit(sets[m]); err != nil {
			return fmt.Errorf("region %d: GP fit: %w", m, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for m, o := range owner {
		if o >= 0 {
			gps[m] = gps[o]
		}
	}
	return gps, nil
}

// model draws region m's k joint samples from its GP gp over fresh
// candidates; every draw comes from rng.New(seed, key, it, m). With a
// feasibility model feas (nil: none) it also weighs each candidate by
// feas.weight.
func (r *runner) model(it, m int, c centre, gp *gp, k int, feas *feasibility) (regionModel, error) {
	rng := rng.New(r.id.Seed, r.id.Key, it, m)
	cand, err := trustRegionCandidates(c.u, r.trs[m].Length, r.s.Candidates, rng)
	if err != nil {
		return regionModel{}, err
	}
	if r.mixer != nil {
		rows := make([][]float64, cand.RawMatrix().Rows)
		for i := range rows {
			rows[i] = cand.RawRowView(i)
		}
		r.mixer.MixCandidates(c.u, rows, r.trs[m].Length, rng)
	}
	if r.snap != nil {
		for i := 0; i < cand.RawMatrix().Rows; i++ {
			cand.SetRow(i, r.toUnit(r.unitToX(cand.RawRowView(i))))
		}
	}
	X := cand
	var w []float64
	if r.enc != nil || feas != nil {
		n := cand.RawMatrix().Rows
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = r.features(cand.RawRowView(i))
		}
		if r.enc != nil {
			X = mat.NewDense(n, len(rows[0]), nil)
			for i, f := range rows {
				X.SetRow(i, f)
			}
		}
		if feas != nil {
			w = make([]float64, n)
			for i, f := range rows {
				w[i] = feas.weight(f)
			}
		}
	}
	var samples [][]float64
	if r.s.Sampler == SamplerPathwise {
		samples, err = gp.PathwiseSamples(X, k, pathwiseFeatures, rng)
	} else {
		samples, err = gp.JointSamples(X, k, rng)
	}
	if err != nil {
		return regionModel{}, fmt.Errorf("region %d: Thompson samples: %w", m, err)
	}
	return regionModel{cand: cand, samples: samples, w: w}, nil
}

// features is what the GP and the feasibility model see of unit-cube
// point u: Encoder.Encode(u), or u itself.
func (r *runner) features(u []float64) []float64 {
	if r.enc != nil {
		return r.enc.Encode(u)
	}
	return u
}

// feasibilityModel fits the success-probability model (feasibility.go) on
// every evaluation so far; nil when none failed or with
// Settings.RetryFailed.
func (r *runner) feasibilityModel() *feasibility {
	if r.s.RetryFailed || len(r.failedU) == 0 || feasibilityOff {
		return nil
	}
	// An iteration whose every evaluation failed says more about the
	// experiment pipeline (a licence server down, a full disk) than about
	// the points: it trains nothing.
	succeeded := map[int]bool{}
	for _, e := range r.all {
		succeeded[e.Iteration] = succeeded[e.Iteration] || !e.Failed
	}
	var feats [][]float64
	var ok []bool
	for _, e := range r.all {
		if succeeded[e.Iteration] {
			feats = append(feats, r.features(r.toUnit(e.X)))
			ok = append(ok, !e.Failed)
		}
	}
	if slices.Index(ok, false) < 0 {
		return nil
	}
	return newFeasibility(feats, ok)
}

// feasibilityOff switches the feasibility model off (tests compare).
var feasibilityOff bool

// weighted is sample s min-max scaled to [0, 1] and multiplied by the
// feasibility weights w (all w when s is constant).
func weighted(s, w []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range s {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = w[i]
		if hi > lo {
			out[i] = (v - lo) / (hi - lo) * w[i]
		}
	}
	return out
}

// splitBatch gives region m (rank order) b/M proposals, the remainder going
// to the best-ranked regions.
func splitBatch(b, M int) []int {
	out := make([]int, M)
	for m := range out {
		out[m] = b / M
		if m < b%M {
			out[m]++
		}
	}
	return out
}

// propose returns this iteration's batch (unit cube) and each point's region.
//
// TuRBO and ROBOT: region m (rank order) draws splitBatch(b, M)[m] joint
// Thompson samples over its candidates and takes the argmax of each, without
// replacement. ROBOT processes regions in rank order and drops candidates
// within Tau (task distance) of the points regions 1..m-1 picked this
// iteration, so a region may propose fewer points.
//
// qVS-BayesOpt (Algorithm 1): every region draws one joint sample f̄ over
// its candidates; the candidates of all regions are merged and the batch is
// the greedy qVS_q maximiser over them with quality = f̄ min-max scaled over
// all merged candidates and similarity exp(-d²/2). For speed the greedy runs
// over each region's top-b candidates by f̄ (a candidate outside them can
// only win through diversity against b better-sampled points of its own,
// mutually similar, region).
func (r *runner) propose(ctx context.Context, it int, cs []centre, b int, pending [][]float64, taken pointSet) ([][]float64, []int, error) {
	M := r.s.Regions
	counts := splitBatch(b, M)
	qvsBatch := r.s.Method == MethodQVS && !r.s.authors()
	if qvsBatch {
		for m := range counts {
			counts[m] = 1
		}
	}
	var props [][]float64
	var regions []int
	if r.s.authors() {
		// A random centre is evaluated, in its region's share.
		for m := range counts {
			if m < len(cs) && cs[m].index < 0 && counts[m] > 0 {
				u := append([]float64(nil), cs[m].u...)
				taken.add(r.unitToX(u))
				props = append(props, u)
				regions = append(regions, m)
				counts[m]--
			}
		}
	}
	need := make([]bool, M)
	for m := range need {
		need[m] = counts[m] > 0
	}
	gps, err := r.fits(ctx, cs, need)
	if err != nil {
		return nil, nil, err
	}
	feas := r.feasibilityModel()
	models := make([]regionModel, M)
	err = parallel.Each(ctx, M, r.s.Workers, func(m int) error {
		if counts[m] == 0 {
			return nil
		}
		var err error
		models[m], err = r.model(it, m, cs[m], gps[m], counts[m], feas)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if qvsBatch {
		return r.proposeQVS(models, b, pending, taken)
	}
	earlier := append([][]float64(nil), pending...) // task coordinates of this iteration's picks
	for m := 0; m < M; m++ {
		if counts[m] == 0 {
			continue
		}
		mod := models[m]
		if mod.w != nil {
			for s := range mod.samples {
				mod.samples[s] = weighted(mod.samples[s], mod.w)
			}
		}
		// ROBOT's verdicts hold for the whole region (earlier changes
		// between regions only), so each is computed once; taken grows
		// with every pick, so it is checked afresh.
		robotOK := make([]int8, mod.cand.RawMatrix().Rows) // 0 unknown, 1 feasible, -1 not
		allowed := func(i int) bool {
			x := r.unitToX(mod.cand.RawRowView(i))
			if taken.has(x) || r.nearFailure(x) {
				return false
			}
			if r.s.Method == MethodROBOT {
				if robotOK[i] == 0 {
					robotOK[i] = 1
					for _, y := range earlier {
						if r.dom.Distance(x, y) < r.s.Tau {
							robotOK[i] = -1
							break
						}
					}
				}
				return robotOK[i] > 0
			}
			return true
		}
		var picked []int
		for s := range mod.samples {
			// One sample at a time, so that a pick's snapped point is
			// taken before the next sample picks (two candidates can snap
			// to one point); without a Snapper this equals
			// thompsonPicks(mod.samples, allowed).
			for _, i := range thompsonPicks(mod.samples[s:s+1], allowed) {
				taken.add(r.unitToX(mod.cand.RawRowView(i)))
				picked = append(picked, i)
			}
		}
		for _, i := range picked {
			u := append([]float64(nil), mod.cand.RawRowView(i)...)
			earlier = append(earlier, r.unitToX(u))
			props = append(props, u)
			regions = append(regions, m)
		}
	}
	return props, regions, nil
}

// unitToX maps unit-cube point u into the box and, for a Snapper domain,
// onto its admissible points.
func (r *runner) unitToX(u []float64) []float64 {
	x := make([]float64, r.d)
	for j := range x {
		x[j] = r.fromUnit(u[j], j)
	}
	if r.snap != nil {
		r.snap.Snap(x)
	}
	return x
}

// proposeQVS is Algorithm 1's batch step: the greedy qVS_q maximiser over
// the merged pool of every region's top-b candidates by f̄ (skipping taken
// points and repeats), started from the pending points (quality 1).
func (r *runner) proposeQVS(models []regionModel, b int, pending [][]float64, taken pointSet) ([][]float64, []int, error) {
	type item struct {
		m, i int
		f    float64
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, mod := range models {
		for _, v := range mod.samples[0] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	weightedPool := false // with failures: rank and score by the quality times the feasibility weight
	var pool []item
	var xs [][]float64 // task coordinates of the pool, then of pending
	inPool := newPointSet()
	for m, mod := range models {
		s := mod.samples[0]
		if mod.w != nil {
			weightedPool = true
			q := make([]float64, len(s))
			for i, v := range s {
				q[i] = mod.w[i]
				if hi > lo {
					q[i] = (v - lo) / (hi - lo) * mod.w[i]
				}
			}
			s = q
		}
		k := 0
		for _, i := range descending(s) {
			if k == b {
				break
			}
			x := r.unitToX(mod.cand.RawRowView(i))
			if taken.has(x) || inPool.has(x) || r.nearFailure(x) {
				continue
			}
			inPool.add(x)
			pool = append(pool, item{m, i, s[i]})
			xs = append(xs, x)
			k++
		}
	}
	quality := make([]float64, len(pool), len(pool)+len(pending))
	for p, it := range pool {
		quality[p] = 1
		if weightedPool {
			quality[p] = it.f
		} else if hi > lo {
			quality[p] = (it.f - lo) / (hi - lo)
		}
	}
	var prefix []int
	for _, x := range pending {
		prefix = append(prefix, len(xs))
		xs = append(xs, x)
		quality = append(quality, 1)
	}
	cache := map[[2]int]float64{}
	kern := vendi.FuncKernel(len(xs), func(i, j int) float64 {
		if i == j {
			return 1
		}
		k := [2]int{min(i, j), max(i, j)}
		if v, ok := cache[k]; ok {
			return v
		}
		v := similarity(r.dom.Distance(xs[i], xs[j]))
		cache[k] = v
		return v
	})
	if len(pool) == 0 {
		return nil, nil, nil
	}
	res, err := vendi.Greedy(vendi.GreedyProblem{Kernel: kern, Quality: quality, Prefix: prefix, K: min(b, len(pool)), Q: r.s.Q, Workers: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("qVS batch: %w", err)
	}
	props := make([][]float64, len(res.Picks))
	regions := make([]int, len(res.Picks))
	for a, p := range res.Picks {
		props[a] = append([]float64(nil), models[pool[p].m].cand.RawRowView(pool[p].i)...)
		regions[a] = pool[p].m
	}
	return props, regions, nil
}

// result selects the final M solutions (the method's centres on all
// evaluations; for random the qVS_1 greedy) and summarises the run.
func (r *runner) result() (*Result, error) {
	res := &Result{Evaluations: r.all, BestValue: math.Inf(-1)}
	for _, e := range r.H {
		res.BestValue = math.Max(res.BestValue, e.Value)
	}
	if r.s.Method != MethodRandom {
		res.TrustRegions = append([]TrustRegion(nil), r.trs...)
	}
	for _, tr := range res.TrustRegions {
		res.Restarts += tr.Restarts
	}
	if len(r.H) == 0 { // every evaluation failed: no solutions
		return res, nil
	}
	var idx []int // into r.all
	var dist func(a, b int) float64
	if r.s.Final == finalBand {
		q := vendi.Order(1)
		if r.s.Method == MethodQVS {
			q = r.s.Q
		}
		var err error
		if idx, err = SelectSolutions(r.dom, r.all, r.s.Regions, q); err != nil {
			return nil, err
		}
		dist = func(a, b int) float64 { return r.dom.Distance(r.all[idx[a]].X, r.all[idx[b]].X) }
	} else {
		cs, err := r.centres(-1, false)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			idx = append(idx, r.pos[c.index])
		}
		dist = func(a, b int) float64 { return r.distance(cs[a].index, cs[b].index) }
	}
	set, err := summarise(r.all, idx, dist)
	if err != nil {
		return nil, err
	}
	res.Solutions, res.Distances = set.Solutions, set.Distances
	res.SolutionsMeanValue, res.SolutionsMeanDistance, res.SolutionsVS = set.MeanValue, set.MeanDistance, set.VS
	return res, nil
}
