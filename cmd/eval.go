package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

func newEvalCmd(g *GlobalOptions) *cobra.Command {
	o := &cli.EvalOptions{}
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "eval DIR [--out DIR] [--format md,tex,csv] [--figures png,svg|none]",
		Short: "Regenerate the paper's tables and figures from campaign results",
		Long: `Finds every campaign under DIR (each folder with a summary.csv and the
resolved config.yaml written by qvs as / qvs bayesopt) and writes:

  OUT/tables/TASK-as-table.*    Tables 1-3 layout (active search): VS at
                                q = 0, 0.1, 0.5, 1, 2, inf, max. pairwise
                                distance, kernel det., per method
  OUT/tables/TASK-table4.*      Table 4 layout (discrete BayesOpt): best value,
                                EDC and the extra metrics of the best item
  OUT/tables/TASK-bo-table.*    BayesOpt summary: best value and the final
                                solutions' value and diversity per method
  OUT/figures/TASK-*.png|svg    best value so far (Fig. 3), rover trajectories
                                (Fig. 4), active-search PCA scatter and VS_1
                                curves (Fig. 2), MDS scatter (Fig. 5)
  OUT/README.md                 every table, figure links, and what could
                                not be made

Cells are mean (standard error) over repeats with two decimals (distance
columns, the values of a --space campaign and a replay's seconds a round: at
least three significant digits, the standard error to the same decimals; "n/a" for the standard error of a single repeat); active-search
tables start with the positives found; the best per column is bold (ties at
the printed precision included); starred rows (ECI*, SELECT*) take the best hyperparameter setting
per column. Missing or partial campaigns and figures the data cannot make
are listed, not fatal; a damaged summary cell (not a finite number) makes
its campaign unreadable, named by file, line and column; a file that cannot
be written (disk full) is exit 1. OUT defaults to DIR/eval.`,
		Annotations: ignoresGlobals("seed"),
		Args:        cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			*o = cli.DefaultEvalOptions()
			if err := resolveSettings(g, t, o, nil); err != nil {
				return err
			}
			o.Dir = args[0]
			return run(g, c, o, cli.RunEval)
		},
	}
	f := c.Flags()
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.StringVar, "out", "out", "", "output folder (default DIR/eval)", &o.Out)
	configkeys.BindList(t, "format", "format", nil, "table formats: comma-separated md, tex, csv (default md,tex,csv)", &o.Format)
	configkeys.BindList(t, "figures", "figures", nil, "figure formats: comma-separated png, svg, or none (default png,svg)", &o.Figures)
	return c
}
