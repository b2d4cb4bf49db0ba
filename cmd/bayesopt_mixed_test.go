//go:build unix

package cmd

import (
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestBayesoptMixedKill9: a mixed-space campaign killed with SIGKILL while
// the command works on its third batch resumes from records holding the
// choices' text and empty inactive cells, and ends byte for byte as the
// uninterrupted campaign (seconds aside).
func TestBayesoptMixedKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the qvs binary")
	}
	dir := t.TempDir()
	bin := buildQVS(t, dir)
	testutil.WriteFile(t, dir, "space.yaml", testutil.MixedSpace)
	args := append(objectiveCampaign(dir, testutil.WriteFile(t, dir, "obj.sh", testutil.MixedScript)), "--methods", "qvs")
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls-full"))
	full := filepath.Join(dir, "full")
	if code, _, errs := runQVS(t, append(args, "--out", full)...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := testutil.ReadCSVFile(t, filepath.Join(full, "runs", "qvs-q1-r00.csv"))
	kernels := map[string]bool{}
	for _, r := range recs[1:] {
		kernels[r[2]] = true
		if (r[2] == "poly") == (r[3] == "") {
			t.Errorf("record %v: degree must be given exactly for poly", r)
		}
	}
	if len(recs) != 26 || len(kernels) != 3 || !kernels["rbf"] || !kernels["poly"] || !kernels["sigmoid"] {
		t.Fatalf("%d records, kernels %v: want 25 records with each choice's text", len(recs)-1, kernels)
	}
	killed := filepath.Join(dir, "killed")
	killAtSlowBatch(t, bin, args, killed, filepath.Join(dir, "calls-killed"), "qvs-q1-r00")
	testutil.SameResults(t, full, killed)
}
