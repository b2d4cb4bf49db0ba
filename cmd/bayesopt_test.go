package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// smallBO is a fast campaign on the 6-d synthetic task.
var smallBO = []string{"bayesopt", "--task", "synthetic", "--repeats", "1", "--budget", "30", "--init", "10",
	"--batch", "5", "--candidates", "60", "--q", "1", "--seed", "4", "--quiet"}

func TestBayesoptCampaignOutputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	code, out, errs := runQVS(t, append(smallBO, "--out", dir)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(dir, "summary.csv"))
	col := map[string]int{}
	for i, h := range sum[0] {
		col[h] = i
	}
	for _, h := range []string{"method", "q", "repeat", "best_value", "solutions_mean_value", "solutions_mean_distance", "solutions_vs", "seconds"} {
		if _, ok := col[h]; !ok {
			t.Errorf("summary.csv lacks %s: %v", h, sum[0])
		}
	}
	var methods []string
	for _, r := range sum[1:] {
		methods = append(methods, r[col["method"]]+r[col["q"]])
	}
	if !reflect.DeepEqual(methods, []string{"random", "turbo", "robot", "qvs1"}) {
		t.Errorf("runs %v", methods)
	}
	for _, r := range sum[1:] {
		key := r[col["key"]]
		recs := testutil.ReadCSVFile(t, filepath.Join(dir, "runs", key+".csv"))
		if strings.Join(recs[0], ",") != "iteration,region,x0,x1,x2,x3,x4,x5,value,seconds" || len(recs) != 31 {
			t.Errorf("%s: header %v, %d rows", key, recs[0], len(recs)-1)
		}
		best, _ := strconv.ParseFloat(r[col["best_value"]], 64)
		curve := testutil.ReadCSVFile(t, filepath.Join(dir, "runs", key+".curve.csv"))
		last, _ := strconv.ParseFloat(curve[len(curve)-1][1], 64)
		if len(curve) != 31 || last != best {
			t.Errorf("%s: curve has %d rows ending at %v, best %v", key, len(curve)-1, last, best)
		}
		sols := testutil.ReadCSVFile(t, filepath.Join(dir, "runs", key+".solutions.csv"))
		dists := testutil.ReadCSVFile(t, filepath.Join(dir, "runs", key+".distances.csv"))
		if len(sols) != 4 || len(dists) != 4 { // M = 3 solutions, 3 pairs
			t.Errorf("%s: %d solutions, %d distances", key, len(sols)-1, len(dists)-1)
		}
	}
	// The table is eval's: human method names, one repeat's SE is n/a.
	if !strings.Contains(out, "| qVS-BayesOpt, q = 1 | ") || !strings.Contains(out, "| TuRBO | ") ||
		!strings.Contains(out, " (n/a) |") || !strings.Contains(out, "over 1 repeat.") {
		t.Errorf("stdout table:\n%s", out)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "budget: 30") || !strings.Contains(string(cfg), "seed: 4") {
		t.Errorf("config.yaml: %v\n%s", err, cfg)
	}
}

func TestBayesoptUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("task: synthetic\nbudget: 40\nregions: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("task: synthetic\nbudgte: 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bayesopt"}, ExitUsage, "--task is required"},
		{[]string{"bayesopt", "--task", "nosuch"}, ExitUsage, "unknown task"},
		{[]string{"bayesopt", "--task", "synthetic", "--methods", "turbo,bogus"}, ExitUsage, "bogus"},
		{[]string{"bayesopt", "--task", "synthetic", "--q", "-1"}, ExitUsage, "q"},
		{[]string{"bayesopt", "--task", "synthetic", "--methods", "qvs", "--q", ""}, ExitUsage, "needs at least one order"},
		{[]string{"bayesopt", "--task", "synthetic", "--budget", "5"}, ExitUsage, "budget"},
		{[]string{"bayesopt", "--task", "synthetic", "--regions", "30"}, ExitUsage, "init"},
		{[]string{"bayesopt", "--task", "synthetic", "--shard", "3/2"}, ExitUsage, "shard"},
		{[]string{"bayesopt", "--task", "synthetic", "--qvs-floor", "--tau", "0"}, ExitUsage, "--qvs-floor (key qvs_floor): needs tau > 0"},
		{[]string{"bayesopt", "--task", "synthetic", "--qvs-mode", "author"}, ExitUsage, `--qvs-mode (key qvs_mode) = "author": expected paper or authors`},
		{[]string{"bayesopt", "--task", "synthetic", "--qvs-mode", "authors", "--qvs-floor"}, ExitUsage, "has its own floor"},
		{[]string{"bayesopt", "--task", "rover", "--config", cfg}, ExitUsage, "task: synthetic"},
		{[]string{"bayesopt", "--config", bad}, ExitUsage, `bad.yaml:2: unknown key "budgte" (did you mean "budget"?)`},
		{[]string{"bayesopt", "--config", filepath.Join(dir, "missing.yaml")}, ExitUsage, "missing.yaml"},
	} {
		code, _, errs := runQVS(t, append(c.args, "--out", filepath.Join(dir, "out"), "--quiet")...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestBayesoptConfigsMatchDefaults: `--task rover` and `--config
// configs/rover.yaml` resolve to the same campaign (likewise lunar), and
// every shipped config parses.
func TestBayesoptConfigsMatchDefaults(t *testing.T) {
	root := testutil.RepoRoot()
	for _, task := range []string{"rover", "lunar", "synthetic"} {
		name := task + ".yaml"
		if task == "synthetic" {
			name = "synthetic-bo.yaml"
		}
		g := &GlobalOptions{Config: filepath.Join(root, "configs", name)}
		c := &cobra.Command{}
		f := &bayesoptOptions{}
		f.register(c.Flags(), g)
		got, err := resolveBayesoptConfig(c, g, f, task)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if task == "synthetic" {
			continue
		}
		want := defaultBayesoptConfig(task)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s resolves to %+v, built-in defaults are %+v", name, got, want)
		}
	}
}

// TestBayesoptDispatchesDiscreteTasks: the task is peeked from the config
// (or --task) and a discrete task goes to the discrete engine, which reads
// the config under its own keys; an unknown task is a usage error.
func TestBayesoptDispatchesDiscreteTasks(t *testing.T) {
	dir := t.TempDir()
	cfg := testutil.WriteFile(t, dir, "m.yaml", "task: mof\nbeta: 3\n") // beta: a discrete key only
	code, _, errs := runQVS(t, "bayesopt", "--config", cfg, "--data-dir", dir, "--out", filepath.Join(dir, "out"), "--quiet")
	if code != ExitRuntime || !strings.Contains(errs, "mof/kernel.npy") || !strings.Contains(errs, "is not public") {
		t.Errorf("discrete task from the config: exit %d, stderr %q; want the MOF data named missing", code, errs)
	}
	code, _, errs = runQVS(t, "bayesopt", "--task", "mof", "--data-dir", dir, "--out", filepath.Join(dir, "out"), "--quiet")
	if code != ExitRuntime || !strings.Contains(errs, "is not public") {
		t.Errorf("discrete --task: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runQVS(t, "bayesopt", "--task", "nosuch", "--quiet"); code != ExitUsage {
		t.Errorf("unknown task: exit %d", code)
	}
}

// TestSettingErrorsNameFlags: a setting the user gave as a flag is named by
// the flag in its error (settings are validated under config keys: the
// message said "max_train = 0" for --max-train 0); one a config set keeps
// its key alone.
func TestSettingErrorsNameFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args        []string
		want, avoid string
	}{
		{[]string{"--task", "synthetic", "--max-train", "0"}, "--max-train (key max_train) = 0: must be at least 1", ""},
		{[]string{"--task", "synthetic", "--regions", "0"}, "--regions (key regions) = 0", ""},
		{[]string{"--config", testutil.WriteFile(t, dir, "c.yaml", "task: synthetic\nmax_train: 0\n")}, "max_train = 0: must be at least 1", "--max-train"},
	} {
		args := append([]string{"bayesopt", "--out", filepath.Join(dir, "out"), "--repeats", "1", "--budget", "20"}, tc.args...)
		code, _, stderr := runQVS(t, args...)
		if code == ExitOK || !strings.Contains(stderr, tc.want) || (tc.avoid != "" && strings.Contains(stderr, tc.avoid)) {
			t.Errorf("%v: exit %d, stderr %q; want %q and not %q", tc.args, code, stderr, tc.want, tc.avoid)
		}
	}
	// Only a message's opening "KEY = " is a setting's name: toy's hint
	// "n = 100 takes ~25 min" inside the message stays as written.
	if code, _, stderr := runQVS(t, "toy", "--n", "101"); code == ExitOK || !strings.Contains(stderr, "(the cost grows like n^3: n = 100 takes") {
		t.Errorf("toy --n 101: exit %d, stderr %q", code, stderr)
	}
}
