package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestObjectiveFailingEveryPoint: a run whose every evaluation failed is
// a failed run naming why, not a summary row with best_value -Inf (which
// the campaign's own table, every rerun and qvs eval then refused to
// read); the folder stays readable by qvs eval.
func TestObjectiveFailingEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts objective commands")
	}
	dir := t.TempDir()
	space := writeFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	script := writeFile(t, dir, "fail.sh", "#!/bin/sh\nn=0\nwhile IFS= read -r l; do n=$((n+1)); done\ni=1; while [ $i -lt $n ]; do echo failed; i=$((i+1)); done\n")
	os.Chmod(script, 0o755)
	out := filepath.Join(dir, "bo")
	args := []string{"bayesopt", "--space", space, "--objective-cmd", script, "--init", "3", "--budget", "5", "--batch", "1", "--repeats", "1", "--methods", "turbo", "--out", out, "--quiet"}
	for range 2 { // the rerun replays the records and says the same
		code, _, stderr := runQVS(t, args...)
		if code != ExitRuntime || !strings.Contains(stderr, "every one of the 5 evaluations failed") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.csv")); strings.Contains(string(b), "Inf") {
		t.Errorf("summary.csv records %q", b)
	}
	if code, _, stderr := runQVS(t, "eval", out, "--out", filepath.Join(dir, "ev"), "--quiet"); code != 0 {
		t.Errorf("qvs eval: exit %d: %s", code, stderr)
	}
}
