package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestNPYPoolGraphSizeBounded: the n x k <= 2 x 10^7 bound holds for .npy
// pools as for CSV ones (a 20,000-row .npy with --k 1001 used to run, 809
// MB; --k 59999 on 60,000 rows died allocating 28.8 GB): exit 2 naming
// --k before the graph is built.
func TestNPYPoolGraphSizeBounded(t *testing.T) {
	dir := t.TempDir()
	const n, d = 5000, 2
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(i%97) + float32(i)/float32(n*d)
	}
	pool := writeNPY32(t, dir, "X.npy", n, d, x)
	var b strings.Builder
	b.WriteString("x1,x2\n")
	for i := range n {
		fmt.Fprintf(&b, "%g,%g\n", x[2*i], x[2*i+1])
	}
	csv := testutil.WriteFile(t, dir, "X.csv", b.String())
	for _, args := range [][]string{
		{"graph", "--pool", pool, "--k", "4001", "--knn", "exact", "--out", dir + "/W.npz"},
		{"as", "suggest", "--pool", pool, "--k", "4999", "--batch", "1"},
		// CSV pools had the bound, named pool.csv.k, exit 1.
		{"graph", "--pool", csv, "--k", "4001", "--out", dir + "/W.npz"},
	} {
		code, stdout, stderr := runQVS(t, append(args, "--cache-dir", dir+"/cache", "--quiet")...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--k (key pool.csv.k) = ") || !strings.Contains(stderr, "at most 4000 for 5000 rows") {
			t.Errorf("%v: exit %d, stderr %q", args[:2], code, stderr)
		}
	}
}

// TestSpaceBudgetBounded: --init and --budget of a user's space are bounded
// (10^9 asked for 24 GB; 9223372036854775807 panicked in makeslice): exit
// 2 naming the flag, before the objective command runs.
func TestSpaceBudgetBounded(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: x, lower: 0, upper: 1}\n  - {name: y, lower: 0, upper: 1}\n")
	for _, v := range [][2]string{{"1000000000", "2000000000"}, {"9223372036854775807", "9223372036854775807"}} {
		code, stdout, stderr := runQVS(t, "bayesopt", "--space", space, "--objective-cmd", "false", "--init", v[0], "--budget", v[1], "--out", dir+"/bo", "--quiet")
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--budget (key budget) = "+v[1]+": expected at most 1000000") {
			t.Errorf("--init %s --budget %s: exit %d, stderr %q", v[0], v[1], code, stderr)
		}
	}
	code, _, stderr := runQVS(t, "bayesopt", "--space", space, "--objective-cmd", "false", "--init", "9223372036854775807", "--budget", "9223372036854775807", "--batch", "2", "--out", dir+"/bo", "--quiet")
	if code != ExitUsage {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestGraphInterrupted: SIGINT, SIGTERM or SIGHUP during `qvs graph`'s
// build ends it with exit 1 and "qvs graph interrupted" and no --out
// (it died with 130/143/129 and no message).
func TestGraphInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	childrenGetSIGHUP(t)
	dir := t.TempDir()
	const n, d = 20000, 64
	x := make([]float32, n*d)
	// Pseudo-random rows (no repeats, which the exact build would prune
	// in a fraction of a second): the build runs long enough to be signalled.
	r := uint64(1)
	for i := range x {
		r = r*6364136223846793005 + 1442695040888963407
		x[i] = float32(r>>40) / (1 << 24)
	}
	pool := writeNPY32(t, dir, "X.npy", n, d, x)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		out := filepath.Join(dir, "W.npz")
		p, log := startQVSLog(t, ctx, nil, "graph", "--pool", pool, "--k", "10", "--knn", "exact", "--workers", "1", "--out", out, "--cache-dir", filepath.Join(dir, "cache"))
		if !waitLog(log, "kNN graph: exact, ") {
			p.Process.Kill()
			p.Wait()
			t.Fatal("graph never started its build")
		}
		p.Process.Signal(sig)
		p.Wait()
		b, _ := os.ReadFile(log)
		if code := p.ProcessState.ExitCode(); code != ExitRuntime || !strings.Contains(string(b), "qvs graph interrupted") {
			t.Errorf("%v: exit %d (%v), stderr tail %q", sig, code, p.ProcessState, tail(string(b)))
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", sig, out)
		}
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return s[len(s)-300:]
	}
	return s
}

// TestGraphFlagMessages: --similarity is checked before the pool is read
// (it was checked after the graph was built, exit 1, naming
// pool.csv.similarity), and --help lists no flag graph refuses (--graph,
// --kernel).
func TestGraphFlagMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "absent.npy") // never read: the flag is refused first
	for sim, want := range map[string]string{"bogus": `"bogus" is not one of`, "native": `needs metric "cosine"`} {
		code, stdout, stderr := runQVS(t, "graph", "--pool", missing, "--similarity", sim, "--out", filepath.Join(dir, "W.npz"))
		if code != ExitUsage || stdout != "" || !strings.HasPrefix(stderr, "qvs: --similarity: ") || !strings.Contains(stderr, want) {
			t.Errorf("--similarity %s: exit %d, stderr %q", sim, code, stderr)
		}
	}
	_, help, _ := runQVS(t, "graph", "--help")
	if strings.Contains(help, "--graph ") || strings.Contains(help, "--kernel ") || !strings.Contains(help, "--similarity") {
		t.Errorf("graph --help:\n%s", help)
	}
}

// TestLongFlagValuesExcerpted: a 100 KB flag value is quoted as an
// excerpt in the error (a 100 KB --q gave a 200 KB message), whichever
// message names it.
func TestLongFlagValuesExcerpted(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "pool.csv", "a,b\n1,2\n3,4\n5,6\n")
	long := strings.Repeat("x", 100_000)
	for _, args := range [][]string{
		{"score", "--q", long, "--kernel", pool},
		{"as", "suggest", "--pool", pool, "--method", long},
		{"as", "suggest", "--pool", pool, "--metric=" + long},
		{"as", "suggest", "--pool", pool, "--id-column", long},
	} {
		code, stdout, stderr := runQVS(t, args...)
		if code == 0 || stdout != "" || len(stderr) > 1000 || !strings.Contains(stderr, "(100000 bytes)") {
			t.Errorf("%v: exit %d, %d bytes of stderr: %.300q", args[:3], code, len(stderr), stderr)
		}
	}
}

// TestSpaceSuggestAnswersSIGTERM: `bayesopt suggest --space` replaying a
// long --observed file and fitting its models (10,000 rows with a failed
// one: about 1.5 s of CPU) stops on SIGTERM at once, exit 1,
// "interrupted" (it ran to the end through timeout's SIGTERM).
func TestSpaceSuggestAnswersSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	var b strings.Builder
	b.WriteString("a,b,value\n")
	for i := range 10000 {
		v := "failed" // one failed row: its warning says the file is read
		if i != 5 {
			v = strconv.FormatFloat(float64((i*37)%101)/101, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%g,%g,%s\n", float64((i*7919)%10007)/10007, float64((i*104729)%10009)/1000.9, v)
	}
	obs := testutil.WriteFile(t, dir, "obs.csv", b.String())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, log := startQVSLog(t, ctx, nil, "bayesopt", "suggest", "--space", space, "--observed", obs, "--batch", "4", "--workers", "1")
	if !waitLog(log, "failed: left out of the model") {
		p.Process.Kill()
		p.Wait()
		t.Fatal("suggest never read its file")
	}
	time.Sleep(300 * time.Millisecond) // into the replay
	t0 := time.Now()
	p.Process.Signal(syscall.SIGTERM)
	p.Wait()
	took := time.Since(t0)
	out, _ := os.ReadFile(log)
	if code := p.ProcessState.ExitCode(); code != ExitRuntime || !strings.Contains(string(out), "interrupted") || took > 10*time.Second {
		t.Errorf("exit %d after %v, stderr %q; want exit 1 with interrupted within 10 s", code, took, tail(string(out)))
	}
}
