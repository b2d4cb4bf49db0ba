package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestToyOutKeepsItsConfig: `qvs toy --config config.yaml --out .` is
// refused (the resolved config replaced the user's file) and so is a
// folder holding someone else's toy.csv; toy's own folder is rewritten.
func TestToyOutKeepsItsConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := testutil.WriteFile(t, dir, "config.yaml", "n: 3\nstarts: 1\n")
	code, _, stderr := runQVS(t, "toy", "--config", cfg, "--out", dir, "--quiet")
	if code != ExitUsage || !strings.Contains(stderr, "is an input of this command") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "n: 3\nstarts: 1\n" {
		t.Errorf("config.yaml became %q", b)
	}
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	testutil.WriteFile(t, other, "toy.csv", "a,b\n")
	if code, _, stderr := runQVS(t, "toy", "--n", "3", "--starts", "1", "--out", other, "--quiet"); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("foreign toy.csv: exit %d, %s", code, stderr)
	}
	own := filepath.Join(dir, "own")
	for range 2 {
		if code, _, stderr := runQVS(t, "toy", "--n", "3", "--starts", "1", "--out", own, "--quiet"); code != 0 {
			t.Fatalf("toy into its own folder: exit %d, %s", code, stderr)
		}
	}
}
