package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/lunar"
	"github.com/qvs-dev/qvs/internal/testutil"
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

// rowValues parses the `row,value` output into values by row.
func rowValues(t *testing.T, out string) []float64 {
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

func TestEvaluateRoverGolden(t *testing.T) {
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
	p := testutil.WriteFile(t, t.TempDir(), "X.csv", strings.Join(header, ",")+"\n"+csvRow(repeat(0.03, 60))+csvRow(sin))
	e, out, errb := testEnv(t)
	e.Quiet = true
	if err := RunEvaluate(e, &EvaluateOptions{Task: "rover", Points: p}); err != nil {
		t.Fatal(err)
	}
	if errb.Len() != 0 {
		t.Errorf("quiet printed %q", errb)
	}
	vals := rowValues(t, out.String())
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

func TestEvaluateSyntheticAndLunar(t *testing.T) {
	syn, _ := tasks.NewSynthetic(6)
	dir := t.TempDir()
	var content string
	for _, c := range syn.Centres() {
		content += csvRow(c)
	}
	e, out, errb := testEnv(t)
	e.Workers = 3
	if err := RunEvaluate(e, &EvaluateOptions{Task: "synthetic", Points: testutil.WriteFile(t, dir, "X.csv", content)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "evaluated 4 points of task synthetic") {
		t.Errorf("stderr %q", errb)
	}
	vals := rowValues(t, out.String())
	for i, c := range syn.Centres() {
		if want, _ := syn.Evaluate(context.Background(), c); vals[i] != want { // 'g' -1 formatting round-trips exactly
			t.Errorf("row %d: %v, want %v", i+1, vals[i], want)
		}
	}
	// Lunar: OpenAI's default heuristic, the lunar package's golden mean.
	err, got, _ := runCmd(t, RunEvaluate, &EvaluateOptions{Task: "lunar", Points: testutil.WriteFile(t, dir, "L.csv", csvRow(lunar.DefaultX))})
	if err != nil {
		t.Fatalf("lunar: %v", err)
	}
	if v := rowValues(t, got); math.Abs(v[0]-228.5719948292918) > 1e-9*228.6 {
		t.Errorf("lunar default heuristic: %v, want 228.5719948292918", v[0])
	}
}

func TestEvaluateErrors(t *testing.T) {
	dir := t.TempDir()
	good := testutil.WriteFile(t, dir, "good.csv", csvRow(repeat(0.5, 6)))
	for _, c := range []struct {
		name     string
		o        EvaluateOptions
		code     int
		contains []string
	}{
		{"no task", EvaluateOptions{Points: good}, ExitUsage, []string{"--task is required"}},
		{"no points", EvaluateOptions{Task: "synthetic"}, ExitUsage, []string{"--points is required"}},
		{"unknown task", EvaluateOptions{Task: "moon", Points: good}, ExitUsage, []string{`unknown task "moon"`, "lunar, rover, synthetic"}},
		{"missing file", EvaluateOptions{Task: "synthetic", Points: dir + "/nope.csv"}, ExitRuntime, []string{"nope.csv"}},
		{"wrong columns", EvaluateOptions{Task: "rover", Points: good}, ExitRuntime, []string{"good.csv", "6 columns", "rover expects 60"}},
		{"outside box", EvaluateOptions{Task: "synthetic", Points: testutil.WriteFile(t, dir, "out.csv", csvRow(repeat(0.5, 6))+"0.5,0.5,1.5,0.5,0.5,0.5\n")},
			ExitRuntime, []string{"out.csv", "row 2, column 3", "1.5", "outside the box [0, 1]"}},
		{"below box", EvaluateOptions{Task: "rover", Points: testutil.WriteFile(t, dir, "low.csv", csvRow(repeat(-0.04, 60)))},
			ExitRuntime, []string{"low.csv", "row 1, column 1", "-0.04", "outside the box"}},
		{"non-finite", EvaluateOptions{Task: "synthetic", Points: testutil.WriteFile(t, dir, "nan.csv", "0.5,0.5,nan,0.5,0.5,0.5\n")},
			ExitRuntime, []string{"nan.csv", "row 1, column 3", "not a finite number"}},
		{"ragged", EvaluateOptions{Task: "synthetic", Points: testutil.WriteFile(t, dir, "ragged.csv", csvRow(repeat(0.5, 6))+"0.5,0.5\n")},
			ExitRuntime, []string{"ragged.csv", "line 2"}},
	} {
		err, out, _ := runCmd(t, RunEvaluate, &c.o)
		if ExitCode(err) != c.code || out != "" {
			t.Errorf("%s: exit %d, want %d; stdout %q (error %v)", c.name, ExitCode(err), c.code, out, err)
			continue
		}
		for _, s := range c.contains {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", c.name, err, s)
			}
		}
	}
}

// TestSolutionsKernel: the --kernel form picks by the kernel's similarity:
// of two near-twin top items it takes the best, then the next-best
// dissimilar item, and the twin last. Failed rows (suggest's rule) are
// never chosen, leave the solutions of the successes unchanged and are
// counted on stderr.
func TestSolutionsKernel(t *testing.T) {
	dir := t.TempDir()
	// Items 0 and 1 are twins (similarity 0.99); 2, 3 and 4 are unlike them.
	kernel := testutil.WriteFile(t, dir, "k.csv", "1,0.99,0,0,0\n0.99,1,0,0,0\n0,0,1,0,0\n0,0,0,1,0\n0,0,0,0,1\n")
	for _, c := range []struct{ evals, note string }{
		{"index,value\n0,10\n1,9.9\n2,9\n3,1\n", ""},
		{"index,value,status\n0,10,\n4,,\n1,9.9,ok\n2,9,\n3,1,\n4,50,failed\n", "2 of 6 experiments failed (never chosen)"}, // item 4 failed twice
	} {
		o := DefaultSolutionsOptions()
		o.Kernel.File, o.Observed = kernel, testutil.WriteFile(t, dir, "e.csv", c.evals)
		err, stdout, stderr := runCmd(t, RunSolutions, &o)
		if err != nil {
			t.Fatal(err)
		}
		// Band: max(3, ceil(0.4)) = 3 items {0, 1, 2}, quality (v - 1) / 9 =
		// 1, 0.989, 0.889. The greedy qVS_1 takes 0, then 2: {0, 2} scores
		// 0.944 x 2 (orthogonal) = 1.89, {0, 1} 0.994 x 1.032 (eigenvalues
		// 0.995, 0.005) = 1.03; then 1.
		if want := "rank,index,id,value\n1,0,0,10\n2,2,2,9\n3,1,1,9.9\n"; stdout != want || !strings.Contains(stderr, c.note) {
			t.Errorf("%q: stdout %q, want %q; stderr %q", c.evals, stdout, want, stderr)
		}
		// JSON: the same rows, with m, q and the set's VS.
		o.Format.Value = FormatJSON
		if err, js, _ := runCmd(t, RunSolutions, &o); err != nil || !strings.Contains(js, `{"rank":2,"index":2,"id":"2","value":9}`) || !strings.Contains(js, "\"m\":3,\n\"q\":1,\n\"vs\":") {
			t.Errorf("json: %v %q", err, js)
		}
	}
}
