package cmd

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
)

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

type continuousSuggestOptions struct {
	space, pending                      string
	minimize                            bool
	regions, init, candidates, maxTrain int
	tau, lengthScale                    float64
	qvsFloor                            bool
	qvsMode                             string
}

func addContinuousSuggestFlags(c *cobra.Command, o *continuousSuggestOptions) {
	f := c.Flags()
	f.StringVar(&o.space, "space", "", "continuous space: YAML file with parameters: [{name, lower, upper, scale, type}]")
	f.StringVar(&o.pending, "pending", "", "CSV of experiments still running (parameter columns)")
	f.BoolVar(&o.minimize, "minimize", false, "the value column is to be minimised (default: the space file's direction)")
	f.IntVar(&o.regions, "regions", 3, "trust regions M")
	f.IntVar(&o.init, "init", 0, "initial-design size (--space default: the smallest multiple of --batch >= max(2 x parameters, --regions); --kernel default: 2)")
	f.Float64Var(&o.tau, "tau", bayesopt.DefaultTau, "ROBOT's distance threshold (unit-scaled distance / length scale; a --space campaign's default too)")
	f.Float64Var(&o.lengthScale, "length-scale", 0, "kernel length scale of the diversity (default: the space file's, else 1)")
	f.IntVar(&o.candidates, "candidates", defaultSuggestCandidates, "Thompson-sampling candidates per region; the exact joint sample costs O(candidates^3) per region: "+strconv.Itoa(bayesopt.DefaultCandidates)+" (a campaign's default, to continue its run) takes about 10x the CPU of "+strconv.Itoa(defaultSuggestCandidates)+" per round")
	f.IntVar(&o.maxTrain, "max-train", bayesopt.DefaultMaxTrain, "GP training points per region: the nearest to its centre")
	f.BoolVar(&o.qvsFloor, "qvs-floor", false, "qvs: reject centres whose VS falls below that of points tau apart (a campaign's --qvs-floor; continues its qvs-qQ-floor-r00 run)")
	f.StringVar(&o.qvsMode, "qvs-mode", bayesopt.ModePaper, "qvs algorithm: paper or authors (a campaign's --qvs-mode: raw quality, floor at q = 1, qVS picks centres only)")
}

// defaultSuggestCandidates is suggest's --candidates: 200, not the
// campaigns' 1,000, so that a round costs about what Optuna's TPE does on a
// 95-point history (docs/performance.md, BenchmarkSuggest95) at the same
// regret (TestSamplerQualityTable).
const defaultSuggestCandidates = 200

// defaultSuggestBatch is suggest's --batch, and a --space campaign's.
const defaultSuggestBatch = 5

// maxSuggestBatch bounds --batch: the batch sets the Thompson candidates
// per region (at least the batch) and the qvs greedy over them grows faster
// than the cube of the batch; 500 takes 0.7 GB and close to 3 min on the
// 2-core box, 100,000 ran out of memory. maxPending bounds the pending rows
// (the qvs greedy carries them as a prefix).
const (
	maxSuggestBatch = 500
	maxPending      = 1000
)

func runContinuousSuggest(c *cobra.Command, g *GlobalOptions, common *suggestCommon, o *continuousSuggestOptions) error {
	if err := checkSuggestFlags(common.batch, maxSuggestBatch,
		"the candidates and the qvs greedy grow with the batch; ask again with the results of this one",
		common.format, common.method, bayesopt.Methods); err != nil {
		return err
	}
	q := common.q // parsed and checked with the flag
	sp, err := space.Load(o.space)
	if err != nil {
		return err
	}
	if c.Flags().Changed("length-scale") {
		if !(o.lengthScale > 0) || math.IsInf(o.lengthScale, 0) {
			return usageErrorf("--length-scale %v: must be a finite number > 0", o.lengthScale)
		}
		sp.LengthScale = o.lengthScale
	}
	// The engine reads 0 as "the default"; a user who writes 0 means
	// nothing sensible, so it is refused as a campaign config's is.
	// Refused as a campaign refuses them (the table names the flag).
	for _, f := range []struct {
		key      string
		v, limit int
	}{{"candidates", o.candidates, maxCandidates}, {"max_train", o.maxTrain, math.MaxInt}, {"regions", o.regions, maxRegions}} {
		if f.v < 1 {
			return settingError("", f.key, f.v, "must be at least 1")
		}
		if err := checkAtMost("", f.key, f.v, f.limit); err != nil {
			return err
		}
	}
	init := o.init
	if !c.Flags().Changed("init") {
		init = space.DefaultInit(sp.Dim(), common.batch, o.regions)
	}
	s := bayesopt.Settings{Method: common.method, Q: q, Init: init, Batch: common.batch, Regions: o.regions,
		Tau: o.tau, Candidates: max(o.candidates, common.batch), MaxTrain: o.maxTrain, FitIterations: bayesopt.DefaultFitIterations, Workers: g.Workers,
		RetryFailed: common.retryFailed, TauFloor: o.qvsFloor, Mode: o.qvsMode}
	s.Budget = s.Init
	if (o.qvsFloor || o.qvsMode != bayesopt.ModePaper) && common.method != bayesopt.MethodQVS {
		return usageErrorf("--qvs-floor and --qvs-mode apply to --method qvs only, not %s", common.method)
	}
	if err := s.Validate(); err != nil {
		return configError("", err)
	}
	var obs []space.Observation
	if common.observed != "" {
		if obs, err = space.ReadObservations(common.observed, sp, o.minimize || sp.Minimize); err != nil {
			return err
		}
	}
	near := "within 0.05 x sqrt(parameters) of them in the unit-scaled space, and the feasibility model they train steers away from them"
	warnFailed(c.ErrOrStderr(), space.CountFailed(obs), len(obs), common.observed, near, common.retryFailed)
	var pend []space.Observation
	if o.pending != "" {
		if pend, err = space.ReadPending(o.pending, sp); err != nil {
			return err
		}
		if len(pend) > maxPending {
			return fmt.Errorf("%s: %d pending experiments, at most %d (the qvs batch is scored against all of them)", o.pending, len(pend), maxPending)
		}
	}
	ctx, stop := interruptContext(c)
	defer stop()
	sug, err := space.Suggest(ctx, space.Request{
		Space: sp, Settings: s, Observed: obs, Pending: pend, Batch: common.batch,
		ID: bayesopt.RunID{Seed: g.Seed, Key: bayesopt.RunKey(s.Method, q.String(), o.qvsFloor, 0)},
	})
	if err != nil {
		return fmt.Errorf("%s: %w", observedLabel(common.observed), err)
	}
	if len(sug) < common.batch {
		fmt.Fprintf(c.ErrOrStderr(), "qvs bayesopt suggest: warning: %d suggestion(s), fewer than --batch %d: no more distinct points were found (type: int parameters leave few)\n", len(sug), common.batch)
	}
	head := append(append([]string{"rank"}, sp.Names()...), "region")
	rows := make([][]string, len(sug))
	for i, x := range sug {
		row := []string{strconv.Itoa(i + 1)}
		for j, v := range x.Values {
			row = append(row, sp.Format(j, v))
		}
		rows[i] = append(row, strconv.Itoa(x.Region))
	}
	return writeSuggestions(c.OutOrStdout(), common.format, head, rows, nil)
}
