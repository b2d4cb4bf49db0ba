package cmd

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// unitsSpace has a linear and a log-scale parameter, named unlike the
// records' x0, x1.
const unitsSpace = "parameters:\n  - {name: temp, lower: 0, upper: 1}\n  - {name: conc, lower: 0.01, upper: 100, scale: log}\n"

// unitsObjective prints (temp - 0.3)^2 + (ln conc - 1)^2 per row, to be
// minimised; it reads the user's units, so a wrong unit shows in the values.
const unitsObjective = `awk -F, 'NR > 1 { printf "%.17g\n", ($1 - 0.3)^2 + (log($2) - 1)^2 }'`

// unitsCampaign is a tiny --space campaign: budget 20, init 10, batch 5.
func unitsCampaign(dir, methods string) []string {
	return []string{"bayesopt", "--space", filepath.Join(dir, "space.yaml"), "--objective-cmd", unitsObjective, "--minimize",
		"--methods", methods, "--q", "1", "--repeats", "1", "--budget", "20", "--init", "10", "--batch", "5",
		"--candidates", "60", "--workers", "1", "--seed", "3", "--quiet", "--out", filepath.Join(dir, "bo")}
}

// TestBayesoptSpaceSolutionsInUserUnits: a --space run's solutions file
// names the space's parameters and holds their values (exp of the log
// parameter's engine coordinate in the records) and the value as the
// command printed it (the records hold it negated under --minimize).
func TestBayesoptSpaceSolutionsInUserUnits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "space.yaml", unitsSpace)
	if code, _, errs := runQVS(t, unitsCampaign(dir, "turbo")...); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	recs := readCSVFile(t, filepath.Join(dir, "bo", "runs", "turbo-r00.csv"))
	sols := readCSVFile(t, filepath.Join(dir, "bo", "runs", "turbo-r00.solutions.csv"))
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
		temp, conc, value := num(t, s[3]), num(t, s[4]), num(t, s[2])
		// Independent expectation: temp as recorded, conc = exp(x1), the
		// objective recomputed from them, and the value un-negated.
		if temp != num(t, r[2]) || math.Abs(conc-math.Exp(num(t, r[3]))) > 1e-12*conc || value != -num(t, r[4]) {
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
	if code, _, errs := runQVS(t, "eval", filepath.Join(dir, "bo"), "--out", out, "--format", "csv", "--figures", "svg"); code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	tabs, _ := filepath.Glob(filepath.Join(out, "tables", "*-bo-table.csv"))
	if len(tabs) != 1 {
		t.Fatalf("tables %v", tabs)
	}
	tab := readCSVFile(t, tabs[0])
	lowest := math.Inf(1)
	for _, r := range recs[1:] {
		lowest = math.Min(lowest, -num(t, r[4]))
	}
	col, mean := indexOfCol(tab[0], "column"), indexOfCol(tab[0], "mean")
	found := false
	for _, r := range tab[1:] {
		if col >= 0 && mean >= 0 && r[col] == "best_value" {
			found = true
			if got := num(t, r[mean]); math.Abs(got-lowest) > 1e-12 {
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

// indexOfCol is the index of header cell name, or -1.
func indexOfCol(header []string, name string) int {
	for j, h := range header {
		if h == name {
			return j
		}
	}
	return -1
}

// TestBayesoptSuggestReadsRunRecords: `bayesopt suggest --space` fed the
// first N records of a --space run (as written: x0.. columns in engine
// units, maximised values) returns the batch the run evaluated next, as its
// help claims; the QA reproduction said no column "temp" instead. Neither
// command is given --tau: ROBOT reproduces only if both default to the same
// threshold (suggest's was 0.2, a campaign's 0.5).
func TestBayesoptSuggestReadsRunRecords(t *testing.T) {
	dir := t.TempDir()
	sp := writeFile(t, dir, "space.yaml", unitsSpace)
	if code, _, errs := runQVS(t, unitsCampaign(dir, "random,turbo,robot,qvs")...); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	for _, run := range []struct{ key, method string }{{"random-r00", "random"}, {"turbo-r00", "turbo"}, {"robot-r00", "robot"}, {"qvs-q1-r00", "qvs"}} {
		recs := readCSVFile(t, filepath.Join(dir, "bo", "runs", run.key+".csv"))
		for _, n := range []int{10, 15} { // after the initial design; after one batch
			var b strings.Builder
			for _, r := range recs[:1+n] {
				b.WriteString(strings.Join(r, ",") + "\n")
			}
			head := filepath.Join(dir, run.key+"-head.csv")
			if err := os.WriteFile(head, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, errs := runQVS(t, "bayesopt", "suggest", "--space", sp, "--observed", head, "--init", "10", "--batch", "5",
				"--method", run.method, "--q", "1", "--seed", "3", "--candidates", "60", "--minimize")
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
				temp, conc := num(t, c[1]), num(t, c[2])
				if temp != num(t, r[2]) || math.Abs(math.Log(conc)-num(t, r[3])) > 1e-12 || c[3] != r[1] {
					t.Errorf("%s, N = %d, suggestion %d: %s; the run evaluated temp %s, ln conc %s, region %s", run.key, n, i+1, l, r[2], r[3], r[1])
				}
			}
		}
	}
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return v
}
