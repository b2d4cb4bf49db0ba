package cmd

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/configkeys"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// asConfig is the YAML config of `qvs as` (configs/TASK.yaml): the task
// name, the pool and the campaign's protocol (methods, grids, repeats,
// budget, batch, seed, ties; keys inline). Every key that changes results
// is recorded in DIR/config.yaml.
type asConfig struct {
	Task            string          `yaml:"task"`
	Pool            datasets.Config `yaml:"pool"`
	search.Protocol `yaml:",inline"`
	// Out is the results directory (default results/TASK); not recorded.
	Out string `yaml:"out,omitempty"`
	// Kind is read from a campaign's own config.yaml (kind:, written by
	// campaign.Spec.Kind) so that it can be given back with --config; not
	// recorded from here.
	Kind string `yaml:"kind,omitempty"`
}

// MarshalYAML records c in DIR/config.yaml without out and kind, which
// are only read from a config.
func (c asConfig) MarshalYAML() (any, error) {
	type recorded asConfig // without this method
	r := recorded(c)
	r.Out, r.Kind = "", ""
	return r, nil
}

// defaultASConfig is the paper's protocol (search.PaperProtocol) on the
// given pool kind.
func defaultASConfig(kind string) asConfig {
	return asConfig{Task: kind, Pool: datasets.DefaultConfig(kind), Protocol: search.PaperProtocol()}
}

// syntheticASConfig is the no-argument default: the built-in synthetic pool
// with a protocol small enough to finish in well under a minute.
func syntheticASConfig() asConfig {
	c := defaultASConfig("synthetic")
	c.Repeats, c.Budget = 5, 100
	return c
}

// asOptions are the settings of `qvs as` (and of the pool and prior of
// `qvs as suggest` and `qvs graph`): the flags that are no config key and
// the config (cfg) that the settings table fills from the defaults of its
// pool kind, the config file and the flags (resolveASConfig).
type asOptions struct {
	poolDir string
	csv     asCSVPoolOptions // suggest and graph
	shard   string
	cfg     asConfig
	table   *configkeys.Table
}

// bindPrior binds --prior (config key prior) in t.
func (o *asOptions) bindPrior(t *configkeys.Table, usage string) {
	configkeys.Bind(t, t.FlagSet().StringVar, "prior", "prior", "", usage, &o.cfg.Prior)
}

func newASCmd(g *GlobalOptions) *cobra.Command {
	o := &asOptions{}
	c := &cobra.Command{
		Use:   "as [--config configs/TASK.yaml] [--pool-dir DIR] [--methods random,one-step,eci,select,ens,qvs] [--q 0,0.1,0.5,1,2,inf] [--repeats R] [--budget B] [--batch b] [--prior prevalence|estimate|a1] [--out DIR] [--shard i/n] [--authors-shortcut]",
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

The kNN model's prior a1 (key prior) is the paper's rule by default,
prevalence: the pool's true prevalence rounded to 3 decimals. estimate uses
only what a run knows: before every batch it is re-estimated from the run's
labels, as a user's suggest loop does (empirical Bayes; see 'qvs as suggest
--help'); a number fixes it. The prior used is printed on stderr.

qVS-AS is the exact greedy of Algorithm 2. --authors-shortcut (config:
authors_shortcut: true) reproduces the authors' code instead: candidates
whose own kNN row misses the positives and picks so far all share the qVS of
the first such candidate, its probability included (their runs are keyed
qvs-qQ-authors).

Output (default results/TASK/): runs/KEY.csv (every query: iteration, batch,
index, id, label, probability, seconds), runs/KEY.curve.csv (VS_1 of the
positives after every batch), summary.csv (one row per run) and config.yaml
(the resolved config with version and seed). Rerunning the same command
resumes: finished runs are skipped, unfinished ones continue from their
query files. A config that only adds runs (more repeats, methods, q values
or ECI/SELECT grid values) grows a finished campaign; any other difference
is refused, naming the keys. --shard i/n runs every n-th run only. The paper-style table
(mean (standard error) per method) is printed at the end; 'qvs as table DIR'
prints it again.

Exit codes: 0 done; 1 a run failed or the campaign was interrupted (rerun to
resume); 2 bad command line.`,
		Args: noArgsButSubcommands,
		RunE: func(c *cobra.Command, _ []string) error { return runAS(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.poolDir, "pool-dir", "", "pool in the authors' folder format (features.npy, labels.npy, csr_weights.npz)")
	f.StringVar(&o.shard, "shard", "", "run only shard i of n (i/n, 0-based; auto/n: i from a Slurm array task id or Kubernetes index; auto: i and n from the scheduler; see docs/cluster.md)")
	// The settings table: flag, config key, the field it sets.
	t := configkeys.NewTable(f)
	o.table = t
	p := &o.cfg.Protocol
	configkeys.BindList(t, "methods", "methods", checkASMethod, "comma-separated methods: "+strings.Join(search.Methods, ","), &p.Methods)
	configkeys.BindValue(t, "q", "q", vendi.OrderList{}, "comma-separated orders of qVS-AS (inf allowed)", &p.Q)
	configkeys.Bind(t, f.IntVar, "repeats", "repeats", 0, "repeats per method", &p.Repeats)
	configkeys.Bind(t, f.IntVar, "budget", "budget", 0, "queries per run after the start", &p.Budget)
	configkeys.Bind(t, f.IntVar, "batch", "batch", 0, "batch size", &p.Batch)
	configkeys.Bind(t, f.StringVar, "out", "out", "", "results directory (default results/TASK)", &o.cfg.Out)
	o.bindPrior(t, "kNN model prior a1: prevalence (the authors' rule: the pool's true prevalence), estimate, or a number in (0, 1) (default: the config's prior key, else prevalence)")
	configkeys.Bind(t, f.BoolVar, "authors-shortcut", "authors_shortcut", false, "qVS-AS: the authors' shortcut (candidates whose own kNN row misses the chosen set share the first such candidate's qVS) instead of the exact greedy (config: authors_shortcut)", &p.AuthorsShortcut)
	configkeys.BindFunc(t, "seed", "seed", func() { p.Seed = g.Seed })
	c.AddCommand(newASSuggestCmd(g), newASTableCmd(g), newASReplayCmd(g))
	return c
}

// checkASMethod checks one item of --methods.
func checkASMethod(m string) error {
	if !slices.Contains(search.Methods, m) {
		return fmt.Errorf("unknown method %q: expected some of %s", m, strings.Join(search.Methods, ","))
	}
	return nil
}

// resolveASConfig resolves o.cfg (resolveSettings): the defaults of the
// config's pool kind, the config file, the flags the user set, then the
// pool flags (--pool-dir, and suggest's and graph's --pool, --graph,
// --kernel). defaultPrior, if not "", replaces the protocol's prior when
// neither the config file nor --prior sets one.
func resolveASConfig(c *cobra.Command, g *GlobalOptions, o *asOptions, defaultPrior string) (asConfig, error) {
	kind, err := peekConfig(g, "pool", "kind")
	if err != nil {
		return o.cfg, err
	}
	o.cfg = syntheticASConfig()
	if kind != "" {
		o.cfg = defaultASConfig(kind)
	}
	if defaultPrior != "" {
		o.cfg.Prior = "" // set by neither the file nor --prior: defaultPrior
	}
	cfg, fl := &o.cfg, c.Flags()
	o.csv.fromFlags = g.fromFlags
	// The pool flags choose the pool before the table applies the flags.
	choosePool := func() error {
		if fl.Changed("pool-dir") {
			cfg.Pool = datasets.DefaultConfig("folder")
			cfg.Pool.Dir = o.poolDir
			cfg.Task = filepath.Base(filepath.Clean(o.poolDir))
		}
		if fl.Lookup("pool") == nil {
			return nil
		}
		return o.csv.choose(fl, cfg)
	}
	if err := resolveSettings(g, o.table, cfg, choosePool); err != nil {
		return *cfg, err
	}
	if cfg.Prior == "" {
		cfg.Prior = defaultPrior
	}
	if fl.Changed("prior") {
		if _, err := search.ParsePrior(cfg.Prior); err != nil {
			return *cfg, usageErrorf("--prior: %w", err)
		}
	}
	if err := o.csv.check(fl, cfg); err != nil {
		return *cfg, err
	}
	// The task names a folder of a campaign only: `as suggest` and
	// `graph` (the commands with --pool) write none, and take any file.
	if err := fileio.CheckPlainName(cfg.Task); cfg.Task != "" && err != nil && fl.Lookup("pool") == nil {
		return *cfg, configErrorf(g.Config, "task: %w", err)
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.Task)
	}
	if err := checkAtMost(g.Config, "repeats", cfg.Repeats, maxRepeats); err != nil {
		return *cfg, err
	}
	if k := cfg.Pool.Kind; k != "" && !slices.Contains(datasets.Kinds, k) {
		return *cfg, configErrorf(g.Config, "pool.kind: %q is not one of %s", k, strings.Join(datasets.Kinds, ", "))
	}
	// A paper task's name on another built-in pool would label the results
	// (folder, tables, figures) with a dataset they do not come from.
	kind = cfg.Pool.Kind
	if kind == "" {
		kind = datasets.KindSynthetic
	}
	if kind == datasets.KindSynthetic {
		if err := datasets.CheckSyntheticConfig(cfg.Pool.Synthetic); err != nil {
			return *cfg, configErrorf(g.Config, "%v", err)
		}
	}
	if slices.Contains(builtinASPools, cfg.Task) && slices.Contains(builtinASPools, kind) && cfg.Task != kind {
		return *cfg, configErrorf(g.Config, "task: %s but pool.kind: %s: the results would be labelled %s; name the task after its pool (task: %s) or load the %s pool",
			cfg.Task, kind, cfg.Task, kind, cfg.Task)
	}
	return *cfg, nil
}

// builtinASPools are the pool kinds whose names are also task names.
var builtinASPools = []string{datasets.KindSynthetic, datasets.KindPhotoswitch, datasets.KindBMG, datasets.KindFashion}

// warnASPoolSize says on stderr when the budget or the batch cannot be
// used as given on a pool of n items (each run starts from one positive):
// a run stops when the pool is exhausted, a batch never exceeds what is
// left of the budget.
func warnASPoolSize(w io.Writer, cfg asConfig, n int) {
	if left := n - 1; cfg.Budget > left {
		fmt.Fprintf(w, "qvs as: warning: budget %d is more than the %s left after the start; each run queries the whole pool (%s)\n", cfg.Budget, nItems(left, "item"), nItems(left, "query"))
	}
	if cfg.Batch > cfg.Budget {
		fmt.Fprintf(w, "qvs as: warning: batch %d is more than the budget %d; each run makes one batch of %d\n", cfg.Batch, cfg.Budget, min(cfg.Budget, n-1))
	} else if cfg.Batch > n-1 {
		fmt.Fprintf(w, "qvs as: warning: batch %d is more than the %s left after the start; each run makes one batch of %d\n", cfg.Batch, nItems(n-1, "item"), n-1)
	}
}

// loadASPool loads the pool of cfg and prepares it for search, saying so
// on stderr unless quiet.
func loadASPool(cfg datasets.Config, g *GlobalOptions, stderr io.Writer) (*search.Pool, error) {
	if !g.Quiet {
		// A user's pool is named by its file: kind "csv" also reads .npy.
		what := cfg.Kind
		if cfg.Kind == "csv" && cfg.CSV.File != "" {
			what = cfg.CSV.File
		} else if cfg.Kind == "graph" && cfg.Graph.File != "" {
			what = cfg.Graph.File
		}
		fmt.Fprintf(stderr, "loading pool %s ...\n", what)
	}
	pool, err := loadPool(cfg, g, stderr)
	if err != nil {
		return nil, err
	}
	steps := newStepLog(stderr, g.Quiet)
	steps.step("kNN model (reverse lists, the diversity kernel's rows)")
	sp, err := search.NewPool(pool)
	steps.end()
	if err != nil {
		return nil, err
	}
	if !g.Quiet {
		for _, note := range pool.Notes {
			fmt.Fprintln(stderr, "qvs: "+note)
		}
		if pool.Unlabeled {
			fmt.Fprintf(stderr, "pool %s: %d items, no labels\n", pool.Name, pool.Len())
		} else {
			fmt.Fprintf(stderr, "pool %s: %d items, %d positives\n", pool.Name, pool.Len(), pool.PositiveCount())
		}
	}
	return sp, nil
}

// describePrior says on stderr which prior a1 the kNN model uses and why;
// fit is what FitPrior read (nil: a campaign, which re-estimates before
// every batch).
func describePrior(w io.Writer, prior search.Prior, a1 float64, fit *search.PriorFit) {
	switch {
	case prior.Rule == search.PriorEstimate && fit == nil:
		fmt.Fprintf(w, "prior a1 = %.4g at the start (one positive): re-estimated before every batch from the run's labels (empirical Bayes, the a1 maximising the leave-one-out likelihood of the labels under the kNN model; see 'qvs as suggest --help')\n", a1)
	case prior.Rule == search.PriorEstimate:
		fmt.Fprintf(w, "prior a1 = %.4g: empirical Bayes from %d observed label(s), %d positive (%d with no labelled neighbour, %d positive): the a1 maximising the leave-one-out likelihood of the labels under the kNN model, plus one pseudo-label of each class (see 'qvs as suggest --help'; set --prior to override)\n",
			a1, fit.Labels, fit.Positives, fit.Isolated, fit.IsolatedPositives)
	case prior.Rule == search.PriorPrevalence:
		fmt.Fprintf(w, "prior a1 = %g: the pool's true prevalence rounded to 3 decimals (the authors' rule; prior: prevalence)\n", a1)
	default:
		fmt.Fprintf(w, "prior a1 = %g (given)\n", a1)
	}
}

// describeColdStart says on stderr which prior a suggestion without labels
// used and what picked its batch (search.Suggest's cold-start rule).
func describeColdStart(w io.Writer, prior search.Prior, s *search.Suggestion, method string, q vendi.Order) {
	if prior.Rule == search.PriorEstimate {
		fmt.Fprintf(w, "prior a1 = %.4g: no labels to estimate it from, so the estimate's pseudo-labels alone (one of each class; set --prior to override)\n", s.A1)
	} else {
		describePrior(w, prior, s.A1, &s.Fit)
	}
	const same = "cold start (no labels): every item has Pr(y = 1) = a1, which scales the probability and qvs columns but not the batch; "
	switch {
	case s.PickedBy == "random":
		fmt.Fprintln(w, same+"random draws it as always")
	case q == 0:
		fmt.Fprintln(w, same+"VS_0 counts items, so every batch ties and the tie order picks it (--seed; config key ties: index, the lowest indices)")
	case method == s.PickedBy:
		fmt.Fprintf(w, "%sqVS-AS's eq. 7 is a1 x VS_%s, so the batch is the most diverse under the kNN kernel (greedy on VS_%s)\n", same, q, q)
	default:
		fmt.Fprintf(w, "%s%s's scores all tie, so the batch is qVS-AS's (as --method qvs): the most diverse under the kNN kernel (greedy on VS_%s); %s ranks once labels are observed\n", same, method, q, method)
	}
}

func runAS(c *cobra.Command, g *GlobalOptions, o *asOptions) error {
	cfg, err := resolveASConfig(c, g, o, "")
	if err != nil {
		return err
	}
	shard, err := campaign.ParseShard(o.shard)
	if err != nil {
		return usageErrorf("%w", err)
	}
	camp, err := search.Plan(cfg.Protocol)
	if err != nil {
		return configError(g.Config, err)
	}
	if err := checkASConfig(cfg); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	pool, err := loadASPool(cfg.Pool, g, stderr)
	if err != nil {
		return err
	}
	// The graph method used is recorded; campaign.Execute checks the
	// resolved config again.
	cfg.Pool.RecordKNN(pool.Graph.Method)
	recorded := cfg
	recorded.Out = ""
	warnASPoolSize(stderr, cfg, pool.Len())
	runFunc, err := camp.RunFunc(pool, cfg.Out, g.Workers)
	if err != nil {
		return err
	}
	if !g.Quiet {
		if _, a1, err := camp.StartPrior(pool); err == nil {
			describePrior(stderr, camp.Prior, a1, nil)
		}
	}
	ctx, stop := interruptContext(c)
	defer stop()
	spec := campaign.Spec{
		Dir: cfg.Out, Header: search.RecordHeader, Runs: camp.Runs, Steps: cfg.Budget + 1, Unit: "queries",
		Workers: g.Workers, Shard: shard, Quiet: g.Quiet, Force: g.Force, Progress: stderr,
		Config: recorded, Growable: search.GrowableKeys, Version: Version, Kind: eval.KindActiveSearch.Key(),
		Inputs: campaignInputs(g.DataDir, datasets.InputFiles(cfg.Pool, g.DataDir)...),
	}
	rep, err := campaign.Execute(ctx, spec, runFunc)
	if !g.Quiet && rep.Started() {
		fmt.Fprintf(stderr, "%s: %s\n", cfg.Out, rep)
	}
	if err != nil {
		return err
	}
	return printCampaignTable(c.OutOrStdout(), cfg.Out, eval.KindActiveSearch, shard, len(camp.Runs))
}

// checkASConfig compares cfg with the config recorded in its folder before
// the pool is loaded (a refusal costs nothing). A CSV pool's graph method
// is recorded as used (approx, or nothing for exact): with knn auto, which
// one depends on the pool's size, either matches here.
func checkASConfig(cfg asConfig) error {
	dir := cfg.Out
	cfg.Out = ""
	var first error
	for _, knn := range cfg.Pool.RecordedKNN() {
		cfg.Pool.CSV.KNN = knn
		err := campaign.CheckConfig(dir, cfg, search.GrowableKeys)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

func newASTableCmd(g *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "table [DIR]",
		Short: "Print the paper-style table (mean (standard error) per method) of a campaign's summary.csv",
		Long: `Prints, for the campaign in DIR (default results/synthetic), the mean and
standard error over repeats of the positives found and every metric of the
paper's Tables 1-3 per method, as 'qvs eval' makes it: ECI* and SELECT*
take their best setting per column (the notes say which), the best mean of
each column is bold (ties at the printed precision included), qVS-AS has a
row per q.`,
		Annotations: ignoresGlobals("config", "seed", "data-dir", "cache-dir"),
		Args:        cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := filepath.Join("results", "synthetic")
			if len(args) == 1 {
				dir = args[0]
			}
			return printCampaignTable(c.OutOrStdout(), dir, eval.KindActiveSearch, campaign.Shard{}, 0)
		},
	}
}

// maxASSuggestBatch bounds `qvs as suggest --batch`. On the 4,000-item
// synthetic pool a batch of 500 takes about 1 s with every method, 1,000
// over a minute with qVS-AS (the chosen set merges into one kNN block whose
// exact secular updates and eigendecompositions grow like B^3 per pick) and
// ~10 s for the qvs column of scattered (random) picks.
const maxASSuggestBatch = 500

type asSuggestOptions struct {
	as        asOptions
	observed  string
	pending   string
	batch     int
	method    string
	q         vendi.Order
	format    string
	rawIDs    bool
	threshold float64
	beta      float64
	lambda    float64
	fantasy   string
	remaining int
	scored    scoredOptions
}

// asCSVPoolOptions are the pool flags of `qvs as suggest` and `qvs graph`:
// a CSV or .npy pool (--pool and the pool.csv keys) or the user's own
// graph or kernel (pool.graph keys) without writing a config. The flags
// that name the pool's file choose its kind (choose, before the settings
// table applies the flags); the others are rows of the table.
type asCSVPoolOptions struct {
	file, graph, kernel, ids string
	// fromFlags are the flags whose value (given or default) went into the
	// pool's keys: a SettingError on one of their keys names the flag
	// (errorMessage). Shared with GlobalOptions.fromFlags.
	fromFlags map[string]bool
}

// register defines the pool flags on t's flag set: the file flags, which
// choose the pool (choose), and a row of t for every other, bound to its
// pool.csv (and pool.graph) key and field of cfg.
func (o *asCSVPoolOptions) register(t *configkeys.Table, cfg *asConfig) {
	f := t.FlagSet()
	cs, gc := &cfg.Pool.CSV, &cfg.Pool.Graph
	f.StringVar(&o.file, "pool", "", "pool CSV with a header: one row per item, feature columns, optional id column, no label needed (config: pool.kind csv; with such a config, overrides pool.csv.file only)")
	f.StringVar(&o.graph, "graph", "", "your own similarity graph instead of a pool CSV: W.npz (scipy.sparse.save_npz of a CSR matrix; row i = i's neighbours) or an edge list CSV with header i,j,w or id_i,id_j,w; weights in [0, 1], self loops ignored (pool.graph.file)")
	f.StringVar(&o.kernel, "kernel", "", "your own dense similarity K.npy or K.csv (n x n, entries in [0, 1]): the kNN graph keeps the --k largest entries of each row, the diagonal excluded, ties to the lower index (pool.graph.kernel)")
	f.StringVar(&o.ids, "ids", "", "--graph, --kernel, --pool X.npy: item ids, one per line in item order (optional header id) (pool.graph.ids, pool.csv.ids_file)")
	for _, k := range [][2]string{{"pool", "pool.csv.file"}, {"graph", "pool.graph.file"}, {"kernel", "pool.graph.kernel"}, {"ids", "pool.csv.ids_file"}, {"ids", "pool.graph.ids"}} {
		t.Key(k[0], k[1])
	}
	configkeys.Bind(t, f.StringVar, "id-column", "pool.csv.id_column", "", "--pool: column of item ids (pool.csv.id_column)", &cs.IDColumn)
	configkeys.BindList(t, "features", "pool.csv.feature_columns", nil, "--pool: comma-separated feature columns (default: every column but the id and label)", &cs.FeatureColumns)
	configkeys.Bind(t, f.StringVar, "feature-prefix", "pool.csv.feature_prefix", "", "--pool: the feature columns are those named PREFIX... (e.g. x for x1,x2,...)", &cs.FeaturePrefix)
	configkeys.BindChoice(t, "metric", "pool.csv.metric", datasets.MetricEuclidean, datasets.Metrics, "--pool: kNN metric, euclidean, cosine or tanimoto (fingerprints: --fingerprint-column, or 0/1 or count feature columns; edge weight = Tanimoto similarity)", &cs.Metric)
	configkeys.BindMinInt(t, "k", "pool.csv.k", datasets.DefaultConfig(datasets.KindCSV).CSV.K, 1, "--pool: neighbours per item in the kNN graph", &cs.K, &gc.K)
	t.Key("k", "pool.graph.k")
	configkeys.Bind(t, f.StringVar, "fingerprint-column", "pool.csv.fingerprint_column", "", "--pool: column of fingerprints as text (with --metric tanimoto), see --fingerprint-format", &cs.FingerprintColumn)
	configkeys.BindChoice(t, "fingerprint-format", "pool.csv.fingerprint_format", datasets.FingerprintBits, datasets.FingerprintFormats, "--pool: bits ('0'/'1' characters, bit 0 first) or hex (chemfp's FPS convention: two digits per byte, bytes in order, bit i = 1<<(i%8) of byte i/8; '04' = '00100000')", &cs.FingerprintFormat)
	configkeys.BindList(t, "exclude-columns", "pool.csv.exclude_columns", nil, "--pool: comma-separated columns that are never features", &cs.ExcludeColumns)
	configkeys.BindChoice(t, "knn", "pool.csv.knn", datasets.KNNAuto, datasets.KNNMethods, "--pool: kNN graph exact, approx (its recall@k measured and printed) or auto: approx from "+strconv.Itoa(datasets.ApproxMinItems)+" items, "+strconv.Itoa(datasets.ApproxMinItemsTanimoto)+" with --metric tanimoto (pool.csv.knn)", &cs.KNN)
}

// asCSVPoolFlags are the flags that set pool.csv keys.
var asCSVPoolFlags = []string{"pool", "id-column", "features", "feature-prefix", "metric", "k", "fingerprint-column", "fingerprint-format", "exclude-columns", "knn"}

// asGraphPoolFlags are the flags that set pool.graph keys.
var asGraphPoolFlags = []string{"graph", "kernel", "ids", "k"}

// choose sets the pool's kind and file from the flags, before the
// settings table applies the other pool flags: --graph or --kernel make a
// pool.graph pool; --pool replaces a config's pool of another kind by a
// CSV pool (whose defaults are the flags' defaults) and overrides only the
// file of a config's CSV pool; the other pool flags without --pool on a
// pool of another kind, and flags that contradict each other, are usage
// errors.
func (o *asCSVPoolOptions) choose(fl *pflag.FlagSet, cfg *asConfig) error {
	if fl.Changed("graph") || fl.Changed("kernel") {
		switch {
		case fl.Changed("graph") && fl.Changed("kernel"):
			return usageErrorf("give --graph or --kernel, not both")
		case fl.Changed("pool") || fl.Changed("pool-dir"):
			return usageErrorf("give one pool: --pool FILE.csv, --pool-dir DIR, --graph FILE or --kernel FILE")
		case fl.Changed("graph") && fl.Changed("k"):
			return usageErrorf("--k applies to --kernel and --pool: --graph is used as given")
		}
		for _, name := range asCSVPoolFlags {
			if name != "k" && fl.Changed(name) {
				return usageErrorf("--%s describes a CSV pool; --graph and --kernel give the similarity itself", name)
			}
		}
		cfg.Pool = datasets.DefaultConfig(datasets.KindGraph)
		cfg.Pool.Graph.File, cfg.Pool.Graph.Kernel, cfg.Pool.Graph.IDs = o.graph, o.kernel, o.ids
		base := filepath.Base(o.graph + o.kernel)
		cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
		for _, name := range asGraphPoolFlags {
			o.fromFlags[name] = true
		}
		return nil
	}
	if fl.Changed("ids") && !strings.EqualFold(filepath.Ext(o.file), ".npy") {
		return usageErrorf("--ids applies to --graph and --kernel, and to --pool X.npy (a CSV pool takes --id-column)")
	}
	var set []string
	for _, name := range asCSVPoolFlags {
		if fl.Lookup(name) != nil && fl.Changed(name) {
			set = append(set, "--"+name)
		}
	}
	switch {
	case len(set) == 0:
		return nil
	case fl.Changed("pool") && fl.Changed("pool-dir"):
		return usageErrorf("give --pool FILE.csv or --pool-dir DIR, not both")
	case !fl.Changed("pool") && cfg.Pool.Kind != datasets.KindCSV:
		return usageErrorf("%s describe a CSV pool: give --pool FILE.csv (the pool is of kind %s)", strings.Join(set, ", "), cfg.Pool.Kind)
	case fl.Changed("features") && fl.Changed("feature-prefix"):
		return usageErrorf("give --features or --feature-prefix, not both")
	}
	cs := &cfg.Pool.CSV
	if fl.Changed("pool") {
		// A config's own CSV pool keeps its keys (id_column, features,
		// labels, k, ...): --pool then overrides pool.csv.file like any
		// flag its key; any other pool is replaced.
		if cfg.Pool.Kind != datasets.KindCSV {
			cfg.Pool = datasets.DefaultConfig(datasets.KindCSV)
			for _, name := range asCSVPoolFlags {
				o.fromFlags[name] = true
			}
		}
		cs.File = o.file
		if fl.Changed("ids") {
			cs.IDsFile = o.ids
		}
		base := filepath.Base(o.file)
		cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
	}
	// --features and --feature-prefix each replace the other's key.
	if fl.Changed("features") {
		cs.FeaturePrefix = ""
	}
	if fl.Changed("feature-prefix") {
		cs.FeatureColumns = nil
	}
	return nil
}

// check refuses the pool flags that contradict each other, once the table
// has applied them, and completes what follows from them (--metric
// tanimoto weighs edges by the Tanimoto similarity; --knn auto is no key).
// Each flag's own value (--metric, --knn, --k, --fingerprint-format) was
// checked when it was parsed (configkeys.Choice, MinInt).
func (o *asCSVPoolOptions) check(fl *pflag.FlagSet, cfg *asConfig) error {
	cs := &cfg.Pool.CSV
	if fl.Changed("metric") && cs.Metric == datasets.MetricTanimoto && !fl.Changed("similarity") {
		cs.Similarity = datasets.SimilarityNative
	}
	if fl.Changed("fingerprint-column") && cs.Metric != datasets.MetricTanimoto {
		return usageErrorf("--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --metric tanimoto")
	}
	if fl.Changed("knn") && cs.KNN == datasets.KNNAuto {
		cs.KNN = ""
	}
	return nil
}

func newASSuggestCmd(g *GlobalOptions) *cobra.Command {
	o := &asSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--pool pool.csv|X.npy [--ids ids.txt] [--knn auto|exact|approx] [--id-column id] [--features f1,f2,... | --feature-prefix x | --fingerprint-column fp] [--exclude-columns c1,...] [--metric euclidean|cosine|tanimoto] [--k 20] | --graph W.npz|edges.csv [--ids ids.csv] | --kernel K.npy|K.csv [--k 20] [--ids ids.csv] | --config configs/TASK.yaml | --pool-dir DIR) [--observed FILE] [--pending FILE] --batch B --method qvs|one-step|eci|select|ens|random (scores: qvs|greedy|top|random) [--q Q] [--prior a1] [--minimize] [--acquisition ucb|ei|phit|mean|thompson] [--format csv|table|json]",
		Short: "Suggest the next batch of items to label or score, given the labels or scores observed so far",
		Long: `Fits the kNN model to the labelled items in FILE (CSV with header index,label
or id,label; label 1 = positive, 0 = negative) and prints the next batch the
chosen policy queries. Columns: rank, index (0-based item), id, probability
(the kNN model's Pr(y = 1) given FILE) and qvs (qVS_Q in the table), the
paper's eq. 7 value of the observed positives (quality 1) plus the picks so
far (quality = probability) under order --q.

The first batch (no labels yet: no --observed, or FILE with its header
alone) is a cold start: every item has the same probability, the prior a1,
so qVS-AS's eq. 7 is a1 x VS_q of the batch and its greedy picks the most
diverse batch under the kNN kernel (greedy on VS_q; pending items first);
the prior scales the probability and qvs columns, never the batch. One-step,
ECI, SELECT and ENS have only ties to rank, so they return that same batch
(said on stderr; JSON: cold_start, picked_by) and rank from the next call
on; random stays random. Then append each batch's labels to FILE and ask
again.

Large pools: --pool X.npy, a float32/float64/uint8 matrix one row per item
(ids from --ids FILE, one per line, else the row index; uint8 with --metric
tanimoto holds fingerprints packed MSB-first as numpy.packbits writes them).
From ` + strconv.Itoa(datasets.ApproxMinItems) + ` items (` + strconv.Itoa(datasets.ApproxMinItemsTanimoto) + ` with --metric tanimoto) the kNN graph of
--pool is approximate (--knn auto; exact or approx to choose): its recall@k, measured against brute force on
sampled rows, is printed on stderr. Graphs are cached under --cache-dir,
keyed by the features.

The pool: --pool pool.csv, one row per item with a header, the feature
columns (--features or --feature-prefix; default every column but --id-column,
a column named label and --exclude-columns) and the kNN graph built with
--metric and --k; or your own similarity: --graph W.npz (a CSR matrix
saved by scipy.sparse.save_npz, row i = i's neighbours) or --graph
edges.csv (header i,j,w with 0-based indices, or id_i,id_j,w), used as
given, or --kernel K.npy|K.csv (a dense n x n similarity, whose kNN graph
keeps the --k largest entries of each row, the diagonal excluded, ties to
the lower index), with --ids ids.csv naming the items (one per line, in
order); weights must lie in [0, 1], self loops are ignored, zeros dropped;
or a config (--config, pool.kind csv or graph, see configs/README.md); or
the authors' folder format (--pool-dir, described in configs/README.md).
The pool needs no labels: only the labels in FILE are used. Columns never
leak into the features: a column without a name (the index pandas' to_csv
writes) is read as the row index when it holds 0..n-1, as the ids when its
values are unique (said on stderr), else refused; a column named like a
label or target (target, y without x, class, activity, active, is_*) is
refused unless --exclude-columns leaves it out or --features names it.

Fingerprints (chemists' libraries): --metric tanimoto compares items by
Tanimoto similarity, |a AND b| / |a OR b|, on a text column of fingerprints
(--fingerprint-column fp; --fingerprint-format bits: '0'/'1' characters, bit
0 first, as RDKit's ToBitString; hex: chemfp's FPS convention, two hex
digits per byte, bytes in order, bit i is 1<<(i%8) of byte i/8, so '04' is
'00100000') or on the feature columns: 0/1 bits, or non-negative integer
counts compared by sum(min)/sum(max), which equals Tanimoto on 0/1. Two
all-zero fingerprints have similarity 1, an all-zero and any other 0. The
kNN graph is exact; an edge weighs the Tanimoto similarity, ties go to the
lower index, edges of similarity 0 are dropped.

The diversity kernel of qVS-AS (and the qvs column) is the symmetrised
graph, k(i, j) = (W_ij + W_ji)/2 for i != j with unit diagonal, W the kNN
graph's weights (0 off the graph): items that are not neighbours either
way count as dissimilar.

The model's prior a1 (its Pr(y = 1) far from every label) is --prior a1, else
the config key prior (a number or estimate), else the estimate from your
labels (empirical Bayes): the a1 that maximises the leave-one-out
likelihood of the labels in FILE under the kNN model, with one pseudo-label
of each class. A label with no labelled neighbour counts as one draw of a1;
a positive found next to other positives is explained by them and barely
moves a1, so labels a search gathered around its positives do not inflate
it, and the pool's size plays no part. With no label a1 = 1/2, with one
positive alone 2/3 (unknown: the next batch explores). How close it comes
to the true prevalence and what it costs in positives found:
docs/results.md, "The default prior". 'prior: prevalence' (the paper
configs) is the authors' rule: the pool's true prevalence, read from every
label of the pool, which a real user does not have; suggest refuses it from
a config and takes it only as --prior prevalence on a pool labelled
throughout. The prior used is printed on stderr.

qvs and the hyperparameters --threshold (eci), --beta/--lambda (select) and
--fantasy (eci, select, ens) choose the policy; ens looks ahead over
--remaining queries (this batch included; default: the config's budget).

Experiments still running: --pending FILE (CSV with header index or id,
resolved as in --observed) lists items chosen earlier whose labels are not
known yet. They are never suggested and not labelled: the policy treats them
as the first picks of this batch (qvs: members of the set with their
probability as quality, also in the qvs column; eci, select, ens: their
labels fantasised as --fantasy says; one-step, random: skipped). So with the
first j items of a batch pending, the output is the rest of that batch (for
ens with --remaining j smaller: pending queries are spent). An item both
pending and in --observed is an error: remove it from the pending file once
its label is known.
Exact ties (common among items far from every label) are broken at random
from --seed, as campaigns do (config key ties: index picks the lowest
index); random draws from --seed too.

Scores instead of labels (docking scores, IC50, yields): FILE with a value
(or score) column instead of label, e.g. header id,value, fits a Gaussian
process to the scores on the pool's own features (--gp-kernel auto: Tanimoto
for fingerprints, MinMax for counts with --metric tanimoto, else Matern-5/2;
constant mean, signal and noise variance and length scale by maximum
marginal likelihood on standardised scores; exact up to 1,000 scores, beyond
that the DTC approximation on 600 inducing scores, the best half and a random
half) and needs no kNN graph. --minimize when lower is better. A row whose
value is empty, nan or failed (any case), or whose status column says failed,
is a failed measurement: left out of the fit, never suggested again. Methods:
qvs (default; the paper's Algorithm 3: greedy qVS_Q over the 4 x batch items
of highest acquisition, at least 100 and at most 4,000, with the acquisition
as quality and a diversity kernel over them: --diversity dense, the GP
kernel itself, or knn, its symmetrised 20-nearest-neighbour graph; --q
defaults to 2 with scores: on the dense kernel VS_2 = (tr K)^2/||K||_F^2 has a
closed form, so the greedy costs one kernel row per pick, and it found about as
many hits as q = 1), greedy (the top posterior means), top (the top acquisitions) and
random. --acquisition ucb (default: mean + sqrt(--ucb-beta) x sd, beta 1,
min-max scaled to [0, 1] over the candidates as quality), ei (expected
improvement over the best score), phit (probability of a hit: a score beyond
--hit-threshold, else in the best --hit-top-fraction of the scores, default
0.05), mean, or thompson (one joint draw from the posterior over the
candidates, reproducible from --seed). Defaults chosen on photoswitch
wavelengths and RDKit logP and QED of a screening library (docs/results.md).
Columns: rank, index, id, the acquisition, the posterior mean and sd of the
score (your units and sign), and for qvs the quality and the qvs column
(qVS_Q of the pending items and the picks so far); stderr describes the
fitted GP and counts the hits.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runASSuggest(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.as.poolDir, "pool-dir", "", "pool in the authors' folder format")
	t := configkeys.NewTable(f)
	o.as.table = t
	o.as.csv.register(t, &o.as.cfg)
	o.as.bindPrior(t, "kNN model prior a1: a number in (0, 1), estimate or prevalence (default: the config's prior key, else estimate)")
	configkeys.BindFunc(t, "seed", "seed", func() { o.as.cfg.Seed = g.Seed })
	f.StringVar(&o.observed, "observed", "", "CSV of labelled items: header index,label or id,label (- reads stdin); none, or the header alone, for the first batch (cold start: the most diverse); or scored items: header index,value or id,value (a GP, see below)")
	f.StringVar(&o.pending, "pending", "", "CSV of items whose experiments are still running: header index or id; never suggested, treated as this batch's first picks (- reads stdin)")
	f.IntVar(&o.batch, "batch", 5, "number of items to suggest (at most 500; with scores at most 10,000)")
	f.StringVar(&o.method, "method", "qvs", "policy: "+strings.Join(search.Methods, "|"))
	o.q = 1
	f.Var(&o.q, "q", "order q of qVS-AS and of the qvs column (inf allowed; with scores the default is 2)")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json (one document: docs/json.md)")
	f.BoolVar(&o.rawIDs, "raw-ids", false, "keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)")
	f.Float64Var(&o.threshold, "threshold", 0.5, "ECI similarity threshold")
	f.Float64Var(&o.beta, "beta", 1, "SELECT beta")
	f.Float64Var(&o.lambda, "lambda", 0.5, "SELECT lambda")
	f.StringVar(&o.fantasy, "fantasy", "pessimistic", "fantasised label of batch policies: pessimistic or optimistic")
	f.IntVar(&o.remaining, "remaining", 0, "ENS: queries left including this batch (default: the config's budget)")
	o.scored.register(c)
	return c
}

func runASSuggest(c *cobra.Command, g *GlobalOptions, o *asSuggestOptions) error {
	fl := c.Flags()
	// Scores (a value column) go to the GP; 0/1 labels to the kNN model.
	if o.observed != "" {
		scored, err := search.ObservedHasScores(o.observed)
		if err != nil {
			return err
		}
		if scored {
			return runASSuggestScored(c, g, o)
		}
	}
	if err := flagsOnlyFor(c, "scores (a value column in --observed)", scoredFlags); err != nil {
		return err
	}
	if err := checkSuggestFlags(o.batch, maxASSuggestBatch,
		"larger batches cost minutes: the exact greedy and the qvs column grow faster than the cube of the batch; ask for more in later calls with the labels observed so far",
		o.format, o.method, search.Methods); err != nil {
		return err
	}
	if g.Config == "" && !fl.Changed("pool-dir") && !fl.Changed("pool") && !fl.Changed("graph") && !fl.Changed("kernel") {
		return usageErrorf("give the pool with --pool FILE.csv, --graph FILE, --kernel FILE, --config FILE or --pool-dir DIR")
	}
	q := o.q // parsed and checked with the flag
	fan, err := search.ParseFantasy(o.fantasy)
	if err != nil {
		return usageErrorf("--fantasy: %w", err)
	}
	for _, chk := range []struct {
		flag  string
		check func(float64) error
		v     float64
	}{{"threshold", search.CheckThreshold, o.threshold}, {"beta", search.CheckBeta, o.beta}, {"lambda", search.CheckLambda, o.lambda}} {
		if err := chk.check(chk.v); err != nil {
			return usageErrorf("--%s: %v", chk.flag, err)
		}
	}
	if c.Flags().Changed("remaining") && o.remaining < o.batch {
		return usageErrorf("--remaining %d is less than --batch %d: ENS looks ahead over the queries left, this batch included", o.remaining, o.batch)
	}
	cfg, err := resolveASConfig(c, g, &o.as, search.PriorEstimate)
	if err != nil {
		return err
	}
	prior, err := search.ParsePrior(cfg.Prior)
	if err != nil {
		return configError(g.Config, err)
	}
	if prior.Rule == search.PriorPrevalence && !fl.Changed("prior") {
		return configErrorf(g.Config, "prior: prevalence reads every label of the pool, which a real search does not have; suggest uses your labels (remove the key for the default estimate, or give a number); to use the pool's labels anyway pass --prior prevalence")
	}
	if err := checkASSuggestInputs(cfg.Pool, o.observed, o.pending); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	pool, err := loadASPool(cfg.Pool, g, stderr)
	if err != nil {
		return err
	}
	// A suggestion reads the kNN graph only: the features go before the
	// model and kernel are built.
	pool.DropFeatures()
	// No --observed (or a header alone) is a cold start: search.Suggest.
	var observed []search.Observation
	if o.observed != "" {
		if observed, err = search.ParseObserved(o.observed, pool.Pool); err != nil {
			return err
		}
	}
	var pending []int
	if o.pending != "" {
		if pending, err = search.ParsePending(o.pending, pool.Pool, observed, o.observed); err != nil {
			return err
		}
	}
	if free := pool.Len() - len(observed) - len(pending); o.batch > free {
		return fmt.Errorf("--batch %d: pool %s has %s, %d labelled and %d pending: ask for at most %d", o.batch, pool.Name, nItems(pool.Len(), "item"), len(observed), len(pending), free)
	}
	remaining := cfg.Budget
	if fl.Changed("remaining") {
		remaining = o.remaining
	}
	if remaining < o.batch {
		// The budget (the config's, or the default) is smaller than the
		// batch asked for; only ENS reads the horizon, so only ENS warns.
		if o.method == "ens" {
			fmt.Fprintf(c.ErrOrStderr(), "qvs as suggest: warning: budget %d is less than --batch %d; ENS looks ahead over %d queries (set --remaining)\n", remaining, o.batch, o.batch)
		}
		remaining = o.batch
	}
	steps := newStepLog(stderr, g.Quiet)
	steps.step(fmt.Sprintf("picking a batch of %d (%s)", o.batch, o.method))
	s, err := search.Suggest(pool, search.SuggestRequest{
		Observed: observed, Pending: pending, Prior: prior, Ties: cfg.Ties, Seed: cfg.Seed,
		Method: o.method, Settings: search.PolicySettings{Threshold: o.threshold, Beta: o.beta, Lambda: o.lambda, Fantasy: fan, Q: q},
		Batch: o.batch, Remaining: remaining, Workers: g.Workers, ConsumeGraph: true,
	})
	steps.end()
	if err != nil {
		return err
	}
	if !g.Quiet {
		if s.ColdStart {
			describeColdStart(stderr, prior, s, o.method, q)
		} else {
			describePrior(stderr, prior, s.A1, &s.Fit)
		}
	}
	id := func(i int) string {
		if pool.IDs != nil {
			return pool.IDs[i]
		}
		return strconv.Itoa(i)
	}
	if o.format == "csv" || o.format == formatJSON {
		head := []string{"rank", "index", "id", "probability", "qvs"}
		rows := make([][]string, len(s.Picks))
		for r, x := range s.Picks {
			rows[r] = []string{strconv.Itoa(r + 1), strconv.Itoa(x), id(x), fullPrecision(s.Probabilities[r]), fullPrecision(s.Values[r])}
		}
		if o.format == formatJSON {
			// JSON keeps ids verbatim: no spreadsheet opens it.
			return writeJSONTable(c.OutOrStdout(), "as suggest", head, rows,
				jsonField{"method", o.method}, jsonField{"q", jsonNumber(float64(q))}, jsonField{"prior_a1", s.A1},
				jsonField{"labelled", len(observed)}, jsonField{"pending", len(pending)},
				jsonField{"cold_start", s.ColdStart}, jsonField{"picked_by", s.PickedBy})
		}
		for _, r := range rows {
			r[2] = csvID(r[2], o.rawIDs)
		}
		return writeSuggestions(c.OutOrStdout(), "csv", head, rows, nil)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\tindex\tid\tprobability\tqVS_%s\n", q.String())
	for r, x := range s.Picks {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.4f\t%.4f\n", r+1, x, tableCell(id(x)), s.Probabilities[r], s.Values[r])
	}
	tw.Flush()
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
}

func fullPrecision(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
