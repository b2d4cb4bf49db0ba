package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

func asWriteFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestASCampaignOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "tiny.yaml", testutil.TinyASConfig)
	out := filepath.Join(dir, "res")
	code, stdout, stderr := runQVS(t, "as", "--config", cfg, "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--workers", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	wantCols := []string{"method", "q", "params", "repeat", "positives", "vs_q0", "vs_q0.1", "vs_q0.5", "vs_q1", "vs_q2", "vs_qinf", "max_pairwise_distance", "kernel_det", "kernel_logdet", "kernel_det_per_item", "seconds"}
	for _, c := range wantCols {
		if !slices.Contains(sum[0], c) {
			t.Errorf("summary.csv lacks column %q (header %v)", c, sum[0])
		}
	}
	if len(sum) != 1+16 {
		t.Fatalf("summary.csv has %d runs, want 16", len(sum)-1)
	}
	col := func(name string) int { return slices.Index(sum[0], name) }
	methods := map[string]int{}
	for _, r := range sum[1:] {
		methods[r[col("method")]]++
		pos, _ := strconv.Atoi(r[col("positives")])
		vs0, _ := strconv.ParseFloat(r[col("vs_q0")], 64)
		vsInf, _ := strconv.ParseFloat(r[col("vs_qinf")], 64)
		if pos < 1 || vs0 > float64(pos) || vsInf > vs0+1e-9 {
			t.Errorf("run %s: positives %d, VS_0 %g, VS_inf %g (want 1 <= VS_inf <= VS_0 <= positives)", r[0], pos, vs0, vsInf)
		}
	}
	if want := map[string]int{"random": 2, "one-step": 2, "eci": 2, "select": 2, "ens": 2, "qvs": 6}; !reflect.DeepEqual(methods, want) {
		t.Errorf("runs per method %v, want %v", methods, want)
	}
	// One query file per run: the start plus 13 queries, batches 4,4,4,1.
	recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r01.csv"))
	if strings.Join(recs[0], ",") != "iteration,batch,index,id,label,probability,seconds" {
		t.Fatalf("query header %v", recs[0])
	}
	if len(recs) != 1+14 || recs[1][0] != "0" || recs[1][4] != "1" || recs[14][0] != "13" || recs[14][1] != "4" {
		t.Fatalf("query file rows: %d, first %v, last %v", len(recs)-1, recs[1], recs[len(recs)-1])
	}
	// Repeat r's start is shared by every method.
	for _, key := range []string{"random-r01", "eci-t0.5-pessimistic-r01", "qvs-qinf-r01"} {
		other := testutil.ReadCSVFile(t, filepath.Join(out, "runs", key+".csv"))
		if other[1][2] != recs[1][2] {
			t.Errorf("%s starts at item %s, qvs-q1-r01 at %s", key, other[1][2], recs[1][2])
		}
	}
	curve := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r01.curve.csv"))
	if strings.Join(curve[0], ",") != "batch,queries,positives,vs_q1" || len(curve) != 1+5 || curve[5][1] != "13" {
		t.Fatalf("curve file %v", curve)
	}
	cfgBody, err := os.ReadFile(filepath.Join(out, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed: 3", "qvs " + Version, "budget: 13", "kind: synthetic"} {
		if !strings.Contains(string(cfgBody), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfgBody)
		}
	}
	if !strings.Contains(stdout, "| qVS-AS, q = inf |") || !strings.Contains(stdout, "| ECI | ") {
		t.Errorf("stdout lacks the results table:\n%s", stdout)
	}
	// `qvs as table DIR` prints the same table.
	code, again, stderr := runQVS(t, "as", "table", out)
	if code != 0 || again != stdout {
		t.Errorf("as table: exit %d, %s\n%s\nvs\n%s", code, stderr, again, stdout)
	}
}

// buildQVS builds the qvs binary into dir and returns its path, with the
// linear-algebra backend of the test binary (outputs are compared with
// in-process runs, and the backends round differently).
func buildQVS(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "qvs")
	build := exec.Command("go", "build", "-tags", map[string]string{"openblas": "openblas"}[linalg.Backend], "-o", bin, ".")
	build.Dir = testutil.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestASResumeAfterKill9 kills a built qvs binary mid-campaign with SIGKILL,
// resumes it, and compares every file with an uninterrupted campaign.
func TestASResumeAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the qvs binary")
	}
	dir := t.TempDir()
	bin := buildQVS(t, dir)
	// 24 runs of 30 batches on a 1,500-item pool: a few seconds of work.
	body := strings.NewReplacer("n: 300", "n: 1500", "budget: 13", "budget: 60", "batch: 4", "batch: 2", "repeats: 2", "repeats: 3").Replace(testutil.TinyASConfig)
	cfg := asWriteFile(t, dir, "kill.yaml", body)
	cache := filepath.Join(dir, "cache")
	full, killed := filepath.Join(dir, "full"), filepath.Join(dir, "killed")
	args := []string{"as", "--config", cfg, "--cache-dir", cache, "--workers", "2", "--quiet"}
	if code, _, stderr := runQVS(t, append(args, "--out", full)...); code != 0 {
		t.Fatal(stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--out", killed)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Kill once some runs are finished and another has records but no summary.
	killedMid := false
poll:
	for {
		select {
		case <-done:
			break poll
		case <-time.After(5 * time.Millisecond):
		}
		sums, _ := filepath.Glob(filepath.Join(killed, "runs", "*.summary.csv"))
		recs, _ := filepath.Glob(filepath.Join(killed, "runs", "*-r0?.csv"))
		if len(sums) >= 3 && len(recs) > len(sums) {
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			killedMid = true
			break
		}
	}
	if !killedMid {
		t.Fatal("the campaign finished before it could be killed; enlarge it")
	}
	sums, _ := filepath.Glob(filepath.Join(killed, "runs", "*.summary.csv"))
	t.Logf("killed with %d of 24 runs finished", len(sums))
	resume := exec.CommandContext(ctx, bin, append(args, "--out", killed)...)
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	testutil.SameResults(t, full, killed)
}

func TestASConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		body, want string
		code       int
	}{
		// Every config error is a usage error (exit 2), as in qvs bayesopt.
		"unknown key":      {testutil.TinyASConfig + "budgte: 5\n", `unknown key "budgte" (did you mean "budget"?)`, ExitUsage},
		"unknown pool key": {strings.Replace(testutil.TinyASConfig, "k: 8}", "k: 8, nn: 3}", 1), "nn", ExitUsage},
		"unknown method":   {strings.Replace(testutil.TinyASConfig, "ens, qvs]", "ens, qvs, greedy]", 1), `unknown method "greedy"`, ExitUsage},
		"bad order":        {strings.Replace(testutil.TinyASConfig, "q: [0, 1, inf]", "q: [0, -1]", 1), "order", ExitUsage},
		"bad fantasy":      {strings.Replace(testutil.TinyASConfig, "fantasy: optimistic", "fantasy: hopeful", 1), "select.fantasy", ExitUsage},
		"zero batch":       {strings.Replace(testutil.TinyASConfig, "batch: 4", "batch: 0", 1), "batch", ExitUsage},
		"bad pool kind":    {strings.Replace(testutil.TinyASConfig, "kind: synthetic", "kind: mnist", 1), "pool.kind", ExitUsage},
		"bad ties":         {testutil.TinyASConfig + "ties: first\n", "ties", ExitUsage},
	} {
		cfg := asWriteFile(t, dir, "c.yaml", tc.body)
		code, _, stderr := runQVS(t, "as", "--config", cfg, "--out", filepath.Join(dir, name), "--cache-dir", filepath.Join(dir, "cache"), "--quiet")
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d (want %d), stderr %q (want it to mention %q)", name, code, tc.code, stderr, tc.want)
		}
	}
	// Bad flags are usage errors (exit 2).
	cfg := asWriteFile(t, dir, "ok.yaml", testutil.TinyASConfig)
	for _, args := range [][]string{
		{"--methods", "random,bogus"},
		{"--q", "0,x"},
		{"--shard", "2/2"},
		{"--budget", "zero"},
	} {
		code, _, stderr := runQVS(t, append([]string{"as", "--config", cfg, "--out", filepath.Join(dir, "flags"), "--cache-dir", filepath.Join(dir, "cache"), "--quiet"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// A different config into an existing results directory is refused.
	out := filepath.Join(dir, "mix")
	base := []string{"as", "--config", cfg, "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--quiet", "--methods", "random", "--repeats", "1"}
	if code, _, stderr := runQVS(t, base...); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runQVS(t, append(base, "--seed", "99")...); code != 1 || !strings.Contains(stderr, "different config") {
		t.Errorf("different seed into the same directory: exit %d, %s", code, stderr)
	}
}

func TestASFlagsOverrideConfigAndShards(t *testing.T) {
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "tiny.yaml", testutil.TinyASConfig)
	cache := filepath.Join(dir, "cache")
	common := []string{"as", "--config", cfg, "--cache-dir", cache, "--quiet", "--methods", "random,qvs", "--q", "0.5", "--repeats", "3", "--budget", "6", "--batch", "3", "--seed", "11"}
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runQVS(t, append(common, "--out", whole)...); code != 0 {
		t.Fatal(stderr)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(whole, "summary.csv"))
	if len(sum) != 1+6 || sum[1][1] != "random" || sum[2][1] != "qvs" || sum[2][2] != "0.5" || sum[3][4] != "1" {
		t.Fatalf("summary (repeat-major) %v", sum)
	}
	if recs := testutil.ReadCSVFile(t, filepath.Join(whole, "runs", "qvs-q0.5-r02.csv")); len(recs) != 1+7 {
		t.Errorf("budget 6: %d records, want 7", len(recs)-1)
	}
	if b, _ := os.ReadFile(filepath.Join(whole, "config.yaml")); !strings.Contains(string(b), "seed: 11") {
		t.Errorf("--seed not recorded:\n%s", b)
	}
	sharded := filepath.Join(dir, "sharded")
	for _, s := range []string{"0/2", "1/2"} {
		code, stdout, stderr := runQVS(t, append(common, "--out", sharded, "--shard", s)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		// The first shard's table holds 3 of the 6 runs and says so; the
		// last shard completes the campaign and its table is whole.
		partial := strings.Contains(stdout, "Partial table: this process ran shard 0/2; 3 of the 6 planned runs are finished.")
		if (s == "0/2") != partial || (s == "1/2" && strings.Contains(stdout, "Partial")) {
			t.Errorf("--shard %s: table partial note %v:\n%s", s, partial, stdout)
		}
	}
	testutil.SameResults(t, whole, sharded)

	// --authors-shortcut reaches the policy: its own run keys and params,
	// recorded in config.yaml.
	sc := filepath.Join(dir, "shortcut")
	if code, _, stderr := runQVS(t, append(common, "--out", sc, "--authors-shortcut", "--repeats", "1")...); code != 0 {
		t.Fatal(stderr)
	}
	sum = testutil.ReadCSVFile(t, filepath.Join(sc, "summary.csv"))
	if len(sum) != 1+2 || sum[2][0] != "qvs-q0.5-authors-r00" || sum[2][3] != "authors_shortcut=true" {
		t.Errorf("shortcut summary %v", sum)
	}
	if b, _ := os.ReadFile(filepath.Join(sc, "config.yaml")); !strings.Contains(string(b), "authors_shortcut: true") {
		t.Errorf("authors_shortcut not recorded:\n%s", b)
	}
}

func TestASDefaultIsSyntheticConfigFile(t *testing.T) {
	// configs/synthetic.yaml spells out the no-argument default.
	c, g := newTestASCommand(t, filepath.Join(testutil.RepoRoot(), "configs", "synthetic.yaml"))
	fromFile, err := resolveASConfig(c, g, &asOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	c, g = newTestASCommand(t, "")
	def, err := resolveASConfig(c, g, &asOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFile, def) {
		t.Errorf("configs/synthetic.yaml resolves to\n%+v\nthe default is\n%+v", fromFile, def)
	}
	if def.Out != filepath.Join("results", "synthetic") {
		t.Errorf("default output %q, want results/synthetic", def.Out)
	}
	// The paper configs resolve, plan 24 settings x 10 repeats, and name their pool.
	for _, task := range []string{"photoswitch", "bmg", "fashion"} {
		c, g := newTestASCommand(t, filepath.Join(testutil.RepoRoot(), "configs", task+".yaml"))
		cfg, err := resolveASConfig(c, g, &asOptions{}, "")
		if err != nil {
			t.Fatalf("%s: %v", task, err)
		}
		plan, err := search.Plan(cfg.Protocol)
		if err != nil {
			t.Fatalf("%s: %v", task, err)
		}
		if len(plan.Runs) != 240 || cfg.Pool.Kind != task || cfg.Budget != 200 || cfg.Batch != 5 || cfg.Out != filepath.Join("results", task) {
			t.Errorf("%s: %d runs, kind %s, budget %d, batch %d, out %s", task, len(plan.Runs), cfg.Pool.Kind, cfg.Budget, cfg.Batch, cfg.Out)
		}
	}
}

func newTestASCommand(t *testing.T, config string) (*cobra.Command, *GlobalOptions) {
	t.Helper()
	root, g := NewRootCommand(&bytes.Buffer{}, &bytes.Buffer{})
	as, _, err := root.Find([]string{"as"})
	if err != nil {
		t.Fatal(err)
	}
	g.Config = config
	return as, g
}
