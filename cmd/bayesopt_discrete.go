package cmd

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Discrete BayesOpt tasks (paper §4.2, Algorithm 3), run by `qvs bayesopt
// --task kernel|mof|photoswitch-bo` or a config whose task: key names one
// of them. kernel is the generic task: any precomputed kernel plus a table
// (configs/mof.yaml is one instance); mof is kernel with the MOF files and
// settings as defaults.
const (
	taskKernel      = "kernel"
	taskMOF         = "mof"
	taskPhotoswitch = "photoswitch-bo"
)

func init() { discreteBayesOpt = runDiscreteBayesOpt }

// discreteData locates a task's candidate set. Relative paths are taken
// from the data directory (--data-dir).
type discreteData struct {
	// Format: "kernel" (a kernel matrix file plus a CSV table, the MOF
	// format) or "photoswitch" (the photoswitch CSV; Tanimoto kernel).
	Format          string   `mapstructure:"format" yaml:"format"`
	Kernel          string   `mapstructure:"kernel" yaml:"kernel,omitempty"`
	Table           string   `mapstructure:"table" yaml:"table,omitempty"`
	IDColumn        string   `mapstructure:"id_column" yaml:"id_column,omitempty"`
	ObjectiveColumn string   `mapstructure:"objective_column" yaml:"objective_column,omitempty"`
	MetricColumns   []string `mapstructure:"metric_columns" yaml:"metric_columns,omitempty"`
	Photoswitch     string   `mapstructure:"photoswitch" yaml:"photoswitch,omitempty"`
	// Note is shown when the data files are missing (where to get them).
	Note string `mapstructure:"note" yaml:"-"`
}

// discreteConfig is the YAML config of a discrete task (configs/mof.yaml,
// configs/photoswitch-bo.yaml). Flags the user sets override its keys.
type discreteConfig struct {
	Task string `mapstructure:"task" yaml:"task"`
	// Name names the candidate set: the campaign's name in tables, the
	// default folder results/NAME, and part of every random stream (so a
	// renamed set draws other initial points). Default: the task.
	Name          string       `mapstructure:"name" yaml:"name,omitempty"`
	Out           string       `mapstructure:"out" yaml:"-"`
	Seed          uint64       `mapstructure:"seed" yaml:"seed"`
	Methods       []string     `mapstructure:"methods" yaml:"methods"`
	Q             []string     `mapstructure:"q" yaml:"q"`
	Repeats       int          `mapstructure:"repeats" yaml:"repeats"`
	Budget        int          `mapstructure:"budget" yaml:"budget"`
	Init          int          `mapstructure:"init" yaml:"init"`
	Batch         int          `mapstructure:"batch" yaml:"batch"`
	Beta          float64      `mapstructure:"beta" yaml:"beta"`
	GoodThreshold float64      `mapstructure:"good_threshold" yaml:"good_threshold"`
	Data          discreteData `mapstructure:"data" yaml:"data"`
}

// mofNote is appended to the error when the MOF files are missing.
const mofNote = `The 1,000-MOF data of Liu et al. 2024 (Chem. Sci., doi:10.1039/D4SC03609C; code github.com/vertaix/VBO)
is not public. Export the kernel restricted to the labelled MOFs (n x n, row order = the table's) and a
table of the same MOFs, put them at the paths above (relative paths are under --data-dir), or point
data.kernel / data.table in configs/mof.yaml at your files.`

// defaultDiscreteConfig holds the settings of Liu et al. 2024 for the MOF
// search (UCB beta = 2, 2 initial points, 100 queries in batches of 5).
func defaultDiscreteConfig(task string) discreteConfig {
	c := discreteConfig{
		Task: task, Out: bayesoptDefaultOut(task),
		Methods: []string{discrete.MethodRandom, discrete.MethodUCB, discrete.MethodQVS},
		Q:       []string{"0.1", "0.5", "1", "2", "inf"},
		Repeats: 10, Budget: 102, Init: 2, Batch: 5, Beta: 2, // 2 initial points + 100 queries
	}
	switch task {
	case taskMOF:
		c.GoodThreshold = 15 // storage capacity >= 15 (paper §4.2)
		c.Data = discreteData{Format: "kernel", Kernel: "mof/kernel.npy", Table: "mof/mofs.csv", IDColumn: "id",
			ObjectiveColumn: "storage", MetricColumns: []string{"energy_penalty"}, Note: mofNote}
	case taskPhotoswitch:
		c.GoodThreshold = 450 // visible-light absorption, lambda-max >= 450 nm
		c.Data = discreteData{Format: "photoswitch", Photoswitch: "photoswitch/UMAP-AllHits.csv"}
	case taskKernel:
		c.Out = ""                   // results/NAME, see normalise
		c.GoodThreshold = math.NaN() // required: see normalise
		c.Data = discreteData{Format: "kernel", IDColumn: "id", ObjectiveColumn: "value"}
	}
	return c
}

// setName is the candidate set's name: name:, else the task.
func (cfg *discreteConfig) setName() string {
	if cfg.Name != "" {
		return cfg.Name
	}
	return cfg.Task
}

// discreteBayesOptTask reports whether task is run by runDiscreteBayesOpt.
func discreteBayesOptTask(task string) bool {
	return task == taskKernel || task == taskMOF || task == taskPhotoswitch
}

// configTask peeks at the task: key of a config file ("" if none).
func configTask(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	v, _, err := readConfigFile(path)
	if err != nil {
		return "", err
	}
	return v.GetString("task"), nil
}

// runDiscreteBayesOpt runs the discrete tasks for `qvs bayesopt`: it
// returns handled = false (and does nothing) for other tasks. task comes
// from --task or the config's task: key; the shared flags (--methods, --q,
// --repeats, --budget, --init, --batch, --out, --shard) are read from
// c.Flags() and override the config when set.
func runDiscreteBayesOpt(c *cobra.Command, g *GlobalOptions, task, configPath string) (bool, error) {
	if task == "" {
		t, err := configTask(configPath)
		if err != nil {
			return false, err
		}
		task = t
	}
	if !discreteBayesOptTask(task) {
		return false, nil
	}
	cfg := defaultDiscreteConfig(task)
	if err := loadConfig(configPath, &cfg); err != nil {
		return true, err
	}
	if cfg.Task != task {
		return true, usageErrorf("--task %s but config %s has task: %s", task, configPath, cfg.Task)
	}
	shard, err := applyDiscreteFlags(c.Flags(), g, &cfg)
	if err != nil {
		return true, err
	}
	return true, executeDiscrete(c, g, cfg, shard)
}

// discreteIgnoredFlags are the flags of qvs bayesopt that only the
// continuous engine reads.
var discreteIgnoredFlags = []string{"regions", "tau", "candidates", "max-train", "qvs-floor", "minimize", "objective-cmd", "objective-timeout"}

// applyDiscreteFlags overrides config keys with the flags the user set.
func applyDiscreteFlags(fs *pflag.FlagSet, g *GlobalOptions, cfg *discreteConfig) (campaign.Shard, error) {
	changed := func(name string) (string, bool) {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			return "", false
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			return strings.Join(sv.GetSlice(), ","), true
		}
		return f.Value.String(), true
	}
	list := func(s string) []string {
		var out []string
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	// The continuous engine's flags mean nothing here: refused rather than
	// silently ignored, like the global flags a command does not use.
	for _, name := range discreteIgnoredFlags {
		if _, ok := changed(name); ok {
			return campaign.Shard{}, usageErrorf("--%s applies to continuous tasks, not the discrete task %s", name, cfg.Task)
		}
	}
	if v, ok := changed("methods"); ok {
		cfg.Methods = list(v)
	}
	if v, ok := changed("q"); ok {
		cfg.Q = list(v)
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"repeats", &cfg.Repeats}, {"budget", &cfg.Budget}, {"init", &cfg.Init}, {"batch", &cfg.Batch}} {
		if v, ok := changed(p.name); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return campaign.Shard{}, usageErrorf("--%s %q: expected an integer", p.name, v)
			}
			*p.dst = n
		}
	}
	if v, ok := changed("out"); ok {
		cfg.Out = v
	}
	if g.SeedSet() {
		cfg.Seed = g.Seed
	}
	var shard campaign.Shard
	if v, ok := changed("shard"); ok {
		s, err := campaign.ParseShard(v)
		if err != nil {
			return shard, usageErrorf("%v", err)
		}
		shard = s
	}
	return shard, nil
}

// normalise validates the resolved config (read from path, "" for flags
// only) and writes orders canonically.
func (cfg *discreteConfig) normalise(path string) ([]vendi.Order, error) {
	if cfg.Repeats < 1 {
		return nil, configErrorf(path, "repeats = %d: must be at least 1", cfg.Repeats)
	}
	if err := checkAtMost(path, "repeats", cfg.Repeats, maxRepeats); err != nil {
		return nil, err
	}
	if err := checkAtMost(path, "batch", cfg.Batch, maxDiscreteBatch); err != nil {
		return nil, err
	}
	if len(cfg.Methods) == 0 {
		return nil, configErrorf(path, "no methods: expected some of random, ucb, qvs")
	}
	for _, m := range cfg.Methods {
		if m != discrete.MethodRandom && m != discrete.MethodUCB && m != discrete.MethodQVS {
			return nil, configErrorf(path, "method %q: the discrete task %s runs random, ucb and qvs", m, cfg.Task)
		}
	}
	var qs []vendi.Order
	for k, s := range cfg.Q {
		q, err := vendi.ParseOrder(s)
		if err != nil {
			return nil, configErrorf(path, "q: %v", err)
		}
		qs = append(qs, q)
		cfg.Q[k] = q.String()
	}
	for key, name := range map[string]string{"task": cfg.Task, "name": cfg.Name} {
		if err := fileio.CheckPlainName(name); name != "" && err != nil {
			return nil, configErrorf(path, "%s: %v", key, err)
		}
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.setName())
	}
	if cfg.Task == taskKernel && math.IsNaN(cfg.GoodThreshold) {
		return nil, configErrorf(path, "task kernel: good_threshold is required: the objective value from which an item counts as good (the EDC is the VS_1 of the good items found)")
	}
	if math.IsNaN(cfg.GoodThreshold) || math.IsInf(cfg.GoodThreshold, 0) {
		return nil, configErrorf(path, "good_threshold = %v: must be a finite number", cfg.GoodThreshold)
	}
	return qs, nil
}

// discreteDataPath resolves a data-relative path of the discrete config.
func discreteDataPath(g *GlobalOptions, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(g.DataDir, p)
}

// discreteInputFiles lists the files loadDiscreteSet reads.
func discreteInputFiles(g *GlobalOptions, cfg discreteConfig) []string {
	if cfg.Data.Format == "photoswitch" {
		return []string{discreteDataPath(g, cfg.Data.Photoswitch)}
	}
	return []string{discreteDataPath(g, cfg.Data.Kernel), discreteDataPath(g, cfg.Data.Table)}
}

// loadDiscreteSet reads the task's candidate set.
func loadDiscreteSet(g *GlobalOptions, cfg discreteConfig) (*datasets.KernelSet, error) {
	at := func(p string) string { return discreteDataPath(g, p) }
	d := cfg.Data
	switch d.Format {
	case "kernel":
		set, err := datasets.ReadKernelSet(cfg.setName(), datasets.KernelSetFiles{
			Kernel: at(d.Kernel), Table: at(d.Table), IDColumn: d.IDColumn,
			ObjectiveColumn: d.ObjectiveColumn, MetricColumns: d.MetricColumns, Note: d.Note,
		})
		if err != nil {
			return nil, err
		}
		for i, v := range set.Objective {
			if err := bayesopt.CheckObjective(v); err != nil {
				return nil, fmt.Errorf("%s: item %q (data row %d), column %q: %w", at(d.Table), set.IDs[i], i+1, d.ObjectiveColumn, err)
			}
		}
		return set, nil
	case "photoswitch":
		path := at(d.Photoswitch)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, &datasets.MissingDataError{Task: cfg.Task, Missing: []string{path +
				": the photoswitch table UMAP-AllHits.csv (see the data folder's photoswitch/PROVENANCE.md)"}, Note: strings.TrimSpace(d.Note + "\n" + datasets.DataHint)}
		}
		set, err := datasets.PhotoswitchKernelSet(path)
		if set != nil {
			set.Name = cfg.setName()
		}
		return set, err
	default:
		return nil, usageErrorf("data.format %q: expected kernel (kernel matrix + table) or photoswitch", d.Format)
	}
}

func executeDiscrete(c *cobra.Command, g *GlobalOptions, cfg discreteConfig, shard campaign.Shard) error {
	qs, err := cfg.normalise(g.Config)
	if err != nil {
		return err
	}
	methods := cfg.Methods
	hasQVS := false
	for _, m := range methods {
		hasQVS = hasQVS || m == discrete.MethodQVS
	}
	if !hasQVS {
		qs, cfg.Q = nil, nil
	}
	runs, err := discrete.Runs(methods, qs, cfg.Repeats)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := campaign.CheckConfig(cfg.Out, cfg, bayesoptGrowable); err != nil {
		return err
	}
	set, err := loadDiscreteSet(g, cfg)
	if err != nil {
		return err
	}
	p, err := discrete.NewProblem(set, cfg.GoodThreshold)
	if err != nil {
		return err
	}
	base := discrete.DefaultSettings()
	base.Init, base.Budget, base.Batch, base.Beta, base.Seed = cfg.Init, cfg.Budget, cfg.Batch, cfg.Beta, cfg.Seed
	base.Method = discrete.MethodUCB
	if err := base.Validate(set.Len()); err != nil {
		return configErrorf(g.Config, "%v", err)
	}
	if after := cfg.Budget - cfg.Init; cfg.Batch > after && after > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "qvs bayesopt: warning: batch %d is more than the %d evaluations after the initial design; each run makes one batch of %d\n", cfg.Batch, after, after)
	}
	// Runs go in parallel; the greedy step gets the cores left over when
	// there are fewer runs than workers.
	base.Workers = max(1, g.Workers/max(1, min(g.Workers, len(runs))))
	chatter := func(format string, args ...any) {
		if !g.Quiet {
			fmt.Fprintf(c.ErrOrStderr(), format, args...)
		}
	}
	chatter("%s: %d candidates, %d good (%s >= %g); %d runs into %s\n",
		cfg.setName(), set.Len(), countAtLeast(set.Objective, cfg.GoodThreshold), set.ObjectiveName, cfg.GoodThreshold, len(runs), cfg.Out)

	// The MDS embedding of Figure 5, once per kernel (cached), beside the
	// runs: written by Prepare, once config.yaml and the inputs are checked.
	xy, err := discrete.CachedMDS(g.CacheDir, cfg.setName(), set.Kernel)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(c)
	defer stop()
	rep, err := campaign.Execute(ctx, campaign.Spec{
		Dir: cfg.Out, Header: discrete.RecordHeader, Runs: runs, Steps: cfg.Budget, Unit: "evaluations",
		Workers: g.Workers, Shard: shard, Quiet: g.Quiet, Progress: c.ErrOrStderr(),
		Config: cfg, Growable: bayesoptGrowable, Version: Version, Inputs: campaignInputs(g.DataDir, discreteInputFiles(g, cfg)...),
		Prepare: func() error {
			return discrete.WriteMDSFile(filepath.Join(cfg.Out, "mds.csv"), set.IDs, xy, set.Objective)
		},
	}, p.RunFunc(base))
	if rep.Started() {
		chatter("%s: %s\n", cfg.setName(), rep)
	}
	if err != nil {
		return err
	}
	return printCampaignTable(c.OutOrStdout(), cfg.Out, eval.KindDiscreteBO, shard, len(runs))
}

func countAtLeast(v []float64, t float64) int {
	n := 0
	for _, x := range v {
		if x >= t {
			n++
		}
	}
	return n
}
