package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/replay"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ReplayConfig is the YAML config of `qvs as replay`: the task name, the
// pool (kind csv: a CSV or .npy file of features or fingerprints), the
// scores (a file, or a column of a CSV pool), the replay's protocol and
// the scored settings of every round (`as suggest`'s, keys inline, each
// recorded only when given). Every key that changes results is recorded
// in DIR/config.yaml.
type ReplayConfig struct {
	Task            string          `yaml:"task"`
	Pool            datasets.Config `yaml:"pool"`
	Scores          string          `yaml:"scores"`
	ScoreColumn     string          `yaml:"score_column"`
	replay.Protocol `yaml:",inline"`
	Scored          ScoreSettings `yaml:",inline"`
	Out             string        `yaml:"out,omitempty"`
	Kind            string        `yaml:"kind,omitempty"`
}

// MarshalYAML records c without out and kind (read from a config only).
func (c ReplayConfig) MarshalYAML() (any, error) {
	type recorded ReplayConfig
	r := recorded(c)
	r.Out, r.Kind = "", ""
	return r, nil
}

// DefaultReplayConfig: a fingerprint pool (metric tanimoto) and
// replay.DefaultProtocol.
func DefaultReplayConfig() ReplayConfig {
	pool := datasets.DefaultConfig(datasets.KindCSV)
	pool.CSV.Metric = knn.MetricTanimoto
	return ReplayConfig{Pool: pool, Protocol: replay.DefaultProtocol()}
}

// ReplayCampaign is the campaign kind of `qvs as replay` (package replay):
// scored searches replayed on a fully scored library, one run at a time.
type ReplayCampaign struct {
	Env    *Env
	Config ReplayConfig // resolved (defaults, config file, flags)
	// Load, if not nil, replaces the reading of the pool's features
	// (datasets.LoadWith, its steps on stderr).
	Load func(datasets.Config) (*datasets.Pool, error)

	camp *replay.Campaign
}

// Plan implements campaign.Kind.
func (k *ReplayCampaign) Plan() (*campaign.Plan, error) {
	cfg, configPath := &k.Config, k.Env.Config
	if cfg.Pool.Kind != datasets.KindCSV {
		return nil, ConfigErrorf(configPath, "pool.kind: %q: a replay reads a pool of kind csv (a CSV or .npy file)", cfg.Pool.Kind)
	}
	if cfg.Pool.CSV.File == "" {
		return nil, Usagef("no pool: give --pool FILE (or pool.csv.file in --config)")
	}
	switch {
	case cfg.Scores == "" && cfg.ScoreColumn == "":
		return nil, Usagef("no scores: give --scores FILE (CSV id,value, every item's score) or --score-column NAME (a column of a CSV pool)")
	case cfg.Scores != "" && cfg.ScoreColumn != "":
		return nil, Usagef("--scores and --score-column both give the scores: give one")
	case cfg.ScoreColumn != "" && strings.HasSuffix(strings.ToLower(cfg.Pool.CSV.File), ".npy"):
		return nil, Usagef("--score-column names a column of a CSV pool; a .npy pool takes --scores FILE")
	}
	if cfg.Task == "" {
		base := filepath.Base(cfg.Pool.CSV.File)
		for _, ext := range []string{".gz", ".npy", ".csv"} {
			base = strings.TrimSuffix(base, ext)
		}
		cfg.Task = base
	}
	if err := fileio.CheckPlainName(cfg.Task); err != nil {
		return nil, ConfigErrorf(configPath, "task: %w", err)
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.Task+"-replay")
	}
	if err := checkAtMost(configPath, "repeats", cfg.Repeats, maxRepeats); err != nil {
		return nil, err
	}
	camp, err := replay.Plan(cfg.Protocol)
	if err != nil {
		return nil, ConfigError(configPath, err)
	}
	if err := cfg.checkScored(configPath, 0); err != nil { // the batch is known once the library is
		return nil, err
	}
	cfg.Scored = cfg.Scored.recorded()
	camp.Request = cfg.Scored.Request()
	k.camp = camp
	recorded := *cfg
	recorded.Out = ""
	return &campaign.Plan{
		Dir: cfg.Out, Kind: eval.KindReplay.Key(), Name: cfg.Out, Runs: camp.Runs,
		Header: replay.RecordHeader, Unit: "items",
		Config: recorded, Growable: replay.GrowableKeys, Sequential: true,
	}, nil
}

// Open implements campaign.Kind: the library's features and scores.
func (k *ReplayCampaign) Open(context.Context) (*campaign.Opened, error) {
	env, cfg := k.Env, k.Config
	// The scores file is checked before the pool, whose features take
	// minutes at library scale (the pool's own files: datasets.LoadWith).
	if cfg.Scores != "" {
		r, err := fileio.OpenInput(cfg.Scores)
		if err != nil {
			return nil, err
		}
		r.Close()
	}
	fmt.Fprintf(env.Chatter(), "loading pool %s ...\n", cfg.Pool.CSV.File)
	poolCfg := cfg.Pool
	if cfg.ScoreColumn != "" { // the scores are no feature
		poolCfg.CSV.ExcludeColumns = append(slices.Clone(poolCfg.CSV.ExcludeColumns), cfg.ScoreColumn)
	}
	load := k.Load
	if load == nil {
		load = func(c datasets.Config) (*datasets.Pool, error) {
			steps := newStepLog(env.Err, env.Quiet)
			defer steps.End()
			return datasets.LoadWith(c, env.DataDir, env.CacheDir, knn.GraphOptions{Workers: env.Workers, Progress: steps.Progress(), Name: env.KeyName, FeaturesOnly: true})
		}
	}
	pool, err := load(poolCfg)
	if err != nil {
		return nil, err
	}
	ids := pool.IDs
	if ids == nil {
		ids = make([]string, pool.Len())
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
	}
	var scores []float64
	if cfg.ScoreColumn != "" {
		scores, err = readScoreColumn(cfg.Pool.CSV, cfg.ScoreColumn, pool.IDs, pool.Len(), env.Key)
	} else {
		scores, err = replay.ReadScores(cfg.Scores, ids)
	}
	if err != nil {
		return nil, err
	}
	sz, err := cfg.Sizes(pool.Len())
	if err != nil {
		return nil, ConfigError(env.Config, err)
	}
	if err := cfg.checkScored(env.Config, sz.Batch); err != nil {
		return nil, err
	}
	// a GP kernel the pool's features do not fit fails every run at its
	// first round: refused before any is written
	if err := surrogate.CheckKernel(pool, cfg.Scored.GPKernel); err != nil {
		flag := "--gp-kernel"
		if env.Config != "" {
			flag += " (key gp_kernel)"
		}
		return nil, ConfigError(env.Config, fmt.Errorf("%s %s: %w", flag, cfg.Scored.GPKernel, err))
	}
	_, hits := replay.HitSet(scores, sz.Top, cfg.Minimize)
	fmt.Fprintf(env.Chatter(), "%s: %d items, %d hits (top %d, ties included); initial batch %d, %s; %s into %s\n",
		cfg.Task, sz.N, hits, sz.Top, sz.Init, sz.RoundsText(), fileio.Count(len(k.camp.Runs), "run"), cfg.Out)
	run, err := k.camp.RunFunc(replay.Library{Pool: pool, Scores: scores}, cfg.Out, env.Workers)
	if err != nil {
		return nil, err
	}
	return &campaign.Opened{
		Run:    run,
		Inputs: campaignInputs(env.DataDir, append(datasets.InputFiles(cfg.Pool, env.DataDir), cfg.Scores)...), // "" is skipped
		Steps:  sz.Init + sz.Budget,
	}, nil
}

// checkScored checks the scored settings for every method and order of
// the replay (ScoreSettings.Check), with batches of batch items (0: not
// known yet). With a config file, errors name the key beside the flag.
func (c *ReplayConfig) checkScored(configPath string, batch int) error {
	var name func(string) string
	if configPath != "" {
		name = func(flag string) string { return "--" + flag + " (key " + strings.ReplaceAll(flag, "-", "_") + ")" }
	}
	var runs []scoredRun
	for _, m := range c.Methods {
		orders := []vendi.Order{0}
		if m == surrogate.MethodQVS {
			orders = c.Q.Orders()
		}
		for _, q := range orders {
			if err := c.Scored.Check(m, q, batch, name); err != nil {
				return ConfigError(configPath, err)
			}
			runs = append(runs, scoredRun{m, q})
		}
	}
	if err := c.Scored.checkUsed(runs, name); err != nil {
		return ConfigError(configPath, err)
	}
	return nil
}

// readScoreColumn reads the scores of a CSV pool from its column col, one
// per row in the pool's order (ids: the pool's, nil for row order): the
// column's cells must be finite numbers (fileio.ReadColumnsCSV names the
// file, line and column of one that is not).
func readScoreColumn(cs datasets.CSVConfig, col string, ids []string, n int, name func(string) string) ([]float64, error) {
	d, ok, err := fileio.ReadColumnsCSV(cs.File, fileio.ColumnSpec{
		ID: cs.IDColumn, Features: []string{col},
		IDFlag: "pool.csv.id_column", FeaturesFlag: "score_column", Name: name,
	})
	if err != nil {
		return nil, err
	}
	if !ok || d.Features == nil || d.Features.Cols != 1 {
		return nil, fmt.Errorf("%s: no header naming the score column %q", cs.File, col)
	}
	v := d.Features.Data
	if len(v) != n || (ids != nil && !slices.Equal(d.IDs, ids)) {
		return nil, fmt.Errorf("%s: the rows of column %q are not the pool's items in order (%d scores, %d items)", cs.File, col, len(v), n)
	}
	return v, nil
}
