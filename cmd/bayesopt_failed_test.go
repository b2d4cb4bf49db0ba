package cmd

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestBayesoptSuggestFailed: failed rows (empty, nan, failed, status
// failed) are counted on stderr, stdout holds only the suggestions, none
// within the failure radius of a failed row; --retry-failed says so.
func TestBayesoptSuggestFailed(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	evals := writeFile(t, dir, "evals.csv", "a,b,value,status\n"+
		"0.1,1,0.5,\n0.2,5,,\n0.9,9,nan,\n0.5,5,3,failed\n0.3,2,1.5,ok\n0.7,3,failed,\n0.6,8,0.2,\n0.4,4,2,\n")
	failed := [][2]float64{{0.2, 5}, {0.9, 9}, {0.5, 5}, {0.7, 3}}
	code, stdout, stderr := runQVS(t, "bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", "4", "--init", "4", "--candidates", "200")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "4 of 8 experiments in "+evals+" failed") || !strings.Contains(stderr, "--retry-failed") {
		t.Errorf("stderr %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "rank,a,b,region" || len(lines) != 5 {
		t.Fatalf("stdout %q", stdout)
	}
	for _, l := range lines[1:] {
		c := strings.Split(l, ",")
		a, _ := strconv.ParseFloat(c[1], 64)
		b, _ := strconv.ParseFloat(c[2], 64)
		for _, f := range failed {
			if math.Hypot(a-f[0], (b-f[1])/10) <= 0.05*math.Sqrt2 {
				t.Errorf("suggestion %s within the failure radius of %v", l, f)
			}
		}
	}
	code, _, stderr = runQVS(t, "bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", "4", "--init", "4", "--candidates", "200", "--retry-failed")
	if code != ExitOK || !strings.Contains(stderr, "they may be suggested again") {
		t.Errorf("--retry-failed: exit %d, stderr %q", code, stderr)
	}
}
