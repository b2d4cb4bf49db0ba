package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// unitsSpace has a linear and a log-scale parameter, named unlike the
// records' x0, x1.
const unitsSpace = "parameters:\n  - {name: temp, lower: 0, upper: 1}\n  - {name: conc, lower: 0.01, upper: 100, scale: log}\n"

// unitsObjective prints (temp - 0.3)^2 + (ln conc - 1)^2 per row, to be
// minimised; it reads the user's units, so a wrong unit shows in the values.
const unitsObjective = `awk -F, 'NR > 1 { printf "%.17g\n", ($1 - 0.3)^2 + (log($2) - 1)^2 }'`

// spaceCampaign is `qvs bayesopt --space DIR/space.yaml --objective-cmd
// objective --minimize --methods methods --q 1 --repeats 1 --budget 20
// --init 10 --batch 5 --candidates 60 --workers 1 --seed 3 --quiet --out
// DIR/bo` on the defaults of a --space campaign, with edit applied (the
// other flags): the exit code qvs would give, stdout, and the error's
// message followed by stderr.
func spaceCampaign(t *testing.T, dir, objective, methods string, edit func(*bayesopt.Protocol)) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := campEnv(t)
	env.Workers = 1
	k, err := NewBayesoptCampaign(env, campaign.SpaceTask)
	if err != nil {
		t.Fatal(err)
	}
	c := tasks.DefaultProtocol(campaign.SpaceTask)
	c.Space, c.ObjectiveCmd, c.Minimize = filepath.Join(dir, "space.yaml"), objective, true
	c.Methods, c.Q, c.Repeats, c.Budget, c.Init, c.Batch, c.Candidates, c.Seed = strings.Split(methods, ","), orders(t, "1"), 1, 20, 10, 5, 60, 3
	c.Out = filepath.Join(dir, "bo")
	if edit != nil {
		edit(&c)
	}
	k.Config = c
	if err := RunCampaign(env, k, campaign.Shard{}); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// solutionsCmd is `qvs bayesopt solutions args...` run directly (--space,
// --kernel, --ids, --observed, --q, --m, --minimize, --length-scale,
// --format).
func solutionsCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	o := DefaultSolutionsOptions()
	for i := 0; i < len(args); i++ {
		f := strings.TrimPrefix(args[i], "--")
		if f == "minimize" {
			o.Minimize = true
			continue
		}
		if i+1 == len(args) {
			t.Fatalf("bayesopt solutions: %s needs a value", args[i])
		}
		i++
		v := args[i]
		var err error
		switch f {
		case "space":
			o.Space.File = v
			o.SpaceFlags = append(o.SpaceFlags, f)
		case "kernel":
			o.Kernel.File = v
			o.KernelFlags = append(o.KernelFlags, f)
		case "ids":
			o.Kernel.IDs = v
			o.KernelFlags = append(o.KernelFlags, f)
		case "length-scale":
			o.Space.LengthScale, err = strconv.ParseFloat(v, 64)
			o.Space.LengthScaleGiven = true
			o.SpaceFlags = append(o.SpaceFlags, f)
		case "observed":
			o.Observed = v
		case "q":
			o.Q, err = vendi.ParseOrder(v)
		case "m":
			o.M, err = strconv.Atoi(v)
		case "format":
			err = o.Format.Set(v)
		default:
			t.Fatalf("bayesopt solutions: flag --%s", f)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return exitOf(t, RunSolutions, &o)
}

// TestBayesoptSpaceSolutionsInUserUnits: a --space run's solutions file
// names the space's parameters and holds their values (exp of the log
// parameter's engine coordinate in the records) and the value as the
// command printed it (the records hold it negated under --minimize).
func TestBayesoptSpaceSolutionsInUserUnits(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "space.yaml", unitsSpace)
	if code, _, errs := spaceCampaign(t, dir, unitsObjective, "turbo", nil); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	recs := testutil.ReadCSVFile(t, filepath.Join(dir, "bo", "runs", "turbo-r00.csv"))
	sols := testutil.ReadCSVFile(t, filepath.Join(dir, "bo", "runs", "turbo-r00.solutions.csv"))
	if got := strings.Join(sols[0], ","); got != "rank,index,value,temp,conc" {
		t.Fatalf("solutions header %q, want rank,index,value,temp,conc", got)
	}
	if len(sols) != 4 {
		t.Fatalf("%d solutions, want M = 3", len(sols)-1)
	}
	for _, s := range sols[1:] {
		i, err := strconv.Atoi(s[1])
		if err != nil || i < 0 || i+1 >= len(recs) {
			t.Fatalf("solution %v: bad index", s)
		}
		r := recs[1+i] // iteration,region,x0,x1,value,seconds
		temp, conc, value := testutil.Num(t, s[3]), testutil.Num(t, s[4]), testutil.Num(t, s[2])
		// Independent expectation: temp as recorded, conc = exp(x1), the
		// objective recomputed from them, and the value un-negated.
		if temp != testutil.Num(t, r[2]) || math.Abs(conc-math.Exp(testutil.Num(t, r[3]))) > 1e-12*conc || value != -testutil.Num(t, r[4]) {
			t.Errorf("solution %v against record %v", s, r)
		}
		if want := (temp-0.3)*(temp-0.3) + (math.Log(conc)-1)*(math.Log(conc)-1); math.Abs(value-want) > 1e-9 {
			t.Errorf("solution %v: value %v, the objective at its point is %v", s, value, want)
		}
	}
	// qvs eval shows the minimised campaign in the objective's own values:
	// the table's best value is the lowest value printed (>= 0 here; the
	// summary holds it negated) and the figure plots the lowest value so far.
	out := filepath.Join(dir, "ev")
	if code, _, errs := evalRun(t, filepath.Join(dir, "bo"), out, "csv", "svg"); code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	tabs, _ := filepath.Glob(filepath.Join(out, "tables", "*-bo-table.csv"))
	if len(tabs) != 1 {
		t.Fatalf("tables %v", tabs)
	}
	tab := testutil.ReadCSVFile(t, tabs[0])
	lowest := math.Inf(1)
	for _, r := range recs[1:] {
		lowest = math.Min(lowest, -testutil.Num(t, r[4]))
	}
	col, mean := indexOfCol(tab[0], "column"), indexOfCol(tab[0], "mean")
	found := false
	for _, r := range tab[1:] {
		if col >= 0 && mean >= 0 && r[col] == "best_value" {
			found = true
			if got := testutil.Num(t, r[mean]); math.Abs(got-lowest) > 1e-12 {
				t.Errorf("table's best value %v, want %v (the lowest printed)", got, lowest)
			}
		}
	}
	if !found {
		t.Errorf("table %v: no best_value row", tab)
	}
	figs, _ := filepath.Glob(filepath.Join(out, "figures", "*best-so-far.svg"))
	if len(figs) != 1 {
		t.Fatalf("figures %v", figs)
	}
	if svg, _ := os.ReadFile(figs[0]); !strings.Contains(string(svg), "lowest value so far") {
		t.Errorf("%s: no 'lowest value so far' axis", figs[0])
	}
}

// TestBayesoptSuggestReadsRunRecords: `bayesopt suggest --space` fed the
// first N records of a --space run (as written: x0.. columns in engine
// units, maximised values) returns the batch the run evaluated next, as its
// help claims; the QA reproduction said no column "temp" instead. Neither
// command is given --tau: ROBOT reproduces only if both default to the same
// threshold (suggest's was 0.2, a campaign's 0.5).
func TestBayesoptSuggestReadsRunRecords(t *testing.T) {
	dir := t.TempDir()
	sp := testutil.WriteFile(t, dir, "space.yaml", unitsSpace)
	if code, _, errs := spaceCampaign(t, dir, unitsObjective, "random,turbo,robot,qvs", nil); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	for _, run := range []struct{ key, method string }{{"random-r00", "random"}, {"turbo-r00", "turbo"}, {"robot-r00", "robot"}, {"qvs-q1-r00", "qvs"}} {
		recs := testutil.ReadCSVFile(t, filepath.Join(dir, "bo", "runs", run.key+".csv"))
		for _, n := range []int{10, 15} { // after the initial design; after one batch
			var b strings.Builder
			for _, r := range recs[:1+n] {
				b.WriteString(strings.Join(r, ",") + "\n")
			}
			head := filepath.Join(dir, run.key+"-head.csv")
			if err := os.WriteFile(head, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, errs := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
				o.Continuous.Space = sp
				o.Observed = head
				o.Init, o.InitGiven = 10, true
				o.Batch = 5
				o.Method = run.method
				o.Q = 1
				o.Continuous.Candidates = 60
				o.Continuous.Minimize = true
				o.ContinuousFlags = []string{"candidates", "minimize"}
			}), func(e *Env) { e.Seed, e.SeedSet = 3, true })
			if code != ExitOK {
				t.Fatalf("%s, N = %d: exit %d: %s", run.key, n, code, errs)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if lines[0] != "rank,temp,conc,region" || len(lines) != 6 {
				t.Fatalf("%s, N = %d: output %q", run.key, n, stdout)
			}
			for i, l := range lines[1:] {
				c := strings.Split(l, ",")
				r := recs[1+n+i]
				temp, conc := testutil.Num(t, c[1]), testutil.Num(t, c[2])
				if temp != testutil.Num(t, r[2]) || math.Abs(math.Log(conc)-testutil.Num(t, r[3])) > 1e-12 || c[3] != r[1] {
					t.Errorf("%s, N = %d, suggestion %d: %s; the run evaluated temp %s, ln conc %s, region %s", run.key, n, i+1, l, r[2], r[3], r[1])
				}
			}
		}
	}
}

// TestBayesoptSolutionsMatchCampaign: `bayesopt solutions` fed a --space
// run's records (with the run's q and M) prints the rows of the run's
// runs/KEY.solutions.csv (parameters and value, in the user's units), each
// among the ceil(0.1 n) best evaluations, and the run's solutions_vs.
func TestBayesoptSolutionsMatchCampaign(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", unitsSpace)
	if code, _, errs := spaceCampaign(t, dir, unitsObjective, "turbo,qvs", func(c *bayesopt.Protocol) { c.Q, c.Budget = orders(t, "0.5"), 60 }); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	summary := testutil.ReadCSVFile(t, filepath.Join(dir, "bo", "summary.csv"))
	vsCol := slices.Index(summary[0], "solutions_vs")
	for _, run := range []struct{ key, q string }{{"turbo-r00", "1"}, {"qvs-q0.5-r00", "0.5"}} {
		recsPath := filepath.Join(dir, "bo", "runs", run.key+".csv")
		sols := testutil.ReadCSVFile(t, filepath.Join(dir, "bo", "runs", run.key+".solutions.csv")) // rank,index,value,temp,conc
		code, stdout, stderr := solutionsCmd(t, "--space", space, "--observed", recsPath, "--q", run.q, "--m", "3", "--minimize")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", run.key, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if lines[0] != "rank,temp,conc,value,region" || len(lines) != len(sols) {
			t.Fatalf("%s: output %q, campaign solutions %v", run.key, stdout, sols)
		}
		// The band: values (as printed, minimised) at most the 6th smallest.
		recs := testutil.ReadCSVFile(t, recsPath)
		var printed []float64
		for _, r := range recs[1:] {
			printed = append(printed, -testutil.Num(t, r[4]))
		}
		slices.Sort(printed)
		for i, l := range lines[1:] {
			c := strings.Split(l, ",")
			s := sols[1+i]
			if got, want := strings.Join(c[:4], ","), strings.Join([]string{s[0], s[3], s[4], s[2]}, ","); got != want {
				t.Errorf("%s: solution %s, the campaign's %s", run.key, got, want)
			}
			if v := testutil.Num(t, c[3]); v > printed[5] {
				t.Errorf("%s: solution %s outside the band (6th best %v)", run.key, l, printed[5])
			}
		}
		if lines[1] != "" && testutil.Num(t, strings.Split(lines[1], ",")[3]) != printed[0] {
			t.Errorf("%s: first solution %s is not the best evaluation %v", run.key, lines[1], printed[0])
		}
		for _, row := range summary[1:] {
			if row[0] == run.key && !strings.Contains(stderr, "VS (order 1, exp(-d^2/2)) = ") {
				t.Errorf("%s: stderr %q", run.key, stderr)
			}
		}
		// JSON carries the same VS as the summary's solutions_vs.
		code, stdout, _ = solutionsCmd(t, "--space", space, "--observed", recsPath, "--q", run.q, "--minimize", "--format", "json")
		var js struct {
			Command string               `json:"command"`
			VS      float64              `json:"vs"`
			Rows    []map[string]float64 `json:"rows"`
		}
		if err := json.Unmarshal([]byte(stdout), &js); code != ExitOK || err != nil || len(js.Rows) != 3 || js.Command != "bayesopt solutions" {
			t.Fatalf("%s json: exit %d, %v: %q", run.key, code, err, stdout)
		}
		for _, row := range summary[1:] {
			if row[0] == run.key && math.Abs(js.VS-testutil.Num(t, row[vsCol])) > 1e-12 {
				t.Errorf("%s: VS %v, summary's solutions_vs %s", run.key, js.VS, row[vsCol])
			}
		}
	}
}

// TestObjectiveFailingEveryPoint: a run whose every evaluation failed is
// a failed run naming why, not a summary row with best_value -Inf (which
// the campaign's own table, every rerun and qvs eval then refused to
// read); the folder stays readable by qvs eval.
func TestObjectiveFailingEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts objective commands")
	}
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	script := testutil.WriteFile(t, dir, "fail.sh", "#!/bin/sh\nn=0\nwhile IFS= read -r l; do n=$((n+1)); done\ni=1; while [ $i -lt $n ]; do echo failed; i=$((i+1)); done\n")
	os.Chmod(script, 0o755)
	out := filepath.Join(dir, "bo")
	for range 2 { // the rerun replays the records and says the same
		code, _, stderr := spaceCampaign(t, dir, script, "turbo", func(c *bayesopt.Protocol) {
			def := tasks.DefaultProtocol(campaign.SpaceTask) // no --minimize, --q, --candidates, --seed
			c.Space, c.Minimize, c.Q, c.Candidates, c.Seed = space, false, def.Q, DefaultSuggestCandidates, def.Seed
			c.Init, c.Budget, c.Batch = 3, 5, 1
		})
		if code != ExitRuntime || !strings.Contains(stderr, "every one of the 5 evaluations failed") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.csv")); strings.Contains(string(b), "Inf") {
		t.Errorf("summary.csv records %q", b)
	}
	if code, _, stderr := evalRun(t, out, filepath.Join(dir, "ev"), "", ""); code != 0 {
		t.Errorf("qvs eval: exit %d: %s", code, stderr)
	}
}

// indexOfCol is the index of header cell name, or -1.
func indexOfCol(header []string, name string) int {
	for j, h := range header {
		if h == name {
			return j
		}
	}
	return -1
}
