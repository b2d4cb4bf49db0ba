package cmd

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// spaceTask is the task name of a campaign on a user's space and objective
// command (--space with --objective-cmd); the campaign itself is named after
// the space file (campaign.SpaceName).
const spaceTask = campaign.SpaceTask

// defaultBayesoptConfig is the built-in protocol of a task
// (tasks.DefaultProtocol) writing to its default folder. A space
// campaign's folder is left empty here: it is named after the space file
// once that is known (cli.BayesoptCampaign.Plan).
func defaultBayesoptConfig(task string) bayesopt.Protocol {
	c := tasks.DefaultProtocol(task)
	if task != spaceTask {
		c.Out = cli.BayesoptDefaultOut(task)
	} else {
		// A campaign on a user's space has suggest's defaults: batches of
		// 5, its candidates, and its initial design (0: resolved from the
		// space file by cli.BayesoptCampaign.Plan).
		c.Batch, c.Candidates, c.Init = defaultSuggestBatch, defaultSuggestCandidates, 0
	}
	return c
}

// bayesoptOptions are the settings of `qvs bayesopt`: the flags that are
// no config key (--task, --shard) and the protocol of each engine, which
// the one settings table (table) fills from the config file and the flags
// (resolveSettings); the flags shared by both engines write to both.
type bayesoptOptions struct {
	task, shard string
	cont        bayesopt.Protocol
	disc        discrete.Protocol
	table       *configkeys.Table
}

func newBayesoptCmd(g *GlobalOptions) *cobra.Command {
	f := &bayesoptOptions{}
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
solutions are the method's centres on all evaluations (random: greedy qVS_1);
a --space campaign's are instead the rule of qvs bayesopt solutions (the
greedy qVS_q, q = 1 for methods other than qvs, over the best 10% of the
evaluations), for every method.
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
(` + strings.Join(discrete.TaskNames(), ", ") + `; kernel: any kernel + table) go to the discrete engine.
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
it); --minimize (or direction: minimize in the space file) negates them
(records hold the maximised values). A point printed as nan, failed or
inf is a failed experiment: recorded with value failed, left out of the
regression model, counted in summary.csv's failures column; with the
successes it trains the feasibility model, whose probability of success
multiplies every later candidate's quality (so batches leave a failing
region), and no point is proposed within 0.05 x sqrt(parameters) of it in
the unit-scaled space. A non-zero
exit, a wrong number of values, a non-number, reordered rows or
--objective-timeout (per batch, e.g. 10m)
is an error naming the batch with the command's stderr tail; nothing of
that batch is recorded and a rerun resumes there. With --per-point (key
objective_per_point) the command is started once per point instead (up to
the run's share of --workers at a time; the time limit is per point), and
any of these failures fails that point only: recorded as failed, said on
stderr with the tail, and the campaign goes on. Categorical parameters
reach the command as their choice's text, inactive conditional parameters
as empty cells. A --space campaign has qvs bayesopt suggest's defaults
(batch 5, 200 candidates, its initial design, evaluated --batch points at
a time). The command runs in its
own process group, which dies with qvs (kill -9 of qvs included), and may
print at most 64 MiB. A run never has two
batches in flight, but runs execute in parallel (--workers): give
--workers 1 if the program must not run twice at once. Records
(runs/KEY.csv, what a rerun resumes from) hold engine coordinates x0..: the
values themselves, natural logs for scale: log, a categorical's choice
text, an empty cell for an inactive parameter, and the maximised values;
runs/KEY.solutions.csv holds the final solutions under the space's parameter
names, in their units, with the value as the command printed it. qvs
bayesopt suggest --space reads a run's records as they are.`,
		Args: noArgsButSubcommands,
		RunE: func(c *cobra.Command, _ []string) error { return runBayesopt(c, g, f) },
	}
	f.register(c.Flags(), g)
	c.AddCommand(newBayesoptEvaluateCmd(g), newBayesoptSolutionsCmd(g), newBayesoptSuggestCmd(g))
	return c
}

// register defines the flags of qvs bayesopt on fs and its settings table.
func (f *bayesoptOptions) register(fs *pflag.FlagSet, g *GlobalOptions) {
	fs.StringVar(&f.task, "task", "", "task name ("+strings.Join(tasks.Names(), ", ")+", synthetic-<d>, or a discrete task: "+strings.Join(discrete.TaskNames(), ", ")+")")
	fs.StringVar(&f.shard, "shard", "", "run only shard i of n (i/n, 0-based; auto/n: i from a Slurm array task id or Kubernetes index; auto: i and n from the scheduler; see docs/cluster.md)")
	// The settings table: flag, config key, the field(s) it sets. Both
	// engines read the shared flags; those binding no field of the discrete
	// protocol are refused for discrete tasks (Table.FlagsOutside).
	t := configkeys.NewTable(fs)
	f.table = t
	cont, disc := &f.cont, &f.disc
	configkeys.BindList(t, "methods", "methods", nil, "comma-separated methods (default random,turbo,robot,qvs)", &cont.Methods, &disc.Methods)
	configkeys.BindValue(t, "q", "q", vendi.OrderList{}, "comma-separated qVS orders for qvs (default 0.5,1,1.5: one qvs run per order; qvs bayesopt suggest uses q = 1; inf allowed)", &cont.Q, &disc.Q)
	configkeys.Bind(t, fs.IntVar, "repeats", "repeats", 0, "repeats per method (default 10)", &cont.Repeats, &disc.Repeats)
	configkeys.Bind(t, fs.IntVar, "budget", "budget", 0, "evaluations per run, initial design included", &cont.Budget, &disc.Budget)
	configkeys.Bind(t, fs.IntVar, "init", "init", 0, "uniform random initial points per run (default 20; rover 50, lunar 30; --space: as qvs bayesopt suggest, the smallest multiple of --batch >= max(2 x parameters, --regions), evaluated --batch points at a time)", &cont.Init, &disc.Init)
	configkeys.Bind(t, fs.IntVar, "batch", "batch", 0, "evaluations per iteration (default 10; rover 30, lunar 20; --space 5, as qvs bayesopt suggest)", &cont.Batch, &disc.Batch)
	configkeys.Bind(t, fs.IntVar, "regions", "regions", 0, "trust regions M (also the number of final solutions)", &cont.Regions)
	configkeys.Bind(t, fs.Float64Var, "tau", "tau", 0, "ROBOT's distance threshold (default "+cli.Float(bayesopt.DefaultTau)+"; rover 0.15, lunar 0.6)", &cont.Tau)
	configkeys.Bind(t, fs.BoolVar, "qvs-floor", "qvs_floor", false, "qvs: reject centres whose VS falls below that of points tau apart (the authors' code; not in the paper)", &cont.QVSFloor)
	configkeys.Bind(t, fs.StringVar, "qvs-mode", "qvs_mode", "", "qvs algorithm: paper (default) or authors (the authors' code: raw quality, floor at q = 1, qVS picks centres only)", &cont.QVSMode)
	configkeys.Bind(t, fs.IntVar, "candidates", "candidates", 0, "Thompson-sampling candidates per region (default "+strconv.Itoa(bayesopt.DefaultCandidates)+"; --space "+strconv.Itoa(defaultSuggestCandidates)+", as qvs bayesopt suggest)", &cont.Candidates)
	configkeys.Bind(t, fs.IntVar, "max-train", "max_train", 0, "GP training points per region: the nearest to its centre (default "+strconv.Itoa(bayesopt.DefaultMaxTrain)+")", &cont.MaxTrain)
	configkeys.Bind(t, fs.StringVar, "out", "out", "", "results directory (default results/TASK, results/synthetic-bo for synthetic)", &cont.Out, &disc.Out)
	configkeys.Bind(t, fs.StringVar, "space", "space", "", "space file (YAML parameters: list); needs --objective-cmd", &cont.Space)
	configkeys.Bind(t, fs.StringVar, "objective-cmd", "objective_cmd", "", "command evaluating a batch: CSV on stdin, one value per line on stdout", &cont.ObjectiveCmd)
	configkeys.Bind(t, fs.StringVar, "objective-timeout", "objective_timeout", "", "time limit per batch of --objective-cmd, e.g. 90s or 2h (default none)", &cont.ObjectiveTimeout)
	configkeys.Bind(t, fs.BoolVar, "minimize", "minimize", false, "--objective-cmd prints values to minimise (default: the space file's direction)", &cont.Minimize)
	configkeys.Bind(t, fs.BoolVar, "per-point", "objective_per_point", false, "start --objective-cmd once per point (up to --workers at a time); a point whose process fails is recorded as failed and the campaign goes on", &cont.ObjectivePerPoint)
	configkeys.BindFunc(t, "seed", "seed", func() { cont.Seed, disc.Seed = g.Seed, g.Seed })
	// Where each flag applies, derived from the fields it sets: the
	// settings of a user's own problem (bayesopt.Own), refused by a named
	// task; the flags setting no field of the discrete protocol, refused
	// by a discrete task.
	own := t.FlagsInside(&cont.Own)
	for _, name := range own {
		fs.Lookup(name).Usage += " [your own problem only]"
	}
	for _, name := range t.FlagsOutside(disc) {
		if !slices.Contains(own, name) {
			fs.Lookup(name).Usage += " [continuous tasks only]"
		}
	}
}

// boPeekTask reads the top-level task: key of the --config file ("" if absent);
// a config with a space: key is of task space.
func boPeekTask(g *GlobalOptions) (string, error) {
	task, err := peekConfig(g, "task")
	if err != nil || task != "" {
		return task, err
	}
	if sp, err := peekConfig(g, "space"); sp != "" || err != nil {
		return spaceTask, err
	}
	return "", nil
}

// continuousCampaign is the campaign of a continuous task: the task
// looked up, then its protocol resolved (defaults, config file, flags).
func continuousCampaign(env *cli.Env, g *GlobalOptions, f *bayesoptOptions, task string) (*cli.BayesoptCampaign, error) {
	k, err := cli.NewBayesoptCampaign(env, task)
	if err != nil {
		return nil, err
	}
	f.cont = defaultBayesoptConfig(task)
	if err := resolveSettings(g, f.table, &f.cont, nil); err != nil {
		return nil, err
	}
	k.Config, k.OwnFlags = f.cont, f.table.FlagsInside(&f.cont.Own)
	return k, nil
}

// resolveBayesoptConfig is the planned protocol of a continuous task.
func resolveBayesoptConfig(c *cobra.Command, g *GlobalOptions, f *bayesoptOptions, task string) (bayesopt.Protocol, error) {
	k, err := continuousCampaign(g.campaignEnv(c), g, f, task)
	if err != nil {
		return bayesopt.Protocol{}, err
	}
	if _, err := k.Plan(); err != nil {
		return k.Config, err
	}
	return k.Campaign().Protocol, nil
}

func runBayesopt(c *cobra.Command, g *GlobalOptions, f *bayesoptOptions) error {
	task, err := cli.BayesoptTask(f.task, func() (string, error) { return boPeekTask(g) }, c.Flags().Changed("space"))
	if err != nil {
		return err
	}
	env := g.campaignEnv(c)
	var k campaign.Kind
	if discrete.IsTask(task) {
		k, err = discreteCampaign(env, c, g, f, task)
	} else {
		k, err = continuousCampaign(env, g, f, task)
	}
	if err != nil {
		return err
	}
	shard, err := campaign.ParseShard(f.shard)
	if err != nil {
		return cli.Usagef("%w", err)
	}
	return cli.RunCampaign(env, k, shard)
}
