package cmd

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

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
	lo, hi := obj.Bounds()
	for i := 0; i < t.Rows; i++ {
		for j := 0; j < t.Cols; j++ {
			if v := t.At(i, j); v < lo[j] || v > hi[j] {
				return fmt.Errorf("%s: row %d, column %d: %v is outside the box [%v, %v] of task %s",
					o.points, i+1, j+1, v, lo[j], hi[j], obj.Name())
			}
		}
	}

	ctx, stop := interruptContext(c)
	defer stop()
	start := time.Now()
	values := make([]float64, t.Rows)
	rows := make(chan int)
	var wg sync.WaitGroup
	for range min(g.Workers, t.Rows) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rows {
				values[i] = obj.Evaluate(t.Data[i*t.Cols : (i+1)*t.Cols])
			}
		}()
	}
feed:
	for i := 0; i < t.Rows; i++ {
		select {
		case rows <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(rows)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return &campaign.InterruptedError{Err: err}
	}

	var buf bytes.Buffer
	buf.WriteString("row,value\n")
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: row %d: task %s returned %v", o.points, i+1, obj.Name(), v)
		}
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
