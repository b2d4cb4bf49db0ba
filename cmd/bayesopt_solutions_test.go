package cmd

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
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

// TestBayesoptSuggestQVSModes: suggest --qvs-floor and --qvs-mode authors
// fed the first iterations of the matching campaign run's records print the
// batch that run evaluated next (as TestBayesoptSuggestMatchesCampaign for
// the paper mode).
func TestBayesoptSuggestQVSModes(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "space.yaml", unitSpace6)
	// tau 1.2 makes the floor bind in this run (at 0.5 it never does).
	for _, c := range []struct{ flag, value, key, tau string }{
		{"--qvs-floor", "", "qvs-q1-floor-r00", "1.2"},
		{"--qvs-mode", "authors", "qvs-q1-r00", "0.5"},
	} {
		out := filepath.Join(dir, strings.TrimPrefix(c.flag, "--"))
		mode := []string{c.flag}
		if c.value != "" {
			mode = append(mode, c.value)
		}
		if code, _, errs := runQVS(t, append(append(slices.Clone(smallBO), "--methods", "qvs", "--tau", c.tau, "--out", out), mode...)...); code != ExitOK {
			t.Fatalf("%s campaign: exit %d: %s", c.flag, code, errs)
		}
		recs := readCSVFile(t, filepath.Join(out, "runs", c.key+".csv"))
		const n = 15 // init 10 + one batch of 5
		var b strings.Builder
		for _, r := range recs[:1+n] {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		evals := writeFile(t, dir, c.key+".csv", b.String())
		args := append([]string{"bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", "5",
			"--method", "qvs", "--q", "1", "--seed", "4", "--init", "10", "--regions", "3", "--tau", c.tau, "--candidates", "60"}, mode...)
		code, stdout, errs := runQVS(t, args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", c.flag, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		var want []string
		for _, rec := range recs[1+n:] {
			if rec[0] != recs[1+n][0] {
				break
			}
			want = append(want, strings.Join(append(rec[2:8:8], rec[1]), ","))
		}
		var got []string
		for _, l := range lines[1:] {
			got = append(got, strings.SplitN(l, ",", 2)[1])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: suggested\n%s\nthe campaign evaluated\n%s", c.flag, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// Both are for method qvs.
	if code, _, errs := runQVS(t, "bayesopt", "suggest", "--space", space, "--observed", writeFile(t, dir, "e.csv", "x0,x1,x2,x3,x4,x5,value\n"), "--method", "turbo", "--qvs-floor"); code != ExitUsage || !strings.Contains(errs, "--method qvs only") {
		t.Errorf("turbo --qvs-floor: exit %d, %s", code, errs)
	}
}

// TestBayesoptSolutionsLengthScale: --length-scale sets the diversity
// distance's scale: two solutions 0.5 apart in the unit-scaled space have
// similarity s = exp(-(0.5/L)^2/2), and the VS of order 1 of the pair is
// exp(H) with H the entropy of the eigenvalues (1 ± s)/2 of K/2. stderr
// says the rows are in the greedy's pick order; a bad value, or the flag
// with --kernel, is a usage error.
func TestBayesoptSolutionsLengthScale(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\nlength_scale: 7\n")
	evals := writeFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
	for _, L := range []float64{0.25, 1, 3} {
		code, stdout, stderr := runQVS(t, "bayesopt", "solutions", "--space", space, "--observed", evals, "--m", "2", "--length-scale", strconv.FormatFloat(L, 'g', -1, 64), "--format", "json")
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
	if code, _, stderr := runQVS(t, "bayesopt", "solutions", "--space", space, "--observed", evals, "--m", "2"); code != ExitOK || !strings.Contains(stderr, "in greedy pick order (rank 1 = the best value)") {
		t.Errorf("exit %d, stderr %q: want the order said", code, stderr)
	}
	for _, args := range [][]string{{"--space", space, "--length-scale", "0"}, {"--space", space, "--length-scale", "-2"}, {"--kernel", "K.npy", "--length-scale", "1"}} {
		code, stdout, stderr := runQVS(t, append([]string{"bayesopt", "solutions", "--observed", evals}, args...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--length-scale") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestBayesoptSolutionsOneMode: --space and --kernel both given is
// refused as in bayesopt suggest, an empty value included (`--kernel=`
// beside --space was named "--kernel applies only with --kernel"), exit
// 2, stdout empty.
func TestBayesoptSolutionsOneMode(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	evals := writeFile(t, dir, "e.csv", "a,value\n0.25,1\n0.75,0.9\n")
	for _, args := range [][]string{
		{"--space", space, "--kernel="},
		{"--kernel", "K.npy", "--space="},
		{"--space", space, "--kernel", "K.npy"},
		{"--kernel="},
		{},
	} {
		code, stdout, stderr := runQVS(t, append([]string{"bayesopt", "solutions", "--observed", evals}, args...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "give exactly one of --space (continuous parameters) or --kernel (a discrete pool)") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}
