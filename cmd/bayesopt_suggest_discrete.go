package cmd

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/datasets"
)

// discreteSuggestOptions are the flags of `qvs bayesopt suggest --kernel`
// beyond the shared ones (--init is shared with --space; see
// runDiscreteSuggest).
type discreteSuggestOptions struct {
	kernel, ids, name string
	beta              float64
}

func addDiscreteSuggestFlags(c *cobra.Command, d *discreteSuggestOptions) {
	f := c.Flags()
	f.StringVar(&d.kernel, "kernel", "", "discrete pool: n x n kernel matrix (.npy or .csv)")
	f.StringVar(&d.ids, "ids", "", "--kernel: names of the candidates in kernel order, the first column of a CSV (a header named id is skipped, so an id,value table works) (default: their indices)")
	f.StringVar(&d.name, "name", discrete.TaskKernel, "--kernel: name of the candidate set, part of the random streams (a campaign's name:)")
	f.Float64Var(&d.beta, "beta", 2, "--kernel: UCB = mean + sqrt(beta) sd")
}

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

// runDiscreteSuggest prints the next batch of the discrete engine for the
// user's kernel and evaluations. Nothing reaches stdout unless it succeeds.
// init is --init (when not given: discrete.DefaultSettings().Init, 2).
func runDiscreteSuggest(c *cobra.Command, g *GlobalOptions, f *suggestCommon, init int, d *discreteSuggestOptions) error {
	if !c.Flags().Changed("init") {
		init = discrete.DefaultSettings().Init
	}
	if err := checkSuggestFlags(f.batch, maxDiscreteBatch,
		limitWhy["batch"]+"; ask again with the results of this one",
		f.format, f.method, discrete.Methods); err != nil {
		return err
	}
	q := f.q // parsed and checked with the flag
	if math.IsNaN(d.beta) || math.IsInf(d.beta, 0) || d.beta < 0 {
		return usageErrorf("--beta %v: expected a finite number >= 0", d.beta)
	}
	if init < 1 {
		return usageErrorf("--init must be at least 1, got %d", init)
	}
	// The kernel takes long to read when large: the smaller files are
	// checked first.
	if err := cli.CheckReadable(f.observed, d.ids); err != nil {
		return err
	}
	K, err := datasets.ReadKernelMatrix(d.kernel)
	if err != nil {
		return err
	}
	n := K.SymmetricDim()
	ids, err := discrete.ReadIDs(d.ids, n, d.kernel)
	if err != nil {
		return err
	}
	var evals []discrete.Evaluation
	if f.observed != "" {
		if evals, err = discrete.ReadEvaluations(f.observed, ids); err != nil {
			return err
		}
	}
	s := discrete.Settings{Method: f.method, Q: q, Init: init, Batch: f.batch, Beta: d.beta, Seed: g.Seed, Workers: g.Workers, RetryFailed: f.retryFailed}
	if f.method != discrete.MethodQVS {
		s.Q = 0
	}
	if init > n {
		return usageErrorf("--init %d exceeds the %d candidates of %s", init, n, d.kernel)
	}
	if d.name == "" {
		return usageErrorf("--name must not be empty")
	}
	e, err := discrete.NewEngine(d.name, K, nil, s)
	if err != nil {
		return configError("", err)
	}
	if err := e.Tell(evals...); err != nil {
		return fmt.Errorf("%s: %w", observedLabel(f.observed), err)
	}
	warnFailed(c.ErrOrStderr(), e.Failures(), e.Len(), f.observed, "of a failed item", f.retryFailed)
	if free := e.Available(); f.batch > free {
		if e.Failures() > 0 && !f.retryFailed {
			return fmt.Errorf("--batch %d: only %d of the %d candidates of %s are neither evaluated nor failed in %s (--retry-failed makes failed ones candidates again)", f.batch, free, n, d.kernel, observedLabel(f.observed))
		}
		return fmt.Errorf("--batch %d: only %d of the %d candidates of %s are not in %s", f.batch, free, n, d.kernel, observedLabel(f.observed))
	}
	picks, err := e.Ask(f.batch)
	if err != nil {
		return err
	}
	acq, err := e.Acquisition()
	if err != nil && !errors.Is(err, discrete.ErrNoHistory) {
		return err
	}
	if !g.Quiet {
		w := c.ErrOrStderr()
		fmt.Fprintf(w, "suggest: %d of %d candidates evaluated; iteration %d; method %s", e.Len(), n, e.Iteration(), f.method)
		if f.method == discrete.MethodQVS {
			fmt.Fprintf(w, ", q = %s", q.String())
		}
		fmt.Fprintln(w)
		switch {
		case e.Len() < init:
			fmt.Fprintf(w, "suggest: fewer than --init %d evaluations: %d point(s) of the initial design (uniform random from --seed %d)\n", init, len(picks), g.Seed)
		case e.Successes() == 0 && f.method != discrete.MethodRandom:
			fmt.Fprintf(w, "suggest: no successful evaluation yet: %d point(s) of the initial design's stream (uniform random from --seed %d)\n", len(picks), g.Seed)
		}
	}
	var ucb []float64 // in the objective's units, as mean and sd
	if acq != nil {
		ucb = discrete.UCB(acq.Mean, acq.SD, d.beta, nil)
	}
	rows := make([][]string, len(picks))
	for r, i := range picks {
		id := ids[i]
		if f.format == "csv" {
			id = csvID(id, f.rawIDs)
		}
		rows[r] = []string{strconv.Itoa(r + 1), strconv.Itoa(i), id, "", "", ""}
		if acq != nil {
			rows[r][3], rows[r][4], rows[r][5] = cli.Float(ucb[i]), cli.Float(acq.Mean[i]), cli.Float(acq.SD[i])
		}
	}
	header := []string{"rank", "index", "id", "ucb", "mean", "sd"}
	// The table shows 4 significant digits of ucb, mean and sd; csv keeps
	// full precision.
	short := func(r []string) {
		for k := 3; k < 6 && r[k] != ""; k++ {
			v, _ := strconv.ParseFloat(r[k], 64)
			r[k] = strconv.FormatFloat(v, 'g', 4, 64)
		}
	}
	return writeSuggestions(c.OutOrStdout(), f.format, header, rows, short)
}
