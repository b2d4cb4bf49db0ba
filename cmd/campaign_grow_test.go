package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestDefaultFoldersDistinct: no two campaigns of
// different commands or tasks default to one results folder; the README
// walk-through ran `qvs as` and configs/synthetic-bo.yaml into
// results/synthetic.
func TestDefaultFoldersDistinct(t *testing.T) {
	root := testutil.RepoRoot()
	owner := map[string]string{} // folder -> "command task"
	claim := func(out, who string) {
		t.Helper()
		if prev, ok := owner[out]; ok && prev != who {
			t.Errorf("%s and %s both default to %s", prev, who, out)
		}
		owner[out] = who
	}
	c, g := newTestASCommand(t, "")
	def, err := resolveASConfig(c, g, &asOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	claim(def.Out, "as "+def.Task)
	files, _ := filepath.Glob(filepath.Join(root, "configs", "*.yaml"))
	if len(files) < 8 {
		t.Fatalf("configs: %v", files)
	}
	for _, path := range files {
		task, err := boPeekTask(&GlobalOptions{Config: path})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		switch {
		case strings.Contains(string(b), "\npool:"):
			c, g := newTestASCommand(t, path)
			cfg, err := resolveASConfig(c, g, &asOptions{}, "")
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			claim(cfg.Out, "as "+cfg.Task)
		case discrete.IsTask(task):
			cfg := defaultDiscreteConfig(task)
			if err := loadConfig(path, &cfg); err != nil {
				t.Fatal(err)
			}
			claim(cfg.Out, "bayesopt "+task)
			claim(defaultDiscreteConfig(task).Out, "bayesopt "+task)
		default:
			cfg, err := resolveBayesoptConfig(&cobra.Command{}, &GlobalOptions{Config: path}, &bayesoptOptions{}, task)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			claim(cfg.Out, "bayesopt "+task)
			claim(defaultBayesoptConfig(task).Out, "bayesopt "+task) // --task TASK without a config
		}
	}
	if owner[filepath.Join("results", "synthetic-bo")] != "bayesopt synthetic" {
		t.Errorf("folders %v: want results/synthetic-bo for bayesopt synthetic", owner)
	}
}

// TestASCampaignGrows: a finished campaign accepts a
// config that only adds runs (repeats, methods, q) and runs just the new
// ones; another difference is refused naming the keys, with nothing
// printed before the error.
func TestASCampaignGrows(t *testing.T) {
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "tiny.yaml", tinyASConfig)
	out := filepath.Join(dir, "res")
	cache := filepath.Join(dir, "cache")
	as := func(args ...string) (int, string, string) {
		t.Helper()
		return runQVS(t, append([]string{"as", "--config", cfg, "--out", out, "--cache-dir", cache}, args...)...)
	}
	if code, _, stderr := as("--quiet", "--methods", "one-step,qvs", "--q", "1", "--repeats", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summary := func() int { return len(readCSVFile(t, filepath.Join(out, "summary.csv"))) - 1 }
	if n := summary(); n != 2 {
		t.Fatalf("%d runs, want 2", n)
	}
	before, _ := os.ReadFile(filepath.Join(out, "runs", "qvs-q1-r00.csv"))
	code, _, stderr := as("--methods", "one-step,qvs,random", "--q", "1,inf", "--repeats", "2")
	if code != 0 || !strings.Contains(stderr, "8 of 8 run(s) finished (6 new, 2 already done)") {
		t.Fatalf("grown campaign: exit %d, %s", code, stderr)
	}
	if n := summary(); n != 8 {
		t.Errorf("%d runs after growth, want (random, one-step, qvs q = 1, inf) x 2 repeats = 8", n)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "runs", "qvs-q1-r00.csv")); string(after) != string(before) {
		t.Errorf("growth rewrote a finished run")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "config.yaml")); !strings.Contains(string(b), "repeats: 2") || !strings.Contains(string(b), "- random") {
		t.Errorf("config.yaml does not record the grown config:\n%s", b)
	}
	// Changing the budget or shrinking is refused, naming the keys, and
	// nothing (not even "loading pool") is printed first.
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--methods", "one-step,qvs,random", "--q", "1,inf", "--repeats", "2", "--budget", "20"}, []string{"budget: 13 recorded, 20 now"}},
		{[]string{"--methods", "qvs", "--q", "1,inf", "--repeats", "1", "--seed", "4"}, []string{"methods: [one-step, qvs, random] recorded, [qvs] now", "repeats: 2 recorded, 1 now", "seed: 3 recorded, 4 now"}},
	} {
		code, stdout, stderr := as(tc.args...)
		if code != 1 || stdout != "" || !strings.Contains(strings.SplitN(stderr, "\n", 2)[0], "config.yaml holds a different config") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, stdout, stderr)
		}
		if strings.Contains(stderr, "loading pool") {
			t.Errorf("%v: printed before the refusal: %q", tc.args, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q does not name %q", tc.args, stderr, w)
			}
		}
	}
}

// TestBayesoptCampaignGrows: the same growth rule for `qvs bayesopt`.
func TestBayesoptCampaignGrows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	args := append(append([]string(nil), smallBO...), "--out", dir, "--methods", "random", "--repeats", "1")
	if code, _, errs := runQVS(t, args...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	grown := append(append([]string(nil), args...), "--methods", "random,turbo", "--repeats", "2")
	if code, _, errs := runQVS(t, grown...); code != ExitOK {
		t.Fatalf("grown: exit %d: %s", code, errs)
	}
	if n := len(readCSVFile(t, filepath.Join(dir, "summary.csv"))) - 1; n != 4 {
		t.Errorf("%d runs after growth, want 4", n)
	}
	code, out, errs := runQVS(t, append(grown, "--budget", "35", "--quiet=false")...)
	if code != ExitRuntime || out != "" || !strings.HasPrefix(errs, "qvs: ") || !strings.Contains(errs, "budget: ") || strings.Contains(errs, "qvs bayesopt:") {
		t.Errorf("changed budget: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
