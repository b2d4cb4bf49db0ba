package cli

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// EvaluateOptions are the settings of `qvs bayesopt evaluate`.
type EvaluateOptions struct {
	Task   string // a built-in task (tasks.Lookup)
	Points string // CSV or .npy, one point per row
}

// RunEvaluate prints CSV row,value: the task's objective at each row of
// o.Points, evaluated on e.Workers goroutines.
func RunEvaluate(e *Env, o *EvaluateOptions) error {
	if o.Task == "" {
		return Usagef("--task is required (one of %v or synthetic-<d>)", tasks.Names())
	}
	if o.Points == "" {
		return Usagef("--points is required")
	}
	obj, err := tasks.Lookup(o.Task)
	if err != nil {
		return Usagef("--task: %w", err)
	}
	t, err := fileio.ReadTable(o.Points, false)
	if err != nil {
		return err
	}
	if t.Cols != obj.Dim() {
		return fmt.Errorf("%s: rows have %d columns, task %s expects %d", o.Points, t.Cols, obj.Name(), obj.Dim())
	}
	ctx := e.Context()
	start := time.Now()
	values, err := bayesopt.EvaluatePoints(ctx, obj, t.Data, e.Workers)
	if ctx.Err() != nil {
		return &campaign.InterruptedError{Err: ctx.Err()}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.Points, err)
	}
	var buf bytes.Buffer
	buf.WriteString("row,value\n")
	for i, v := range values {
		buf.WriteString(strconv.Itoa(i+1) + "," + Float(v) + "\n")
	}
	if _, err := e.Out.Write(buf.Bytes()); err != nil {
		return err
	}
	if !e.Quiet {
		fmt.Fprintf(e.Err, "evaluated %d points of task %s in %.2fs\n", t.Rows, obj.Name(), time.Since(start).Seconds())
	}
	return nil
}
