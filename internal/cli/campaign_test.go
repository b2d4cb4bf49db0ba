package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
)

// campEnv is testEnv (streams of buffers) of a quiet campaign: two
// workers, a data folder of its own.
func campEnv(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer) {
	env, out, errs := testEnv(t)
	env.Workers, env.Quiet, env.DataDir, env.Version = 2, true, t.TempDir(), "test"
	return env, out, errs
}

// tinyAS is an active-search campaign of the given methods on a 300-item
// synthetic pool: 1 repeat, budget 10, batch 5.
func tinyAS(env *Env, dir string, methods ...string) *ASCampaign {
	cfg := SyntheticASConfig()
	cfg.Pool.Synthetic.N, cfg.Pool.Synthetic.Clusters, cfg.Pool.Synthetic.PositiveClusters = 300, 6, 2
	cfg.Methods, cfg.Repeats, cfg.Budget, cfg.Batch = methods, 1, 10, 5
	cfg.ECI.Thresholds, cfg.SELECT.Betas, cfg.SELECT.Lambdas = []float64{0.5}, []float64{1}, []float64{0.5}
	cfg.Out = dir
	return &ASCampaign{Env: env, Config: cfg, Load: func(c datasets.Config) (*search.Pool, error) {
		p, err := datasets.LoadWith(c, env.DataDir, env.CacheDir, knn.GraphOptions{Workers: env.Workers})
		if err != nil {
			return nil, err
		}
		return search.NewPool(p)
	}}
}

// TestEveryPolicyRunsACampaign: every registered policy runs a tiny
// campaign through RunCampaign, without a process: its runs are in
// summary.csv under its name, and its row is in the table printed on
// stdout (eval's table of the folder, whatever eval knows of the policy).
func TestEveryPolicyRunsACampaign(t *testing.T) {
	if len(search.Methods) < 6 {
		t.Fatalf("registry: %v", search.Methods)
	}
	for _, m := range search.Methods {
		env, out, _ := campEnv(t)
		dir := filepath.Join(t.TempDir(), "as")
		if err := RunCampaign(env, tinyAS(env, dir, m), campaign.Shard{}); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		camp, err := eval.LoadCampaign(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(camp.Runs) == 0 {
			t.Fatalf("%s: no runs in summary.csv", m)
		}
		for _, r := range camp.Runs {
			if r["method"] != m {
				t.Errorf("%s: a run of method %q", m, r["method"])
			}
		}
		var table bytes.Buffer
		if err := PrintCampaignTable(&table, dir, eval.KindActiveSearch, campaign.Shard{}, 0); err != nil {
			t.Fatal(err)
		}
		if out.String() != table.String() || !strings.Contains(out.String(), "|") {
			t.Errorf("%s: stdout %q, want the folder's table %q", m, out, table.String())
		}
	}
}

// TestRunCampaignRefusesBeforeLoading: a count above its bound is a usage
// error naming the key, refused by Plan before the pool is loaded and
// before anything is written.
func TestRunCampaignRefusesBeforeLoading(t *testing.T) {
	env, out, _ := campEnv(t)
	dir := filepath.Join(t.TempDir(), "as")
	k := tinyAS(env, dir, "random")
	k.Config.Repeats = maxRepeats + 1
	loaded := false
	k.Load = func(datasets.Config) (*search.Pool, error) { loaded = true; return nil, nil }
	err := RunCampaign(env, k, campaign.Shard{})
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "repeats") || !strings.Contains(err.Error(), "at most 10000") {
		t.Fatalf("err %v (exit %d); want a usage error naming repeats and its bound", err, ExitCode(err))
	}
	if loaded || out.Len() > 0 {
		t.Errorf("loaded %v, stdout %q: want nothing done", loaded, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused plan", dir)
	}
}

// TestRunCampaignResumes: a second RunCampaign of the same kind into the
// same folder runs nothing and prints the same table; a changed setting
// is refused by the folder's config.yaml before the pool loads.
func TestRunCampaignResumes(t *testing.T) {
	env, out, _ := campEnv(t)
	dir := filepath.Join(t.TempDir(), "as")
	if err := RunCampaign(env, tinyAS(env, dir, "random", "qvs"), campaign.Shard{}); err != nil {
		t.Fatal(err)
	}
	first := out.String()
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
	env2, out2, errs2 := campEnv(t)
	env2.Quiet = false
	if err := RunCampaign(env2, tinyAS(env2, dir, "random", "qvs"), campaign.Shard{}); err != nil {
		t.Fatal(err)
	}
	if out2.String() != first || !strings.Contains(errs2.String(), dir+": ") || !strings.Contains(errs2.String(), "already done") {
		t.Errorf("rerun: stdout %q (first %q), stderr %q", out2, first, errs2)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if !bytes.Equal(summary, again) {
		t.Error("summary.csv changed on a rerun")
	}
	env3, _, _ := campEnv(t)
	k := tinyAS(env3, dir, "random", "qvs")
	k.Config.Budget = 15
	k.Load = func(datasets.Config) (*search.Pool, error) {
		t.Fatal("loaded before the folder's check")
		return nil, nil
	}
	if err := RunCampaign(env3, k, campaign.Shard{}); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("changed budget: %v; want refused naming budget", err)
	}
}

// TestBayesoptCampaignWithoutAProcess: a tiny synthetic BayesOpt campaign
// runs through RunCampaign with buffers: its line on stderr, its table on
// stdout; a setting of a user's own problem on a named task is a usage
// error naming the flags it was given (OwnFlags), before anything runs.
func TestBayesoptCampaignWithoutAProcess(t *testing.T) {
	env, out, errs := campEnv(t)
	env.Quiet = false
	k, err := NewBayesoptCampaign(env, "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	k.Config = tasks.DefaultProtocol("synthetic")
	k.Config.Methods, k.Config.Repeats, k.Config.Budget, k.Config.Init, k.Config.Batch = []string{"random"}, 1, 12, 4, 4
	k.Config.Out = filepath.Join(t.TempDir(), "bo")
	if err := RunCampaign(env, k, campaign.Shard{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "qvs bayesopt: synthetic, 1 run (budget 12, batch 4, M = 3) into "+k.Config.Out) ||
		!strings.Contains(errs.String(), "qvs bayesopt: 1 of 1 run(s) finished (1 new)") {
		t.Errorf("stderr %q", errs)
	}
	if !strings.Contains(out.String(), "random search") {
		t.Errorf("stdout %q: want the table with random search's row", out)
	}
	if _, err := NewBayesoptCampaign(env, "nope"); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--task: unknown task") {
		t.Errorf("unknown task: %v", err)
	}
	k2, _ := NewBayesoptCampaign(env, "synthetic")
	k2.Config = tasks.DefaultProtocol("synthetic")
	k2.Config.Out, k2.Config.Minimize, k2.OwnFlags = t.TempDir(), true, []string{"space", "minimize", "per-point"}
	_, err = k2.Plan()
	if want := "--space, --minimize and --per-point are for your own problem, not task synthetic"; ExitCode(err) != ExitUsage || err.Error() != want {
		t.Errorf("own setting on a named task: %v; want %q", err, want)
	}
}

// TestDiscreteCampaignRefusesFirstFlag: a continuous flag given to a
// discrete task is refused by Plan, naming it, before the data are read.
func TestDiscreteCampaignRefusesFirstFlag(t *testing.T) {
	env, _, _ := campEnv(t)
	k := &DiscreteCampaign{Env: env, Task: "mof", Config: DefaultDiscreteConfig("mof"), Refused: []string{"qvs-mode", "regions"}}
	_, err := k.Plan()
	if want := "--qvs-mode applies to continuous tasks, not the discrete task mof"; ExitCode(err) != ExitUsage || err.Error() != want {
		t.Errorf("got %v; want %q", err, want)
	}
}

// TestDiscreteCampaignNamesOwnProblemFlags: a flag of a user's own problem
// (--minimize) on a discrete task says it is for your own problem, not
// that it applies to continuous tasks (named tasks refuse it too).
func TestDiscreteCampaignNamesOwnProblemFlags(t *testing.T) {
	env, _, _ := campEnv(t)
	k := &DiscreteCampaign{Env: env, Task: "mof", Config: DefaultDiscreteConfig("mof"), Refused: []string{"minimize"}, OwnFlags: []string{"space", "minimize"}}
	_, err := k.Plan()
	if want := "--minimize is for your own problem (--space with --objective-cmd), not the discrete task mof"; ExitCode(err) != ExitUsage || err == nil || err.Error() != want {
		t.Errorf("got %v; want %q", err, want)
	}
}

// TestRunCampaignOutIsAFile: an --out that is an existing file is a usage
// error naming it, and the file is left as it was.
func TestRunCampaignOutIsAFile(t *testing.T) {
	env, out, _ := campEnv(t)
	dir := filepath.Join(t.TempDir(), "bo")
	if err := os.WriteFile(dir, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := RunCampaign(env, tinyAS(env, dir, "random"), campaign.Shard{})
	if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "results folder "+dir+" is a file, not a folder") || out.Len() != 0 {
		t.Errorf("got %v (exit %d, stdout %q)", err, ExitCode(err), out.String())
	}
	if b, _ := os.ReadFile(dir); string(b) != "mine\n" {
		t.Errorf("the file became %q", b)
	}
}

// TestBayesoptTask: --task wins over the config's task:, --space makes a
// space campaign and refuses another task, and no task at all is a usage
// error listing the tasks.
func TestBayesoptTask(t *testing.T) {
	none := func() (string, error) { return "", nil }
	cfg := func() (string, error) { return "lunar", nil }
	for _, c := range []struct {
		flag   string
		config func() (string, error)
		space  bool
		want   string
		err    string
	}{
		{"rover", cfg, false, "rover", ""},
		{"", cfg, false, "lunar", ""},
		{"", none, true, campaign.SpaceTask, ""},
		{"rover", none, true, "", "--space replaces --task: give one of them (task rover)"},
		{"", none, false, "", "--task is required (or a config with a task: key, or --space with --objective-cmd); tasks: lunar, rover, synthetic"},
	} {
		got, err := BayesoptTask(c.flag, c.config, c.space)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && (err.Error() != c.err || ExitCode(err) != ExitUsage) {
			t.Errorf("%q %v: got %q, %v; want %q, %q", c.flag, c.space, got, err, c.want, c.err)
		}
	}
}
