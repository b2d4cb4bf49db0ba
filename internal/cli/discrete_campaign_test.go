package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// discreteRun is `qvs bayesopt --config CONFIG --data-dir dataDir
// --cache-dir dataDir/cache --out out --workers 2 [--quiet]` of the YAML
// config, decoded onto the defaults of its task as the command decodes a
// config (unknown keys refused), with edit applied (the other flags): the
// exit code qvs would give, stdout, and the error's message followed by
// stderr.
func discreteRun(t *testing.T, config, dataDir, out string, quiet bool, edit func(*discrete.Protocol)) (code int, stdout, msg string) {
	t.Helper()
	var head struct {
		Task string `yaml:"task"`
	}
	if err := yaml.Unmarshal([]byte(config), &head); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultDiscreteConfig(head.Task)
	dec := yaml.NewDecoder(strings.NewReader(config))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Out = out
	if edit != nil {
		edit(&cfg)
	}
	return runDiscrete(t, cfg, dataDir, filepath.Join(dataDir, "cache"), quiet)
}

// runDiscrete runs the discrete campaign cfg on the data in dataDir, with
// cache folder cache and two workers.
func runDiscrete(t *testing.T, cfg discrete.Protocol, dataDir, cache string, quiet bool) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := testEnv(t)
	env.Workers, env.Quiet, env.DataDir, env.CacheDir, env.Version = 2, quiet, dataDir, cache, "test"
	if err := RunCampaign(env, &DiscreteCampaign{Env: env, Task: cfg.Task, Config: cfg}, campaign.Shard{}); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

func TestDiscreteMOFCampaign(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := discreteRun(t, testutil.ToyMOFConfig, dir, out, false, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 2 repeats x (random, ucb, qvs q=1, qvs q=inf).
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	if len(sum) != 1+8 {
		t.Fatalf("summary has %d runs, want 8", len(sum)-1)
	}
	if h := strings.Join(sum[0], ","); !strings.HasPrefix(h, "key,method,q,params,repeat,best_value,edc,good_found,evaluations,best_id,best_index,best_energy_penalty") {
		t.Errorf("summary header %s", h)
	}
	for _, want := range []string{"| random search |", "| qVS-BayesOpt, q = 0 (UCB) |", "| qVS-BayesOpt, q = 1 |", "| qVS-BayesOpt, q = inf |",
		"| best value | EDC | good found | best energy penalty |", "over 2 repeats", "storage >= 15"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	mds := testutil.ReadCSVFile(t, filepath.Join(out, "mds.csv"))
	if len(mds) != 31 || strings.Join(mds[0], ",") != "index,id,x,y,objective" || mds[5][1] != "MOF-04" {
		t.Errorf("mds.csv: %d rows, header %v, row 5 %v", len(mds), mds[0], mds[5])
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "cache", "mds", "mof-*.csv")); len(files) != 1 {
		t.Errorf("MDS cache files %v", files)
	}
	cfg, _ := os.ReadFile(filepath.Join(out, "config.yaml"))
	for _, want := range []string{"task: mof", "seed: 4", "- inf", "good_threshold: 15", "kernel: mof/kernel.csv"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}
	// Rerun: everything is already done.
	code, _, stderr = discreteRun(t, testutil.ToyMOFConfig, dir, out, false, nil)
	if code != 0 || !strings.Contains(stderr, "8 of 8 run(s) finished (8 already done)") {
		t.Errorf("rerun: exit %d, stderr %s", code, stderr)
	}
	// A changed setting into the same directory is refused.
	code, _, msg := discreteRun(t, testutil.ToyMOFConfig, dir, out, false, func(p *discrete.Protocol) { p.Budget = 5 })
	if code == 0 || !strings.Contains(msg, "different config") {
		t.Errorf("changed config: exit %d, %s", code, msg)
	}
}

func TestDiscreteMissingMOFData(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultDiscreteConfig("mof")
	cfg.Out = filepath.Join(dir, "out")
	code, _, msg := runDiscrete(t, cfg, dir, filepath.Join(dir, "cache"), true)
	if code == 0 {
		t.Fatal("no error")
	}
	for _, want := range []string{filepath.Join(dir, "mof", "kernel.npy"), filepath.Join(dir, "mof", "mofs.csv"),
		`"storage"`, `"energy_penalty"`, "not public", "configs/mof.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%v", want, msg)
		}
	}
	if code != ExitRuntime {
		t.Error("missing data is a runtime error (exit 1), not a usage error")
	}
}

// TestDiscretePhotoswitchSmoke runs one short qVS search on the real
// photoswitch set (1,919 molecules; the MDS embedding is part of the cost).
func TestDiscretePhotoswitchSmoke(t *testing.T) {
	data := testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := DefaultDiscreteConfig("photoswitch-bo")
	q, err := vendi.ParseOrderList("1")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Out, cfg.Methods, cfg.Q, cfg.Repeats, cfg.Budget = out, []string{"qvs"}, q, 1, 12
	code, stdout, stderr := runDiscrete(t, cfg, data, filepath.Join(dir, "cache"), true)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	if len(sum) != 2 || sum[1][8] != "12" {
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(stdout, "objective >= 450") || !strings.Contains(stdout, "| qVS-BayesOpt, q = 1 |") {
		t.Errorf("stdout: %s", stdout)
	}
	if mds := testutil.ReadCSVFile(t, filepath.Join(out, "mds.csv")); len(mds) != 1920 {
		t.Errorf("mds.csv has %d rows", len(mds))
	}
}

// TestDiscreteTable prints the table of a summary.csv written here and
// checks its numbers against a hand computation.
func TestDiscreteTable(t *testing.T) {
	dir := t.TempDir()
	summary := `key,method,q,params,repeat,best_value,edc,good_found,evaluations,best_id,best_index,best_energy_penalty,seconds
random-r00,random,,,0,10,2,3,102,a,1,0.5,1
random-r01,random,,,1,14,4,5,102,b,2,,1
ucb-r00,ucb,,,0,18,1,2,102,c,3,0.25,1
ucb-r01,ucb,,,1,18,3,2,102,c,3,0.75,1
qvs-q1-r00,qvs,1,,0,20,6,7,102,c,3,0.2,1
`
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("task: mof\ngood_threshold: 15\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := PrintCampaignTable(&b, dir, eval.KindDiscreteBO, campaign.Shard{}, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// random: best 10, 14 -> mean 12, sample sd 2√2, SE 2√2/√2 = 2; EDC 2, 4 ->
	// 3 (1); good 3, 5 -> 4 (1); the empty energy penalty is dropped: 0.5,
	// no SE from one value ("n/a"). UCB (q = 0): best 18, 18 -> 18 (0); EDC 1, 3 ->
	// 2 (1); penalty 0.25, 0.75 -> 0.5 (0.25). qVS-BayesOpt q=1: one run.
	for _, want := range []string{
		"EDC (VS_1 of the good items found, objective >= 15) in the mof discrete BayesOpt campaign",
		"| method | best value | EDC | good found | best energy penalty |",
		"| random search | 12.00 (2.00) | 3.00 (1.00) | 4.00 (1.00) | 0.50 (n/a) |",
		"| qVS-BayesOpt, q = 0 (UCB) | 18.00 (0.00) | 2.00 (1.00) | 2.00 (0.00) | 0.50 (0.25) |",
		"| qVS-BayesOpt, q = 1 | **20.00 (n/a)** | **6.00 (n/a)** | 7.00 (n/a) | 0.20 (n/a) |",
		"over 1 to 2 repeats",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if err := PrintCampaignTable(&b, filepath.Join(dir, "absent"), eval.KindDiscreteBO, campaign.Shard{}, 0); err == nil {
		t.Error("a missing campaign printed a table")
	}
}

// TestDiscreteKernelTask: the generic `task: kernel` runs on any kernel and
// table (here with its own column names and no metric columns), names the
// campaign by name:, records it, and requires good_threshold.
func TestDiscreteKernelTask(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 20)
	// The table under other names: item, y (the default value column is absent).
	tab := testutil.ReadCSVFile(t, filepath.Join(dir, "mof", "mofs.csv"))
	var b strings.Builder
	b.WriteString("y,item\n")
	for _, r := range tab[1:] {
		fmt.Fprintf(&b, "%s,%s\n", r[1], r[0])
	}
	testutil.WriteFile(t, dir, "table.csv", b.String())
	cfg := `task: kernel
name: toyset
seed: 1
methods: [ucb, qvs]
q: [1]
repeats: 2
init: 2
budget: 8
batch: 3
good_threshold: 10
data:
  kernel: mof/kernel.csv
  table: table.csv
  id_column: item
  objective_column: y
`
	out := filepath.Join(dir, "out")
	code, stdout, stderr := discreteRun(t, cfg, dir, out, true, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	if h := strings.Join(sum[0], ","); h != "key,method,q,params,repeat,best_value,edc,good_found,evaluations,best_id,best_index,seconds" || len(sum) != 1+4 {
		t.Errorf("summary header %s, %d runs", h, len(sum)-1)
	}
	for _, want := range []string{"in the toyset discrete BayesOpt campaign", "y >= 10", "| qVS-BayesOpt, q = 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	rec, _ := os.ReadFile(filepath.Join(out, "config.yaml"))
	if !strings.Contains(string(rec), "task: kernel") || !strings.Contains(string(rec), "name: toyset") {
		t.Errorf("config.yaml:\n%s", rec)
	}
	// qvs eval names the campaign by name:.
	code, evalOut, evalErr := evalRun(t, out, filepath.Join(dir, "eval"), "", "")
	if code != 0 || !strings.Contains(evalOut+testutil.ReadFileString(t, filepath.Join(dir, "eval", "README.md")), "toyset") {
		t.Errorf("eval: exit %d, %s\n%s", code, evalErr, evalOut)
	}
	// The random streams depend on the name: another name, other initial points.
	cfg2 := strings.Replace(cfg, "name: toyset", "name: other", 1)
	out2 := filepath.Join(dir, "out2")
	if code, _, stderr := discreteRun(t, cfg2, dir, out2, true, nil); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "ucb-r00.csv"))
	c := testutil.ReadCSVFile(t, filepath.Join(out2, "runs", "ucb-r00.csv"))
	if a[1][2] == c[1][2] && a[2][2] == c[2][2] {
		t.Errorf("names toyset and other drew the same initial points %v %v", a[1:3], c[1:3])
	}
	// suggest --name toyset starts from that campaign's initial design.
	sug := kernelSuggest(filepath.Join(dir, "mof", "kernel.csv"), testutil.WriteFile(t, dir, "empty.csv", "index,value\n"))
	sug.Batch, sug.Init, sug.InitGiven, sug.Discrete.Name = 2, 2, true, "toyset"
	env, sout, serr := testEnv(t)
	env.Seed, env.SeedSet, env.Quiet = 1, true, true
	code = 0
	if err := RunBOSuggest(env, sug); err != nil {
		code = ExitCode(err)
	}
	got, errOut := sout.String(), serr.String()
	if want := fmt.Sprintf("rank,index,id,ucb,mean,sd\n1,%s,%s,,,\n2,%s,%s,,,\n", a[1][2], a[1][2], a[2][2], a[2][2]); code != 0 || got != want {
		t.Errorf("suggest --name toyset: exit %d %s\n%s\nwant\n%s", code, errOut, got, want)
	}
	// good_threshold is required; a missing column names the table.
	for _, bad := range []struct{ from, to, want string }{
		{"good_threshold: 10\n", "", "good_threshold is required"},
		{"objective_column: y", "objective_column: storage", `table.csv: header has no column "storage"`},
	} {
		code, stdout, msg := discreteRun(t, strings.Replace(cfg, bad.from, bad.to, 1), dir, filepath.Join(dir, "bad"), true, nil)
		if code == 0 || !strings.Contains(msg, bad.want) || stdout != "" {
			t.Errorf("%q -> %q: exit %d, %s, stdout %q", bad.from, bad.to, code, msg, stdout)
		}
	}
}

// TestDiscreteResumeMidIteration:
// record files cut inside an iteration resume into the uninterrupted run
// (the cut iteration is recomputed; before, this was refused without
// naming the file), and a short iteration followed by another is refused
// naming the file and line.
func TestDiscreteResumeMidIteration(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	full, part := filepath.Join(dir, "out"), filepath.Join(dir, "part")
	if code, _, stderr := discreteRun(t, testutil.ToyMOFConfig, dir, full, true, nil); code != 0 {
		t.Fatal(stderr)
	}
	reset := func() {
		if err := os.RemoveAll(part); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(part, os.DirFS(full)); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(part, "summary.csv"))
	}
	cut := func(key string, keep int, edit func([][]string)) {
		for _, ext := range []string{".summary.csv", ".curve.csv"} {
			os.Remove(filepath.Join(part, "runs", key+ext))
		}
		testutil.CutRecords(t, filepath.Join(part, "runs", key+".csv"), keep, edit)
	}
	// testutil.ToyMOFConfig: budget 8, init 2, batch 3: iterations of 2, 3, 3.
	reset()
	cut("qvs-q1-r00", 1+2+1, nil)
	cut("random-r01", 1+2+3+2, nil)
	cut("ucb-r00", 1+1, nil)
	if code, _, stderr := discreteRun(t, testutil.ToyMOFConfig, dir, part, true, nil); code != 0 {
		t.Fatal(stderr)
	}
	testutil.SameResults(t, full, part)

	reset()
	cut("qvs-q1-r00", 1+2+3+3, func(r [][]string) {
		r[5][0], r[5][1] = "2", "0" // iteration 1 ends after 2 queries
		r[6][1], r[7][1], r[8][1] = "1", "2", "3"
	})
	code, stdout, msg := discreteRun(t, testutil.ToyMOFConfig, dir, part, true, nil)
	if want := "runs/qvs-q1-r00.csv: line 6: iteration 1 has 2 queries, expected 3"; code == 0 || !strings.Contains(msg, want) || stdout != "" {
		t.Errorf("short iteration: exit %d, %s, stdout %q; want %q", code, msg, stdout, want)
	}
}
