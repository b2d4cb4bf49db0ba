package cmd

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

// `qvs bayesopt suggest` dispatches on its input: --space (a continuous
// space) or --kernel (a discrete pool); cli.RunBOSuggest runs either
// (internal/cli/bosuggest.go). This file only holds the flags, their
// settings table and the check that exactly one input is given.

func newBayesoptSuggestCmd(g *GlobalOptions) *cobra.Command {
	o := cli.DefaultBOSuggestOptions()
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "suggest (--space space.yaml | --kernel K.npy) [--observed evals.csv] --batch B [flags]",
		Short: "Suggest the next batch of experiments for your own problem, given the evaluations so far",
		Long: `Suggests the next batch of experiments from the evaluations so far, with
the same engine and rules as the campaigns of qvs bayesopt.

--space space.yaml: a continuous space of named parameters (see
examples/README.md); method qvs, turbo, robot or random.
--kernel K.npy: a discrete pool given by its kernel matrix (Algorithm 3).

Exactly one of --space and --kernel. Only the suggestions go to stdout.

` + continuousSuggestHelp + "\n" + discreteSuggestHelp,
		Args:        cobra.NoArgs,
		Annotations: ignoresGlobals("config", "data-dir", "cache-dir"),
		RunE: func(c *cobra.Command, _ []string) error {
			g.table = t
			t.Apply()
			space, kernel := t.Changed("space"), t.Changed("kernel")
			if space == kernel {
				return cli.Usagef("give exactly one of --space (continuous parameters) or --kernel (a discrete pool)")
			}
			o.OnKernel, o.InitGiven, o.Continuous.LengthScaleGiven = kernel, t.Changed("init"), t.Changed("length-scale")
			o.ContinuousFlags, o.DiscreteFlags = givenFlags(t, &o.Continuous), givenFlags(t, &o.Discrete)
			return run(g, c, &o, cli.RunBOSuggest)
		},
	}
	// No config file: the keys only name the flag of a refused setting
	// (the engines' settings are keyed as a campaign's config is).
	f, co, d := c.Flags(), &o.Continuous, &o.Discrete
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.StringVar, "observed", "", "", "CSV of finished experiments (none: nothing evaluated yet, the first batch of the initial design)", &o.Observed)
	configkeys.Bind(t, f.IntVar, "batch", "batch", o.Batch, "number of suggestions (at most 500 with --space, 300 with --kernel)", &o.Batch)
	configkeys.Bind(t, f.StringVar, "method", "method", o.Method, "--space: qvs|turbo|robot|random; --kernel: qvs|ucb|random", &o.Method)
	configkeys.BindValue(t, "q", "q", o.Q, "order q of the qVS (method qvs; default 1, where a campaign runs 0.5, 1 and 1.5; inf allowed)", &o.Q)
	configkeys.BindValue(t, "format", "", o.Format, "output format: csv, table or json (one document: docs/json.md)", &o.Format)
	configkeys.Bind(t, f.BoolVar, "raw-ids", "", false, "--kernel: keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)", &o.RawIDs)
	configkeys.Bind(t, f.BoolVar, "retry-failed", "", false, "allow suggestions at or near failed experiments (default: --space, none within 0.05 x sqrt(parameters) in the unit-scaled space; --kernel, never the failed item itself)", &o.RetryFailed)
	configkeys.Bind(t, f.IntVar, "init", "init", 0, "initial-design size (--space default: the smallest multiple of --batch >= max(2 x parameters, --regions); --kernel default: 2)", &o.Init)
	// --space only (o.Continuous) ...
	configkeys.Bind(t, f.StringVar, "space", "", "", "continuous space: YAML file with parameters: [{name, lower, upper, scale, type}]", &co.Space)
	configkeys.Bind(t, f.StringVar, "pending", "", "", "CSV of experiments still running (parameter columns)", &co.Pending)
	configkeys.Bind(t, f.BoolVar, "minimize", "", false, "the value column is to be minimised (default: the space file's direction)", &co.Minimize)
	configkeys.Bind(t, f.IntVar, "regions", "regions", co.Regions, "trust regions M", &co.Regions)
	configkeys.Bind(t, f.Float64Var, "tau", "tau", co.Tau, "ROBOT's distance threshold (unit-scaled distance / length scale; a --space campaign's default too)", &co.Tau)
	configkeys.Bind(t, f.Float64Var, "length-scale", "", 0, "kernel length scale of the diversity (default: the space file's, else 1)", &co.LengthScale)
	configkeys.Bind(t, f.IntVar, "candidates", "candidates", co.Candidates, "Thompson-sampling candidates per region; the exact joint sample costs O(candidates^3) per region: "+strconv.Itoa(bayesopt.DefaultCandidates)+" (a campaign's default, to continue its run) takes about 10x the CPU of "+strconv.Itoa(cli.DefaultSuggestCandidates)+" per round", &co.Candidates)
	configkeys.Bind(t, f.IntVar, "max-train", "max_train", co.MaxTrain, "GP training points per region: the nearest to its centre", &co.MaxTrain)
	configkeys.Bind(t, f.BoolVar, "qvs-floor", "qvs_floor", false, "qvs: reject centres whose VS falls below that of points tau apart (a campaign's --qvs-floor; continues its qvs-qQ-floor-r00 run)", &co.QVSFloor)
	configkeys.Bind(t, f.StringVar, "qvs-mode", "qvs_mode", co.QVSMode, "qvs algorithm: paper or authors (a campaign's --qvs-mode: raw quality, floor at q = 1, qVS picks centres only)", &co.QVSMode)
	// ... and --kernel only (o.Discrete).
	configkeys.Bind(t, f.StringVar, "kernel", "", "", "discrete pool: n x n kernel matrix (.npy or .csv)", &d.Kernel)
	configkeys.Bind(t, f.StringVar, "ids", "", "", "--kernel: names of the candidates in kernel order, the first column of a CSV (a header named id is skipped, so an id,value table works) (default: their indices)", &d.IDs)
	configkeys.Bind(t, f.StringVar, "name", "", d.Name, "--kernel: name of the candidate set, part of the random streams (a campaign's name:)", &d.Name)
	configkeys.Bind(t, f.Float64Var, "beta", "beta", d.Beta, "--kernel: UCB = mean + sqrt(beta) sd", &d.Beta)
	return c
}

// givenFlags are the flags of t the user set that fill a field of
// settings (configkeys.Table.FlagsInside): those that apply only where
// settings do.
func givenFlags(t *configkeys.Table, settings any) []string {
	var out []string
	for _, f := range t.FlagsInside(settings) {
		if t.Changed(f) {
			out = append(out, f)
		}
	}
	return out
}

const continuousSuggestHelp = `Continuous (--space): evals.csv has a header with every parameter name and
value (maximised; --minimize flips it), one row per finished experiment;
other columns are ignored except iteration and region, which qvs bayesopt
records and which make the history exact. --pending lists experiments still
running (same columns, no value): the batch avoids them and treats them as
already picked. The output is CSV rank,<parameters...>,region (region -1:
initial-design or random points), full precision.

What counts as one iteration: with an iteration column, its value; without,
the first --init rows are the initial design and every following --batch
rows one iteration, in file order. A row counts for its region column, else
for the trust region that contains it with the nearest centre. With fewer
rows than --init (an empty file with just the header, or no --observed,
is fine), the next points of the initial design (uniform, from --seed)
come first.

Categorical parameters (type: categorical, choices: [...]) are written as
the choice's text; a conditional parameter (when: {parent: choice}) whose
condition is false has an empty cell, and one whose condition holds must
have a value. Suggestions are written the same way.

Failed experiments (Optuna's FAIL state): a row whose value is empty, nan,
failed or inf, or whose status column (optional) says failed, is a failure.
It counts as a row (for --init and --batch above) but never enters the
regression model; with the successes it trains a feasibility model (a
kernel-smoothed probability of success, bandwidth by leave-one-out) whose
probability multiplies each candidate's quality, so batches leave failing
regions. No suggestion falls within 5% of the space's diagonal of it (Euclidean
distance 0.05 x sqrt(parameters) with every parameter scaled to [0, 1], log
parameters in log units), the failed point included, unless --retry-failed
(which also switches the feasibility model off).
The number of failed rows goes to stderr. A file whose rows all failed gets
points of the initial design (or uniform ones) until one succeeds.

--observed may also be a run's records (runs/KEY.csv of qvs bayesopt
--space, recognised by its header iteration,region,x0..,value,seconds):
column xj is parameter j in engine units (natural log for scale: log) and
the values are already maximised, so --minimize does not apply to it.

The answer depends only on the space, the rows, the pending rows, the flags
and --seed: fed the first N records of a qvs bayesopt run (same seed,
method, q and settings: a campaign's default --candidates is 1000, suggest's
200), suggest returns the batch the run evaluated next.
Diversity is measured by the Euclidean distance in the unit-scaled space
(log parameters in log space) divided by --length-scale (default: the
space file's length_scale, else 1).`

const discreteSuggestHelp = `
Discrete pool (--kernel; paper §4.2, Algorithm 3):
  --observed CSV with a header holding index (0-based kernel row) or id
  (a name from --ids), and value (the objective, maximised); one row per
  finished experiment, in the order they were run; other columns ignored
  except status. A file with the header alone, or no --observed, starts a
  campaign: the first --init picks are the initial design.
  Failed experiments (Optuna's FAIL state): a row whose value is empty, nan
  or failed, or whose status column (optional) says failed, is a failure.
  It counts as a row (for --init and the iteration below) but never enters
  the model (the GP and the qVS history), and the failed item is never
  suggested again (for a discrete pool the radius is the item itself: the
  kernel gives no distance), unless --retry-failed; the item may then be listed
  again with its new result. The number of failed rows goes to stderr. A
  file whose rows all failed gets the next points of the initial design's
  stream (uniform random from --seed) until one succeeds.
  Methods: qvs (greedy qVS_q of the evaluated items plus the batch, quality
  = UCB min-max scaled to [0, 1]; q = 0 is ucb), ucb (top-B UCB), random.
  The GP (prior covariance = the kernel; mean, scale and noise fitted by
  marginal likelihood) is refitted to the rows of --observed on every call.
  With fewer than --init rows the next points are the remaining points of
  the initial design (uniform random from --seed). The random method draws
  from --seed and the iteration, 1 + ceil((rows - init) / batch): a user
  who evaluates every batch in full gets the campaign's iterations; an
  unfinished last batch counts as done.
  Output (stdout, CSV or --format table): rank,index,id,ucb,mean,sd; mean
  and sd are the GP posterior of the objective in its units, ucb = mean +
  sqrt(beta) sd (empty before the first evaluation). Equals the batch of a
  ` + "`qvs bayesopt`" + ` campaign with task: kernel, repeat 0, the same seed, init,
  batch, beta and method, after the same evaluations; --name must be the
  campaign's name: (default kernel, the name of a task: kernel campaign
  without one).`

// The defaults a --space campaign shares with suggest.
const (
	defaultSuggestBatch      = cli.DefaultSuggestBatch
	defaultSuggestCandidates = cli.DefaultSuggestCandidates
)
