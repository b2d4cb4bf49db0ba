package cmd

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// asConfig is the YAML config of `qvs as` (cli.ASConfig).
type asConfig = cli.ASConfig

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
		Use:   "as [--config configs/TASK.yaml] [--pool-dir DIR] [--methods " + strings.Join(search.Methods, ",") + "] [--q 0,0.1,0.5,1,2,inf] [--repeats R] [--budget B] [--batch b] [--prior prevalence|estimate|a1] [--out DIR] [--shard i/n] [--authors-shortcut]",
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

// checkASMethod checks one item of --methods (a registered policy).
func checkASMethod(m string) error {
	_, err := search.LookupMethod(m)
	return err
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
	o.cfg = cli.SyntheticASConfig()
	if kind != "" {
		o.cfg = cli.DefaultASConfig(kind)
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
			return *cfg, cli.Usagef("--prior: %w", err)
		}
	}
	if err := o.csv.check(fl, cfg); err != nil {
		return *cfg, err
	}
	// The task names a folder of a campaign only: `as suggest` and
	// `graph` (the commands with --pool) write none, and take any file.
	if err := cli.CheckASConfig(g.Config, cfg, fl.Lookup("pool") != nil); err != nil {
		return *cfg, err
	}
	return *cfg, nil
}

func runAS(c *cobra.Command, g *GlobalOptions, o *asOptions) error {
	cfg, err := resolveASConfig(c, g, o, "")
	if err != nil {
		return err
	}
	shard, err := campaign.ParseShard(o.shard)
	if err != nil {
		return cli.Usagef("%w", err)
	}
	env := g.campaignEnv(c)
	return cli.RunCampaign(env, &cli.ASCampaign{Env: env, Config: cfg}, shard)
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
			return cli.PrintCampaignTable(c.OutOrStdout(), dir, eval.KindActiveSearch, campaign.Shard{}, 0)
		},
	}
}
