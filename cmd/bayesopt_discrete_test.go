package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// runDiscreteCLI runs `qvs bayesopt ARGS` in process; err is non-nil (the
// message Main printed) when the exit code is not 0, and usage reports
// exit code 2.
func runDiscreteCLI(t *testing.T, args ...string) (usage bool, err error, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"bayesopt"}, args...), &out, &errb)
	if code != ExitOK {
		err = errors.New(errb.String())
	}
	return code == ExitUsage, err, out.String(), errb.String()
}

// toyMOFCampaign writes a 30-item toy MOF set and its config into a
// temporary directory and returns it, the output folder and the arguments
// of a campaign on it.
func toyMOFCampaign(t *testing.T) (dir, cfgPath, out string, args []string) {
	t.Helper()
	dir = t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	cfgPath = filepath.Join(dir, "mof.yaml")
	if err := os.WriteFile(cfgPath, []byte(testutil.ToyMOFConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "out")
	return dir, cfgPath, out, []string{"--config", cfgPath, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"), "--out", out, "--workers", "2"}
}

func TestDiscreteUsageErrors(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 12)
	cfgPath := filepath.Join(dir, "mof.yaml")
	os.WriteFile(cfgPath, []byte(testutil.ToyMOFConfig), 0o644)
	base := []string{"--config", cfgPath, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"), "--quiet"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"method", []string{"--methods", "turbo"}, `method "turbo"`},
		{"q", []string{"--q", "-1"}, "order"},
		{"repeats", []string{"--repeats", "0"}, "repeats"},
		{"budget", []string{"--budget", "20"}, "exceeds the 12 candidates"},
		{"shard", []string{"--shard", "3/2"}, "--shard"},
		{"task", []string{"--task", "photoswitch-bo"}, "config"},
	} {
		usage, err, _, _ := runDiscreteCLI(t, append(append([]string{}, base...), append(c.args, "--out", filepath.Join(dir, c.name))...)...)
		if err == nil || !usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want a usage error containing %q", c.name, err, c.want)
		}
	}
	// Unknown config keys name the key.
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("task: mof\nbudgte: 5\n"), 0o644)
	_, err, _, _ := runDiscreteCLI(t, "--config", bad, "--data-dir", dir, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "budgte") {
		t.Errorf("unknown key: %v", err)
	}
	// Other tasks are not discrete.
	if discrete.IsTask("rover") || discrete.IsTask("space") {
		t.Error("rover or space counted as discrete tasks")
	}
}

// TestDiscreteShippedConfigs checks that configs/mof.yaml and
// configs/photoswitch-bo.yaml parse, hold the authors' settings and run.
func TestDiscreteShippedConfigs(t *testing.T) {
	root := testutil.RepoRoot()
	for _, c := range []struct{ file, task, name string }{{"mof", discrete.TaskKernel, "mof"}, {"photoswitch-bo", discrete.TaskPhotoswitch, ""}} {
		task := c.file
		cfg := defaultDiscreteConfig(c.task)
		if err := loadConfig(filepath.Join(root, "configs", c.file+".yaml"), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Task != c.task || cfg.Name != c.name || cfg.SetName() != c.file || cfg.Repeats != 10 || cfg.Budget != 102 || cfg.Init != 2 || cfg.Batch != 5 || cfg.Beta != 2 ||
			cfg.Q.String() != "0.1,0.5,1,2,inf" || strings.Join(cfg.Methods, ",") != "random,ucb,qvs" {
			t.Errorf("%s: config %+v", task, cfg)
		}
	}
	dir := t.TempDir()
	_, err, _, _ := runDiscreteCLI(t, "--config", filepath.Join(root, "configs", "mof.yaml"), "--data-dir", dir, "--out", filepath.Join(dir, "mof"), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "not public") || !strings.Contains(err.Error(), "data.kernel") {
		t.Errorf("mof without data: %v", err)
	}
	_, err, _, _ = runDiscreteCLI(t, "--config", filepath.Join(root, "configs", "photoswitch-bo.yaml"), "--data-dir", testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"),
		"--cache-dir", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, "ps"), "--methods", "ucb", "--repeats", "1", "--budget", "7", "--quiet")
	if err != nil {
		t.Errorf("photoswitch-bo config: %v", err)
	}
}

// TestDiscreteFlagsOverrideConfig: flags override the config's keys (one
// qvs run, sharded 0/1, --seed recorded); the campaign itself is tested in
// internal/cli (TestDiscreteMOFCampaign).
func TestDiscreteFlagsOverrideConfig(t *testing.T) {
	dir, cfgPath, _, _ := toyMOFCampaign(t)
	// Flags override the config: one qvs run, sharded 0/1.
	out2 := filepath.Join(dir, "out2")
	_, err, _, _ := runDiscreteCLI(t, "--config", cfgPath, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"),
		"--out", out2, "--methods", "qvs", "--q", "0.5", "--repeats", "1", "--budget", "6", "--batch", "4", "--seed", "9", "--shard", "0/1", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out2, "summary.csv"))
	if len(sum) != 2 || sum[1][0] != "qvs-q0.5-r00" || sum[1][8] != "6" {
		t.Errorf("overridden run summary %v", sum)
	}
	if cfg, _ := os.ReadFile(filepath.Join(out2, "config.yaml")); !strings.Contains(string(cfg), "seed: 9") {
		t.Errorf("--seed not recorded:\n%s", cfg)
	}
}
