package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/replay"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// replayConfig is the YAML config of `qvs as replay` (cli.ReplayConfig).
type replayConfig = cli.ReplayConfig

type replayOptions struct {
	shard string
	cfg   replayConfig
	table *configkeys.Table
}

func newASReplayCmd(g *GlobalOptions) *cobra.Command {
	o := &replayOptions{}
	c := &cobra.Command{
		Use:   "replay --pool FILE.npy|FILE.csv[.gz] [--ids ids.txt] (--scores scores.csv | --score-column NAME) [--minimize] [--init 0.01] [--batch 0.01] [--budget 0.05] [--top 0.01] [--methods " + strings.Join(replay.Methods, ",") + "] [--q " + replay.DefaultProtocol().Q.String() + "] [--repeats 3] [--out DIR] [--shard i/n]",
		Short: "Benchmark scored searches by replaying them on a fully scored library",
		Args:  cobra.NoArgs,
		Long: `Replays a screening campaign on a library whose every item is already scored
(a virtual screen's docking scores): each run draws a random initial batch
(--init; the same items for every method of a repeat), then asks for a batch
of --batch items per round, as 'qvs as suggest --observed scores.csv' would,
until --budget items more are acquired, and reveals the scores of what it
picked from --scores. Amounts are counts (104) or fractions of the library
(0.01).

Methods (the scored suggestions' methods): qvs (a GP on the pool's features,
Tanimoto for fingerprints, and greedy qVS over the most promising items, per
order --q), greedy (the top posterior means), top (the top acquisitions) and
random. --minimize: lower scores are better (docking scores).

Hits are the library's --top best scores, every item tied with the last of
them included. Per run and round: the hits found, VS_1 of the hits found
(Tanimoto of fingerprints, else the cosine similarity of the features) and
the round's wall and CPU seconds. Runs execute one at a time, each with
every worker (--workers), so CPU seconds are the run's own.

The pool: --pool FILE.npy (uint8 rows of numpy.packbits fingerprints; ids
from --ids, one per line, as scripts/fingerprints.py writes them) or a CSV
(.csv or .csv.gz) with --id-column and the features (--feature-prefix) or a
fingerprint column (--fingerprint-column); or a config (--config: task,
pool.kind csv, pool.csv.*, scores, methods, q, repeats, init, batch,
budget, top, minimize and the scored settings below). --scores is a CSV id,value (or index,value) with
one row per item; or --score-column NAME takes them from a column of a CSV
pool (never a feature).

Output (default results/TASK-replay, TASK the pool file's name):
runs/KEY.csv (every acquired item: round, index, id, score, hit, seconds,
cpu_seconds), runs/KEY.curve.csv (round, acquired, hits, vs_q1, seconds,
cpu_seconds), summary.csv (hits_r0 ... hits_rR, hits, hits_total, vs_q1,
seconds, seconds_per_round, cpu_seconds_per_round) and config.yaml. A rerun
resumes; more repeats, methods or orders grow a finished campaign. The table
(mean and standard error per method) is printed at the end; 'qvs eval'
writes it with the curve of hits against items acquired.

Exit codes: 0 done; 1 a run failed, bad file contents or interrupted (rerun
to resume); 2 bad command line.`,
		RunE: func(c *cobra.Command, _ []string) error { return runReplay(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.shard, "shard", "", "run only shard i of n (i/n, 0-based; see docs/cluster.md)")
	t := configkeys.NewTable(f)
	o.table = t
	cfg := &o.cfg
	p := &cfg.Protocol
	def := replay.DefaultProtocol() // the defaults, said in the help (the flags' own are unset: a config may give them)
	cs := &cfg.Pool.CSV
	configkeys.Bind(t, f.StringVar, "pool", "pool.csv.file", "", "the library: .npy fingerprints or features, or a CSV (.csv.gz too)", &cs.File)
	configkeys.Bind(t, f.StringVar, "ids", "pool.csv.ids_file", "", ".npy pool: item ids, one per line (header id optional)", &cs.IDsFile)
	configkeys.BindChoice(t, "metric", "pool.csv.metric", knn.MetricTanimoto, []string{knn.MetricTanimoto, knn.MetricEuclidean, knn.MetricCosine}, "tanimoto: the pool holds fingerprints; euclidean or cosine: numeric features", &cs.Metric)
	configkeys.Bind(t, f.StringVar, "id-column", "pool.csv.id_column", "", "CSV pool: the id column", &cs.IDColumn)
	configkeys.Bind(t, f.StringVar, "fingerprint-column", "pool.csv.fingerprint_column", "", "CSV pool: a column of fingerprints ('0'/'1' strings)", &cs.FingerprintColumn)
	configkeys.Bind(t, f.StringVar, "feature-prefix", "pool.csv.feature_prefix", "", "CSV pool: the feature columns' common prefix", &cs.FeaturePrefix)
	configkeys.Bind(t, f.StringVar, "scores", "scores", "", "every item's score: CSV id,value", &cfg.Scores)
	configkeys.Bind(t, f.StringVar, "score-column", "score_column", "", "CSV pool: the column of scores, instead of --scores (never a feature)", &cfg.ScoreColumn)
	configkeys.Bind(t, f.StringVar, "task", "task", "", "campaign name (default: the pool file's name)", &cfg.Task)
	configkeys.BindList(t, "methods", "methods", checkReplayMethod, "comma-separated methods: "+strings.Join(replay.Methods, ",")+" (default "+strings.Join(def.Methods, ",")+")", &p.Methods)
	configkeys.BindValue(t, "q", "q", vendi.OrderList{}, "comma-separated orders of the qvs runs (default "+def.Q.String()+")", &p.Q)
	configkeys.Bind(t, f.IntVar, "repeats", "repeats", 0, fmt.Sprintf("repeats per method (default %d)", def.Repeats), &p.Repeats)
	configkeys.BindValue(t, "init", "init", replay.Amount{}, "random initial batch (count or fraction of the library; default "+def.Init.String()+")", &p.Init)
	configkeys.BindValue(t, "batch", "batch", replay.Amount{}, "batch size after the initial batch (default "+def.Batch.String()+")", &p.Batch)
	configkeys.BindValue(t, "budget", "budget", replay.Amount{}, "items acquired after the initial batch (default "+def.Budget.String()+")", &p.Budget)
	configkeys.BindValue(t, "top", "top", replay.Amount{}, "hits: the library's top scores (count or fraction; ties included; default "+def.Top.String()+")", &p.Top)
	configkeys.Bind(t, f.BoolVar, "minimize", "minimize", false, "lower scores are better", &p.Minimize)
	configkeys.Bind(t, f.StringVar, "out", "out", "", "results directory (default results/TASK-replay)", &cfg.Out)
	configkeys.BindFunc(t, "seed", "seed", func() { p.Seed = g.Seed })
	bindScoreSettings(t, f, &cfg.Scored, true)
	c.Long += replayScoredHelp(t.FlagsInside(&cfg.Scored))
	return c
}

// replayScoredHelp is the help's paragraph on the scored settings, the
// flags bound to cli.ScoreSettings (bindScoreSettings).
func replayScoredHelp(flags []string) string {
	var lines []string
	line := ""
	for k, f := range flags {
		w := "--" + f + ","
		if k == len(flags)-1 {
			w = "--" + f + "."
		}
		if line != "" && len(line)+1+len(w) > 74 {
			lines, line = append(lines, line), ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return `

Scored settings, those of 'qvs as suggest' with scores:
` + strings.Join(append(lines, line), "\n") + `
They apply to every round of every run that uses them (--history and
--hit-power: the qvs runs; --candidates: qvs and top; a setting no run
uses is refused), so a replay of your library with the settings you
consider tells which to use. Given ones are recorded in
config.yaml (keys with _ for -, e.g. ucb_beta; a default value is not) and
a rerun with different ones is refused; --hit-threshold and
--hit-top-fraction are the model's hits (--acquisition phit, --history
expected|gain), not the benchmark's --top.`
}

// checkReplayMethod checks one item of --methods.
func checkReplayMethod(m string) error {
	if !slices.Contains(replay.Methods, m) {
		return fmt.Errorf("unknown method %q: expected some of %s", m, strings.Join(replay.Methods, ","))
	}
	return nil
}

func runReplay(c *cobra.Command, g *GlobalOptions, o *replayOptions) error {
	o.cfg = cli.DefaultReplayConfig()
	if err := checkConfigZeros(g); err != nil {
		return err
	}
	if err := resolveSettings(g, o.table, &o.cfg, nil); err != nil {
		return err
	}
	if optionsHook != nil {
		optionsHook(&o.cfg)
		return nil
	}
	shard, err := campaign.ParseShard(o.shard)
	if err != nil {
		return cli.Usagef("%w", err)
	}
	env := g.campaignEnv(c)
	return cli.RunCampaign(env, &cli.ReplayCampaign{Env: env, Config: o.cfg}, shard)
}
