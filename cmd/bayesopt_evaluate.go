package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

func newBayesoptEvaluateCmd(g *GlobalOptions) *cobra.Command {
	var o cli.EvaluateOptions
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "evaluate --task rover|lunar|synthetic --points X.csv",
		Short: "Evaluate a BayesOpt task's objective at given points",
		Long: `Evaluates the objective of a Bayesian-optimisation task at each row of X
(comma-separated numbers with an optional header row, or a .npy matrix) and
prints CSV with header row,value: row is the 1-based data row of X (a header
is not counted) and value the objective at it, to be maximised.

Tasks: rover (60 columns, each in [-1/30, 1/15]), lunar (12 columns in
[0, 1]; the mean return of 50 fixed-seed episodes), synthetic or
synthetic-<d> (d columns in [0, 1]). A row with the wrong number of columns,
a non-finite value or a value outside the task's box is an error naming the
row; nothing is printed then. Rows are evaluated on --workers goroutines.`,
		Annotations: ignoresGlobals("config", "seed", "data-dir", "cache-dir"),
		Args:        cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			g.table = t
			t.Apply()
			return run(g, c, &o, cli.RunEvaluate)
		},
	}
	f := c.Flags()
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.StringVar, "task", "", "", "task name: "+fmt.Sprint(tasks.Names())+" or synthetic-<d>", &o.Task)
	configkeys.Bind(t, f.StringVar, "points", "", "", "CSV or .npy file with one point per row", &o.Points)
	return c
}
