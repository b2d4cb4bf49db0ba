package cmd

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBayesoptSolutionsMatchCampaign: `bayesopt solutions` fed a --space
// run's records (with the run's q and M) prints the rows of the run's
// runs/KEY.solutions.csv (parameters and value, in the user's units), each
// among the ceil(0.1 n) best evaluations, and the run's solutions_vs.
func TestBayesoptSolutionsMatchCampaign(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "space.yaml", unitsSpace)
	args := unitsCampaign(dir, "turbo,qvs")
	args[slices.Index(args, "--q")+1] = "0.5"
	args[slices.Index(args, "--budget")+1] = "60"
	if code, _, errs := runQVS(t, args...); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	summary := readCSVFile(t, filepath.Join(dir, "bo", "summary.csv"))
	vsCol := slices.Index(summary[0], "solutions_vs")
	for _, run := range []struct{ key, q string }{{"turbo-r00", "1"}, {"qvs-q0.5-r00", "0.5"}} {
		recsPath := filepath.Join(dir, "bo", "runs", run.key+".csv")
		sols := readCSVFile(t, filepath.Join(dir, "bo", "runs", run.key+".solutions.csv")) // rank,index,value,temp,conc
		code, stdout, stderr := runQVS(t, "bayesopt", "solutions", "--space", space, "--observed", recsPath, "--q", run.q, "--m", "3", "--minimize")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", run.key, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if lines[0] != "rank,temp,conc,value,region" || len(lines) != len(sols) {
			t.Fatalf("%s: output %q, campaign solutions %v", run.key, stdout, sols)
		}
		// The band: values (as printed, minimised) at most the 6th smallest.
		recs := readCSVFile(t, recsPath)
		var printed []float64
		for _, r := range recs[1:] {
			printed = append(printed, -num(t, r[4]))
		}
		slices.Sort(printed)
		for i, l := range lines[1:] {
			c := strings.Split(l, ",")
			s := sols[1+i]
			if got, want := strings.Join(c[:4], ","), strings.Join([]string{s[0], s[3], s[4], s[2]}, ","); got != want {
				t.Errorf("%s: solution %s, the campaign's %s", run.key, got, want)
			}
			if v := num(t, c[3]); v > printed[5] {
				t.Errorf("%s: solution %s outside the band (6th best %v)", run.key, l, printed[5])
			}
		}
		if lines[1] != "" && num(t, strings.Split(lines[1], ",")[3]) != printed[0] {
			t.Errorf("%s: first solution %s is not the best evaluation %v", run.key, lines[1], printed[0])
		}
		for _, row := range summary[1:] {
			if row[0] == run.key && !strings.Contains(stderr, "VS (order 1, exp(-d^2/2)) = ") {
				t.Errorf("%s: stderr %q", run.key, stderr)
			}
		}
		// JSON carries the same VS as the summary's solutions_vs.
		code, stdout, _ = runQVS(t, "bayesopt", "solutions", "--space", space, "--observed", recsPath, "--q", run.q, "--minimize", "--format", "json")
		var js struct {
			Command string               `json:"command"`
			VS      float64              `json:"vs"`
			Rows    []map[string]float64 `json:"rows"`
		}
		if err := json.Unmarshal([]byte(stdout), &js); code != ExitOK || err != nil || len(js.Rows) != 3 || js.Command != "bayesopt solutions" {
			t.Fatalf("%s json: exit %d, %v: %q", run.key, code, err, stdout)
		}
		for _, row := range summary[1:] {
			if row[0] == run.key && math.Abs(js.VS-num(t, row[vsCol])) > 1e-12 {
				t.Errorf("%s: VS %v, summary's solutions_vs %s", run.key, js.VS, row[vsCol])
			}
		}
	}
}

// TestBayesoptSolutionsOneMode: a flag given an empty value counts as
// given, so --space and --kernel both given is refused with one of them
// empty (`--kernel=` beside --space was named "--kernel applies only with
// --kernel"), exit 2, stdout empty (the options' refusals:
// TestBayesoptSolutionsOneMode in internal/cli).
func TestBayesoptSolutionsOneMode(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	evals := writeFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
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
