package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/search"
)

// ASConfig is the YAML config of `qvs as` (configs/TASK.yaml): the task
// name, the pool and the campaign's protocol (methods, grids, repeats,
// budget, batch, seed, ties; keys inline). Every key that changes results
// is recorded in DIR/config.yaml.
type ASConfig struct {
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
func (c ASConfig) MarshalYAML() (any, error) {
	type recorded ASConfig // without this method
	r := recorded(c)
	r.Out, r.Kind = "", ""
	return r, nil
}

// DefaultASConfig is the paper's protocol (search.PaperProtocol) on the
// given pool kind.
func DefaultASConfig(kind string) ASConfig {
	return ASConfig{Task: kind, Pool: datasets.DefaultConfig(kind), Protocol: search.PaperProtocol()}
}

// SyntheticASConfig is the no-argument default: the built-in synthetic
// pool with a protocol small enough to finish in well under a minute.
func SyntheticASConfig() ASConfig {
	c := DefaultASConfig("synthetic")
	c.Repeats, c.Budget = 5, 100
	return c
}

// builtinASPools are the pool kinds whose names are also task names.
var builtinASPools = []string{datasets.KindSynthetic, datasets.KindPhotoswitch, datasets.KindBMG, datasets.KindFashion}

// CheckASConfig checks a resolved config's task and pool and sets its
// default folder (results/TASK). anyTask: the task names no folder (`as
// suggest`, `graph`), so any file name is one. Errors are usage errors
// naming config file configPath.
func CheckASConfig(configPath string, cfg *ASConfig, anyTask bool) error {
	if err := fileio.CheckPlainName(cfg.Task); cfg.Task != "" && err != nil && !anyTask {
		return ConfigErrorf(configPath, "task: %w", err)
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.Task)
	}
	if k := cfg.Pool.Kind; k != "" && !slices.Contains(datasets.Kinds, k) {
		return ConfigErrorf(configPath, "pool.kind: %q is not one of %s", k, strings.Join(datasets.Kinds, ", "))
	}
	// A paper task's name on another built-in pool would label the results
	// (folder, tables, figures) with a dataset they do not come from.
	kind := cfg.Pool.Kind
	if kind == "" {
		kind = datasets.KindSynthetic
	}
	if kind == datasets.KindSynthetic {
		if err := datasets.CheckSyntheticConfig(cfg.Pool.Synthetic); err != nil {
			return ConfigErrorf(configPath, "%v", err)
		}
	}
	if slices.Contains(builtinASPools, cfg.Task) && slices.Contains(builtinASPools, kind) && cfg.Task != kind {
		return ConfigErrorf(configPath, "task: %s but pool.kind: %s: the results would be labelled %s; name the task after its pool (task: %s) or load the %s pool",
			cfg.Task, kind, cfg.Task, kind, cfg.Task)
	}
	return nil
}

// ASCampaign is the campaign kind of `qvs as`: diverse active search
// (package search) on a pool, every policy of the protocol for its
// repeats.
type ASCampaign struct {
	Env    *Env
	Config ASConfig // resolved and checked (CheckASConfig)
	// Load, if not nil, replaces loadSearchPool (the pool loaded and
	// prepared for search, said on stderr).
	Load func(datasets.Config) (*search.Pool, error)

	camp *search.Campaign
}

// Plan implements campaign.Kind.
func (k *ASCampaign) Plan() (*campaign.Plan, error) {
	cfg := k.Config
	if err := checkAtMost(k.Env.Config, "repeats", cfg.Repeats, maxRepeats); err != nil {
		return nil, err
	}
	camp, err := search.Plan(cfg.Protocol)
	if err != nil {
		return nil, ConfigError(k.Env.Config, err)
	}
	k.camp = camp
	recorded := cfg
	recorded.Out = ""
	return &campaign.Plan{
		Dir: cfg.Out, Kind: eval.KindActiveSearch.Key(), Name: cfg.Out, Runs: camp.Runs,
		Header: search.RecordHeader, Steps: cfg.Budget + 1, Unit: "queries",
		Config: recorded, Growable: search.GrowableKeys, Check: func() error { return checkASFolder(cfg) },
	}, nil
}

// Open implements campaign.Kind: the pool, loaded; the graph method used
// is recorded (campaign.Execute checks the resolved config again).
func (k *ASCampaign) Open(context.Context) (*campaign.Opened, error) {
	cfg, env := k.Config, k.Env
	load := k.Load
	if load == nil {
		load = func(c datasets.Config) (*search.Pool, error) { return loadSearchPool(env, c) }
	}
	pool, err := load(cfg.Pool)
	if err != nil {
		return nil, err
	}
	cfg.Pool.RecordKNN(pool.Graph.Method)
	recorded := cfg
	recorded.Out = ""
	warnASPoolSize(env.Err, cfg, pool.Len())
	run, err := k.camp.RunFunc(pool, cfg.Out, env.Workers)
	if err != nil {
		return nil, err
	}
	if !env.Quiet {
		if _, a1, err := k.camp.StartPrior(pool); err == nil {
			describePrior(env.Err, k.camp.Prior, a1, nil)
		}
	}
	return &campaign.Opened{Run: run, Config: recorded, Inputs: campaignInputs(env.DataDir, datasets.InputFiles(cfg.Pool, env.DataDir)...)}, nil
}

// checkASFolder compares cfg with the config recorded in its folder before
// the pool is loaded (a refusal costs nothing). A CSV pool's graph method
// is recorded as used (approx, or nothing for exact): with knn auto, which
// one depends on the pool's size, either matches here.
func checkASFolder(cfg ASConfig) error {
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

// warnASPoolSize says on stderr when the budget or the batch cannot be
// used as given on a pool of n items (each run starts from one positive):
// a run stops when the pool is exhausted, a batch never exceeds what is
// left of the budget.
func warnASPoolSize(w io.Writer, cfg ASConfig, n int) {
	if left := n - 1; cfg.Budget > left {
		fmt.Fprintf(w, "qvs as: warning: budget %d is more than the %s left after the start; each run queries the whole pool (%s)\n", cfg.Budget, fileio.Count(left, "item"), fileio.Count(left, "query"))
	}
	if cfg.Batch > cfg.Budget {
		fmt.Fprintf(w, "qvs as: warning: batch %d is more than the budget %d; each run makes one batch of %d\n", cfg.Batch, cfg.Budget, min(cfg.Budget, n-1))
	} else if cfg.Batch > n-1 {
		fmt.Fprintf(w, "qvs as: warning: batch %d is more than the %s left after the start; each run makes one batch of %d\n", cfg.Batch, fileio.Count(n-1, "item"), n-1)
	}
}
