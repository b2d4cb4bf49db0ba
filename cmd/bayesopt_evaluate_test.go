package cmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// csvRow formats x as one CSV line.
func csvRow(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",") + "\n"
}

func repeat(v float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// parseRowValue parses the `row,value` output into values by row.
func parseRowValue(t *testing.T, out string) []float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "row,value" {
		t.Fatalf("header %q, want row,value", lines[0])
	}
	var vals []float64
	for k, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 2 || f[0] != strconv.Itoa(k+1) {
			t.Fatalf("line %q, want row %d", l, k+1)
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	return vals
}

func TestBayesoptEvaluateRoverGolden(t *testing.T) {
	// Golden values of the original Python rover code: x_i = 0.03 gives
	// -6.3773481093 and x_i = 0.03 + 0.03 sin(i) gives -11.0512770566.
	const relTol = 1e-6
	sin := make([]float64, 60)
	for i := range sin {
		sin[i] = 0.03 + 0.03*math.Sin(float64(i))
	}
	header := make([]string, 60)
	for i := range header {
		header[i] = fmt.Sprintf("x%d", i)
	}
	p := writeFile(t, t.TempDir(), "X.csv", strings.Join(header, ",")+"\n"+csvRow(repeat(0.03, 60))+csvRow(sin))
	code, out, errs := runQVS(t, "bayesopt", "evaluate", "--task", "rover", "--points", p, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet printed %q", errs)
	}
	vals := parseRowValue(t, out)
	want := []float64{-6.3773481093, -11.0512770566}
	if len(vals) != 2 {
		t.Fatalf("got %d rows, want 2", len(vals))
	}
	for i := range want {
		if math.Abs(vals[i]-want[i]) > relTol*math.Abs(want[i]) {
			t.Errorf("row %d: %v, want %v", i+1, vals[i], want[i])
		}
	}
}

// TestBayesoptEvaluateErrors: the binary's exit codes for a bad command
// line and a missing file (the run's checks of the points are tested in
// internal/cli), stdout empty.
func TestBayesoptEvaluateErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.csv", csvRow(repeat(0.5, 6)))
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"no task", []string{"--points", good}, ExitUsage, []string{"--task is required"}},
		{"no points", []string{"--task", "synthetic"}, ExitUsage, []string{"--points is required"}},
		{"unknown task", []string{"--task", "moon", "--points", good}, ExitUsage, []string{`unknown task "moon"`, "lunar, rover, synthetic"}},
		{"missing file", []string{"--task", "synthetic", "--points", dir + "/nope.csv"}, ExitRuntime, []string{"nope.csv"}},
	}
	for _, c := range cases {
		code, out, errs := runQVS(t, append([]string{"bayesopt", "evaluate"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, errs)
		}
		if out != "" {
			t.Errorf("%s: printed %q on error", c.name, out)
		}
		for _, s := range c.contains {
			if !strings.Contains(errs, s) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errs, s)
			}
		}
	}
}
