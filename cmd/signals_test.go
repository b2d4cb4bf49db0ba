//go:build linux

package cmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// startQVSLog starts qvs (under wrapper, if any) with its stderr in a
// file, which waitLog can read while the process runs.
func startQVSLog(t *testing.T, ctx context.Context, wrapper []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	argv := append(append(append([]string(nil), wrapper...), os.Args[0]), args...)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = append(os.Environ(), "QVS_TEST_MAIN=1")
	c.Stderr = f
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, log
}

// childrenGetSIGHUP makes the processes the test starts begin with SIGHUP
// at its default action (terminate), which qvs replaces with its handler.
// A test process that inherited SIGHUP ignored (started under nohup, or by
// a runner that ignores it) passes the ignoring on through exec, and qvs
// keeps an ignored SIGHUP ignored by design: the SIGHUP tests then saw no
// interrupt and failed after 3 minutes. While the test process catches
// SIGHUP itself, exec resets it to the default in every child. A SIGHUP
// sent to the test process meanwhile is swallowed.
func childrenGetSIGHUP(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	t.Cleanup(func() { signal.Stop(c) })
}

// sigMask is process pid's mask of the signals it ignores (field "SigIgn")
// or catches ("SigCgt"), from /proc/PID/status.
func sigMask(t *testing.T, pid int, field string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("/proc/%d/status: %s: %v", pid, line, err)
			}
			return m
		}
	}
	t.Fatalf("/proc/%d/status has no %s line", pid, field)
	return 0
}

// waitLog waits until the file log holds want; false after 60 s.
func waitLog(log, want string) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(log); strings.Contains(string(b), want) {
			return true
		}
	}
	return false
}

// TestSIGHUPInterruptsLikeSIGTERM: SIGHUP (a closed terminal or ssh
// session) stops `as` (a campaign: its runs keep their records, summary.csv
// is written) and `toy` cleanly, exit 1 with "interrupted", as SIGTERM
// does; before, SIGHUP was not handled and qvs died with exit 129 and no
// summary. `toy` says "interrupted", not "context canceled". Started with
// SIGHUP ignored (nohup), qvs keeps it ignored (no handler: /proc's SigIgn,
// not SigCgt), survives a SIGHUP and stops on the SIGTERM after it.
func TestSIGHUPInterruptsLikeSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	childrenGetSIGHUP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	out := filepath.Join(dir, "as")
	for _, c := range []struct {
		args  []string
		ready string // on stderr once qvs listens for signals
		want  string
	}{
		{[]string{"as", "--repeats", "3", "--budget", "300", "--batch", "1", "--workers", "1", "--cache-dir", filepath.Join(dir, "cache"), "--out", out},
			"prior a1", "campaign " + out + " interrupted"},
		{[]string{"toy", "--starts", "100000", "--workers", "1", "--out", filepath.Join(dir, "toy")}, "toy: n=", "qvs toy interrupted: rerun the same command"},
	} {
		p, log := startQVSLog(t, ctx, nil, c.args...)
		if !waitLog(log, c.ready) {
			p.Process.Kill()
			p.Wait()
			t.Fatalf("%s never started", c.args[0])
		}
		if c.args[0] == "as" {
			for ctx.Err() == nil {
				if recs, _ := filepath.Glob(filepath.Join(out, "runs", "*.csv")); len(recs) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		p.Process.Signal(syscall.SIGHUP)
		p.Wait()
		b, _ := os.ReadFile(log)
		if code := p.ProcessState.ExitCode(); code != ExitRuntime || !strings.Contains(string(b), c.want) || c.args[0] == "toy" && strings.Contains(string(b), "context canceled") {
			t.Errorf("%s after SIGHUP: exit %d (%v), stderr:\n%s\nwant exit 1 and %q", c.args[0], code, p.ProcessState, b, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); err != nil {
		t.Errorf("as: no summary.csv after SIGHUP: %v", err)
	}
	// nohup: SIGHUP ignored at start stays ignored. qvs installs its
	// handlers before it prints "toy: n=". (This once slept 500 ms and
	// probed the process with signal 0, which a dead, unreaped process
	// answers too: it passed with qvs catching SIGHUP under nohup.)
	p, log := startQVSLog(t, ctx, []string{"sh", "-c", `trap "" HUP; exec "$0" "$@"`},
		"toy", "--starts", "100000", "--workers", "1", "--out", filepath.Join(dir, "toy2"))
	if !waitLog(log, "toy: n=") {
		p.Process.Kill()
		p.Wait()
		t.Fatal("toy under nohup never started")
	}
	const hup = 1 << (syscall.SIGHUP - 1)
	if ign, cgt := sigMask(t, p.Process.Pid, "SigIgn"), sigMask(t, p.Process.Pid, "SigCgt"); ign&hup == 0 || cgt&hup != 0 {
		t.Errorf("toy started with SIGHUP ignored (nohup): SigIgn %x, SigCgt %x; want SIGHUP (%x) ignored, not caught", ign, cgt, hup)
	}
	p.Process.Signal(syscall.SIGHUP)
	p.Process.Signal(syscall.SIGTERM)
	p.Wait()
	if b, _ := os.ReadFile(log); p.ProcessState.ExitCode() != ExitRuntime || !strings.Contains(string(b), "qvs toy interrupted") {
		t.Errorf("toy under nohup after SIGHUP then SIGTERM: %v, stderr:\n%s\nwant SIGHUP ignored and exit 1 on SIGTERM", p.ProcessState, b)
	}
}

// TestObjectiveCommandDiesWithQVS: the process group of an --objective-cmd
// child (the shell and what it starts) is killed when qvs is killed with
// SIGKILL, which no handler sees, and when qvs stops on SIGHUP; before, the
// child ran on after either, and a resumed campaign evaluated the batch a
// second time beside it.
func TestObjectiveCommandDiesWithQVS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	childrenGetSIGHUP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		pgFile := filepath.Join(dir, sig.String()+".pg")
		// The shell writes its pid (= the group's id) and starts a child
		// that outlives it unless the group is killed.
		line := "echo $$ > '" + pgFile + "'; sleep 300; echo 1"
		p := startQVS(t, ctx, "bayesopt", nil, "bayesopt", "--space", space, "--objective-cmd", line, "--repeats", "1",
			"--methods", "random", "--budget", "10", "--init", "5", "--batch", "5", "--workers", "1", "--cache-dir", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, sig.String()))
		var pg int
		for ctx.Err() == nil {
			if b, err := os.ReadFile(pgFile); err == nil && strings.HasSuffix(string(b), "\n") {
				pg, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if pg <= 1 {
			t.Fatalf("no process group recorded; stderr:\n%s", p.stderr.String())
		}
		t.Cleanup(func() { syscall.Kill(-pg, syscall.SIGKILL) })
		p.cmd.Process.Signal(sig)
		p.cmd.Wait()
		gone := false
		// The group's sleep runs 300 s unless killed; the 60 s leave a
		// loaded machine time to schedule the watcher that kills it.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if err := syscall.Kill(-pg, 0); errors.Is(err, syscall.ESRCH) {
				gone = true
				break
			}
		}
		if !gone {
			t.Errorf("%v of qvs: the objective command's group %d still runs 60 s later", sig, pg)
		}
	}
}

// TestSuggestAnswersSIGTERMDuringGraphBuild: `as suggest` with labels
// (whose kNN build checks no context) ends on SIGTERM within seconds with
// "qvs as suggest interrupted", exit 1 and nothing on stdout; it held the
// signal until the graph and the batch were done and exited 0 with the
// batch.
func TestSuggestAnswersSIGTERMDuringGraphBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cfg := testutil.WriteFile(t, dir, "pool.yaml", "pool:\n  kind: synthetic\n  synthetic: {n: 200000, dim: 8, clusters: 40, positive_clusters: 5, positive_rate: 0.4, background_rate: 0.002, separation: 3, spread: 1, k: 20, similarity: gaussian, seed: 1}\n")
	log := filepath.Join(dir, "stderr")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stdout strings.Builder
	p := exec.CommandContext(ctx, os.Args[0], "as", "suggest", "--config", cfg, "--batch", "5", "--workers", "1", "--cache-dir", filepath.Join(dir, "cache"))
	p.Env = append(os.Environ(), "QVS_TEST_MAIN=1")
	p.Stdout, p.Stderr = &stdout, f
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitLog(log, "loading pool") {
		p.Process.Kill()
		p.Wait()
		t.Fatal("as suggest never started")
	}
	time.Sleep(300 * time.Millisecond)
	t0 := time.Now()
	p.Process.Signal(syscall.SIGTERM)
	p.Wait()
	b, _ := os.ReadFile(log)
	if code := p.ProcessState.ExitCode(); code != ExitRuntime || !strings.Contains(string(b), "qvs as suggest interrupted") || stdout.Len() > 0 {
		t.Errorf("after SIGTERM: exit %d (%v) after %v, stdout %q, stderr:\n%s\nwant exit 1 and \"qvs as suggest interrupted\"", code, p.ProcessState, time.Since(t0), stdout.String(), b)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("as suggest took %v to answer SIGTERM", d)
	}
}
