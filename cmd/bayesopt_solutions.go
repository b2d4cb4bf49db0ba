package cmd

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// `qvs bayesopt solutions`: the final diverse solutions among a user's
// evaluations, by the rule a --space campaign writes to
// runs/KEY.solutions.csv (bayesopt.SelectSolutions).

type solutionsOptions struct {
	space, kernel, ids, observed, format string
	q                                    vendi.Order
	m                                    int
	minimize                             bool
	lengthScale                          float64
}

func newBayesoptSolutionsCmd(g *GlobalOptions) *cobra.Command {
	o := &solutionsOptions{}
	c := &cobra.Command{
		Use:   "solutions (--space space.yaml | --kernel K.npy) --observed evals.csv [--m 3] [--q 1] [flags]",
		Short: "The M diverse high-quality solutions among your evaluations",
		Long: fmt.Sprintf(`Prints the --m diverse high-quality solutions among the evaluations of
--observed, one row each, in the greedy's pick order: rank 1 is the best
evaluation, each later rank the pick that raised qVS_q most given the ranks
before it (so a later rank may have a better value than an earlier one).

The rule (the one a qvs bayesopt --space campaign writes to
runs/KEY.solutions.csv, for every method; the built-in tasks keep the
paper's, the method's trust-region centres): among the successful
evaluations, take the quality band of the max(m, ceil(%g x n)) best by value,
then the greedy qVS_q maximiser of size m over the band (paper eq. 5) with
similarity exp(-d^2/2) and quality = the value min-max scaled between the
best and the best value left out of the band. Every solution is thus among
the best %g%% of the evaluations, and the set is as diverse as the band
allows; the first is the best evaluation. Fed a campaign run's records
(runs/KEY.csv) with the run's --q (1 for methods other than qvs) and --m =
its regions, it prints that run's solutions.

--space space.yaml: evals.csv as for qvs bayesopt suggest --space
(parameter columns and value; a run's records too); failed rows (value
empty, nan or failed, or status failed) are counted on stderr and never
chosen. d is the Euclidean distance in the unit-scaled space divided by
--length-scale (default: the space's length_scale, else 1); a categorical
parameter adds 1 when the choices differ (space.Space.Distance). Output: rank,<parameters>,value,region, values in the
file's units (region: the file's region column, -1 without one).

--kernel K.npy: evals.csv with index (0-based kernel row) or id (from
--ids) and value, as for qvs bayesopt suggest --kernel; failed rows (the
same rule) are counted on stderr and never chosen. The similarity is the
kernel's entry. Output: rank,index,id,value.

The set's VS (order 1, the diversity measure the campaigns report as
solutions_vs) goes to stderr with --format csv or table, and into the JSON
document (docs/json.md) as field vs with --format json. Only the solutions
go to stdout.`, bayesopt.SolutionBandFraction, 100*bayesopt.SolutionBandFraction),
		Args:        cobra.NoArgs,
		Annotations: ignoresGlobals("config", "data-dir", "cache-dir"),
		RunE:        func(c *cobra.Command, _ []string) error { return runBayesoptSolutions(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.space, "space", "", "continuous space: YAML file with parameters: [{name, lower, upper, scale, type}]")
	f.StringVar(&o.kernel, "kernel", "", "discrete pool: n x n kernel matrix (.npy or .csv)")
	f.StringVar(&o.ids, "ids", "", "--kernel: names of the candidates in kernel order (first column of a CSV)")
	f.StringVar(&o.observed, "observed", "", "CSV of finished experiments (required)")
	f.IntVar(&o.m, "m", 3, "number of solutions (a campaign's: its regions M)")
	o.q = 1
	f.Var(&o.q, "q", "order q of the qVS greedy (a qvs run's q; 1 for other methods; inf allowed)")
	f.BoolVar(&o.minimize, "minimize", false, "the value column is to be minimised (default: the space file's direction)")
	f.Float64Var(&o.lengthScale, "length-scale", 0, "--space: length scale of the diversity distance (default: the space file's length_scale, else 1)")
	f.StringVar(&o.format, "format", "csv", "output format: csv, table or json")
	return c
}

func runBayesoptSolutions(c *cobra.Command, g *GlobalOptions, o *solutionsOptions) error {
	switch {
	case (o.space == "") == (o.kernel == ""):
		return usageErrorf("give exactly one of --space (continuous parameters) or --kernel (a discrete pool)")
	case o.observed == "":
		return usageErrorf("--observed FILE is required")
	case o.m < 1 || o.m > maxRegions:
		return usageErrorf("--m %d: expected 1 to %d", o.m, maxRegions)
	case o.format != "csv" && o.format != "table" && o.format != formatJSON:
		return usageErrorf("--format %q: expected csv, table or json", o.format)
	case o.ids != "" && o.kernel == "":
		return usageErrorf("--ids applies only with --kernel")
	case c.Flags().Changed("length-scale") && o.space == "":
		return usageErrorf("--length-scale applies only with --space")
	case c.Flags().Changed("length-scale") && (!(o.lengthScale > 0) || math.IsInf(o.lengthScale, 0)):
		return usageErrorf("--length-scale %v: must be a finite number > 0", o.lengthScale)
	}
	q := o.q    // parsed and checked with the flag
	sign := 1.0 // the file's units from the maximised values
	if o.minimize {
		sign = -1
	}
	var head []string
	var rows [][]string
	var vs float64
	note := ""
	if o.space != "" {
		sp, err := space.Load(o.space)
		if err != nil {
			return err
		}
		if c.Flags().Changed("length-scale") {
			sp.LengthScale = o.lengthScale
		}
		if sp.Minimize {
			o.minimize, sign = true, -1
		}
		obs, err := space.ReadObservations(o.observed, sp, o.minimize)
		if err != nil {
			return err
		}
		if n := space.CountFailed(obs); n > 0 {
			note = fmt.Sprintf("; %d of %d experiments failed (never chosen)", n, len(obs))
		}
		idx, set, err := space.Solutions(sp, obs, o.m, q)
		if err != nil {
			return fmt.Errorf("%s: %w", o.observed, err)
		}
		vs = set.VS
		head = append(append([]string{"rank"}, sp.Names()...), "value", "region")
		for r, i := range idx {
			ob := obs[i]
			row := []string{strconv.Itoa(r + 1)}
			for j, v := range ob.Values {
				row = append(row, sp.Format(j, v))
			}
			rows = append(rows, append(row, cli.Float(sign*ob.Value), strconv.Itoa(ob.Region)))
		}
	} else {
		K, err := datasets.ReadKernelMatrix(o.kernel)
		if err != nil {
			return err
		}
		ids, err := discrete.ReadIDs(o.ids, K.SymmetricDim(), o.kernel)
		if err != nil {
			return err
		}
		all, err := discrete.ReadEvaluations(o.observed, ids)
		if err != nil {
			return err
		}
		chosen, setVS, failed, err := discrete.Solutions(K, all, o.m, q, sign)
		if err != nil {
			return fmt.Errorf("%s: %w", o.observed, err)
		}
		if failed > 0 {
			note = fmt.Sprintf("; %d of %d experiments failed (never chosen)", failed, len(all))
		}
		vs = setVS
		head = []string{"rank", "index", "id", "value"}
		for r, e := range chosen {
			rows = append(rows, []string{strconv.Itoa(r + 1), strconv.Itoa(e.Index), ids[e.Index], cli.Float(e.Value)})
		}
	}
	if o.format == formatJSON {
		return writeJSONTable(c.OutOrStdout(), "bayesopt solutions", head, rows,
			jsonField{"m", o.m}, jsonField{"q", jsonNumber(float64(q))}, jsonField{"vs", jsonNumber(vs)})
	}
	if err := writeSuggestions(c.OutOrStdout(), o.format, head, rows, nil); err != nil {
		return err
	}
	if !g.Quiet {
		fmt.Fprintf(c.ErrOrStderr(), "qvs bayesopt solutions: %d solution(s) in greedy pick order (rank 1 = the best value), VS (order 1, exp(-d^2/2)) = %.4g%s\n", len(rows), vs, note)
	}
	return nil
}
