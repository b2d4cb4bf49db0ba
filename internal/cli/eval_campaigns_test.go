package cli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// evalFixture is the results folder of internal/eval's golden tests: short
// real runs of qvs as and qvs bayesopt (see testdata/eval/README.md).
var evalFixture = filepath.Join("..", "..", "testdata", "eval", "results")

// evalRun is `qvs eval dir --out out --format formats --figures figures
// --quiet` ("" leaves a setting at its default): the exit code qvs would
// give, stdout, and the error's message followed by stderr.
func evalRun(t *testing.T, dir, out, formats, figures string) (code int, stdout, msg string) {
	t.Helper()
	o := DefaultEvalOptions()
	o.Dir, o.Out = dir, out
	if formats != "" {
		o.Format = strings.Split(formats, ",")
	}
	if figures != "" {
		o.Figures = strings.Split(figures, ",")
	}
	e, sout, serr := testEnv(t)
	e.Quiet = true
	if err := RunEval(e, &o); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// TestEvalFixture runs qvs eval on the fixture: every campaign is found,
// every table written in the asked formats, no figure with --figures none,
// and the paper's campaigns the fixture lacks are listed as not made.
func TestEvalFixture(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := evalRun(t, evalFixture, out, "md,csv", "none")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet but stderr %q", stderr)
	}
	for _, want := range []string{
		"campaign synthetic (active search", "campaign synthetic-2 (BayesOpt", "campaign rover (BayesOpt", "campaign mof (discrete BayesOpt",
		"not made: Table 1 (photoswitch active search)", "not made: Figure 3 (lunar lander BayesOpt)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"synthetic-as-table.md", "synthetic-as-table.csv", "mof-table4.md", "rover-bo-table.csv", "synthetic-2-bo-table.md"} {
		if _, err := os.Stat(filepath.Join(out, "tables", f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(out, "tables", "*.tex")); len(m) != 0 {
		t.Errorf("--format md,csv wrote LaTeX: %v", m)
	}
	if _, err := os.Stat(filepath.Join(out, "figures")); err == nil {
		t.Error("--figures none wrote figures")
	}
	if _, err := os.Stat(filepath.Join(out, "README.md")); err != nil {
		t.Error(err)
	}
}

// copyDir copies a results folder (small files) for tests that damage it.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEvalPartialAndBroken: a campaign with an unfinished run (record file,
// no summary) is evaluated and reported partial; a campaign whose
// summary.csv is damaged is reported and skipped; the others still work.
func TestEvalPartialAndBroken(t *testing.T) {
	res := t.TempDir()
	copyDir(t, filepath.Join(evalFixture, "mof"), filepath.Join(res, "mof"))
	copyDir(t, filepath.Join(evalFixture, "synthetic-2"), filepath.Join(res, "broken"))
	// Make run qvs-q1-r02 of mof unfinished: drop its summary file and row.
	key := "qvs-q1-r02"
	if err := os.Remove(filepath.Join(res, "mof", "runs", key+".summary.csv")); err != nil {
		t.Fatal(err)
	}
	sum := filepath.Join(res, "mof", "summary.csv")
	f, err := os.Open(sum)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]string
	for _, r := range rows {
		if r[0] != key {
			kept = append(kept, r)
		}
	}
	if len(kept) != len(rows)-1 {
		t.Fatalf("fixture has no run %s", key)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.WriteAll(kept)
	if err := os.WriteFile(sum, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res, "broken", "summary.csv"), []byte("key,method\n\"unterminated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := evalRun(t, res, out, "", "none")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"PARTIAL: 1 unfinished run(s) (" + key + ")",
		"qvs q=1: 2 of 3 repeats",
		"not made: unreadable campaign: " + filepath.Join(res, "broken", "summary.csv"),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "tables", "mof-table4.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Partial campaign") {
		t.Errorf("table lacks the partial note:\n%s", md)
	}
}

// damageCell copies the fixture campaign name into a new folder and sets
// the cell of column col in data row row (1-based) of its summary.csv to
// val. It returns the campaign folder.
func damageCell(t *testing.T, name string, row int, col, val string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	copyDir(t, filepath.Join(evalFixture, name), dir)
	sum := filepath.Join(dir, "summary.csv")
	recs := testutil.ReadCSVFile(t, sum)
	j := slices.Index(recs[0], col)
	if j < 0 {
		t.Fatalf("%s has no column %s", sum, col)
	}
	recs[row][j] = val
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	_ = w.WriteAll(recs)
	if err := os.WriteFile(sum, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDamagedCellIsNamed: NaN or abc in a vs_q0 cell was once
// left out of the mean with exit 0 and no note. `qvs as table` now fails
// naming the file, line and column; `qvs eval` lists the campaign as not
// made with the same message, or fails when no campaign is readable.
func TestDamagedCellIsNamed(t *testing.T) {
	for _, val := range []string{"abc", "NaN", ""} {
		dir := damageCell(t, "synthetic", 2, "vs_q0", val)
		want := fmt.Sprintf("%s: line 3, column 7 (vs_q0): %q is not a finite number", filepath.Join(dir, "summary.csv"), val)
		code, _, stderr := asTable(t, dir)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("as table with vs_q0 %q: exit %d, stderr %q; want 1 and %q", val, code, stderr, want)
		}
		code, _, stderr = evalRun(t, dir, t.TempDir(), "", "none")
		if code != 1 || !strings.Contains(stderr, "holds no readable campaign") || !strings.Contains(stderr, want) {
			t.Errorf("eval of the damaged campaign alone: exit %d, stderr %q; want 1 and %q", code, stderr, want)
		}
	}
	// Beside a good campaign: the good one is evaluated, the damaged one is
	// in "not made" (stdout and README.md) with the cell named.
	res := t.TempDir()
	copyDir(t, filepath.Join(evalFixture, "mof"), filepath.Join(res, "mof"))
	bad := damageCell(t, "synthetic", 1, "max_pairwise_distance", "-Inf")
	copyDir(t, bad, filepath.Join(res, "synthetic"))
	out := t.TempDir()
	code, stdout, stderr := evalRun(t, res, out, "", "none")
	want := "line 2, column 13 (max_pairwise_distance): \"-Inf\" is not a finite number"
	readme, _ := os.ReadFile(filepath.Join(out, "README.md"))
	if code != ExitOK || !strings.Contains(stdout, "not made: unreadable campaign: ") || !strings.Contains(stdout, want) || !strings.Contains(string(readme), want) {
		t.Errorf("eval beside a good campaign: exit %d (%s), stdout %q, README %q; want 0 and %q", code, stderr, stdout, readme, want)
	}
}

// TestMisleadingMessages: a missing folder was once "empty
// file", a damaged or empty summary.csv was "no summary.csv".
func TestMisleadingMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuchdir")
	code, _, stderr := asTable(t, missing)
	if code != 1 || !strings.Contains(stderr, "nosuchdir: no such file or directory") || strings.Contains(stderr, "empty file") {
		t.Errorf("as table nosuchdir: exit %d, %q", code, stderr)
	}
	code, _, stderr = asTable(t, dir)
	if code != 1 || !strings.Contains(stderr, "no summary.csv and no finished run") {
		t.Errorf("as table on a folder without summary.csv: exit %d, %q", code, stderr)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "summary.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = evalRun(t, empty, t.TempDir(), "", "")
	if code != 1 || !strings.Contains(stderr, filepath.Join(empty, "summary.csv")+": empty file") || strings.Contains(stderr, "no summary.csv") {
		t.Errorf("eval of an empty summary.csv: exit %d, %q", code, stderr)
	}
	code, _, stderr = asTable(t, empty)
	if code != 1 || !strings.Contains(stderr, "empty file") {
		t.Errorf("as table of an empty summary.csv: exit %d, %q", code, stderr)
	}
}

// TestEvalFigureWriteFailure: a figure that could not be
// written ("no space left on device") appeared only under "not made" and
// eval exited 0. Here OUT/figures is a file, so no figure can be written:
// exit 1 naming the failure, while the tables and README.md are still made.
func TestEvalFigureWriteFailure(t *testing.T) {
	res := t.TempDir()
	copyDir(t, filepath.Join(evalFixture, "rover"), filepath.Join(res, "rover"))
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "figures"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := evalRun(t, res, out, "", "svg")
	if code != 1 || !strings.Contains(stderr, "figure file(s) could not be written") || !strings.Contains(stderr, "not a directory") {
		t.Errorf("exit %d, stderr %q; want 1 and the write failure", code, stderr)
	}
	if stdout != "" || !strings.Contains(stderr, "not made: rover: best value so far") {
		t.Errorf("want stdout empty and the figure under not made on stderr; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	for _, f := range []string{filepath.Join("tables", "rover-bo-table.md"), "README.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// TestEvalRoverTrajectoriesFigure: eval draws a rover campaign's
// trajectories (Figure 4) on the rover's map.
func TestEvalRoverTrajectoriesFigure(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := evalRun(t, filepath.Join(evalFixture, "rover"), out, "md", "png"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(filepath.Join(out, "figures", "rover-trajectories.png")); err != nil || fi.Size() == 0 {
		t.Errorf("no trajectories figure: %v", err)
	}
}

// TestEvalRefusals: formats eval cannot write are a bad command line (exit
// 2, naming the flag and value); a folder that is absent or holds no
// campaign is exit 1.
func TestEvalRefusals(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name             string
		dir, format, fig string
		code             int
		msg              string
	}{
		{"bad table format", dir, "md,html", "", ExitUsage, `--format "html"`},
		{"no table format", dir, ",", "", ExitUsage, "at least one"},
		{"bad figure format", dir, "", "pdf", ExitUsage, `--figures "pdf"`},
		{"absent folder", filepath.Join(dir, "nope"), "", "", ExitRuntime, "nope"},
		{"empty folder", dir, "", "", ExitRuntime, "holds no campaign"},
	}
	for _, tc := range tests {
		o := DefaultEvalOptions()
		o.Dir = tc.dir
		if tc.format == "," {
			o.Format = nil
		} else if tc.format != "" {
			o.Format = strings.Split(tc.format, ",")
		}
		if tc.fig != "" {
			o.Figures = []string{tc.fig}
		}
		code, out, msg := exitOf(t, RunEval, &o)
		if code != tc.code || out != "" || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: exit %d, stdout %q, message %q; want exit %d and %q", tc.name, code, out, msg, tc.code, tc.msg)
		}
	}
}

// TestEvalOutKeepsUsersReadme: `qvs eval DIR --out .` with the user's
// README.md there is refused (exit 2) and the file kept; an index qvs
// wrote is rewritten.
func TestEvalOutKeepsUsersReadme(t *testing.T) {
	dir := t.TempDir()
	readme := testutil.WriteFile(t, dir, "README.md", "# my project\n")
	code, stdout, stderr := evalRun(t, dir, dir, "", "")
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--out "+readme) || !strings.Contains(stderr, "--force") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(readme); string(b) != "# my project\n" {
		t.Errorf("README.md became %q", b)
	}
	testutil.WriteFile(t, dir, "README.md", indexTitleForTest+"\n\nold\n")
	if code, _, stderr := evalRun(t, dir, dir, "", ""); code == ExitUsage {
		t.Errorf("qvs's own index refused: %s", stderr)
	}
}

const indexTitleForTest = "# Evaluation of the campaigns (written by `qvs eval`)"
