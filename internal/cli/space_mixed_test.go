//go:build unix

package cli

import (
	"encoding/csv"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// spaceDefaultsRun is `qvs bayesopt --space ...` on the defaults of a
// --space campaign (suggest's batch and candidates, the initial design
// resolved from the space file), with edit applied (the flags), one worker
// unless edit says otherwise: the exit code qvs would give, stdout, and
// the error's message followed by stderr.
func spaceDefaultsRun(t *testing.T, quiet bool, edit func(*BayesoptCampaign)) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := campEnv(t)
	env.Workers, env.Quiet = 1, quiet
	k, err := NewBayesoptCampaign(env, campaign.SpaceTask)
	if err != nil {
		t.Fatal(err)
	}
	k.Config = tasks.DefaultProtocol(campaign.SpaceTask)
	k.Config.Batch, k.Config.Candidates, k.Config.Init = DefaultSuggestBatch, DefaultSuggestCandidates, 0
	edit(k)
	if err := RunCampaign(env, k, campaign.Shard{}); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// TestBayesoptMixedPerPointCampaign runs a campaign on a mixed space
// (direction: minimize in the file) whose command crashes on one kernel
// for large C, one process per point (--per-point): the crashing points
// are recorded as failed, the campaign goes on, summary.csv counts them,
// the command reads choices as text with empty inactive cells, and
// solutions.csv writes them the same way.
func TestBayesoptMixedPerPointCampaign(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "svc.yaml", `parameters:
  - {name: kernel, type: categorical, choices: [rbf, poly]}
  - {name: degree, lower: 2, upper: 4, type: int, when: {kernel: poly}}
  - {name: C, lower: 0.1, upper: 10, scale: log}
direction: minimize
`)
	// rbf: (log10 C)^2; poly: exit 5 when C > 3, else degree + (log10 C)^2.
	// Every input row is checked: an rbf row must have an empty degree.
	script := testutil.WriteFile(t, dir, "obj.sh", `awk -F, 'NR == 1 { if ($0 != "kernel,degree,C") exit 9; next }
{ l = log($3) / log(10)
  if ($1 == "rbf") { if ($2 != "") exit 8; print l * l; next }
  if ($1 != "poly" || $2 == "") exit 8
  if ($3 > 3) { print "crash" > "/dev/stderr"; exit 5 }
  print $2 + l * l }'
`)
	out := filepath.Join(dir, "out")
	code, stdout, errs := spaceDefaultsRun(t, false, func(k *BayesoptCampaign) {
		c := &k.Config
		c.Space, c.ObjectiveCmd, c.ObjectivePerPoint = filepath.Join(dir, "svc.yaml"), "sh "+script, true
		c.Methods, c.Q, c.Repeats, c.Budget, c.Seed, c.Out = []string{"qvs"}, orders(t, "1"), 1, 30, 1, out
		k.Env.Workers = 2
	})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "recorded as failed") || !strings.Contains(errs, "exit status 5") {
		t.Errorf("stderr does not say which points failed: %s", errs)
	}
	if !strings.Contains(stdout, "failures") || !strings.Contains(stdout, "which minimised its objective") {
		t.Errorf("table without a failures column, or not as minimised:\n%s", stdout)
	}
	if cfg := testutil.ReadFileString(t, filepath.Join(out, "config.yaml")); !strings.Contains(cfg, "minimize: true") || !strings.Contains(cfg, "objective_per_point: true") {
		t.Errorf("config.yaml does not record the space's direction and --per-point:\n%s", cfg)
	}
	recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r00.csv"))
	failed := 0
	for _, r := range recs[1:] {
		// Records hold the choice's text and an empty inactive cell.
		if (r[2] != "rbf" && r[2] != "poly") || (r[2] == "rbf") != (r[3] == "") {
			t.Errorf("record %v: want kernel rbf or poly, degree empty exactly for rbf", r)
		}
		if r[5] == "failed" {
			failed++
			if lnC, _ := strconv.ParseFloat(r[4], 64); r[2] != "poly" || !(lnC > 1.0986) { // poly, ln C > ln 3
				t.Errorf("failed record %v is not a poly point with C > 3", r)
			}
		}
	}
	if len(recs) != 31 || failed == 0 {
		t.Fatalf("%d records, %d failed", len(recs)-1, failed)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	col := -1
	for j, h := range sum[0] {
		if h == "failures" {
			col = j
		}
	}
	if col < 0 || sum[1][col] != strconv.Itoa(failed) {
		t.Errorf("summary %v: want failures = %d", sum, failed)
	}
	sols := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r00.solutions.csv"))
	if strings.Join(sols[0], ",") != "rank,index,value,kernel,degree,C" {
		t.Fatalf("solutions header %v", sols[0])
	}
	for _, r := range sols[1:] {
		if (r[3] == "rbf") != (r[4] == "") || (r[3] != "rbf" && r[3] != "poly") {
			t.Errorf("solution row %v: kernel and degree disagree", r)
		}
		if v, err := strconv.ParseFloat(r[2], 64); err != nil || v < 0 {
			t.Errorf("solution value %q: want the printed (minimised, >= 0) value", r[2])
		}
	}
	// The records continue with suggest as a campaign's would: the space's
	// direction applies there too (a run's records are read as maximised).
	code, sug, errs := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
		o.Continuous.Space = filepath.Join(dir, "svc.yaml")
		o.Observed = filepath.Join(out, "runs", "qvs-q1-r00.csv")
	}), func(e *Env) { e.Seed, e.SeedSet = 1, true })
	if code != ExitOK || !strings.HasPrefix(sug, "rank,kernel,degree,C,region\n") || strings.Count(sug, "\n") != 6 {
		t.Errorf("suggest on the records: exit %d\n%s\n%s", code, sug, errs)
	}
}

// TestBayesoptSpaceCampaignDefaultsMatchSuggest: a --space campaign given
// no --batch, --init or --candidates and `bayesopt suggest` given none
// either share their defaults, so suggest fed the first N records of the
// campaign's qvs run returns the batch the run evaluated next: in the
// middle of the initial design (which the campaign sends --batch points at
// a time), after it, and after one more batch. The space is mixed: records
// and suggest both hold the choices' text and empty inactive cells.
func TestBayesoptSpaceCampaignDefaultsMatchSuggest(t *testing.T) {
	dir := t.TempDir()
	sp := testutil.WriteFile(t, dir, "svc.yaml", `parameters:
  - {name: kernel, type: categorical, choices: [rbf, poly, sigmoid]}
  - {name: degree, lower: 2, upper: 4, type: int, when: {kernel: poly}}
  - {name: C, lower: 0.1, upper: 10, scale: log}
direction: minimize
`)
	script := testutil.WriteFile(t, dir, "obj.sh", `awk -F, 'NR > 1 { l = log($3) / log(10); print ($1 == "poly" ? $2 : $1 == "rbf" ? 1 : 3) + l * l }'
`)
	out := filepath.Join(dir, "out")
	if code, _, errs := spaceDefaultsRun(t, true, func(k *BayesoptCampaign) {
		c := &k.Config
		c.Space, c.ObjectiveCmd = sp, "sh "+script
		c.Methods, c.Q, c.Repeats, c.Budget, c.Seed, c.Out = []string{"qvs"}, orders(t, "1"), 1, 20, 3, out
	}); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	cfg := testutil.ReadFileString(t, filepath.Join(out, "config.yaml"))
	for _, want := range []string{"batch: 5\n", "init: 10\n", "candidates: 200\n"} { // init: max(2 x 3, 3) rounded up to the batch
		if !strings.Contains(cfg, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}
	recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r00.csv"))
	if len(recs) != 21 {
		t.Fatalf("%d records", len(recs)-1)
	}
	choices := []string{"rbf", "poly", "sigmoid"}
	for _, n := range []int{5, 10, 15} {
		var b strings.Builder
		for _, r := range recs[:1+n] {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		head := testutil.WriteFile(t, dir, "head.csv", b.String())
		code, stdout, errs := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Continuous.Space = sp
			o.Observed = head
		}), func(e *Env) { e.Seed, e.SeedSet = 3, true })
		if code != ExitOK {
			t.Fatalf("N = %d: exit %d: %s", n, code, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rows[0], ",") != "rank,kernel,degree,C,region" || len(rows) != 6 {
			t.Fatalf("N = %d: output %q", n, stdout)
		}
		for i, s := range rows[1:] {
			r := recs[1+n+i] // iteration,region,x0,x1,x2,value,seconds
			degreeOK := (s[1] == "poly") == (s[2] != "") && s[2] == r[3]
			if s[1] != r[2] || !slices.Contains(choices, s[1]) || !degreeOK || math.Abs(math.Log(testutil.Num(t, s[3]))-testutil.Num(t, r[4])) > 1e-12 || s[4] != r[1] {
				t.Errorf("N = %d, suggestion %d: %v; the run evaluated %v", n, i+1, s, r)
			}
		}
	}
}
