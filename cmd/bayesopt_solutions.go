package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

// `qvs bayesopt solutions`: the final diverse solutions among a user's
// evaluations, by the rule a --space campaign writes to
// runs/KEY.solutions.csv (bayesopt.SelectSolutions).

func newBayesoptSolutionsCmd(g *GlobalOptions) *cobra.Command {
	o := cli.DefaultSolutionsOptions()
	var t *configkeys.Table
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
		RunE: func(c *cobra.Command, _ []string) error {
			g.table = t
			t.Apply()
			o.Space.LengthScaleGiven = t.Changed("length-scale")
			o.SpaceFlags, o.KernelFlags = givenFlags(t, &o.Space), givenFlags(t, &o.Kernel)
			return run(g, c, &o, cli.RunSolutions)
		},
	}
	f := c.Flags()
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.StringVar, "observed", "", "", "CSV of finished experiments (required)", &o.Observed)
	configkeys.Bind(t, f.IntVar, "m", "", o.M, "number of solutions (a campaign's: its regions M)", &o.M)
	configkeys.BindValue(t, "q", "", o.Q, "order q of the qVS greedy (a qvs run's q; 1 for other methods; inf allowed)", &o.Q)
	configkeys.Bind(t, f.BoolVar, "minimize", "", false, "the value column is to be minimised (default: the space file's direction)", &o.Minimize)
	configkeys.BindValue(t, "format", "", o.Format, "output format: csv, table or json", &o.Format)
	configkeys.Bind(t, f.StringVar, "space", "", "", "continuous space: YAML file with parameters: [{name, lower, upper, scale, type}]", &o.Space.File)
	configkeys.Bind(t, f.Float64Var, "length-scale", "", 0, "--space: length scale of the diversity distance (default: the space file's length_scale, else 1)", &o.Space.LengthScale)
	configkeys.Bind(t, f.StringVar, "kernel", "", "", "discrete pool: n x n kernel matrix (.npy or .csv)", &o.Kernel.File)
	configkeys.Bind(t, f.StringVar, "ids", "", "", "--kernel: names of the candidates in kernel order (first column of a CSV)", &o.Kernel.IDs)
	return c
}
