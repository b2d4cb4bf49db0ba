package cmd

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/fileio"
)

type bayesoptEvaluateOptions struct {
	task   string
	points string
}

func newBayesoptEvaluateCmd(g *GlobalOptions) *cobra.Command {
	o := &bayesoptEvaluateOptions{}
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
		RunE:        func(c *cobra.Command, _ []string) error { return runBayesoptEvaluate(c, g, o) },
	}
	c.Flags().StringVar(&o.task, "task", "", "task name: "+fmt.Sprint(tasks.Names())+" or synthetic-<d>")
	c.Flags().StringVar(&o.points, "points", "", "CSV or .npy file with one point per row")
	return c
}

func runBayesoptEvaluate(c *cobra.Command, g *GlobalOptions, o *bayesoptEvaluateOptions) error {
	if o.task == "" {
		return usageErrorf("--task is required (one of %v or synthetic-<d>)", tasks.Names())
	}
	if o.points == "" {
		return usageErrorf("--points is required")
	}
	obj, err := tasks.Lookup(o.task)
	if err != nil {
		return usageErrorf("--task: %w", err)
	}
	t, err := fileio.ReadTable(o.points, false)
	if err != nil {
		return err
	}
	if t.Cols != obj.Dim() {
		return fmt.Errorf("%s: rows have %d columns, task %s expects %d", o.points, t.Cols, obj.Name(), obj.Dim())
	}
	ctx, stop := interruptContext(c)
	defer stop()
	start := time.Now()
	values, err := bayesopt.EvaluatePoints(ctx, obj, t.Data, g.Workers)
	if ctx.Err() != nil {
		return &campaign.InterruptedError{Err: ctx.Err()}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.points, err)
	}

	var buf bytes.Buffer
	buf.WriteString("row,value\n")
	for i, v := range values {
		buf.WriteString(strconv.Itoa(i + 1))
		buf.WriteByte(',')
		buf.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		buf.WriteByte('\n')
	}
	if _, err := c.OutOrStdout().Write(buf.Bytes()); err != nil {
		return err
	}
	if !g.Quiet {
		fmt.Fprintf(c.ErrOrStderr(), "evaluated %d points of task %s in %.2fs\n", t.Rows, obj.Name(), time.Since(start).Seconds())
	}
	return nil
}
