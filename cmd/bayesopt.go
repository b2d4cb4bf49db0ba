package cmd

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// discreteBayesOpt runs discrete tasks (set by cmd/bayesopt_discrete.go); handled=false if task is not discrete.
var discreteBayesOpt func(c *cobra.Command, g *GlobalOptions, task, configPath string) (handled bool, err error)

// bayesoptSubcommands are added under `qvs bayesopt` (e.g. `evaluate`).
var bayesoptSubcommands []func(g *GlobalOptions) *cobra.Command

func init() { register(newBayesoptCmd) }

// bayesoptConfig is the resolved configuration of a continuous BayesOpt
// campaign (configs/rover.yaml, configs/lunar.yaml, configs/synthetic-bo.yaml).
// It is recorded in DIR/config.yaml: every key that changes results is here;
// out, workers and shard are not.
type bayesoptConfig struct {
	Task          string   `mapstructure:"task" yaml:"task"`
	Out           string   `mapstructure:"out" yaml:"-"`
	Seed          uint64   `mapstructure:"seed" yaml:"seed"`
	Methods       []string `mapstructure:"methods" yaml:"methods"`
	Q             []string `mapstructure:"q" yaml:"q"`
	Repeats       int      `mapstructure:"repeats" yaml:"repeats"`
	Budget        int      `mapstructure:"budget" yaml:"budget"`
	Init          int      `mapstructure:"init" yaml:"init"`
	Batch         int      `mapstructure:"batch" yaml:"batch"`
	Regions       int      `mapstructure:"regions" yaml:"regions"`
	Tau           float64  `mapstructure:"tau" yaml:"tau"`
	Candidates    int      `mapstructure:"candidates" yaml:"candidates"`
	MaxTrain      int      `mapstructure:"max_train" yaml:"max_train"`
	FitIterations int      `mapstructure:"fit_iterations" yaml:"fit_iterations"`
	QVSFloor      bool     `mapstructure:"qvs_floor" yaml:"qvs_floor,omitempty"`
	// QVSMode is qvs's algorithm: paper (recorded as absent, so configs of
	// earlier campaigns still match) or authors (bayesopt.ModeAuthors).
	QVSMode string `mapstructure:"qvs_mode" yaml:"qvs_mode,omitempty"`
	// FailureTolerance (0: TuRBO's rule) and FailurePerPoint set the
	// trust-region failure rule of every method (ROBOT's code: 32, true).
	FailureTolerance int  `mapstructure:"failure_tolerance" yaml:"failure_tolerance,omitempty"`
	FailurePerPoint  bool `mapstructure:"failure_per_point" yaml:"failure_per_point,omitempty"`
	// Sampler draws the Thompson samples: exact (recorded as absent) or
	// pathwise (bayesopt.SamplerPathwise).
	Sampler string `mapstructure:"sampler" yaml:"sampler,omitempty"`
	// Space, ObjectiveCmd, ObjectiveTimeout and Minimize define a campaign
	// on an external objective (task: space; see runBayesopt).
	Space            string `mapstructure:"space" yaml:"space,omitempty"`
	ObjectiveCmd     string `mapstructure:"objective_cmd" yaml:"objective_cmd,omitempty"`
	ObjectiveTimeout string `mapstructure:"objective_timeout" yaml:"objective_timeout,omitempty"`
	Minimize         bool   `mapstructure:"minimize" yaml:"minimize,omitempty"`
}

// bayesoptDefaultOut is the default results folder of a BayesOpt task:
// results/TASK, or results/TASK-bo when TASK also names an active-search
// pool (synthetic), so that `qvs as` and `qvs bayesopt` never share one.
func bayesoptDefaultOut(task string) string {
	if slices.Contains(datasets.Kinds, task) {
		return filepath.Join("results", task+"-bo")
	}
	return filepath.Join("results", task)
}

// bayesoptGrowable are the keys a rerun into a campaign's folder may grow
// (campaign.CheckConfig): they only add runs, keyed as before.
var bayesoptGrowable = []string{"methods", "q", "repeats"}

// spaceTask is the task name of a campaign on a user's space and objective
// command (--space with --objective-cmd); the campaign itself is named after
// the space file (space.CampaignName).
const spaceTask = space.CampaignTask

// defaultBayesoptConfig returns the built-in settings for a task: the
// paper's M and tau for rover (3, 0.15) and lunar (20, 0.6) (ROBOT's
// settings, from its README) with the budgets of configs/TASK.yaml.
// A space campaign's folder is left empty here: it is named after the space
// file once that is known (resolveBayesoptConfig).
func defaultBayesoptConfig(task string) bayesoptConfig {
	c := bayesoptConfig{
		Task: task, Out: bayesoptDefaultOut(task),
		Methods: append([]string(nil), bayesopt.Methods...),
		Q:       []string{"0.5", "1", "1.5"},
		Repeats: 10, Budget: 200, Init: 20, Batch: 10, Regions: 3, Tau: bayesopt.DefaultTau,
		Candidates: 1000, MaxTrain: 300, FitIterations: 30,
	}
	switch task {
	case spaceTask:
		c.Out = ""
	case "rover":
		c.Regions, c.Tau = 3, 0.15
		c.Budget, c.Init, c.Batch = 800, 50, 30
	case "lunar":
		c.Regions, c.Tau = 20, 0.6
		c.Budget, c.Init, c.Batch = 150, 30, 20
	}
	return c
}

type bayesoptFlags struct {
	task, methods, q, out, shard                      string
	repeats, budget, init, batch, regions, candidates int
	maxTrain                                          int
	tau                                               float64
	qvsFloor                                          bool
	qvsMode                                           string
	space, objectiveCmd, objectiveTimeout             string
	minimize                                          bool
}

func newBayesoptCmd(g *GlobalOptions) *cobra.Command {
	f := &bayesoptFlags{}
	c := &cobra.Command{
		Use:   "bayesopt (--task NAME | --config configs/TASK.yaml | --space space.yaml --objective-cmd CMD) [flags]",
		Short: "Diverse Bayesian optimisation campaigns: random, TuRBO, ROBOT, qVS-BayesOpt (paper §4.2)",
		Long: `Runs repeated diverse Bayesian-optimisation campaigns (paper §3.2 and §4.2,
Algorithm 1) on a continuous task and writes them to --out (default
results/TASK; results/synthetic-bo for synthetic, whose results/synthetic is
qvs as's) with the shared campaign contract:

  DIR/config.yaml                      resolved config (rerun with --config to reproduce)
  DIR/summary.csv                      one row per run: key, method, q, params, repeat,
                                       best_value, solutions_mean_value,
                                       solutions_mean_distance, solutions_min_distance,
                                       solutions_vs, evaluations, restarts, seconds
  DIR/runs/KEY.csv                     every evaluation: iteration,region,x0..x{d-1},value,seconds
                                       (region -1: initial design and random search)
  DIR/runs/KEY.curve.csv               evaluations,best_so_far
  DIR/runs/KEY.solutions.csv           the final M solutions: rank,index,value,x0..x{d-1}
                                       (--space: rank,index,value,<parameter names>
                                       in the space's units, value as printed)
  DIR/runs/KEY.distances.csv           their pairwise task distances: rank_a,rank_b,distance

Methods: random (uniform points), turbo (M trust regions centred on the top-M
points), robot (rank-ordered centres at task distance >= tau, candidates of a
region dropped within tau of points picked this iteration by better-ranked
regions), qvs (centres = greedy qVS_q maximiser over all evaluations; each
batch = greedy qVS_q maximiser over the merged Thompson candidates of all
regions, quality = the Thompson sample min-max scaled to [0, 1]). The final
solutions are the method's centres on all evaluations (random: greedy qVS_1).
--qvs-floor (key qvs_floor) adds the authors' code's rule, absent from the
paper: a qvs centre whose VS_q falls below that of as many points pairwise tau
apart is rejected (runs keyed qvs-qQ-floor-rNN). --qvs-mode authors (key
qvs_mode; default paper) runs qvs as the authors' code does: quality = raw
objective values, a floor always on (VS_q of the centres >= VS_1 of as many
points pairwise tau apart; a region without a valid centre gets a random one
at distance >= tau, which is evaluated), and qVS picks only the centres: each
region proposes its share of the batch as plain Thompson points. Keys
failure_tolerance and failure_per_point set ROBOT's trust-region failure rule
(configs/rover-authors.yaml, configs/lunar-authors.yaml: 32, true), and key
sampler: pathwise draws the Thompson samples by pathwise conditioning on
random Fourier features instead of exactly (for thousands of candidates).

Every random draw derives from --seed, the run key and the iteration, so a
rerun of the same command into the same directory skips finished runs and
continues interrupted ones exactly (Ctrl-C is safe). Runs execute in
parallel (--workers); --shard i/n runs every n-th run for multi-machine use.

Tasks: ` + strings.Join(tasks.Names(), ", ") + ` (or synthetic-<d>); discrete tasks
(kernel: any kernel + table; mof, photoswitch-bo) go to the discrete engine.
Flags override the config's keys.

Your own problem: --space space.yaml --objective-cmd "python3 my_sim.py"
(keys space:, objective_cmd:, objective_timeout:, minimize:) runs the same
campaigns against a program. The campaign is named after the space file's
stem (space.yaml: "space"; default folder results/NAME, --out overrides),
and config.yaml records the command and the space file's size and CRC-32C:
a rerun with another command or an edited space file is refused. Per batch qvs starts the command once (sh -c),
writes the batch as CSV on its stdin (header = the parameter names) and reads
one value per line (or a CSV with a value column) from its stdout, in the
input's row order (a CSV that echoes the parameter columns is checked for
it); --minimize negates them (records hold the maximised values). A non-zero
exit, a wrong number of values, a non-number, reordered rows or
--objective-timeout (per batch, e.g. 10m)
is an error naming the batch with the command's stderr tail; nothing of
that batch is recorded and a rerun resumes there. The command runs in its
own process group, which dies with qvs (kill -9 of qvs included), and may
print at most 64 MiB. A run never has two
batches in flight, but runs execute in parallel (--workers): give
--workers 1 if the program must not run twice at once. Records
(runs/KEY.csv, what a rerun resumes from) hold engine coordinates x0..: the
values themselves, natural logs for scale: log, and the maximised values;
runs/KEY.solutions.csv holds the final solutions under the space's parameter
names, in their units, with the value as the command printed it. qvs
bayesopt suggest --space reads a run's records as they are.`,
		Args: noArgsButSubcommands,
		RunE: func(c *cobra.Command, _ []string) error { return runBayesopt(c, g, f) },
	}
	fs := c.Flags()
	fs.StringVar(&f.task, "task", "", "task name (rover, lunar, synthetic[-d], or a discrete task)")
	fs.StringVar(&f.methods, "methods", "", "comma-separated methods (default random,turbo,robot,qvs)")
	fs.StringVar(&f.q, "q", "", "comma-separated qVS orders for qvs, e.g. 0.5,1,1.5 (inf allowed)")
	fs.IntVar(&f.repeats, "repeats", 0, "repeats per method (default 10)")
	fs.IntVar(&f.budget, "budget", 0, "evaluations per run, initial design included")
	fs.IntVar(&f.init, "init", 0, "uniform random initial points per run")
	fs.IntVar(&f.batch, "batch", 0, "evaluations per iteration")
	fs.IntVar(&f.regions, "regions", 0, "trust regions M (also the number of final solutions)")
	fs.Float64Var(&f.tau, "tau", 0, "ROBOT's distance threshold (default "+boFloat(bayesopt.DefaultTau)+"; rover 0.15, lunar 0.6)")
	fs.BoolVar(&f.qvsFloor, "qvs-floor", false, "qvs: reject centres whose VS falls below that of points tau apart (the authors' code; not in the paper)")
	fs.StringVar(&f.qvsMode, "qvs-mode", "", "qvs algorithm: paper (default) or authors (the authors' code: raw quality, floor at q = 1, qVS picks centres only)")
	fs.IntVar(&f.candidates, "candidates", 0, "Thompson-sampling candidates per region (default 1000)")
	fs.IntVar(&f.maxTrain, "max-train", 0, "GP training points per region: the nearest to its centre (default 300)")
	fs.StringVar(&f.out, "out", "", "results directory (default results/TASK, results/synthetic-bo for synthetic)")
	fs.StringVar(&f.shard, "shard", "", "run only shard i of n (i/n, 0-based; auto/n: i from a Slurm array task id or Kubernetes index; auto: i and n from the scheduler; see docs/cluster.md)")
	fs.StringVar(&f.space, "space", "", "your own problem: space file (YAML parameters: list); needs --objective-cmd")
	fs.StringVar(&f.objectiveCmd, "objective-cmd", "", "command evaluating a batch: CSV on stdin, one value per line on stdout")
	fs.StringVar(&f.objectiveTimeout, "objective-timeout", "", "time limit per batch of --objective-cmd, e.g. 90s or 2h (default none)")
	fs.BoolVar(&f.minimize, "minimize", false, "--objective-cmd prints values to minimise")
	for _, sub := range bayesoptSubcommands {
		c.AddCommand(sub(g))
	}
	return c
}

// boPeekTask reads the top-level task: key of a YAML config ("" if absent);
// a config with a space: key is of task space.
func boPeekTask(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := fileio.ReadInput(path)
	if err != nil {
		return "", usageErrorf("config %s: %w", path, err)
	}
	var head struct {
		Task  string `yaml:"task"`
		Space string `yaml:"space"`
	}
	if err := yaml.Unmarshal(b, &head); err != nil {
		return "", usageErrorf("config %s: %w", path, err)
	}
	if head.Space != "" && head.Task == "" {
		return spaceTask, nil
	}
	return head.Task, nil
}

func boSplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// resolveBayesoptConfig merges built-in defaults, the config file and the
// flags the user set, and validates the result.
func resolveBayesoptConfig(c *cobra.Command, g *GlobalOptions, f *bayesoptFlags, task string) (bayesoptConfig, []vendi.Order, error) {
	cfg := defaultBayesoptConfig(task)
	if err := loadConfig(g.Config, &cfg); err != nil {
		return cfg, nil, err
	}
	if cfg.Task == "" && cfg.Space != "" {
		cfg.Task = spaceTask
	}
	if cfg.Task != task {
		return cfg, nil, usageErrorf("--task %s but config %s has task: %s", task, g.Config, cfg.Task)
	}
	ch := c.Flags().Changed
	if ch("methods") {
		cfg.Methods = boSplitList(f.methods)
	}
	if ch("q") {
		cfg.Q = boSplitList(f.q)
	}
	ints := []struct {
		name string
		src  int
		dst  *int
	}{{"repeats", f.repeats, &cfg.Repeats}, {"budget", f.budget, &cfg.Budget}, {"init", f.init, &cfg.Init},
		{"batch", f.batch, &cfg.Batch}, {"regions", f.regions, &cfg.Regions}, {"candidates", f.candidates, &cfg.Candidates},
		{"max-train", f.maxTrain, &cfg.MaxTrain}}
	for _, p := range ints {
		if ch(p.name) {
			*p.dst = p.src
		}
	}
	if ch("tau") {
		cfg.Tau = f.tau
	}
	if ch("qvs-floor") {
		cfg.QVSFloor = f.qvsFloor
	}
	if ch("qvs-mode") {
		cfg.QVSMode = f.qvsMode
	}
	if cfg.Sampler == bayesopt.SamplerExact {
		cfg.Sampler = "" // the default, recorded as absent
	}
	if cfg.QVSMode == bayesopt.ModePaper {
		cfg.QVSMode = "" // the default, recorded as absent
	}
	if ch("out") {
		cfg.Out = f.out
	}
	strs := []struct {
		name string
		src  string
		dst  *string
	}{{"space", f.space, &cfg.Space}, {"objective-cmd", f.objectiveCmd, &cfg.ObjectiveCmd}, {"objective-timeout", f.objectiveTimeout, &cfg.ObjectiveTimeout}}
	for _, p := range strs {
		if ch(p.name) {
			*p.dst = p.src
		}
	}
	if ch("minimize") {
		cfg.Minimize = f.minimize
	}
	if task == spaceTask {
		cfg.Task = spaceTask
		if cfg.Space == "" || cfg.ObjectiveCmd == "" {
			return cfg, nil, usageErrorf("a campaign on your own problem needs both --space (space:) and --objective-cmd (objective_cmd:)")
		}
		if cfg.Out == "" {
			cfg.Out = bayesoptDefaultOut(space.CampaignName(cfg.Space))
		}
	} else if cfg.Space != "" || cfg.ObjectiveCmd != "" || cfg.ObjectiveTimeout != "" || cfg.Minimize {
		return cfg, nil, usageErrorf("--space, --objective-cmd, --objective-timeout and --minimize are for your own problem, not task %s", task)
	}
	if g.SeedSet() {
		cfg.Seed = g.Seed
	}
	bad := func(format string, args ...any) error { return configErrorf(g.Config, format, args...) }
	if cfg.Repeats < 1 {
		return cfg, nil, bad("repeats = %d: must be at least 1", cfg.Repeats)
	}
	for _, k := range []struct {
		key      string
		v, limit int
	}{{"repeats", cfg.Repeats, maxRepeats}, {"candidates", cfg.Candidates, maxCandidates}, {"regions", cfg.Regions, maxRegions}} {
		if err := checkAtMost(g.Config, k.key, k.v, k.limit); err != nil {
			return cfg, nil, err
		}
	}
	// The engine reads 0 as "its default", which config.yaml would then
	// record as 0: an explicit value below 1 is refused instead.
	for _, k := range []struct {
		key string
		v   int
	}{{"candidates", cfg.Candidates}, {"max_train", cfg.MaxTrain}, {"fit_iterations", cfg.FitIterations}} {
		if k.v < 1 {
			return cfg, nil, bad("%s = %d: must be at least 1", k.key, k.v)
		}
	}
	if len(cfg.Methods) == 0 {
		return cfg, nil, bad("no methods: expected some of %s", strings.Join(bayesopt.Methods, ", "))
	}
	seen := map[string]bool{}
	hasQVS := false
	for _, m := range cfg.Methods {
		if seen[m] {
			return cfg, nil, bad("method %q listed twice", m)
		}
		seen[m] = true
		hasQVS = hasQVS || m == bayesopt.MethodQVS
	}
	var qs []vendi.Order
	for k, s := range cfg.Q {
		q, err := vendi.ParseOrder(s)
		if err != nil {
			return cfg, nil, bad("q: %v", err)
		}
		qs = append(qs, q)
		cfg.Q[k] = q.String()
	}
	if hasQVS && len(qs) == 0 {
		return cfg, nil, bad("method qvs needs at least one order: set --q or q: in the config")
	}
	if cfg.Out == "" {
		return cfg, nil, bad("no output directory: set --out or out: in the config")
	}
	for _, m := range cfg.Methods {
		s := cfg.settings(m, 1)
		if err := s.Validate(); err != nil {
			return cfg, nil, bad("%v", err)
		}
	}
	return cfg, qs, nil
}

func (cfg bayesoptConfig) settings(method string, q vendi.Order) bayesopt.Settings {
	return bayesopt.Settings{Method: method, Q: q, Budget: cfg.Budget, Init: cfg.Init, Batch: cfg.Batch,
		Regions: cfg.Regions, Tau: cfg.Tau, Candidates: cfg.Candidates, MaxTrain: cfg.MaxTrain,
		FitIterations: cfg.FitIterations, TauFloor: cfg.QVSFloor && method == bayesopt.MethodQVS,
		Mode: cfg.QVSMode, Sampler: cfg.Sampler, FailureTolerance: cfg.FailureTolerance, FailurePerPoint: cfg.FailurePerPoint}
}

// bayesoptRun is one planned run with its settings.
type bayesoptRun struct {
	run      campaign.Run
	settings bayesopt.Settings
}

// planBayesoptRuns lists the runs repeat by repeat, so a partial campaign
// has every method for its first repeats.
func planBayesoptRuns(cfg bayesoptConfig, qs []vendi.Order) []bayesoptRun {
	var out []bayesoptRun
	for r := 0; r < cfg.Repeats; r++ {
		for _, m := range cfg.Methods {
			if m == bayesopt.MethodQVS {
				for k, q := range qs {
					key := bayesopt.RunKey(m, cfg.Q[k], cfg.QVSFloor, r)
					params := ""
					switch {
					case cfg.QVSFloor:
						params = "floor tau=" + strconv.FormatFloat(cfg.Tau, 'g', -1, 64)
					case cfg.QVSMode == bayesopt.ModeAuthors:
						params = "authors tau=" + strconv.FormatFloat(cfg.Tau, 'g', -1, 64)
					}
					out = append(out, bayesoptRun{campaign.Run{Key: key, Method: m, Q: cfg.Q[k], Params: params, Repeat: r}, cfg.settings(m, q)})
				}
				continue
			}
			run := campaign.Run{Key: bayesopt.RunKey(m, "", false, r), Method: m, Repeat: r}
			if m == bayesopt.MethodROBOT {
				run.Params = "tau=" + strconv.FormatFloat(cfg.Tau, 'g', -1, 64)
			}
			out = append(out, bayesoptRun{run, cfg.settings(m, 1)})
		}
	}
	return out
}

func runBayesopt(c *cobra.Command, g *GlobalOptions, f *bayesoptFlags) error {
	task := f.task
	if task == "" {
		t, err := boPeekTask(g.Config)
		if err != nil {
			return err
		}
		task = t
	}
	if c.Flags().Changed("space") {
		if task != "" && task != spaceTask {
			return usageErrorf("--space replaces --task: give one of them (task %s)", task)
		}
		task = spaceTask
	}
	if task == "" {
		return usageErrorf("--task is required (or a config with a task: key, or --space with --objective-cmd); tasks: %s", strings.Join(tasks.Names(), ", "))
	}
	if discreteBayesOpt != nil {
		if handled, err := discreteBayesOpt(c, g, task, g.Config); handled {
			return err
		}
	}
	var obj bayesopt.Objective
	if task != spaceTask {
		var err error
		if obj, err = tasks.Lookup(task); err != nil {
			return usageErrorf("--task: %v", err)
		}
	}
	cfg, qs, err := resolveBayesoptConfig(c, g, f, task)
	if err != nil {
		return err
	}
	if task == spaceTask {
		if obj, err = commandObjective(cfg); err != nil {
			return err
		}
	}
	shard, err := campaign.ParseShard(f.shard)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := campaign.CheckConfig(cfg.Out, cfg, bayesoptGrowable); err != nil {
		return err
	}
	plan := planBayesoptRuns(cfg, qs)
	runs := make([]campaign.Run, len(plan))
	settings := map[string]bayesopt.Settings{}
	for i, p := range plan {
		runs[i] = p.run
		settings[p.run.Key] = p.settings
	}
	cmdObj, _ := obj.(*space.Command) // nil for a built-in task
	// Parallel runs first; spare workers go to each run's regions and batch.
	inner := max(1, g.Workers/max(1, len(runs)))
	d := obj.Dim()
	ctx, stop := interruptContext(c)
	defer stop()
	stderr := c.ErrOrStderr()
	if !g.Quiet {
		name := task
		if task == spaceTask {
			name = space.CampaignName(cfg.Space)
		}
		fmt.Fprintf(stderr, "qvs bayesopt: %s, %d runs (budget %d, batch %d, M = %d) into %s\n", name, len(runs), cfg.Budget, cfg.Batch, cfg.Regions, cfg.Out)
	}
	rep, err := campaign.Execute(ctx, campaign.Spec{
		Dir: cfg.Out, Header: bayesopt.RecordHeader(d), Runs: runs, Steps: cfg.Budget, Unit: "evaluations",
		Workers: g.Workers, Shard: shard, Quiet: g.Quiet, Progress: stderr, Config: cfg, Growable: bayesoptGrowable, Version: Version,
		// A space campaign's results depend on the space file's contents,
		// not only its name: an edited file is refused like changed data.
		Inputs: campaignInputs(g.DataDir, cfg.Space),
	}, func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		s := settings[run.Key]
		s.Workers = inner
		prior, err := bayesopt.ParseRecords(rec.Rows(), d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rec.Key(), err)
		}
		if prior, err = bayesopt.KeepCompleteIterations(rec, prior, s); err != nil {
			return nil, err
		}
		res, err := bayesopt.Optimize(ctx, obj, s, bayesopt.RunID{Seed: cfg.Seed, Key: run.Key, Repeat: run.Repeat}, prior,
			func(evs []bayesopt.Evaluation) error {
				rows := make([][]string, len(evs))
				for i, e := range evs {
					rows[i] = bayesopt.FormatRecord(e)
				}
				return rec.Append(rows...)
			})
		if err != nil {
			return nil, err
		}
		return writeBayesoptRunFiles(rec, res, d, cmdObj)
	})
	if !g.Quiet && rep.Started() {
		fmt.Fprintf(stderr, "qvs bayesopt: %s\n", rep)
	}
	if err != nil {
		return err
	}
	return printCampaignTable(c.OutOrStdout(), cfg.Out, eval.KindContinuousBO, shard, len(runs))
}

// commandObjective is the external objective of a task: space campaign.
func commandObjective(cfg bayesoptConfig) (bayesopt.Objective, error) {
	sp, err := space.Load(cfg.Space)
	if err != nil {
		return nil, err
	}
	var timeout time.Duration
	if cfg.ObjectiveTimeout != "" {
		if timeout, err = time.ParseDuration(cfg.ObjectiveTimeout); err != nil || timeout <= 0 {
			return nil, usageErrorf("objective_timeout %q: expected a positive duration such as 90s or 2h", cfg.ObjectiveTimeout)
		}
	}
	return &space.Command{Space: sp, Line: cfg.ObjectiveCmd, Timeout: timeout, Minimize: cfg.Minimize}, nil
}

func boFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeBayesoptRunFiles writes the curve, solutions and distances files and
// returns the run's summary fields. With a space campaign's command (cmdObj
// non-nil) the solutions are written for the user: the space's parameter
// names and values (not engine coordinates) and the value as the command
// printed it; built-in tasks write x0.. and the maximised value.
func writeBayesoptRunFiles(rec *campaign.Recorder, res *bayesopt.Result, d int, cmdObj *space.Command) ([]campaign.Field, error) {
	best := res.BestSoFar()
	curve := make([][]string, len(best))
	for i, v := range best {
		curve[i] = []string{strconv.Itoa(i + 1), boFloat(v)}
	}
	if err := rec.WriteFile("curve", []string{"evaluations", "best_so_far"}, curve); err != nil {
		return nil, err
	}
	head := []string{"rank", "index", "value"}
	if cmdObj != nil {
		head = append(head, cmdObj.Names()...)
	}
	for j := 0; j < d && cmdObj == nil; j++ {
		head = append(head, "x"+strconv.Itoa(j))
	}
	var sols, dists [][]string
	minDist := math.Inf(1)
	for i, s := range res.Solutions {
		if cmdObj != nil {
			row := []string{strconv.Itoa(i + 1), strconv.Itoa(s.Index), boFloat(cmdObj.Printed(s.Value))}
			sols = append(sols, append(row, cmdObj.FormatPoint(s.X)...))
		} else {
			row := []string{strconv.Itoa(i + 1), strconv.Itoa(s.Index), boFloat(s.Value)}
			for _, x := range s.X {
				row = append(row, boFloat(x))
			}
			sols = append(sols, row)
		}
		for j := i + 1; j < len(res.Solutions); j++ {
			dists = append(dists, []string{strconv.Itoa(i + 1), strconv.Itoa(j + 1), boFloat(res.Distances[i][j])})
			minDist = math.Min(minDist, res.Distances[i][j])
		}
	}
	if math.IsInf(minDist, 1) {
		minDist = 0
	}
	if err := rec.WriteFile("solutions", head, sols); err != nil {
		return nil, err
	}
	if err := rec.WriteFile("distances", []string{"rank_a", "rank_b", "distance"}, dists); err != nil {
		return nil, err
	}
	return []campaign.Field{
		campaign.F("best_value", res.BestValue),
		campaign.F("solutions_mean_value", res.SolutionsMeanValue),
		campaign.F("solutions_mean_distance", res.SolutionsMeanDistance),
		campaign.F("solutions_min_distance", minDist),
		campaign.F("solutions_vs", res.SolutionsVS),
		campaign.I("evaluations", len(res.Evaluations)),
		campaign.I("restarts", res.Restarts),
	}, nil
}
