package cmd

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/lunar"
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

func TestBayesoptEvaluateSyntheticAndLunar(t *testing.T) {
	syn, _ := tasks.NewSynthetic(6)
	dir := t.TempDir()
	var content string
	for _, c := range syn.Centres() {
		content += csvRow(c)
	}
	p := writeFile(t, dir, "X.csv", content)
	code, out, errs := runQVS(t, "bayesopt", "evaluate", "--task", "synthetic", "--points", p, "--workers", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "evaluated 4 points of task synthetic") {
		t.Errorf("stderr %q", errs)
	}
	vals := parseRowValue(t, out)
	for i, c := range syn.Centres() {
		if want, _ := syn.Evaluate(context.Background(), c); vals[i] != want { // 'g' -1 formatting round-trips exactly
			t.Errorf("row %d: %v, want %v", i+1, vals[i], want)
		}
	}
	// Lunar: OpenAI's default heuristic, the lunar package's golden mean.
	p = writeFile(t, dir, "L.csv", csvRow(lunar.DefaultX))
	code, out, errs = runQVS(t, "bayesopt", "evaluate", "--task", "lunar", "--points", p, "--quiet")
	if code != 0 {
		t.Fatalf("lunar: exit %d: %s", code, errs)
	}
	if v := parseRowValue(t, out); math.Abs(v[0]-228.5719948292918) > 1e-9*228.6 {
		t.Errorf("lunar default heuristic: %v, want 228.5719948292918", v[0])
	}
}

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
		{"wrong columns", []string{"--task", "rover", "--points", good}, ExitRuntime, []string{"good.csv", "6 columns", "rover expects 60"}},
		{"outside box", []string{"--task", "synthetic", "--points",
			writeFile(t, dir, "out.csv", csvRow(repeat(0.5, 6))+"0.5,0.5,1.5,0.5,0.5,0.5\n")},
			ExitRuntime, []string{"out.csv", "row 2, column 3", "1.5", "outside the box [0, 1]"}},
		{"below box", []string{"--task", "rover", "--points",
			writeFile(t, dir, "low.csv", csvRow(repeat(-0.04, 60)))},
			ExitRuntime, []string{"low.csv", "row 1, column 1", "-0.04", "outside the box"}},
		{"non-finite", []string{"--task", "synthetic", "--points",
			writeFile(t, dir, "nan.csv", "0.5,0.5,nan,0.5,0.5,0.5\n")},
			ExitRuntime, []string{"nan.csv", "row 1, column 3", "not a finite number"}},
		{"ragged", []string{"--task", "synthetic", "--points",
			writeFile(t, dir, "ragged.csv", csvRow(repeat(0.5, 6))+"0.5,0.5\n")},
			ExitRuntime, []string{"ragged.csv", "line 2"}},
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
