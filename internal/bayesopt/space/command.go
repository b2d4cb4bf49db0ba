package space

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// Command is an external objective (`qvs bayesopt --space S --objective-cmd
// CMD`): per batch, CMD is started once through the shell (sh -c), reads
// the batch as CSV on its stdin (header = the parameter names, one row per
// point, full precision) and prints one value per point on its stdout,
// either one number per line or a CSV with a value column, in the order of
// the rows (checked when the CSV echoes the parameter columns: checkEcho).
// It may evaluate the points in parallel; qvs never starts a second batch
// of one run before the first has returned.
//
// A point whose experiment failed is printed as "nan" or "failed" (any
// case; bayesopt.IsFailedCell): its value is NaN and the campaign records
// it as failed (bayesopt.Evaluation.Failed). The command itself failing is
// different: a non-zero exit, a time-out (the whole process group is
// killed), a wrong number of values and a value that is neither a finite
// number nor a failure mark are errors that say what happened and show the
// tail of the command's stderr; no value of the batch is kept.
//
// With PerPoint the command is started once per point instead (a batch of
// one row on its stdin), up to Workers at a time, and the time limit is
// per point: a point whose process fails in any of the ways above is a
// failed experiment (NaN, said on Warn with the stderr tail), and the
// other points of the batch keep their values; only an interruption of
// qvs (ctx done) is an error.
type Command struct {
	*Space
	Line     string        // the command line, run with sh -c
	Timeout  time.Duration // per batch (per point with PerPoint); 0: none
	Minimize bool          // negate the printed values, so the engine maximises
	Dir      string        // working directory ("" = the current one)
	PerPoint bool          // one process per point; its failure fails the point
	Workers  int           // PerPoint: processes at a time (< 1: one)
	Warn     io.Writer     // PerPoint: where a failed point is said (nil: nowhere)
	warnMu   sync.Mutex
}

// Limits on what a command may print (memory stays bounded).
const (
	maxCommandStdout = 64 << 20
	stderrTail       = 2048
)

// Printed maps a recorded (maximised) value back to the value the command
// printed: negated again with Minimize.
func (c *Command) Printed(v float64) float64 {
	if c.Minimize {
		return -v
	}
	return v
}

// Evaluate evaluates one point by running the command on a batch of one
// (EvaluateBatch): NaN when the command reports the experiment failed, an
// error when the command could not produce the value. Campaigns call
// EvaluateBatch.
func (c *Command) Evaluate(ctx context.Context, x []float64) (float64, error) {
	v, err := c.EvaluateBatch(ctx, [][]float64{x})
	if err != nil {
		return math.NaN(), err
	}
	return v[0], nil
}

// EvaluateBatch runs the command on the engine points xs and returns one
// value per point, NaN for a failed experiment; err is non-nil when the
// command could not produce the batch's values (see Command).
func (c *Command) EvaluateBatch(ctx context.Context, xs [][]float64) ([]float64, error) {
	if !c.PerPoint {
		return c.run(ctx, xs)
	}
	out := make([]float64, len(xs))
	err := parallel.Each(ctx, len(xs), max(c.Workers, 1), func(i int) error {
		v, err := c.run(ctx, xs[i:i+1])
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			out[i] = math.NaN()
			if c.Warn != nil {
				c.warnMu.Lock()
				fmt.Fprintf(c.Warn, "qvs bayesopt: point %d of %d (%s) recorded as failed: %v\n", i+1, len(xs), strings.Join(c.FormatPoint(xs[i]), ","), err)
				c.warnMu.Unlock()
			}
			return nil
		}
		out[i] = v[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// run runs the command once on the points xs (see Command).
func (c *Command) run(ctx context.Context, xs [][]float64) ([]float64, error) {
	var in bytes.Buffer
	w := csv.NewWriter(&in)
	_ = w.Write(c.Names())
	for _, x := range xs {
		_ = w.Write(c.FormatPoint(x))
	}
	w.Flush()

	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	// A command printing too much is killed at once (it may ignore the
	// broken pipe), not left to run until the time limit.
	runCtx, stop := context.WithCancel(runCtx)
	defer stop()
	cmd, done, err := groupCommand(func(name string, args ...string) *exec.Cmd { return exec.CommandContext(runCtx, name, args...) }, c.Line)
	if err != nil {
		return nil, fmt.Errorf("objective command %q: %w", c.Line, err)
	}
	defer done()
	cmd.Dir = c.Dir
	cmd.Stdin = &in
	out := &limitedBuffer{max: maxCommandStdout, stop: stop}
	errTail := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = out, errTail
	cmd.WaitDelay = 2 * time.Second // a grandchild holding stdout open cannot hang qvs
	err = cmd.Run()
	what := fmt.Sprintf("objective command %q (batch of %d points)", c.Line, len(xs))
	if len(xs) == 1 {
		what = fmt.Sprintf("objective command %q (one point)", c.Line)
	}
	tail := func() string {
		t := strings.TrimSpace(errTail.String())
		if t == "" {
			return " (stderr was empty)"
		}
		return "; stderr tail:\n" + t
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case out.overflow:
		return nil, fmt.Errorf("%s: printed more than %d bytes on stdout, the most qvs reads: killed%s", what, maxCommandStdout, tail())
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("%s: no answer within the time limit %v (--objective-timeout, key objective_timeout): killed%s", what, c.Timeout, tail())
	case errors.Is(err, exec.ErrWaitDelay):
		// The command exited, but a process it started (a background
		// job) still holds its stdout or stderr: its output may be
		// incomplete, and waiting would hang the run.
		return nil, fmt.Errorf("%s: exited, but a process it started kept its stdout or stderr open for %v more (a background job? redirect its output, e.g. 'job > /dev/null 2>&1 &')%s", what, cmd.WaitDelay, tail())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s: %v%s", what, ee, tail())
		}
		return nil, fmt.Errorf("%s: %w%s", what, err, tail())
	}
	vals, err := parseValues(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: stdout %v%s", what, err, tail())
	}
	if len(vals) != len(xs) {
		return nil, fmt.Errorf("%s: printed %d values, expected %d (one per input row)%s", what, len(vals), len(xs), tail())
	}
	if err := c.checkEcho(out.Bytes(), xs); err != nil {
		return nil, fmt.Errorf("%s: stdout %v%s", what, err, tail())
	}
	if c.Minimize {
		for i := range vals {
			vals[i] = -vals[i]
		}
	}
	return vals, nil
}

// parseValues reads an objective command's output: one number per line, or
// a CSV whose header has a value column. Blank lines are skipped; "nan" or
// "failed" (any case), and inf or -inf, is a failed experiment, returned as
// NaN; another cell
// that is not a finite number is an error naming its line.
func parseValues(b []byte) ([]float64, error) {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, nil
	}
	num := func(line int, s string) (float64, error) {
		s = strings.TrimSpace(s)
		if s != "" && bayesopt.IsFailedCell(s) || isInfCell(s) {
			return math.NaN(), nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("line %d: %s is not a finite number", line, fileio.Excerpt(s))
		}
		if err := bayesopt.CheckObjective(v); err != nil {
			return 0, fmt.Errorf("line %d: %w", line, err)
		}
		return v, nil
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(lines[first]), 64); err == nil || bayesopt.IsFailedCell(lines[first]) {
		var out []float64
		for i, l := range lines[first:] {
			if strings.TrimSpace(l) == "" {
				continue
			}
			v, err := num(first+i+1, l)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("is neither numbers nor a CSV: %v", err)
	}
	col := -1
	for j, h := range head {
		if strings.TrimSpace(h) == "value" {
			col = j
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("line %d: %s is neither a number nor a CSV header with a value column", first+1, fileio.Excerpt(strings.TrimSpace(lines[first])))
	}
	var out []float64
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if col >= len(rec) {
			return nil, fmt.Errorf("line %d: no value cell", line)
		}
		v, err := num(line, rec[col])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// checkEcho guards the values' order when the command prints a CSV whose
// header names every parameter (the usual program: read the rows, append a
// value column): an output row whose parameters are, to 1e-9 in the unit
// cube, those of another input point and not its own (off by more than
// 1e-6) means the rows were reordered (say, by a program that prints
// results as parallel jobs finish), and the values would be recorded
// against the wrong points. Only exact echoes can convict: an echo rounded
// for printing (%.3f) is never taken for another point however close the
// points are, so such output, output with unparsable echoes, and output
// without the parameter columns are not checked.
func (c *Command) checkEcho(b []byte, xs [][]float64) error {
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	var head []string
	for {
		rec, err := cr.Read()
		if err != nil {
			return nil // not a CSV (parseValues has accepted the output)
		}
		if !(len(rec) == 1 && strings.TrimSpace(rec[0]) == "") {
			head = rec
			break
		}
	}
	col := map[string]int{}
	for j, h := range head {
		col[strings.TrimSpace(h)] = j
	}
	idx := make([]int, c.Dim())
	for j, name := range c.Names() {
		k, ok := col[name]
		if !ok {
			return nil
		}
		idx[j] = k
	}
	const exact, off = 1e-9, 1e-6
	for i := 0; i < len(xs); {
		rec, err := cr.Read()
		if err != nil {
			return nil
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		line, _ := cr.FieldPos(0)
		v := make([]float64, c.Dim())
		for j, k := range idx {
			if k >= len(rec) {
				return nil
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(rec[k]), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil
			}
			v[j] = math.Min(math.Max(f, c.Parameters[j].Lower), c.Parameters[j].Upper)
		}
		e := c.Engine(v)
		if c.Distance(e, xs[i]) > off {
			for k := range xs {
				if k != i && c.Distance(e, xs[k]) <= exact {
					return fmt.Errorf("line %d: parameters %s are input row %d's, not row %d's: print one row per input row, in the input's order",
						line, fileio.ExcerptCells(rec), k+1, i+1)
				}
			}
		}
		i++
	}
	return nil
}

// limitedBuffer keeps at most max bytes; a write beyond them fails, notes
// the overflow and calls stop (which kills the command). It has no
// ReadFrom (an embedded bytes.Buffer's was promoted, io.Copy, os/exec's
// copy of the child's stdout, used it and bypassed Write and its check,
// so `yes` grew qvs without bound), and it grows its own slice: the
// capacity doubles from minGrow and never exceeds max, so a command
// printing up to the cap costs at most 2 x max bytes of allocation
// (2 x 64 MiB - 32 KiB when max is 64 MiB, a power-of-2 multiple of
// minGrow), whatever the sizes of the pipe's reads. A bytes.Buffer's
// capacity doubled from the first read's size instead, which depends on
// the scheduling of the child: it ended anywhere up to 2 x max, and the
// command's output cost up to 4 x max (192 MiB seen under load).
type limitedBuffer struct {
	buf      []byte
	max      int
	overflow bool
	stop     func()
}

// minGrow is limitedBuffer's first capacity (os/exec copies in reads of
// 32 KiB).
const minGrow = 32 << 10

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) > b.max {
		if !b.overflow && b.stop != nil {
			b.stop()
		}
		b.overflow = true
		return 0, errors.New("output too large")
	}
	if need := len(b.buf) + len(p); need > cap(b.buf) {
		c := max(cap(b.buf), minGrow)
		for c < need {
			c *= 2
		}
		grown := make([]byte, len(b.buf), min(c, b.max))
		copy(grown, b.buf)
		b.buf = grown
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Bytes returns the bytes kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf }

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }

// NewCommand is the objective of a campaign on a user's space: the space
// file at path (Load), the command line, its time limit per batch
// (timeout, a time.ParseDuration string such as 90s or 2h; "" for none) and
// whether its values are minimised (or the space file's direction:
// minimize says so). A bad timeout is a
// configkeys.SettingError for key objective_timeout.
func NewCommand(path, line, timeout string, minimize bool) (*Command, error) {
	sp, err := Load(path)
	if err != nil {
		return nil, err
	}
	var limit time.Duration
	if timeout != "" {
		if limit, err = time.ParseDuration(timeout); err != nil || limit <= 0 {
			return nil, configkeys.Invalid("objective_timeout", timeout, "expected a positive duration such as 90s or 2h")
		}
	}
	return &Command{Space: sp, Line: line, Timeout: limit, Minimize: minimize || sp.Minimize}, nil
}
