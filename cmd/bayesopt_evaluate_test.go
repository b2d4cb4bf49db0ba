package cmd

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestBayesoptEvaluateErrors: the binary's output for good points and its
// exit codes for a bad command line and a missing file (the values and the
// run's checks of the points are tested in internal/cli), stdout empty on
// an error.
func TestBayesoptEvaluateErrors(t *testing.T) {
	dir := t.TempDir()
	good := testutil.WriteFile(t, dir, "good.csv", "0.5,0.5,0.5,0.5,0.5,0.5\n")
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"no task", []string{"--points", good}, ExitUsage, []string{"--task is required"}},
		{"no points", []string{"--task", "synthetic"}, ExitUsage, []string{"--points is required"}},
		{"unknown task", []string{"--task", "moon", "--points", good}, ExitUsage, []string{`unknown task "moon"`, "lunar, rover, synthetic"}},
		{"missing file", []string{"--task", "synthetic", "--points", dir + "/nope.csv"}, ExitRuntime, []string{"nope.csv"}},
	}
	if code, out, errs := runQVS(t, "bayesopt", "evaluate", "--task", "synthetic", "--points", good, "--quiet"); code != 0 || !strings.HasPrefix(out, "row,value\n1,") || errs != "" {
		t.Errorf("good points: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, c := range cases {
		code, out, errs := runQVS(t, append([]string{"bayesopt", "evaluate"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, errs)
		}
		if out != "" {
			t.Errorf("%s: printed %q on error", c.name, out)
		}
		for _, s := range c.contains {
			if !strings.Contains(errs, s) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errs, s)
			}
		}
	}
}
