//go:build unix

package cmd

import (
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// mixedSpace and mixedScript: a mixed space for objectiveCampaign (file
// space.yaml) and its command, with objectiveScript's call counting and
// slow call; poly with C > 5 prints nan (a failed point in the records).
const (
	mixedSpace = `parameters:
  - {name: kernel, type: categorical, choices: [rbf, poly, sigmoid]}
  - {name: degree, lower: 2, upper: 4, type: int, when: {kernel: poly}}
  - {name: C, lower: 0.1, upper: 10, scale: log}
`
	mixedScript = objectiveCalls + `awk -F, 'NR > 1 { l = log($3) / log(10)
  if ($1 == "poly" && $3 > 5) { print "nan"; next }
  printf "%.17g\n", -(($1 == "poly" ? $2 : $1 == "rbf" ? 1 : 3) + l * l) }'
`
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
	testutil.WriteFile(t, dir, "space.yaml", mixedSpace)
	args := append(objectiveCampaign(dir, testutil.WriteFile(t, dir, "obj.sh", mixedScript)), "--methods", "qvs")
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
