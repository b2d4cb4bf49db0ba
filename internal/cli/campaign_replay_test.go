package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// A replay checks its scores file before it loads the pool (whose features
// take minutes at library scale): a mistyped --scores is named with no
// pool read, no "loading pool" line and nothing written.
func TestReplayChecksScoresFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultReplayConfig()
	cfg.Pool.CSV.File = testutil.WriteFile(t, dir, "lib.csv", "id,fp\nm0,0101\nm1,0110\n")
	cfg.Pool.CSV.IDColumn, cfg.Pool.CSV.FingerprintColumn = "id", "fp"
	cfg.Scores = filepath.Join(dir, "scroes.csv")
	cfg.Out = filepath.Join(dir, "res")
	env, out, errb := testEnv(t)
	loaded := false
	k := &ReplayCampaign{Env: env, Config: cfg, Load: func(datasets.Config) (*datasets.Pool, error) {
		loaded = true
		return nil, errors.New("no pool in this test")
	}}
	err := RunCampaign(env, k, campaign.Shard{})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "scroes.csv") || ExitCode(err) != 1 {
		t.Fatalf("error %v (exit %d), want one naming scroes.csv, exit 1", err, ExitCode(err))
	}
	if loaded || strings.Contains(errb.String(), "loading pool") || out.Len() != 0 {
		t.Errorf("pool loaded %v, stderr %q, stdout %q", loaded, errb.String(), out.String())
	}
	if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("results folder: %v, want none written", err)
	}
}
