//go:build unix

package space

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestCommandBackgroundJob: a command that exits but leaves a background
// job holding its stdout fails after Command's wait delay with a message a
// user can act on (it used to read "exec: WaitDelay expired before I/O
// complete"), never hangs for the job.
func TestCommandBackgroundJob(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Command{Space: sp, Line: "sleep 5 & echo 1"}
	_, err = c.EvaluateBatch(context.Background(), [][]float64{{0.5}})
	if err == nil || !strings.Contains(err.Error(), "a process it started kept its stdout or stderr open") {
		t.Fatalf("error %v", err)
	}
}

// TestCommandEchoOrder: a command that prints a CSV echoing the parameters
// must print its rows in the input's order. One that reverses them (as a
// program printing parallel jobs as they finish may) is an error naming the
// line and both rows; before, its values were silently recorded against
// the wrong points. Rounded echoes (even of points closer together than
// the rounding), extra columns, unparsable echoes and plain values pass.
func TestCommandEchoOrder(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 10}\n  - {name: c, lower: 0.001, upper: 1, scale: log}\n"))
	if err != nil {
		t.Fatal(err)
	}
	xs := [][]float64{sp.Engine([]float64{1.23456, 0.002}), sp.Engine([]float64{5.5, 0.5}), sp.Engine([]float64{9.87654, 0.0314159})}
	for _, c := range []struct {
		name, line, want string
		vals             []float64
	}{
		// value = a * 100 + row number, so a misassignment shows.
		{"reversed", `awk -F, 'NR==1{print $0",value";next}{r[NR]=$0}END{for(i=NR;i>1;i--)print r[i]","i}'`,
			`stdout line 2: parameters "9.87654,0.0314159,4" are input row 3's, not row 1's`, nil},
		{"rounded", `awk -F, 'NR==1{print "value,"$0",note";next}{printf "%d,%.2f,%.3f,x\n", $1*100, $1, $2}'`,
			"", []float64{123, 550, 987}},
		{"values only", `awk -F, 'NR>1{print int($1*100)}'`, "", []float64{123, 550, 987}},
		{"echo not a number", `awk -F, 'NR==1{print $0",value";next}{print "x,"$2","NR}'`, "", []float64{2, 3, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := (&Command{Space: sp, Line: c.line}).EvaluateBatch(context.Background(), xs)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, c.want)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.vals) {
				t.Fatalf("got %v, %v; want %v", got, err, c.vals)
			}
		})
	}
	// Two points closer together than the echo's rounding, printed in
	// order: the rounded echo of the first is nearer the second, which
	// must not be taken for a reordering.
	near := [][]float64{sp.Engine([]float64{1.2349, 0.5}), sp.Engine([]float64{1.2301, 0.5})}
	got, err := (&Command{Space: sp, Line: `awk -F, 'NR==1{print $0",value";next}{printf "%.2f,%.2f,%d\n", $1, $2, NR}'`}).EvaluateBatch(context.Background(), near)
	if err != nil || !slices.Equal(got, []float64{2, 3}) {
		t.Fatalf("near points, rounded echo: %v, %v", got, err)
	}
}

// TestCommandStdoutCap: a command that prints without end (`yes 1.0`), or
// one line of 100 MB without a newline, fails at the 64 MiB stdout cap
// with a short message, and reading its output allocates at most 2 x the
// cap (limitedBuffer's doubling, up to the cap). Before, the cap never
// applied (io.Copy bypassed the checking Write through the embedded
// bytes.Buffer's ReadFrom) and `yes` grew qvs to 23 GB; here the watcher
// stops that at 512 MiB and the test fails. The bound is on what the call
// allocates (MemStats.TotalAlloc), not on the peak heap, which moves with
// the GC's timing (196 MiB under load for 128 MiB allocated).
func TestCommandStdoutCap(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"yes 1.0", "head -c 100000000 /dev/zero | tr '\\0' 7"} {
		t.Run(line, func(t *testing.T) {
			ctx, peak := testutil.WatchHeap(t, 512<<20)
			c := &Command{Space: sp, Line: line, Timeout: time.Minute}
			var err error
			allocated := testutil.Allocated(func() { _, err = c.EvaluateBatch(ctx, [][]float64{{0.5}}) })
			if ctx.Err() != nil {
				t.Fatalf("heap grew past 512 MiB (peak %d MiB): the stdout cap did not apply", peak()>>20)
			}
			if err == nil || !strings.Contains(err.Error(), "printed more than 67108864 bytes on stdout") || len(err.Error()) > 300 {
				t.Fatalf("error %.500v", err)
			}
			// 2 x 64 MiB for the output, 1 MiB for the rest (os/exec,
			// the stderr tail, the message).
			if allocated > 2*maxCommandStdout+1<<20 {
				t.Errorf("the call allocated %.1f MiB, want at most 2 x the 64 MiB cap + 1 MiB", float64(allocated)/(1<<20))
			}
		})
	}
}

// TestLimitedBufferAllocation: whatever the size of the first read (a
// pipe's reads are short or long as the child and qvs are scheduled),
// filling limitedBuffer to its cap allocates at most 2 x the cap and its
// capacity never exceeds it. A bytes.Buffer doubled from the first read's
// size: after a first read of 5,000 bytes its capacity ended at 80 MiB
// and it allocated 160 MiB, after one of 20,000 bytes 112 and 224 MiB
// (TestCommandStdoutCap failed under load with a peak heap of 196 MiB).
func TestLimitedBufferAllocation(t *testing.T) {
	chunk := bytes.Repeat([]byte("y\n"), 16<<10) // 32 KiB, os/exec's read size
	for _, first := range []int{1, 100, 5000, 20000, 32 << 10, 32<<10 - 1} {
		stops := 0
		b := &limitedBuffer{max: maxCommandStdout, stop: func() { stops++ }}
		kept := 0
		allocated := testutil.Allocated(func() {
			_, err := b.Write(chunk[:first])
			kept = first
			for err == nil {
				var n int
				n, err = b.Write(chunk)
				kept += n
			}
		})
		if !b.overflow || stops != 1 || len(b.Bytes()) != kept || kept > maxCommandStdout || kept+len(chunk) <= maxCommandStdout {
			t.Fatalf("first read %d: overflow %v, stop called %d times, %d bytes kept (%d reported), cap %d", first, b.overflow, stops, len(b.Bytes()), kept, maxCommandStdout)
		}
		if !bytes.Equal(b.Bytes()[first:first+len(chunk)], chunk) {
			t.Fatalf("first read %d: the bytes kept differ from those written", first)
		}
		if c := cap(b.Bytes()); c > maxCommandStdout {
			t.Errorf("first read %d: capacity %d MiB, beyond the %d MiB cap", first, c>>20, maxCommandStdout>>20)
		}
		if allocated > 2*maxCommandStdout {
			t.Errorf("first read %d: allocated %.1f MiB, want at most 2 x the %d MiB cap", first, float64(allocated)/(1<<20), maxCommandStdout>>20)
		}
	}
}

// TestParseValuesExcerpt: a long line that is not a number is quoted by
// its first bytes only.
func TestParseValuesExcerpt(t *testing.T) {
	_, err := parseValues([]byte(strings.Repeat("x", 10<<20)))
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(10485760 bytes)") {
		t.Fatalf("error %.300v", err)
	}
}

// TestCommandEvaluate: Evaluate (bayesopt.Objective) returns the value of
// a batch of one, NaN for a failed experiment, and the command's failure as
// an error (it used to panic, having no error to return).
func TestCommandEvaluate(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if v, err := (&Command{Space: sp, Line: "echo 2.5"}).Evaluate(ctx, []float64{0.5}); err != nil || v != 2.5 {
		t.Errorf("echo 2.5: %v, %v", v, err)
	}
	if v, err := (&Command{Space: sp, Line: "echo failed"}).Evaluate(ctx, []float64{0.5}); err != nil || !math.IsNaN(v) {
		t.Errorf("failed experiment: %v, %v; want NaN and no error", v, err)
	}
	v, err := (&Command{Space: sp, Line: "echo boom >&2; exit 3"}).Evaluate(ctx, []float64{0.5})
	if err == nil || !strings.Contains(err.Error(), "boom") || !math.IsNaN(v) {
		t.Errorf("exit 3: %v, %v; want the command's error", v, err)
	}
}

// TestCommandPerPoint: with PerPoint a process that exits non-zero, prints
// nonsense or runs out of time fails its point only (NaN, said on Warn with
// the stderr tail); the other points keep their values. Without it the
// same command fails the whole batch.
func TestCommandPerPoint(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	// a >= 0.7: exit 7; a in [0.5, 0.7): print nonsense; a in [0.4, 0.5):
	// hang past the time limit; else print 10a.
	line := `awk -F, 'NR == 2 { a = $1
	if (a >= 0.7) { print "boom" > "/dev/stderr"; exit 7 }
	if (a >= 0.5) { print "nonsense"; exit 0 }
	if (a >= 0.4) { system("sleep 10") }
	print 10 * a }'`
	var warn bytes.Buffer
	c := &Command{Space: sp, Line: line, PerPoint: true, Workers: 2, Warn: &warn, Timeout: 2 * time.Second}
	xs := [][]float64{{0.1}, {0.8}, {0.3}, {0.6}, {0.45}}
	vals, err := c.EvaluateBatch(context.Background(), xs)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, math.NaN(), 3, math.NaN(), math.NaN()}
	for i := range want {
		if !(vals[i] == want[i] || math.IsNaN(vals[i]) && math.IsNaN(want[i])) {
			t.Errorf("values %v, want %v", vals, want)
			break
		}
	}
	if strings.Contains(warn.String(), "batch of 1 points") {
		t.Errorf("warnings %q: a point's process is one point, not a batch of 1 points", warn.String())
	}
	for _, s := range []string{"point 2 of 5 (0.8) recorded as failed", `(one point): exit status 7`, "boom", "point 4 of 5 (0.6)", "nonsense", "point 5 of 5 (0.45)", "time limit"} {
		if !strings.Contains(warn.String(), s) {
			t.Errorf("warnings %q lack %q", warn.String(), s)
		}
	}
	c.PerPoint, c.Timeout = false, 0
	if _, err := c.EvaluateBatch(context.Background(), xs[1:2]); err == nil || !strings.Contains(err.Error(), "exit status 7") {
		t.Errorf("batch mode: error %v, want exit status 7", err)
	}
	// An interruption is still an error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.PerPoint = true
	if _, err := c.EvaluateBatch(ctx, xs); err == nil {
		t.Error("cancelled context: no error")
	}
}
