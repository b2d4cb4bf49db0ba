package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
)

// TestRunAnswersInterruptAtOnce: a run function that does not check its
// context (a kNN build, an eigendecomposition, a greedy: as suggest with
// labels, score, select, bayesopt solutions and suggest --kernel) no longer
// holds SIGINT/SIGTERM/SIGHUP until it ends: run returns the context's
// error at once ("qvs X interrupted", exit 1), and what the function had
// written to stdout is not printed. The signal handler every command
// installs made such a command swallow the signal and exit 0 (as suggest on
// 100,000 rows: 14 s after SIGTERM).
func TestRunAnswersInterruptAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cobra.Command{Use: "slow"}
	c.SetContext(ctx)
	var stdout bytes.Buffer
	c.SetOut(&stdout)
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	slow := func(e *cli.Env, _ *struct{}) error {
		fmt.Fprintln(e.Out, "partial")
		close(started)
		<-release // ignores e.Ctx
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- run(&GlobalOptions{}, c, &struct{}{}, slow) }()
	<-started
	cancel() // the signal
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("run returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("run still waits for a run function that ignores the interrupt")
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q after an interrupt, want nothing", stdout.String())
	}
	// Without an interrupt the output is the function's, once.
	c2 := &cobra.Command{Use: "fast"}
	c2.SetContext(context.Background())
	var out2 bytes.Buffer
	c2.SetOut(&out2)
	err := run(&GlobalOptions{}, c2, &struct{}{}, func(e *cli.Env, _ *struct{}) error { _, err := fmt.Fprint(e.Out, "rows\n"); return err })
	if err != nil || out2.String() != "rows\n" {
		t.Errorf("run: %v, stdout %q", err, out2.String())
	}
	// An error prints no stdout either (the rule for every error).
	c3 := &cobra.Command{Use: "fails"}
	var out3 bytes.Buffer
	c3.SetOut(&out3)
	if err := run(&GlobalOptions{}, c3, &struct{}{}, func(e *cli.Env, _ *struct{}) error { fmt.Fprint(e.Out, "half"); return errors.New("bad") }); err == nil || out3.Len() > 0 {
		t.Errorf("run: %v, stdout %q; want the error and no stdout", err, out3.String())
	}
}

// TestRunWaitsForInterruptedRun: after an interrupt, a run function that
// checks its context has returned when run returns (run used to return at
// once, leaving it running: a command called in-process could go on
// writing into its test's files), and one that ignores its context holds
// run for interruptGrace at most.
func TestRunWaitsForInterruptedRun(t *testing.T) {
	var finished atomic.Bool
	checks := func(e *cli.Env, _ *struct{}) error {
		<-e.Ctx.Done()
		time.Sleep(50 * time.Millisecond) // closing its files
		finished.Store(true)
		return e.Ctx.Err()
	}
	release := make(chan struct{})
	defer close(release)
	ignores := func(*cli.Env, *struct{}) error { <-release; return nil }
	for _, c := range []struct {
		name string
		f    func(*cli.Env, *struct{}) error
	}{{"checks its context", checks}, {"ignores its context", ignores}} {
		ctx, cancel := context.WithCancel(context.Background())
		cmd := &cobra.Command{Use: "slow"}
		cmd.SetContext(ctx)
		done := make(chan error, 1)
		go func() { done <- run(&GlobalOptions{}, cmd, &struct{}{}, c.f) }()
		time.Sleep(20 * time.Millisecond) // let f start (either order is correct)
		t0 := time.Now()
		cancel()
		err := <-done
		if d := time.Since(t0); !errors.Is(err, context.Canceled) || d > interruptGrace+2*time.Second {
			t.Errorf("%s: run returned %v after %v, want context.Canceled within %v", c.name, err, d, interruptGrace)
		}
		if c.name == "checks its context" && !finished.Load() {
			t.Errorf("%s: run returned before the run function did", c.name)
		}
	}
}
