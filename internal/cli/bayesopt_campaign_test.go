package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// smallBO is `qvs bayesopt --task synthetic --repeats 1 --budget 30 --init
// 10 --batch 5 --candidates 60 --q 1 --seed 4 --quiet --out out` with the
// edits applied (the other flags) on the given shard: the exit code qvs
// would give, stdout, and the error's message followed by stderr.
func smallBO(t *testing.T, out string, shard campaign.Shard, edits ...func(*BayesoptCampaign)) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := campEnv(t)
	k, err := NewBayesoptCampaign(env, "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	q, err := vendi.ParseOrderList("1")
	if err != nil {
		t.Fatal(err)
	}
	c := tasks.DefaultProtocol("synthetic")
	c.Repeats, c.Budget, c.Init, c.Batch, c.Candidates, c.Q, c.Seed, c.Out = 1, 30, 10, 5, 60, q, 4, out
	k.Config = c
	for _, edit := range edits {
		edit(k)
	}
	if err := RunCampaign(env, k, shard); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// TestBayesoptResume cuts a finished run back to its first iterations (as a
// kill would leave it) and checks the rerun reproduces the same evaluations.
func TestBayesoptResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	methods := func(k *BayesoptCampaign) { k.Config.Methods = []string{"qvs", "robot"} }
	if code, _, errs := smallBO(t, dir, campaign.Shard{}, methods); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Keep the initial design and the first iteration (10 + 5 rows), or
	// cut the records inside the first iteration (10 + 2 rows: the next
	// iterations were once shorter and the run differed).
	for key, keep := range map[string]int{"qvs-q1-r00": 15, "robot-r00": 12} {
		path := filepath.Join(dir, "runs", key+".csv")
		full := testutil.ReadCSVFile(t, path)
		testutil.CutRecords(t, path, 1+keep, nil)
		if err := os.Remove(filepath.Join(dir, "runs", key+".summary.csv")); err != nil {
			t.Fatal(err)
		}
		code, _, errs := smallBO(t, dir, campaign.Shard{}, methods, func(k *BayesoptCampaign) { k.Env.Workers = 1 })
		if code != ExitOK {
			t.Fatalf("resume exit %d: %s", code, errs)
		}
		again := testutil.ReadCSVFile(t, path)
		if len(again) != len(full) {
			t.Fatalf("%s: %d rows after resume, want %d", key, len(again), len(full))
		}
		for i := range full {
			n := len(full[i]) - 1 // all but the seconds column
			if !reflect.DeepEqual(full[i][:n], again[i][:n]) {
				t.Fatalf("%s row %d differs after resume:\n%v\n%v", key, i, full[i], again[i])
			}
		}
	}
	// A different config into the same directory is refused.
	if code, _, errs := smallBO(t, dir, campaign.Shard{}, methods, func(k *BayesoptCampaign) { k.Config.Budget = 35 }); code != ExitRuntime || !strings.Contains(errs, "different config") {
		t.Errorf("changed config: exit %d: %s", code, errs)
	}
}

func TestBayesoptShard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	code, out, errs := smallBO(t, dir, campaign.Shard{Index: 1, Count: 2}, func(k *BayesoptCampaign) {
		k.Config.Methods, k.Config.Repeats = []string{"random", "turbo"}, 2
	})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The partial table's note names commands that print a BayesOpt
	// table: `qvs as table` refuses this folder (not an active-search
	// campaign), so it must not be suggested.
	if !strings.Contains(out, "Partial table: this process ran shard 1/2") || strings.Contains(out, "qvs as table") ||
		!strings.Contains(out, "qvs eval") {
		t.Errorf("shard 1/2 table note:\n%s", out)
	}
	if code, _, errs := asTable(t, dir); code != ExitRuntime || !strings.Contains(errs, "not an active-search campaign") {
		t.Errorf("as table on a BayesOpt folder: exit %d, %s", code, errs)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(dir, "summary.csv"))
	var keys []string
	for _, r := range sum[1:] {
		keys = append(keys, r[0])
	}
	if !reflect.DeepEqual(keys, []string{"turbo-r00", "turbo-r01"}) { // positions 1 and 3
		t.Errorf("shard 1/2 ran %v", keys)
	}
}

// TestBayesoptQVSFloor: --qvs-floor keys the qvs runs apart (so they never
// mix with plain qvs runs), records the rule in params and in config.yaml,
// and leaves the other methods' runs unchanged.
func TestBayesoptQVSFloor(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	code, _, errs := smallBO(t, dir, campaign.Shard{}, func(k *BayesoptCampaign) {
		k.Config.Methods, k.Config.QVSFloor, k.Config.Tau = []string{"turbo", "qvs"}, true, 0.4
	})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got, want := runParams(t, dir), []string{"turbo-r00|", "qvs-q1-floor-r00|floor tau=0.4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs (key|params) %v, want %v", got, want)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "qvs_floor: true") {
		t.Errorf("config.yaml does not record qvs_floor: %s (%v)", cfg, err)
	}
}

// runParams returns "key|params" of every run in DIR/summary.csv.
func runParams(t *testing.T, dir string) []string {
	t.Helper()
	sum := testutil.ReadCSVFile(t, filepath.Join(dir, "summary.csv"))
	if sum[0][0] != "key" || sum[0][3] != "params" {
		t.Fatalf("summary header %v: want key and params in columns 1 and 4", sum[0])
	}
	var out []string
	for _, r := range sum[1:] {
		out = append(out, r[0]+"|"+r[3])
	}
	return out
}

// TestBayesoptQVSMode: --qvs-mode authors is recorded in config.yaml and
// in the qvs runs' params; --qvs-mode paper (the default) is recorded as
// absent, so the config of a campaign run before the key existed still
// matches; a campaign folder refuses a rerun in the other mode.
func TestBayesoptQVSMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	mode := func(m string) func(*BayesoptCampaign) {
		return func(k *BayesoptCampaign) {
			k.Config.Methods, k.Config.Tau, k.Config.QVSMode = []string{"turbo", "qvs"}, 0.4, m
		}
	}
	code, _, errs := smallBO(t, dir, campaign.Shard{}, mode("authors"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got, want := runParams(t, dir), []string{"turbo-r00|", "qvs-q1-r00|authors tau=0.4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs (key|params) %v, want %v", got, want)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "qvs_mode: authors") {
		t.Errorf("config.yaml does not record qvs_mode: %s (%v)", cfg, err)
	}
	if code, _, errs := smallBO(t, dir, campaign.Shard{}, mode("paper")); code == ExitOK || !strings.Contains(errs, "qvs_mode") {
		t.Errorf("rerun in paper mode into an authors' folder: exit %d, stderr %q; want a refusal naming qvs_mode", code, errs)
	}
	paper := filepath.Join(t.TempDir(), "paper")
	if code, _, errs := smallBO(t, paper, campaign.Shard{}, func(k *BayesoptCampaign) { k.Config.Methods, k.Config.QVSMode = []string{"turbo"}, "paper" }); code != ExitOK {
		t.Fatalf("paper mode: exit %d: %s", code, errs)
	}
	if cfg, _ := os.ReadFile(filepath.Join(paper, "config.yaml")); strings.Contains(string(cfg), "qvs_mode") {
		t.Errorf("paper mode should be recorded as absent:\n%s", cfg)
	}
}
