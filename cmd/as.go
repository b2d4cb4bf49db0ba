package cmd

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

func init() { register(newASCmd) }

// asConfig is the YAML config of `qvs as` (configs/TASK.yaml). Every key
// that changes results is recorded in DIR/config.yaml.
type asConfig struct {
	Task    string          `mapstructure:"task" yaml:"task"`
	Pool    datasets.Config `mapstructure:"pool" yaml:"pool"`
	Methods []string        `mapstructure:"methods" yaml:"methods"`
	Q       []string        `mapstructure:"q" yaml:"q"` // qVS-AS orders; "inf" allowed
	Repeats int             `mapstructure:"repeats" yaml:"repeats"`
	Budget  int             `mapstructure:"budget" yaml:"budget"`
	Batch   int             `mapstructure:"batch" yaml:"batch"`
	Seed    uint64          `mapstructure:"seed" yaml:"seed"`
	ECI     asECIConfig     `mapstructure:"eci" yaml:"eci"`
	SELECT  asSELECTConfig  `mapstructure:"select" yaml:"select"`
	ENS     asENSConfig     `mapstructure:"ens" yaml:"ens"`
	// Ties is how exact ties between candidates are broken: "random" (each
	// repeat relabels the pool in a random order drawn from the seed, like
	// the authors' random tie-breaking) or "index" (lowest pool index).
	Ties string `mapstructure:"ties" yaml:"ties"`
	// Out is the results directory (default results/TASK); not recorded.
	Out string `mapstructure:"out" yaml:"out,omitempty"`
}

type asECIConfig struct {
	Thresholds []float64 `mapstructure:"thresholds" yaml:"thresholds"`
	Fantasy    string    `mapstructure:"fantasy" yaml:"fantasy"`
}

type asSELECTConfig struct {
	Betas   []float64 `mapstructure:"betas" yaml:"betas"`
	Lambdas []float64 `mapstructure:"lambdas" yaml:"lambdas"`
	Fantasy string    `mapstructure:"fantasy" yaml:"fantasy"`
}

type asENSConfig struct {
	Fantasy string `mapstructure:"fantasy" yaml:"fantasy"`
}

// asMethods are the method names, in table order.
var asMethods = []string{"random", "one-step", "eci", "select", "ens", "qvs"}

// defaultASConfig is the paper's protocol (Section 4.1; reference notes §2:
// budget 200, batch 5, 10 repeats) with the authors' hyperparameter grids
// (ECI thresholds 0.25/0.5/0.75, SELECT beta 0.1/0.3/1/3 x lambda
// 0.25/0.5/0.75, pessimistic fantasies) on the given pool kind.
func defaultASConfig(kind string) asConfig {
	return asConfig{
		Task:    kind,
		Pool:    datasets.DefaultConfig(kind),
		Methods: append([]string(nil), asMethods...),
		Q:       []string{"0", "0.1", "0.5", "1", "2", "inf"},
		Repeats: 10, Budget: 200, Batch: 5,
		ECI:    asECIConfig{Thresholds: []float64{0.25, 0.5, 0.75}, Fantasy: "pessimistic"},
		SELECT: asSELECTConfig{Betas: []float64{0.1, 0.3, 1, 3}, Lambdas: []float64{0.25, 0.5, 0.75}, Fantasy: "pessimistic"},
		ENS:    asENSConfig{Fantasy: "pessimistic"},
		Ties:   "random",
	}
}

// syntheticASConfig is the no-argument default: the built-in synthetic pool
// with a protocol small enough to finish in well under a minute.
func syntheticASConfig() asConfig {
	c := defaultASConfig("synthetic")
	c.Repeats, c.Budget = 5, 100
	return c
}

type asOptions struct {
	poolDir string
	methods string
	q       string
	repeats int
	budget  int
	batch   int
	out     string
	shard   string
}

func newASCmd(g *GlobalOptions) *cobra.Command {
	o := &asOptions{}
	c := &cobra.Command{
		Use:   "as [--config configs/TASK.yaml] [--pool-dir DIR] [--methods random,one-step,eci,select,ens,qvs] [--q 0,0.1,0.5,1,2,inf] [--repeats R] [--budget B] [--batch b] [--out DIR] [--shard i/n]",
		Short: "Diverse active search campaigns (paper Section 4.1, Tables 1-3)",
		Long: `Runs diverse active search: every method (and hyperparameter setting) for R
repeats, each starting from one random positive shared by all methods of the
repeat, querying B items in batches of b under the kNN model.

Without --config the built-in synthetic pool runs (5 repeats, budget 100).
configs/photoswitch.yaml, configs/bmg.yaml and configs/fashion.yaml hold the
paper's protocol (10 repeats, budget 200, batch 5, the authors' grids).
--pool-dir DIR runs on a pool in the authors' folder format.

Every policy is deterministic with ties to the lowest index; with
ties: random (the default) each repeat first relabels the pool in a random
order drawn from the seed, so exact ties (common among unexplored items)
fall to a random item, as in the authors' code, instead of the first rows
of the data file.

Output (default results/TASK/): runs/KEY.csv (every query: iteration, batch,
index, id, label, probability, seconds), runs/KEY.curve.csv (VS_1 of the
positives after every batch), summary.csv (one row per run) and config.yaml
(the resolved config with version and seed). Rerunning the same command
resumes: finished runs are skipped, unfinished ones continue from their
query files. --shard i/n runs every n-th run only. The paper-style table
(mean ± standard error per method) is printed at the end; 'qvs as table DIR'
prints it again.

Exit codes: 0 done; 1 a run failed or the campaign was interrupted (rerun to
resume); 2 bad command line.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runAS(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.poolDir, "pool-dir", "", "pool in the authors' folder format (features.npy, labels.npy, csr_weights.npz)")
	f.StringVar(&o.methods, "methods", "", "comma-separated methods: "+strings.Join(asMethods, ","))
	f.StringVar(&o.q, "q", "", "comma-separated orders of qVS-AS (inf allowed)")
	f.IntVar(&o.repeats, "repeats", 0, "repeats per method")
	f.IntVar(&o.budget, "budget", 0, "queries per run after the start")
	f.IntVar(&o.batch, "batch", 0, "batch size")
	f.StringVar(&o.out, "out", "", "results directory (default results/TASK)")
	f.StringVar(&o.shard, "shard", "", "run only shard i of n (i/n, 0-based)")
	c.AddCommand(newASSuggestCmd(g), newASTableCmd(g))
	return c
}

// resolveASConfig reads the config file onto the defaults of its pool kind
// and applies the flags the user set.
func resolveASConfig(c *cobra.Command, g *GlobalOptions, o *asOptions) (asConfig, error) {
	cfg := syntheticASConfig()
	if g.Config != "" {
		v := viper.New()
		v.SetConfigFile(g.Config)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return cfg, fmt.Errorf("config %s: %w", g.Config, err)
		}
		if kind := v.GetString("pool.kind"); kind != "" {
			cfg = defaultASConfig(kind)
		}
		if err := loadConfig(g.Config, &cfg); err != nil {
			return cfg, err
		}
	}
	fl := c.Flags()
	if fl.Changed("pool-dir") {
		cfg.Pool = datasets.DefaultConfig("folder")
		cfg.Pool.Dir = o.poolDir
		cfg.Task = filepath.Base(filepath.Clean(o.poolDir))
	}
	if fl.Changed("methods") {
		cfg.Methods = splitList(o.methods)
	}
	if fl.Changed("q") {
		cfg.Q = splitList(o.q)
	}
	if fl.Changed("repeats") {
		cfg.Repeats = o.repeats
	}
	if fl.Changed("budget") {
		cfg.Budget = o.budget
	}
	if fl.Changed("batch") {
		cfg.Batch = o.batch
	}
	if fl.Changed("out") {
		cfg.Out = o.out
	}
	if g.SeedSet() {
		cfg.Seed = g.Seed
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.Task)
	}
	return cfg, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// asRun is a campaign run with its policy (the kernel is bound later).
type asRun struct {
	run    campaign.Run
	policy func(kernel vendi.Kernel) search.Policy
}

// planAS validates the config and lists the runs.
func planAS(cfg asConfig) ([]asRun, error) {
	if cfg.Repeats < 1 || cfg.Budget < 1 || cfg.Batch < 1 {
		return nil, fmt.Errorf("repeats (%d), budget (%d) and batch (%d) must be at least 1", cfg.Repeats, cfg.Budget, cfg.Batch)
	}
	if len(cfg.Methods) == 0 {
		return nil, fmt.Errorf("no methods: expected some of %s", strings.Join(asMethods, ","))
	}
	if cfg.Ties != "random" && cfg.Ties != "index" {
		return nil, fmt.Errorf("ties: %q, expected random or index", cfg.Ties)
	}
	type setting struct {
		method, key, q, params string
		policy                 func(vendi.Kernel) search.Policy
	}
	var settings []setting
	seen := map[string]bool{}
	for _, m := range cfg.Methods {
		if seen[m] {
			return nil, fmt.Errorf("method %q listed twice", m)
		}
		seen[m] = true
		switch m {
		case "random":
			settings = append(settings, setting{"random", "random", "", "", func(vendi.Kernel) search.Policy { return search.Random{} }})
		case "one-step":
			settings = append(settings, setting{"one-step", "one-step", "", "", func(vendi.Kernel) search.Policy { return search.OneStep{} }})
		case "eci":
			fan, err := search.ParseFantasy(cfg.ECI.Fantasy)
			if err != nil {
				return nil, fmt.Errorf("eci.fantasy: %w", err)
			}
			if len(cfg.ECI.Thresholds) == 0 {
				return nil, fmt.Errorf("method eci needs eci.thresholds")
			}
			for _, t := range cfg.ECI.Thresholds {
				if math.IsNaN(t) || math.IsInf(t, 0) {
					return nil, fmt.Errorf("eci.thresholds: %v is not a finite number", t)
				}
				p := search.ECI{Threshold: t, Fantasy: fan}
				settings = append(settings, setting{"eci", "eci-t" + num(t) + "-" + fan.String(), "", p.Params(), func(vendi.Kernel) search.Policy { return p }})
			}
		case "select":
			fan, err := search.ParseFantasy(cfg.SELECT.Fantasy)
			if err != nil {
				return nil, fmt.Errorf("select.fantasy: %w", err)
			}
			if len(cfg.SELECT.Betas) == 0 || len(cfg.SELECT.Lambdas) == 0 {
				return nil, fmt.Errorf("method select needs select.betas and select.lambdas")
			}
			for _, b := range cfg.SELECT.Betas {
				for _, l := range cfg.SELECT.Lambdas {
					if math.IsNaN(b) || math.IsInf(b, 0) || math.IsNaN(l) || math.IsInf(l, 0) {
						return nil, fmt.Errorf("select: beta %v and lambda %v must be finite numbers", b, l)
					}
					p := search.SELECT{Beta: b, Lambda: l, Fantasy: fan}
					settings = append(settings, setting{"select", "select-b" + num(b) + "-l" + num(l) + "-" + fan.String(), "", p.Params(), func(vendi.Kernel) search.Policy { return p }})
				}
			}
		case "ens":
			fan, err := search.ParseFantasy(cfg.ENS.Fantasy)
			if err != nil {
				return nil, fmt.Errorf("ens.fantasy: %w", err)
			}
			p := search.ENS{Fantasy: fan}
			settings = append(settings, setting{"ens", "ens-" + fan.String(), "", p.Params(), func(vendi.Kernel) search.Policy { return p }})
		case "qvs":
			if len(cfg.Q) == 0 {
				return nil, fmt.Errorf("method qvs needs orders q")
			}
			qs, err := vendi.ParseOrders(strings.Join(cfg.Q, ","))
			if err != nil {
				return nil, fmt.Errorf("q: %w", err)
			}
			seenQ := map[float64]bool{}
			for _, q := range qs {
				if seenQ[q] {
					return nil, fmt.Errorf("q: order %s listed twice", vendi.FormatOrder(q))
				}
				seenQ[q] = true
				settings = append(settings, setting{"qvs", "qvs-q" + vendi.FormatOrder(q), vendi.FormatOrder(q), "", func(k vendi.Kernel) search.Policy { return search.QVS{Q: q, Kernel: k} }})
			}
		default:
			return nil, fmt.Errorf("unknown method %q: expected some of %s", m, strings.Join(asMethods, ","))
		}
	}
	// Repeat-major order: runs of one repeat share its search space, so few
	// spaces are alive at a time.
	var runs []asRun
	for r := 0; r < cfg.Repeats; r++ {
		for _, s := range settings {
			runs = append(runs, asRun{
				run:    campaign.Run{Key: fmt.Sprintf("%s-r%02d", s.key, r), Method: s.method, Q: s.q, Params: s.params, Repeat: r},
				policy: s.policy,
			})
		}
	}
	return runs, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// asPool is a loaded pool with the pieces every run shares.
type asPool struct {
	pool   *datasets.Pool
	a0, a1 float64       // kNN model pseudo-counts
	kernel *vendi.Sparse // diversity kernel in pool indices (metrics)
}

// space builds the search space of a run: the pool in the given order
// (nil: pool order).
func (ap *asPool) space(order []int) (*search.Space, error) {
	sp, err := search.NewSpace(ap.pool.Neighbors, ap.pool.Weights, ap.pool.Labels, ap.a0, ap.a1, order)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", ap.pool.Name, err)
	}
	return sp, nil
}

// spaceCache builds each repeat's search space once and drops it when no
// run uses it and more than max are kept (runs are repeat-major, so a few
// spaces suffice).
type spaceCache struct {
	mu      sync.Mutex
	build   func(repeat int) (*search.Space, error)
	max     int
	entries map[int]*spaceEntry
}

type spaceEntry struct {
	once sync.Once
	sp   *search.Space
	err  error
	refs int
}

func (c *spaceCache) get(repeat int) (*search.Space, func(), error) {
	c.mu.Lock()
	e := c.entries[repeat]
	if e == nil {
		e = &spaceEntry{}
		c.entries[repeat] = e
	}
	e.refs++
	c.mu.Unlock()
	e.once.Do(func() { e.sp, e.err = c.build(repeat) })
	release := func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.refs--; e.refs == 0 && len(c.entries) > c.max {
			delete(c.entries, repeat)
		}
	}
	return e.sp, release, e.err
}

func loadASPool(cfg datasets.Config, g *GlobalOptions, stderr io.Writer) (*asPool, error) {
	if !g.Quiet {
		fmt.Fprintf(stderr, "loading pool %s ...\n", cfg.Kind)
	}
	pool, err := datasets.Load(cfg, g.DataDir, g.CacheDir, g.Workers)
	if err != nil {
		return nil, err
	}
	npos := pool.PositiveCount()
	if npos == 0 {
		return nil, fmt.Errorf("pool %s has no positive item", pool.Name)
	}
	// The authors' prior: the pool's true prevalence rounded to 3 decimals.
	a0, a1 := search.PriorFromPrevalence(pool.Prevalence())
	kernel, err := vendi.SymmetrizeKNN(pool.Len(), pool.Neighbors, pool.Weights)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", pool.Name, err)
	}
	if !g.Quiet {
		fmt.Fprintf(stderr, "pool %s: %d items, %d positives (prior a1 = %g)\n", pool.Name, pool.Len(), npos, a1)
	}
	return &asPool{pool: pool, a0: a0, a1: a1, kernel: kernel}, nil
}

// asSummary is a run's summary row after key, method, q, params, repeat:
// the metrics and seconds = the time the policy spent choosing queries
// (summed over batches, so a resumed run counts its earlier attempts).
func asSummary(m search.Metrics, seconds float64) []campaign.Field {
	f := []campaign.Field{campaign.I("positives", m.Positives)}
	for i, q := range search.MetricOrders {
		f = append(f, campaign.F("vs_q"+vendi.FormatOrder(q), m.VS[i]))
	}
	return append(f,
		campaign.F("max_pairwise_distance", m.MaxPairwiseDistance),
		campaign.F("kernel_det", m.KernelDet),
		campaign.F("kernel_logdet", m.KernelLogDet),
		campaign.F("seconds", seconds))
}

// checkASFlags reports bad values of the list flags as usage errors (the
// same values in a config file are config errors).
func checkASFlags(c *cobra.Command, o *asOptions) error {
	if c.Flags().Changed("methods") {
		for _, m := range splitList(o.methods) {
			if !slices.Contains(asMethods, m) {
				return usageErrorf("--methods: unknown method %q: expected some of %s", m, strings.Join(asMethods, ","))
			}
		}
	}
	if c.Flags().Changed("q") {
		if _, err := vendi.ParseOrders(o.q); err != nil {
			return usageErrorf("--q: %v", err)
		}
	}
	return nil
}

func runAS(c *cobra.Command, g *GlobalOptions, o *asOptions) error {
	if err := checkASFlags(c, o); err != nil {
		return err
	}
	cfg, err := resolveASConfig(c, g, o)
	if err != nil {
		return err
	}
	shard, err := campaign.ParseShard(o.shard)
	if err != nil {
		return usageErrorf("%v", err)
	}
	plan, err := planAS(cfg)
	if err != nil {
		if g.Config != "" {
			return fmt.Errorf("config %s: %w", g.Config, err)
		}
		return usageErrorf("%v", err)
	}
	stderr := c.ErrOrStderr()
	ap, err := loadASPool(cfg.Pool, g, stderr)
	if err != nil {
		return err
	}
	starts := make([]int, cfg.Repeats)
	for r := range starts {
		if starts[r], err = search.StartPositive(ap.pool.Labels, cfg.Seed, r); err != nil {
			return err
		}
	}
	runs := make([]campaign.Run, len(plan))
	policies := map[string]func(vendi.Kernel) search.Policy{}
	for i, p := range plan {
		runs[i] = p.run
		policies[p.run.Key] = p.policy
	}
	spaces := &spaceCache{max: g.Workers + 1, entries: map[int]*spaceEntry{}, build: func(r int) (*search.Space, error) {
		if cfg.Ties == "index" {
			return ap.space(nil)
		}
		return ap.space(search.RandomOrder(ap.pool.Len(), campaign.RNG(cfg.Seed, "order", r)))
	}}
	recorded := cfg
	recorded.Out = ""
	// SIGTERM too: batch schedulers (Slurm, Kubernetes) send it at a time limit.
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	spec := campaign.Spec{
		Dir: cfg.Out, Header: search.RecordHeader, Runs: runs, Steps: cfg.Budget + 1,
		Workers: g.Workers, Shard: shard, Quiet: g.Quiet, Progress: stderr,
		Config: recorded, Version: Version,
	}
	rep, err := campaign.Execute(ctx, spec, func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		sp, release, err := spaces.get(run.Repeat)
		defer release()
		if err != nil {
			return nil, err
		}
		return asOneRun(ctx, ap, sp, cfg, run, rec, policies[run.Key](sp.Kernel), starts[run.Repeat])
	})
	if !g.Quiet {
		fmt.Fprintf(stderr, "%s: %d run(s) ran, %d resumed, %d already done, %d failed in %.1f s\n",
			cfg.Out, rep.Ran, rep.Resumed, rep.Skipped, len(rep.Failed), rep.Seconds)
	}
	if err != nil {
		return err
	}
	return printASTable(c.OutOrStdout(), cfg.Out)
}

func asOneRun(ctx context.Context, ap *asPool, sp *search.Space, cfg asConfig, run campaign.Run, rec *campaign.Recorder, policy search.Policy, start int) ([]campaign.Field, error) {
	prior, err := search.ParseRecords(filepath.Join(cfg.Out, "runs", run.Key+".csv"), rec.Rows())
	if err != nil {
		return nil, err
	}
	ids := ap.pool.IDs
	all, err := search.Run(ctx, search.RunConfig{
		Space: sp, Policy: policy, Start: start,
		Budget: cfg.Budget, Batch: cfg.Batch, Seed: cfg.Seed, Key: run.Key, Workers: 1,
	}, prior, func(batch []search.Query) error {
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
	m, err := search.Measure(ap.kernel, positives, ap.pool.Distance)
	if err != nil {
		return nil, err
	}
	curve, err := search.Curve(ap.kernel, all)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, len(curve))
	for i, p := range curve {
		rows[i] = []string{strconv.Itoa(p.Batch), strconv.Itoa(p.Queries), strconv.Itoa(p.Positives), num(p.VS1)}
	}
	if err := rec.WriteFile("curve", []string{"batch", "queries", "positives", "vs_q1"}, rows); err != nil {
		return nil, err
	}
	return asSummary(m, seconds), nil
}

// printASTable prints the paper-style table of DIR/summary.csv.
func printASTable(w io.Writer, dir string) error {
	path := filepath.Join(dir, "summary.csv")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		_, err := fmt.Fprintf(w, "%s: no finished runs yet\n", path)
		return err
	}
	rows, err := search.SummaryTable(recs[0], recs[1:])
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = io.WriteString(w, search.Markdown(rows))
	return err
}

func newASTableCmd(g *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "table [DIR]",
		Short: "Print the paper-style table (mean ± standard error per method) of a campaign's summary.csv",
		Long: `Prints, for the campaign in DIR (default results/synthetic), the mean and
standard error over repeats of every metric per method, as in the paper's
Tables 1-3: ECI* and SELECT* show their best setting per column, the best
mean of each column is bold.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := filepath.Join("results", "synthetic")
			if len(args) == 1 {
				dir = args[0]
			}
			return printASTable(c.OutOrStdout(), dir)
		},
	}
}

type asSuggestOptions struct {
	as        asOptions
	observed  string
	batch     int
	method    string
	q         string
	format    string
	threshold float64
	beta      float64
	lambda    float64
	fantasy   string
	remaining int
}

func newASSuggestCmd(g *GlobalOptions) *cobra.Command {
	o := &asSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--config configs/TASK.yaml | --pool-dir DIR) --observed FILE --batch B --method qvs|one-step|eci|select|ens|random [--q Q] [--format csv|table]",
		Short: "Suggest the next batch of items to label, given the labels observed so far",
		Long: `Fits the kNN model to the labelled items in FILE (CSV with header index,label
or id,label; label 1 = positive, 0 = negative) and prints the next batch the
chosen policy queries. Columns: rank, index (0-based item), id, probability
(the kNN model's Pr(y = 1) given FILE) and qvs, the paper's eq. 7 value of the
observed positives (quality 1) plus the picks so far (quality = probability)
under order --q.

qvs and the hyperparameters --threshold (eci), --beta/--lambda (select) and
--fantasy (eci, select, ens) choose the policy; ens looks ahead over
--remaining queries (this batch included; default: the config's budget).
random draws from --seed.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runASSuggest(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.as.poolDir, "pool-dir", "", "pool in the authors' folder format")
	f.StringVar(&o.observed, "observed", "", "CSV of labelled items: header index,label or id,label (required)")
	f.IntVar(&o.batch, "batch", 5, "number of items to suggest")
	f.StringVar(&o.method, "method", "qvs", "policy: "+strings.Join(asMethods, "|"))
	f.StringVar(&o.q, "q", "1", "order q of qVS-AS and of the qvs column (inf allowed)")
	f.StringVar(&o.format, "format", "table", "output format: table or csv")
	f.Float64Var(&o.threshold, "threshold", 0.5, "ECI similarity threshold")
	f.Float64Var(&o.beta, "beta", 1, "SELECT beta")
	f.Float64Var(&o.lambda, "lambda", 0.5, "SELECT lambda")
	f.StringVar(&o.fantasy, "fantasy", "pessimistic", "fantasised label of batch policies: pessimistic or optimistic")
	f.IntVar(&o.remaining, "remaining", 0, "ENS: queries left including this batch (default: the config's budget)")
	return c
}

func runASSuggest(c *cobra.Command, g *GlobalOptions, o *asSuggestOptions) error {
	if o.observed == "" {
		return usageErrorf("--observed FILE is required")
	}
	if g.Config == "" && !c.Flags().Changed("pool-dir") {
		return usageErrorf("give the pool with --config FILE or --pool-dir DIR")
	}
	if o.batch < 1 {
		return usageErrorf("--batch must be at least 1, got %d", o.batch)
	}
	if o.format != "table" && o.format != "csv" {
		return usageErrorf("--format %q: expected table or csv", o.format)
	}
	q, err := vendi.ParseOrder(o.q)
	if err != nil {
		return usageErrorf("--q: %v", err)
	}
	fan, err := search.ParseFantasy(o.fantasy)
	if err != nil {
		return usageErrorf("--fantasy: %v", err)
	}
	cfg, err := resolveASConfig(c, g, &o.as)
	if err != nil {
		return err
	}
	ap, err := loadASPool(cfg.Pool, g, c.ErrOrStderr())
	if err != nil {
		return err
	}
	// Pool order: ties go to the lowest pool index, so a suggestion is
	// reproducible without a seed.
	sp, err := ap.space(nil)
	if err != nil {
		return err
	}
	var policy search.Policy
	switch o.method {
	case "random":
		policy = search.Random{}
	case "one-step":
		policy = search.OneStep{}
	case "eci":
		policy = search.ECI{Threshold: o.threshold, Fantasy: fan}
	case "select":
		policy = search.SELECT{Beta: o.beta, Lambda: o.lambda, Fantasy: fan}
	case "ens":
		policy = search.ENS{Fantasy: fan}
	case "qvs":
		policy = search.QVS{Q: q, Kernel: sp.Kernel}
	default:
		return usageErrorf("--method %q: expected one of %s", o.method, strings.Join(asMethods, ", "))
	}
	m := sp.Prior.Clone()
	if err := readObserved(o.observed, ap.pool, m); err != nil {
		return err
	}
	if free := m.Len() - m.NumObserved(); o.batch > free {
		return fmt.Errorf("--batch %d: only %d items are unlabelled", o.batch, free)
	}
	remaining := cfg.Budget
	if c.Flags().Changed("remaining") {
		remaining = o.remaining
	}
	remaining = max(remaining, o.batch)
	st := &search.State{Model: m, Remaining: remaining, RNG: search.RNGFor(cfg.Seed, "suggest", m.NumObserved()), Workers: g.Workers}
	picks, err := policy.Batch(st, o.batch)
	if err != nil {
		return err
	}
	values, err := search.BatchValues(ap.kernel, m, picks, q)
	if err != nil {
		return err
	}
	id := func(i int) string {
		if ap.pool.IDs != nil {
			return ap.pool.IDs[i]
		}
		return strconv.Itoa(i)
	}
	var buf bytes.Buffer
	if o.format == "csv" {
		w := csv.NewWriter(&buf)
		_ = w.Write([]string{"rank", "index", "id", "probability", "qvs"})
		for r, x := range picks {
			_ = w.Write([]string{strconv.Itoa(r + 1), strconv.Itoa(x), id(x), num(m.Probability(x)), num(values[r])})
		}
		w.Flush()
	} else {
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "rank\tindex\tid\tprobability\tqVS_%s\n", vendi.FormatOrder(q))
		for r, x := range picks {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%.4f\t%.4f\n", r+1, x, id(x), m.Probability(x), values[r])
		}
		tw.Flush()
	}
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
}

// readObserved reads FILE (header index,label or id,label) and observes
// every row on m.
func readObserved(path string, pool *datasets.Pool, m *search.Model) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s: empty file; expected a header index,label or id,label", path)
	}
	keyCol, labelCol, byID := -1, -1, false
	for j, h := range recs[0] {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "index":
			keyCol = j
		case "id":
			if keyCol < 0 {
				keyCol, byID = j, true
			}
		case "label":
			labelCol = j
		}
	}
	if keyCol < 0 || labelCol < 0 {
		return fmt.Errorf("%s: header %v: expected columns index,label or id,label", path, recs[0])
	}
	var idIndex map[string]int
	if byID {
		idIndex = make(map[string]int, pool.Len())
		for i := 0; i < pool.Len(); i++ {
			id := strconv.Itoa(i)
			if pool.IDs != nil {
				id = pool.IDs[i]
			}
			idIndex[id] = i
		}
	}
	for k, rec := range recs[1:] {
		line := k + 2
		if len(rec) != len(recs[0]) {
			return fmt.Errorf("%s line %d: %d fields, the header has %d", path, line, len(rec), len(recs[0]))
		}
		key := strings.TrimSpace(rec[keyCol])
		var i int
		if byID {
			var ok bool
			if i, ok = idIndex[key]; !ok {
				return fmt.Errorf("%s line %d: id %q is not in pool %s", path, line, key, pool.Name)
			}
		} else {
			i, err = strconv.Atoi(key)
			if err != nil || i < 0 || i >= pool.Len() {
				return fmt.Errorf("%s line %d: index %q: expected an integer in [0, %d)", path, line, key, pool.Len())
			}
		}
		var y bool
		switch strings.ToLower(strings.TrimSpace(rec[labelCol])) {
		case "1", "true":
			y = true
		case "0", "false":
		default:
			return fmt.Errorf("%s line %d: label %q: expected 1 (positive) or 0 (negative)", path, line, rec[labelCol])
		}
		if m.Observed(i) {
			return fmt.Errorf("%s line %d: item %d (%s) is listed twice", path, line, i, key)
		}
		m.Observe(i, y)
	}
	return nil
}
