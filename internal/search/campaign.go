package search

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// registry is every policy a campaign (and a suggestion) can run, in
// table order: the paper's baselines and qVS-AS (Section 4.1), plus
// one-step and ENS. Adding a policy is adding its type (with its Method
// value) in a file of its own and one line here; a grid of
// hyperparameters is a field of Protocol with its default in
// PaperProtocol and its fields in PolicySettings.
var registry = []Method{
	randomMethod, oneStepMethod, eciMethod, selectMethod, ensMethod, qvsMethod,
}

// A Method is one active-search policy as a campaign knows it: its name
// (in --methods, run keys and summaries), the settings it runs under a
// protocol and its constructor.
type Method struct {
	Name string
	// Settings lists the method's settings under p, one run per repeat
	// each, in run order, checking the keys it reads (errors name them).
	// nil: one setting, no hyperparameters.
	Settings func(p Protocol) ([]Setting, error)
	// New returns the policy of settings s; kernel is the diversity
	// kernel qVS-AS maximises over, in the indices the policy sees (a
	// run's Space.Kernel).
	New func(s PolicySettings, kernel vendi.Kernel) Policy
	// Grid are the protocol keys of the method's grid that a rerun may
	// grow (GrowableKeys): they only add runs.
	Grid []string
}

// A Setting is one run of a method per repeat: the order q's label (qVS-AS),
// the run key's other labels (campaign.RunKey) and the settings.
type Setting struct {
	Q        string
	Labels   []string
	Settings PolicySettings
}

// Methods are the names of the policies a campaign can run, in table
// order (the registry's).
var Methods = methodNames()

func methodNames() []string {
	out := make([]string, len(registry))
	for i, m := range registry {
		out[i] = m.Name
	}
	return out
}

// LookupMethod returns the registered method of name.
func LookupMethod(name string) (Method, error) {
	for _, m := range registry {
		if m.Name == name {
			return m, nil
		}
	}
	return Method{}, fmt.Errorf("unknown method %q: expected some of %s", name, strings.Join(Methods, ","))
}

// Protocol is what a diverse active search campaign runs (Section 4.1):
// the methods with their hyperparameter grids, the orders q of qVS-AS, and
// the repeats, budget and batch size every run shares. The struct tags are
// the keys of the `qvs as` config files (configs/TASK.yaml), as for
// datasets.Config; every field changes results.
type Protocol struct {
	Methods []string `yaml:"methods"`
	// Q are the orders of qVS-AS, parsed where they enter (the flag, the
	// config) and recorded in config.yaml as written ("0.50", "inf"); the
	// runs and the q column of the summary name them as vendi.Order.String
	// does ("0.5").
	Q       vendi.OrderList `yaml:"q"`
	Repeats int             `yaml:"repeats"`
	Budget  int             `yaml:"budget"` // queries per run after the start
	Batch   int             `yaml:"batch"`
	Seed    uint64          `yaml:"seed"`
	ECI     ECIGrid         `yaml:"eci"`
	SELECT  SELECTGrid      `yaml:"select"`
	ENS     ENSSettings     `yaml:"ens"`
	// Ties is how exact ties between candidates are broken: "random" (each
	// repeat relabels the pool in a random order drawn from the seed, like
	// the authors' random tie-breaking; see Space) or "index" (lowest pool
	// index).
	Ties string `yaml:"ties"`
	// Prior is the kNN model's prior a1 (ParsePrior): "prevalence" (the
	// authors' rule, PriorFromPrevalence), "estimate" (FitPrior of the
	// run's labels, re-estimated before every batch as a user's suggest
	// loop does) or a number.
	Prior string `yaml:"prior"`
	// AuthorsShortcut makes qVS-AS use the authors' shared value for
	// candidates whose own kNN row misses the chosen set (QVS.AuthorsShortcut);
	// false (the default) is the exact greedy of Algorithm 2.
	AuthorsShortcut bool `yaml:"authors_shortcut"`
}

// GrowableKeys are the Protocol keys a rerun into a campaign's folder may
// grow (campaign.CheckConfig): more repeats, methods, orders or grid
// values only add runs, and the runs already made keep their keys, starts
// and random streams.
var GrowableKeys = growableKeys()

// growableKeys: repeats, methods and the orders q, then every method's
// grid keys in registry order.
func growableKeys() []string {
	keys := []string{"repeats", "methods", "q"}
	for _, m := range registry {
		keys = append(keys, m.Grid...)
	}
	return keys
}

// ECIGrid is the grid of ECI settings: one run per similarity threshold.
type ECIGrid struct {
	Thresholds []float64 `yaml:"thresholds"`
	Fantasy    string    `yaml:"fantasy"`
}

// SELECTGrid is the grid of SELECT settings: one run per (beta, lambda).
type SELECTGrid struct {
	Betas   []float64 `yaml:"betas"`
	Lambdas []float64 `yaml:"lambdas"`
	Fantasy string    `yaml:"fantasy"`
}

// ENSSettings is the one ENS setting.
type ENSSettings struct {
	Fantasy string `yaml:"fantasy"`
}

// PaperProtocol is the paper's protocol (Section 4.1: 10 repeats; a budget
// of 200 queries in batches of 5, the budget random search's positive
// counts in Tables 1-3 imply) with the authors' hyperparameter grids
// (ECI thresholds 0.25/0.5/0.75, SELECT beta 0.1/0.3/1/3 x lambda
// 0.25/0.5/0.75, pessimistic fantasies), every method, qVS-AS at
// q = 0, 0.1, 0.5, 1, 2, inf, seed 0, random tie-breaking and the authors'
// prior (the pool's true prevalence rounded to 3 decimals).
func PaperProtocol() Protocol {
	return Protocol{
		Methods: append([]string(nil), Methods...),
		Q:       vendi.NewOrderList(0, 0.1, 0.5, 1, 2, vendi.OrderInf),
		Repeats: 10, Budget: 200, Batch: 5,
		ECI:    ECIGrid{Thresholds: []float64{0.25, 0.5, 0.75}, Fantasy: "pessimistic"},
		SELECT: SELECTGrid{Betas: []float64{0.1, 0.3, 1, 3}, Lambdas: []float64{0.25, 0.5, 0.75}, Fantasy: "pessimistic"},
		ENS:    ENSSettings{Fantasy: "pessimistic"},
		Ties:   "random",
		Prior:  PriorPrevalence,
	}
}

// PolicySettings are the hyperparameters of one policy; each policy reads
// only its own.
type PolicySettings struct {
	Threshold    float64     // ECI similarity threshold
	Beta, Lambda float64     // SELECT
	Fantasy      Fantasy     // ECI, SELECT, ENS
	Q            vendi.Order // qVS-AS order
	// AuthorsShortcut: qVS-AS with the authors' shortcut (QVS.AuthorsShortcut).
	AuthorsShortcut bool
}

// newPolicy returns the policy of method (one of Methods) with settings s.
// kernel is the diversity kernel qVS-AS maximises over, in the indices the
// policy sees (a run's Space.Kernel); the other policies ignore it.
func newPolicy(method string, s PolicySettings, kernel vendi.Kernel) (Policy, error) {
	m, err := LookupMethod(method)
	if err != nil {
		return nil, err
	}
	return m.New(s, kernel), nil
}

// Campaign is a planned campaign: its runs and each run's policy settings.
type Campaign struct {
	Protocol Protocol
	// Runs in execution order, repeat-major: the runs of one repeat share
	// its search space, so few spaces are alive at a time. Keys are
	// SETTING-rRR, e.g. "eci-t0.5-pessimistic-r03", "qvs-qinf-r00".
	Runs     []campaign.Run
	Prior    Prior                     // the parsed Protocol.Prior
	settings map[string]PolicySettings // by run key
}

// Plan validates p and lists its runs: per repeat, one run per method
// setting (ECI per threshold, SELECT per (beta, lambda), qVS-AS per order,
// in the order given). Errors name the config key at fault.
func Plan(p Protocol) (*Campaign, error) {
	for _, c := range []struct {
		key string
		v   int
	}{{"repeats", p.Repeats}, {"budget", p.Budget}, {"batch", p.Batch}} {
		if c.v < 1 {
			return nil, configkeys.Invalid(c.key, c.v, "must be at least 1")
		}
	}
	if len(p.Methods) == 0 {
		return nil, configkeys.Invalid("methods", "", "expected some of %s", strings.Join(Methods, ","))
	}
	if p.Ties != "random" && p.Ties != "index" {
		return nil, configkeys.Invalid("ties", p.Ties, "expected random or index")
	}
	prior, err := ParsePrior(p.Prior)
	if err != nil {
		return nil, err
	}
	type setting struct {
		method string
		Setting
	}
	var settings []setting
	if err := configkeys.Unique("methods", p.Methods); err != nil {
		return nil, err
	}
	for _, name := range p.Methods {
		m, err := LookupMethod(name)
		if err != nil {
			return nil, err
		}
		ms := []Setting{{}}
		if m.Settings != nil {
			if ms, err = m.Settings(p); err != nil {
				return nil, err
			}
		}
		for _, s := range ms {
			settings = append(settings, setting{name, s})
		}
	}
	c := &Campaign{Protocol: p, Prior: prior, settings: map[string]PolicySettings{}}
	for r := 0; r < p.Repeats; r++ {
		for _, s := range settings {
			// Params is the policy's own description, e.g. "threshold=0.5
			// fantasy=pessimistic" (empty for random, one-step and qVS-AS).
			pol, _ := newPolicy(s.method, s.Settings, nil)
			run := campaign.Run{Key: campaign.RunKey(s.method, s.Q, r, s.Labels...), Method: s.method, Q: s.Q, Params: pol.Params(), Repeat: r}
			c.Runs = append(c.Runs, run)
			c.settings[run.Key] = s.Settings
		}
	}
	return c, nil
}

// CheckThreshold reports an ECI threshold that means nothing: ECI compares
// it with kNN edge similarities, which lie in [0, 1], so above 1 no
// neighbour ever counts and below 0 every one does.
func CheckThreshold(t float64) error {
	if !(t >= 0 && t <= 1) {
		return fmt.Errorf("%v is outside [0, 1] (it is compared with edge similarities in [0, 1])", t)
	}
	return nil
}

// CheckBeta reports a SELECT beta that is not a finite number >= 0: the
// score (1 - lambda)(p + beta sqrt(v)) + lambda/2 log(1 + v) rewards
// uncertainty with weight beta.
func CheckBeta(b float64) error {
	if !(b >= 0) || math.IsInf(b, 0) {
		return fmt.Errorf("%v must be a finite number >= 0", b)
	}
	return nil
}

// CheckLambda reports a SELECT lambda outside [0, 1], the weight of
// diversity against the (1 - lambda)-weighted expected reward.
func CheckLambda(l float64) error {
	if !(l >= 0 && l <= 1) {
		return fmt.Errorf("%v is outside [0, 1]", l)
	}
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Policy returns the policy of one of c's runs; qVS-AS measures diversity
// with kernel (the run's Space.Kernel).
func (c *Campaign) Policy(run campaign.Run, kernel vendi.Kernel) (Policy, error) {
	s, ok := c.settings[run.Key]
	if !ok {
		return nil, fmt.Errorf("run %s is not in the campaign", run.Key)
	}
	return newPolicy(run.Method, s, kernel)
}

// Pool is an active-search pool prepared for search: the pool and, built
// on first use, the diversity kernel every run's metrics use.
type Pool struct {
	*datasets.Pool

	kernelOnce sync.Once
	kernel     *vendi.KNNKernel
}

// NewPool prepares p for search, checking its kNN graph (rows of equal
// neighbour and weight counts, neighbours in [0, n), finite weights). Its
// labels may be unknown (p.Unlabeled): such a pool serves suggestions, not
// simulated campaigns.
func NewPool(p *datasets.Pool) (*Pool, error) {
	if err := vendi.CheckKNN(p.Len(), p.Neighbors, p.Weights); err != nil {
		return nil, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return &Pool{Pool: p}, nil
}

// Kernel is the diversity kernel (W + Wᵀ)/2 with unit diagonal in pool
// indices (as the authors' code builds it), for the metrics of the
// positives found: vendi.KNNKernel, the entries of vendi.SymmetrizeKNN bit
// for bit, each row built when first read (the metrics read the rows of
// the positives only). Its reverse lists are built on the first call (a
// suggestion never needs them: its runs see Space.Kernel, in view
// indices). Safe for concurrent use.
func (p *Pool) Kernel() vendi.Kernel {
	p.kernelOnce.Do(func() {
		p.kernel = vendi.NewKNNKernel(p.Neighbors, p.Weights, vendi.NewKNNReverse(p.Neighbors))
	})
	return p.kernel
}

// PseudoCounts returns the kNN model's pseudo-counts under prior given m,
// a model of the pool with the labels observed so far (read by
// PriorEstimate only). Only PriorPrevalence reads the pool's labels (an
// error if unknown).
func (p *Pool) PseudoCounts(prior Prior, m *Model) (a0, a1 float64, err error) {
	prevalence := math.NaN()
	if !p.Unlabeled {
		prevalence = p.Prevalence()
	}
	a0, a1, err = prior.PseudoCounts(prevalence, m)
	if err != nil {
		return 0, 0, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return a0, a1, nil
}

// Space builds the search space of a run with the kNN model's
// pseudo-counts a0, a1: the pool relabelled in the given order (nil: pool
// order, ties to the lowest pool index).
func (p *Pool) Space(order []int, a0, a1 float64) (*Space, error) {
	sp, err := newSpace(p.Neighbors, p.Weights, p.Labels, a0, a1, order)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return sp, nil
}

// spaceInPlace is Space by newSpaceInPlace: the pool's graph goes into the
// space (Neighbors and Weights are nil afterwards).
func (p *Pool) spaceInPlace(order []int, a0, a1 float64) (*Space, error) {
	nbr, w := p.Neighbors, p.Weights
	p.Neighbors, p.Weights = nil, nil
	sp, err := newSpaceInPlace(nbr, w, p.Labels, a0, a1, order)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", p.Name, err)
	}
	return sp, nil
}

// spaceCache builds each repeat's search space once and drops it when no
// run uses it and more than max are kept (runs are repeat-major, so a few
// spaces suffice).
type spaceCache struct {
	mu      sync.Mutex
	build   func(repeat int) (*Space, error)
	max     int
	entries map[int]*spaceEntry
}

type spaceEntry struct {
	once sync.Once
	sp   *Space
	err  error
	refs int
}

// get returns repeat's space, building it on first use; the caller must
// call release when its run is done with the space.
func (c *spaceCache) get(repeat int) (sp *Space, release func(), err error) {
	c.mu.Lock()
	e := c.entries[repeat]
	if e == nil {
		e = &spaceEntry{}
		c.entries[repeat] = e
	}
	e.refs++
	c.mu.Unlock()
	e.once.Do(func() { e.sp, e.err = c.build(repeat) })
	release = func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.refs--; e.refs == 0 && len(c.entries) > c.max {
			delete(c.entries, repeat)
		}
	}
	return e.sp, release, e.err
}

// curveHeader is the header of a run's runs/KEY.curve.csv: VS_1 of the
// positives after every batch (Figure 2, right).
var curveHeader = []string{"batch", "queries", "positives", "vs_q1"}

// RunFunc binds c to pool and returns the function campaign.Execute calls
// for each run; dir is the results directory (errors name the record file).
// Repeat r starts every method from the same random positive
// (startPositive) and, with ties "random", searches the pool relabelled in
// the random order drawn from (seed, "order", r). A run replays the records
// of an interrupted attempt, appends one record per query (each batch in
// one atomic write, campaign.Recorder.Append), writes runs/KEY.curve.csv and returns the summary
// fields after key, method, q, params, repeat: positives, vs_q0 ...
// vs_qinf (metricOrders), max_pairwise_distance, kernel_det,
// kernel_logdet, kernel_det_per_item and seconds, the time the policy spent choosing queries
// (summed over batches, so a resumed run counts its earlier attempts).
// At most workers + 1 search spaces are kept alive. The kNN model's prior
// is c.Prior (StartPrior); under PriorEstimate each run re-estimates it
// from its own labels before every batch. Each batch may use
// workers / (runs in flight) goroutines, so the last runs of a campaign
// score candidates on the cores the finished runs left idle.
func (c *Campaign) RunFunc(pool *Pool, dir string, workers int) (campaign.RunFunc, error) {
	p := c.Protocol
	if pool.Unlabeled {
		return nil, fmt.Errorf("pool %s has no labels: a campaign simulates queries with the pool's labels (give the label column; 'qvs as suggest' works without)", pool.Name)
	}
	a0, a1, err := c.StartPrior(pool)
	if err != nil {
		return nil, err
	}
	starts := make([]int, p.Repeats)
	for r := range starts {
		var err error
		if starts[r], err = startPositive(pool.Labels, p.Seed, r); err != nil {
			return nil, err
		}
	}
	spaces := &spaceCache{max: workers + 1, entries: map[int]*spaceEntry{}, build: func(r int) (*Space, error) {
		if p.Ties == "index" {
			return pool.Space(nil, a0, a1)
		}
		return pool.Space(randomOrder(pool.Len(), rng.New(p.Seed, "order", r)), a0, a1)
	}}
	var inFlight atomic.Int32
	share := func() int { return max(workers/max(int(inFlight.Load()), 1), 1) }
	return func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		sp, release, err := spaces.get(run.Repeat)
		defer release()
		if err != nil {
			return nil, err
		}
		policy, err := c.Policy(run, sp.Kernel)
		if err != nil {
			return nil, err
		}
		return c.execute(ctx, pool, sp, dir, run, rec, policy, starts[run.Repeat], share)
	}, nil
}

// StartPrior is the kNN model's pseudo-counts when a run starts, its one
// label the start positive: under PriorEstimate FitPrior of a lone
// positive, 2/3 (each run then re-estimates before every batch).
func (c *Campaign) StartPrior(pool *Pool) (a0, a1 float64, err error) {
	var m *Model
	if c.Prior.Rule == PriorEstimate {
		if m, err = NewModel(pool.Neighbors, pool.Weights, 0.5, 0.5); err != nil {
			return 0, 0, fmt.Errorf("pool %s: %w", pool.Name, err)
		}
		start, err := startPositive(pool.Labels, c.Protocol.Seed, 0)
		if err != nil {
			return 0, 0, err
		}
		m.Observe(start, true)
	}
	return pool.PseudoCounts(c.Prior, m)
}

// priorA1 is runConfig.PriorA1 under c.Prior: FitPrior for PriorEstimate,
// nil (fixed) otherwise.
func (c *Campaign) priorA1() func(*Model) float64 {
	if c.Prior.Rule != PriorEstimate {
		return nil
	}
	return func(m *Model) float64 { return FitPrior(m).A1 }
}

// execute runs one search and writes its records and curve.
func (c *Campaign) execute(ctx context.Context, pool *Pool, sp *Space, dir string, run campaign.Run, rec *campaign.Recorder, policy Policy, start int, workers func() int) ([]campaign.Field, error) {
	path := filepath.Join(dir, "runs", run.Key+".csv")
	prior, err := parseRecords(path, rec.Rows())
	if err != nil {
		return nil, err
	}
	ids := pool.IDs
	if err := checkRecordIDs(path, rec.Rows(), ids); err != nil {
		return nil, err
	}
	keep, err := completeBatches(path, prior, c.Protocol.Batch, c.Protocol.Budget, sp.Len())
	if err != nil {
		return nil, err
	}
	prior = prior[:keep]
	rec.Keep(keep)
	all, err := Run(ctx, runConfig{
		Space: sp, Policy: policy, Start: start,
		Budget: c.Protocol.Budget, Batch: c.Protocol.Batch, Seed: c.Protocol.Seed, Key: run.Key, Workers: 1, WorkersNow: workers,
		PriorA1: c.priorA1(),
	}, prior, func(batch []query) error {
		rows := make([][]string, len(batch))
		for i, q := range batch {
			rows[i] = q.Record(ids)
		}
		return rec.Append(rows...)
	})
	if err != nil {
		return nil, err
	}
	var positives []int
	seconds := 0.0
	lastBatch := -1
	for _, q := range all {
		if q.Positive {
			positives = append(positives, q.Index)
		}
		if q.Batch != lastBatch {
			seconds += q.Seconds
			lastBatch = q.Batch
		}
	}
	kernel := pool.Kernel()
	m, err := measure(kernel, positives, pool.Distance)
	if err != nil {
		return nil, err
	}
	curve, err := curve(kernel, all)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, len(curve))
	for i, p := range curve {
		rows[i] = []string{strconv.Itoa(p.Batch), strconv.Itoa(p.Queries), strconv.Itoa(p.Positives), num(p.VS1)}
	}
	if err := rec.WriteFile("curve", curveHeader, rows); err != nil {
		return nil, err
	}
	return summaryFields(m, seconds), nil
}

// summaryFields is a run's summary row after key, method, q, params,
// repeat: the metrics, then seconds.
func summaryFields(m metrics, seconds float64) []campaign.Field {
	f := []campaign.Field{campaign.I("positives", m.Positives)}
	for i, q := range metricOrders {
		f = append(f, campaign.F("vs_q"+q.String(), m.VS[i]))
	}
	return append(f,
		campaign.F("max_pairwise_distance", m.MaxPairwiseDistance),
		campaign.F("kernel_det", m.KernelDet),
		campaign.F("kernel_logdet", m.KernelLogDet),
		campaign.F("kernel_det_per_item", m.KernelDetPerItem),
		campaign.F("seconds", seconds))
}
