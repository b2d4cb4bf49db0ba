//go:build unix

package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// objectiveRun is the campaign of `qvs bayesopt --space DIR/space.yaml
// --objective-cmd objective --methods turbo,qvs --q 1 --repeats 1 --budget
// 25 --init 10 --batch 5 --candidates 60 --workers 1 --seed 2 --quiet --out
// out` with edit applied (the other flags; nil: none).
func objectiveRun(t *testing.T, dir, objective, out string, edit func(*bayesopt.Protocol)) (code int, stdout, msg string) {
	t.Helper()
	return spaceCampaign(t, dir, objective, "turbo,qvs", func(p *bayesopt.Protocol) {
		p.Minimize, p.Budget, p.Seed, p.Out = false, 25, 2, out
		if edit != nil {
			edit(p)
		}
	})
}

func TestBayesoptObjectiveCmd(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	script := testutil.WriteFile(t, dir, "obj.sh", testutil.ObjectiveScript)
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls-full"))
	full := filepath.Join(dir, "full")
	turbo := func(p *bayesopt.Protocol) { p.Methods = []string{"turbo"} }
	if code, _, errs := objectiveRun(t, dir, "sh "+script, full, nil); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := testutil.ReadCSVFile(t, filepath.Join(full, "runs", "turbo-r00.csv"))
	if len(recs) != 26 || strings.Join(recs[0], ",") != "iteration,region,x0,x1,value,seconds" {
		t.Fatalf("records: %d rows, header %v", len(recs), recs[0])
	}

	// A failing program: the error names the batch and shows stderr; only
	// whole batches are recorded (the initial design's 10 points come in
	// two batches of --batch 5, and the second fails); after the fix the
	// campaign resumes and ends exactly as the uninterrupted one.
	broken := filepath.Join(dir, "broken")
	testutil.WriteFile(t, dir, "broken", "")
	t.Setenv("QVS_TEST_BROKEN", broken)
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls-fix"))
	fixed := filepath.Join(dir, "fixed")
	code, _, errs := objectiveRun(t, dir, "sh "+script, fixed, turbo)
	if code != ExitRuntime || !strings.Contains(errs, "iteration 0") || !strings.Contains(errs, "sim crashed at call 2") || !strings.Contains(errs, "exit status 3") {
		t.Fatalf("failing command: exit %d, stderr %s", code, errs)
	}
	if got := testutil.ReadCSVFile(t, filepath.Join(fixed, "runs", "turbo-r00.csv")); len(got) != 6 {
		t.Fatalf("after the failure %d record rows, want the header and the first 5 initial points", len(got))
	}
	os.Remove(broken)
	if code, _, errs := objectiveRun(t, dir, "sh "+script, fixed, turbo); code != ExitOK {
		t.Fatalf("resume after the fix: exit %d: %s", code, errs)
	}
	sameRecords(t, filepath.Join(full, "runs", "turbo-r00.csv"), filepath.Join(fixed, "runs", "turbo-r00.csv"))

	for _, c := range []struct {
		name, cmd, timeout string
		want               []string
	}{
		{"hangs", "sleep 300", "300ms", []string{"iteration 0", "within the time limit 300ms", "killed"}},
		{"junk", "echo hello; echo oops >&2", "", []string{"iteration 0", `"hello"`, "oops"}},
		{"non-number", "awk 'NR > 1 { print (NR == 3 ? \"abc\" : 1) }'", "", []string{"iteration 0", `line 2: "abc" is not a finite number`}},
		{"too few values", "echo 1", "", []string{"iteration 0", "printed 1 values, expected 5"}},
		{"exit", "exit 4", "", []string{"iteration 0", "exit status 4", "stderr was empty"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bo")
			t0 := time.Now()
			code, _, errs := objectiveRun(t, dir, c.cmd, out, func(p *bayesopt.Protocol) {
				turbo(p)
				p.ObjectiveTimeout = c.timeout
			})
			if code != ExitRuntime {
				t.Errorf("exit %d, want %d", code, ExitRuntime)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not mention %q", errs, w)
				}
			}
			// A command not killed at its time limit takes its 300 s;
			// 60 s (it was 10) leave a loaded machine room.
			if time.Since(t0) > time.Minute {
				t.Errorf("took %v", time.Since(t0))
			}
			if b, err := os.ReadFile(filepath.Join(out, "runs", "turbo-r00.csv")); err == nil && strings.Count(string(b), "\n") > 1 {
				t.Errorf("records written for a failed batch:\n%s", b)
			}
		})
	}
}

// sameRecords compares two record files with the seconds column blanked.
func sameRecords(t *testing.T, a, b string) {
	t.Helper()
	ra, rb := testutil.ReadCSVFile(t, a), testutil.ReadCSVFile(t, b)
	if len(ra) != len(rb) {
		t.Fatalf("%s has %d rows, %s %d", a, len(ra), b, len(rb))
	}
	for i := range ra {
		x, y := strings.Join(ra[i][:len(ra[i])-1], ","), strings.Join(rb[i][:len(rb[i])-1], ",")
		if x != y {
			t.Fatalf("row %d differs:\n%s\n%s", i, x, y)
		}
	}
}

// TestBayesoptMixedRecordsUnknownChoice: resuming from records whose
// categorical cell is not one of the choices is refused naming the record
// file, its line and column, with stdout empty.
func TestBayesoptMixedRecordsUnknownChoice(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "space.yaml", testutil.MixedSpace)
	script := testutil.WriteFile(t, dir, "obj.sh", testutil.MixedScript)
	qvs15 := func(p *bayesopt.Protocol) { p.Methods, p.Budget = []string{"qvs"}, 15 }
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls"))
	out := filepath.Join(dir, "out")
	if code, _, errs := objectiveRun(t, dir, "sh "+script, out, qvs15); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	path := filepath.Join(out, "runs", "qvs-q1-r00.csv")
	recs := testutil.ReadCSVFile(t, path)
	recs[2][2] = "linear" // line 3, column x0
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.WriteAll(recs)
	testutil.WriteFile(t, filepath.Join(out, "runs"), "qvs-q1-r00.csv", b.String())
	if err := os.Remove(filepath.Join(out, "runs", "qvs-q1-r00.summary.csv")); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := objectiveRun(t, dir, "sh "+script, out, qvs15)
	want := path + `: line 3, column "x0": kernel: "linear" is not one of the choices rbf, poly, sigmoid`
	if code != ExitRuntime || stdout != "" || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stdout %q, stderr %s; want exit %d and %q", code, stdout, errs, ExitRuntime, want)
	}
}
