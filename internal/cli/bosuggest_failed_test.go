package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestSuggestDiscreteFailed: failed rows of --observed (empty, nan, failed,
// status failed) are counted on stderr in the continuous form's words and
// never suggested, for every method and batch size, even when the batch
// asks for every item left; with --retry-failed they are candidates again;
// a history whose every row failed gets a full batch; a status column
// without failures leaves stdout byte-identical.
func TestSuggestDiscreteFailed(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 20)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	table := testutil.ReadCSVFile(t, filepath.Join(dir, "mof", "mofs.csv"))
	ok := []int{3, 8, 14, 0}
	failed := map[int]string{5: "", 11: "nan", 17: "FAILED", 2: "status"}
	var h, plain, okStatus strings.Builder
	h.WriteString("index,value,status\n")
	plain.WriteString("index,value\n")
	okStatus.WriteString("index,value,status\n")
	for k, i := range ok {
		fmt.Fprintf(&h, "%d,%s,ok\n", i, table[i+1][1])
		fmt.Fprintf(&plain, "%d,%s\n", i, table[i+1][1])
		fmt.Fprintf(&okStatus, "%d,%s,complete\n", i, table[i+1][1])
		f := []int{5, 11, 17, 2}[k]
		if failed[f] == "status" {
			fmt.Fprintf(&h, "%d,1.5,failed\n", f)
		} else {
			fmt.Fprintf(&h, "%d,%s,\n", f, failed[f])
		}
	}
	evals := testutil.WriteFile(t, dir, "evals.csv", h.String())
	// --kernel kernel.csv --observed file --method method --batch batch [--retry-failed]
	suggest := func(file, method string, batch int, retry bool) (picks []int, stdout, stderr string) {
		t.Helper()
		code, stdout, stderr := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Discrete.Kernel, o.OnKernel, o.Observed = kernel, true, file
			o.Method, o.Batch, o.RetryFailed = method, batch, retry
		}))
		if code != 0 {
			t.Fatalf("--method %s --batch %d --retry-failed %v: exit %d: %s", method, batch, retry, code, stderr)
		}
		for _, row := range testutil.ParseCSV(t, stdout)[1:] {
			i, err := strconv.Atoi(row[1])
			if err != nil {
				t.Fatalf("row %v", row)
			}
			picks = append(picks, i)
		}
		return picks, stdout, stderr
	}
	for _, m := range []string{"qvs", "ucb", "random"} {
		for _, b := range []int{1, 5, 12} { // 12 = every item neither evaluated nor failed
			picks, _, stderr := suggest(evals, m, b, false)
			if want := "qvs bayesopt suggest: 4 of 8 experiments in " + evals + " failed: left out of the model; no suggestion of a failed item (--retry-failed allows it)"; !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr %q, want %q", m, stderr, want)
			}
			if len(picks) != b {
				t.Errorf("%s --batch %d: %d picks", m, b, len(picks))
			}
			for _, i := range picks {
				if _, f := failed[i]; f || slices.Contains(ok, i) {
					t.Errorf("%s --batch %d: %v suggests evaluated or failed item %d", m, b, picks, i)
				}
			}
		}
		// Every item not evaluated successfully: the failed ones included.
		picks, _, stderr := suggest(evals, m, 16, true)
		if !strings.Contains(stderr, "4 of 8 experiments in "+evals+" failed: left out of the model; --retry-failed: they may be suggested again") {
			t.Errorf("%s --retry-failed: stderr %q", m, stderr)
		}
		for i := range failed {
			if !slices.Contains(picks, i) {
				t.Errorf("%s --retry-failed --batch 16: %v lacks failed item %d", m, picks, i)
			}
		}
	}
	// Failures never enter the model: with --retry-failed the ucb and qvs
	// batches are those of the successes alone.
	plainFile := testutil.WriteFile(t, dir, "plain.csv", plain.String())
	for _, m := range []string{"qvs", "ucb"} {
		_, got, _ := suggest(evals, m, 5, true)
		_, want, _ := suggest(plainFile, m, 5, false)
		if got != want {
			t.Errorf("%s --retry-failed:\n%s\nthe successes alone:\n%s", m, got, want)
		}
	}
	// Outputs unchanged otherwise: a status column without failures.
	okFile := testutil.WriteFile(t, dir, "ok.csv", okStatus.String())
	for _, f := range []string{FormatCSV, FormatJSON, FormatTable} {
		// --kernel kernel.csv --observed FILE --format f
		suggest := func(file string) (int, string, string) {
			return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
				o.Discrete.Kernel, o.OnKernel, o.Observed, o.Format.Value = kernel, true, file, f
			}))
		}
		_, got, stderr := suggest(okFile)
		_, want, _ := suggest(plainFile)
		if got != want || strings.Contains(stderr, "failed") {
			t.Errorf("--format %s: a status column changed the output:\n%s\nvs\n%s\nstderr %q", f, got, want, stderr)
		}
	}
	// Every row failed (beyond --init): a full batch, none of them.
	allFailed := testutil.WriteFile(t, dir, "all.csv", "index,value\n4,failed\n9,nan\n13,\n")
	for _, m := range []string{"qvs", "ucb", "random"} {
		picks, stdout, stderr := suggest(allFailed, m, 5, false)
		if len(picks) != 5 || !strings.Contains(stderr, "3 of 3 experiments in "+allFailed+" failed") {
			t.Errorf("%s, all failed: picks %v, stderr %q", m, picks, stderr)
		}
		for _, i := range picks {
			if i == 4 || i == 9 || i == 13 {
				t.Errorf("%s, all failed: %v suggests failed item %d", m, picks, i)
			}
		}
		if m != "random" && (!strings.Contains(stderr, "no successful evaluation yet: 5 point(s) of the initial design's stream") || !strings.Contains(stdout, "rank,index,id,ucb,mean,sd\n1,")) {
			t.Errorf("%s, all failed: stderr %q stdout %q", m, stderr, stdout)
		}
	}
}

// TestBayesoptSuggestExhaustedSpace: an int space with fewer unevaluated
// points than --batch yields fewer suggestions, with a warning on stderr
// (it used to print a bare header, silently, once every point was
// evaluated).
func TestBayesoptSuggestExhaustedSpace(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: n, lower: 0, upper: 2, type: int}\n")
	for _, tc := range []struct {
		evals string
		rows  int
	}{
		{"n,value\n", 3},                // the initial design: the 3 integers 0, 1, 2
		{"n,value\n0,1\n1,2\n2,3\n", 0}, // all of them evaluated
	} {
		code, out, stderr := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = testutil.WriteFile(t, dir, "e.csv", tc.evals)
			o.Batch = 5
			o.Init, o.InitGiven = 3, true
			o.Continuous.Regions = 1
			o.Continuous.Candidates = 10
			o.ContinuousFlags = []string{"regions", "candidates"}
		}))
		warn := fmt.Sprintf("warning: %d suggestion(s), fewer than --batch 5", tc.rows)
		if code != 0 || strings.Count(out, "\n") != 1+tc.rows || !strings.Contains(stderr, warn) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d rows and %q", tc.evals, code, out, stderr, tc.rows, warn)
		}
	}
}
