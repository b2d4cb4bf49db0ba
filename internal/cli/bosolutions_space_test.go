package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// spaceSolutions is `qvs bayesopt solutions --space space --observed
// observed --m m`.
func spaceSolutions(space, observed string, m int) *SolutionsOptions {
	o := DefaultSolutionsOptions()
	o.Space.File, o.Observed, o.M = space, observed, m
	o.SpaceFlags = []string{"space"}
	return &o
}

// TestBayesoptSolutionsLengthScale: --length-scale sets the diversity
// distance's scale: two solutions 0.5 apart in the unit-scaled space have
// similarity s = exp(-(0.5/L)^2/2), and the VS of order 1 of the pair is
// exp(H) with H the entropy of the eigenvalues (1 ± s)/2 of K/2. stderr
// says the rows are in the greedy's pick order; a bad value, or the flag
// with --kernel, is a usage error.
func TestBayesoptSolutionsLengthScale(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\nlength_scale: 7\n")
	evals := testutil.WriteFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
	for _, L := range []float64{0.25, 1, 3} {
		o := spaceSolutions(space, evals, 2)
		o.Space.LengthScale, o.Space.LengthScaleGiven, o.Format.Value = L, true, FormatJSON
		o.SpaceFlags = append(o.SpaceFlags, "length-scale")
		code, stdout, stderr := exitOf(t, RunSolutions, o)
		var js struct {
			VS float64 `json:"vs"`
		}
		if err := json.Unmarshal([]byte(stdout), &js); code != ExitOK || err != nil {
			t.Fatalf("L = %v: exit %d, %v: %s", L, code, err, stderr)
		}
		s := math.Exp(-(0.5 / L) * (0.5 / L) / 2)
		h := 0.0
		for _, l := range []float64{(1 + s) / 2, (1 - s) / 2} {
			if l > 0 {
				h -= l * math.Log(l)
			}
		}
		if math.Abs(js.VS-math.Exp(h)) > 1e-9 {
			t.Errorf("L = %v: VS %v, want %v", L, js.VS, math.Exp(h))
		}
	}
	if code, _, stderr := exitOf(t, RunSolutions, spaceSolutions(space, evals, 2)); code != ExitOK || !strings.Contains(stderr, "in greedy pick order (rank 1 = the best value)") {
		t.Errorf("exit %d, stderr %q: want the order said", code, stderr)
	}
	bad := func(L float64) *SolutionsOptions {
		o := spaceSolutions(space, evals, 3)
		o.Space.LengthScale, o.Space.LengthScaleGiven = L, true
		o.SpaceFlags = append(o.SpaceFlags, "length-scale")
		return o
	}
	onKernel := DefaultSolutionsOptions()
	onKernel.Kernel.File, onKernel.Observed, onKernel.KernelFlags = "K.npy", evals, []string{"kernel"}
	onKernel.Space.LengthScale, onKernel.Space.LengthScaleGiven, onKernel.SpaceFlags = 1, true, []string{"length-scale"}
	for _, o := range []*SolutionsOptions{bad(0), bad(-2), &onKernel} {
		code, stdout, stderr := exitOf(t, RunSolutions, o)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--length-scale") {
			t.Errorf("%+v: exit %d, stdout %q, stderr %q", o, code, stdout, stderr)
		}
	}
}

// TestBayesoptSolutionsOneMode: --space and --kernel both given is
// refused as in bayesopt suggest, an empty value included (`--kernel=`
// beside --space was named "--kernel applies only with --kernel"), exit
// 2, stdout empty.
func TestBayesoptSolutionsOneMode(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	evals := testutil.WriteFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
	for _, c := range []struct {
		name                    string
		space, kernel           string
		spaceFlags, kernelFlags []string
	}{
		{"--space S --kernel=", space, "", []string{"space"}, []string{"kernel"}},
		{"--kernel K --space=", "", "K.npy", []string{"space"}, []string{"kernel"}},
		{"--space S --kernel K", space, "K.npy", []string{"space"}, []string{"kernel"}},
		{"--kernel=", "", "", nil, []string{"kernel"}},
		{"neither", "", "", nil, nil},
	} {
		o := DefaultSolutionsOptions()
		o.Observed, o.Space.File, o.Kernel.File, o.SpaceFlags, o.KernelFlags = evals, c.space, c.kernel, c.spaceFlags, c.kernelFlags
		code, stdout, stderr := exitOf(t, RunSolutions, &o)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "give exactly one of --space (continuous parameters) or --kernel (a discrete pool)") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.name, code, stdout, stderr)
		}
	}
}

// TestSolutionsDirection: the space file's direction: minimize ranks the
// lowest value first without --minimize; --minimize against an explicit
// direction: maximize is a usage error naming the file (it used to
// minimise silently), stdout empty.
func TestSolutionsDirection(t *testing.T) {
	dir := t.TempDir()
	evals := testutil.WriteFile(t, dir, "e.csv", "a,value\n0.1,1\n0.5,3\n0.9,2\n")
	minSpace := testutil.WriteFile(t, dir, "min.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\ndirection: minimize\n")
	code, stdout, msg := exitOf(t, RunSolutions, spaceSolutions(minSpace, evals, 1), beQuiet)
	if code != ExitOK || !strings.Contains(stdout, "1,0.1,1,") {
		t.Errorf("direction: minimize: exit %d, stdout %q, %s; want rank 1 = a 0.1, value 1", code, stdout, msg)
	}
	maxSpace := testutil.WriteFile(t, dir, "max.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\ndirection: maximize\n")
	o := spaceSolutions(maxSpace, evals, 1)
	o.Minimize = true
	code, stdout, msg = exitOf(t, RunSolutions, o)
	if code != ExitUsage || stdout != "" || !strings.Contains(msg, "max.yaml: direction: maximize, but minimize is set (--minimize)") {
		t.Errorf("direction: maximize with --minimize: exit %d, stdout %q, %q", code, stdout, msg)
	}
}
