package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestMeaninglessConfigValues: a config value that means nothing is a usage
// error (exit 2) naming the config file and the key, in qvs as and in qvs
// bayesopt (continuous and discrete) alike; before, each was silently read
// as a default, truncated, wrapped or capped.
func TestMeaninglessConfigValues(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	const boBase = "task: synthetic\nrepeats: 1\nbudget: 30\ninit: 10\nbatch: 5\nq: [1]\n"
	for _, tc := range []struct {
		name, cmd, body string
		want            string // after "config FILE"
	}{
		{"fractional budget", "as", strings.Replace(testutil.TinyASConfig, "budget: 13", "budget: 20.5", 1), ":6: budget: 20.5 is not a whole number"},
		{"negative seed", "as", strings.Replace(testutil.TinyASConfig, "seed: 3", "seed: -1", 1), ":2: seed: -1 is negative"},
		{"ECI threshold 7", "as", strings.Replace(testutil.TinyASConfig, "thresholds: [0.5]", "thresholds: [0.5, 7]", 1), ": eci.thresholds: 7 is outside [0, 1]"},
		{"ECI threshold -1", "as", strings.Replace(testutil.TinyASConfig, "thresholds: [0.5]", "thresholds: [-1]", 1), ": eci.thresholds: -1 is outside [0, 1]"},
		{"SELECT beta -1", "as", strings.Replace(testutil.TinyASConfig, "betas: [1]", "betas: [-1]", 1), ": select.betas: -1 must be a finite number >= 0"},
		{"SELECT lambda 5", "as", strings.Replace(testutil.TinyASConfig, "lambdas: [0.5]", "lambdas: [5]", 1), ": select.lambdas: 5 is outside [0, 1]"},
		{"paper task on another pool", "as", strings.Replace(testutil.TinyASConfig, "task: tiny", "task: bmg", 1), ": task: bmg but pool.kind: synthetic"},
		{"candidates 0", "bayesopt", boBase + "candidates: 0\n", ": candidates = 0: must be at least 1"},
		{"max_train 0", "bayesopt", boBase + "max_train: 0\n", ": max_train = 0: must be at least 1"},
		{"fit_iterations -1", "bayesopt", boBase + "fit_iterations: -1\n", ": fit_iterations = -1: must be at least 1"},
		{"bo budget 20.5", "bayesopt", boBase + "regions: 2.5\n", ":7: regions: 2.5 is not a whole number"},
		{"bo seed -1", "bayesopt", boBase + "seed: -1\n", ":7: seed: -1 is negative"},
		{"discrete budget over the pool", "bayesopt", strings.Replace(testutil.ToyMOFConfig, "budget: 8", "budget: 31", 1), ": budget = 31: exceeds the 30 candidates"},
		{"discrete negative beta", "bayesopt", strings.Replace(testutil.ToyMOFConfig, "beta: 2", "beta: -1", 1), ": beta = -1: must be finite and >= 0"},
		{"discrete repeats 0", "bayesopt", strings.Replace(testutil.ToyMOFConfig, "repeats: 2", "repeats: 0", 1), ": repeats = 0: must be at least 1"},
	} {
		cfg := asWriteFile(t, dir, "c.yaml", tc.body)
		code, _, stderr := runQVS(t, tc.cmd, "--config", cfg, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"),
			"--out", filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-")), "--quiet")
		if want := "config " + cfg + tc.want; code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", tc.name, code, stderr, want)
		}
	}
}

// TestPoolSizeWarnings: a budget or batch the pool cannot hold runs, capped,
// with a warning on stderr that says what was used instead.
func TestPoolSizeWarnings(t *testing.T) {
	dir := t.TempDir()
	// 300 items: 299 left after the start.
	cfg := asWriteFile(t, dir, "c.yaml", strings.Replace(strings.Replace(testutil.TinyASConfig, "budget: 13", "budget: 400", 1), "repeats: 2", "repeats: 1", 1))
	code, _, stderr := runQVS(t, "as", "--config", cfg, "--methods", "random", "--cache-dir", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, "big"), "--quiet")
	if code != ExitOK || !strings.Contains(stderr, "warning: budget 400 is more than the 299 items left after the start; each run queries the whole pool (299 queries)") {
		t.Errorf("budget over the pool: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runQVS(t, "as", "--config", cfg, "--methods", "random", "--budget", "3", "--batch", "5", "--cache-dir", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, "batch"), "--quiet")
	if code != ExitOK || !strings.Contains(stderr, "warning: batch 5 is more than the budget 3; each run makes one batch of 3") {
		t.Errorf("batch over the budget: exit %d, stderr %q", code, stderr)
	}
	testutil.WriteToyMOF(t, dir, 30)
	mof := asWriteFile(t, dir, "mof.yaml", strings.Replace(testutil.ToyMOFConfig, "batch: 3", "batch: 9", 1))
	code, _, stderr = runQVS(t, "bayesopt", "--config", mof, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, "mof"), "--repeats", "1", "--quiet")
	if code != ExitOK || !strings.Contains(stderr, "warning: batch 9 is more than the 6 evaluations after the initial design; each run makes one batch of 6") {
		t.Errorf("discrete batch over the budget: exit %d, stderr %q", code, stderr)
	}
}

// TestShippedConfigsPassChecks: every config in configs/ passes the key and
// number checks against the struct its command reads it into.
func TestShippedConfigsPassChecks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testutil.RepoRoot(), "configs", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		task, err := boPeekTask(&GlobalOptions{Config: f})
		if err != nil {
			t.Fatal(err)
		}
		var target any = &asConfig{}
		switch {
		case discrete.IsTask(task):
			target = &discrete.Protocol{}
		case task == "rover" || task == "lunar" || strings.HasPrefix(task, "synthetic-") || strings.Contains(filepath.Base(f), "-bo"):
			target = &bayesopt.Protocol{}
		}
		if err := configkeys.Check(f, data, target); err != nil {
			t.Errorf("%s (task %s, %T): %v", filepath.Base(f), task, target, err)
		}
	}
}

// TestCountsThatSizeAllocationsBounded: counts from a config or a flag that
// size an allocation are refused (exit 2, an input error) with the key or
// flag named, before anything is allocated (before, each ended in a Go
// out-of-memory stack trace): pool.synthetic.n, dim and clusters (naming
// the config file), toy --starts, --workers.
func TestCountsThatSizeAllocationsBounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"as", "--config", testutil.WriteFile(t, dir, "n.yaml", "pool:\n  synthetic:\n    n: 100000000000\n"), "--out", filepath.Join(dir, "o1")},
			2, "n.yaml: pool.synthetic.n: 100000000000, expected 2 to 1000000"},
		{[]string{"as", "--config", testutil.WriteFile(t, dir, "d.yaml", "pool:\n  synthetic:\n    dim: 100000000000\n"), "--out", filepath.Join(dir, "o2")},
			2, "d.yaml: pool.synthetic.dim: 100000000000"},
		{[]string{"as", "--config", testutil.WriteFile(t, dir, "c.yaml", "pool:\n  synthetic:\n    clusters: 100000000000\n"), "--out", filepath.Join(dir, "o3")},
			2, "c.yaml: pool.synthetic.clusters: 100000000000"},
		{[]string{"toy", "--starts", "100000000000", "--out", filepath.Join(dir, "o4")}, 2, "--starts (starts) must be 1 to 100000, got 100000000000"},
		{[]string{"--workers", "100000000000", "as", "--repeats", "1", "--budget", "5", "--out", filepath.Join(dir, "o5")}, 2, "--workers must be 1 to 1024, got 100000000000"},
	} {
		code, out, errs := runQVS(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(errs, c.want) || strings.Contains(errs, "goroutine") {
			t.Errorf("%v: exit %d, stdout %q, stderr %.300q; want %d and %q", c.args, code, out, errs, c.code, c.want)
		}
	}
}
