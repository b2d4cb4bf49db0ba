package cmd

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestBayesoptSolutionsOneMode: a flag given an empty value counts as
// given, so --space and --kernel both given is refused with one of them
// empty (`--kernel=` beside --space was named "--kernel applies only with
// --kernel"), exit 2, stdout empty (the options' refusals:
// TestBayesoptSolutionsOneMode in internal/cli).
func TestBayesoptSolutionsOneMode(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	evals := testutil.WriteFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
	for _, args := range [][]string{
		{"--space", space, "--kernel="},
		{"--kernel", "K.npy", "--space="},
		{"--kernel="},
	} {
		code, stdout, stderr := runQVS(t, append([]string{"bayesopt", "solutions", "--observed", evals}, args...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "give exactly one of --space (continuous parameters) or --kernel (a discrete pool)") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}
