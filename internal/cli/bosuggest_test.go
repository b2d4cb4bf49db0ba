package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// toyKernel writes the RBF kernel (length scale 0.25) of n random points
// of the unit square, and returns its path and each point's value (a peak
// at (0.7, 0.2)): the discrete pool of the suggest tests.
func toyKernel(t *testing.T, dir string, n int) (string, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([][2]float64, n)
	for i := range x {
		x[i] = [2]float64{rng.Float64(), rng.Float64()}
	}
	var kb strings.Builder
	values := make([]float64, n)
	for i := range n {
		for j := range n {
			d := math.Pow(x[i][0]-x[j][0], 2) + math.Pow(x[i][1]-x[j][1], 2)
			if j > 0 {
				kb.WriteString(",")
			}
			kb.WriteString(strconv.FormatFloat(math.Exp(-d/(2*0.25*0.25)), 'g', -1, 64))
		}
		kb.WriteString("\n")
		values[i] = 20 * math.Exp(-(math.Pow(x[i][0]-0.7, 2)+math.Pow(x[i][1]-0.2, 2))/0.05)
	}
	return testutil.WriteFile(t, dir, "kernel.csv", kb.String()), values
}

func kernelSuggest(kernel, observed string) *BOSuggestOptions {
	o := DefaultBOSuggestOptions()
	o.OnKernel, o.Discrete.Kernel, o.Observed = true, kernel, observed
	return &o
}

// TestSuggestDiscreteProperties: suggestions are distinct, unevaluated and
// deterministic; ucb = mean + sqrt(beta) sd with sd >= 0; the ucb method's
// batch is in decreasing UCB order and, asked for every free item, ranks
// them all; qvs with q = 0 is the ucb batch; the qvs batch differs from it
// on this kernel (diversity acts).
func TestSuggestDiscreteProperties(t *testing.T) {
	dir := t.TempDir()
	kernel, values := toyKernel(t, dir, 30)
	obs := []int{3, 8, 14, 21, 27, 0}
	var h strings.Builder
	h.WriteString("index,value\n")
	for _, i := range obs {
		fmt.Fprintf(&h, "%d,%v\n", i, values[i])
	}
	evals := testutil.WriteFile(t, dir, "evals.csv", h.String())
	suggest := func(method string, q, beta float64, batch int) [][]string {
		t.Helper()
		o := kernelSuggest(kernel, evals)
		o.Method, o.Q, o.Discrete.Beta, o.Batch = method, vendiOrder(q), beta, batch
		err, out, _ := runCmd(t, RunBOSuggest, o)
		if err != nil {
			t.Fatalf("%s q %v: %v", method, q, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if lines[0] != "rank,index,id,ucb,mean,sd" {
			t.Fatalf("header %q", lines[0])
		}
		var rows [][]string
		for _, l := range lines[1:] {
			rows = append(rows, strings.Split(l, ","))
		}
		return rows
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	batches := map[string]string{}
	for _, m := range []struct {
		method  string
		q, beta float64
	}{{"qvs", 1, 2}, {"qvs", 0, 2}, {"ucb", 1, 2}, {"random", 1, 2}, {"qvs", math.Inf(1), 0.5}} {
		rows := suggest(m.method, m.q, m.beta, 5)
		if again := suggest(m.method, m.q, m.beta, 5); fmt.Sprint(rows) != fmt.Sprint(again) {
			t.Errorf("%v: not deterministic: %v then %v", m, rows, again)
		}
		seen := map[string]bool{}
		for r, row := range rows {
			i := int(num(row[1]))
			if row[0] != strconv.Itoa(r+1) || row[2] != row[1] || i < 0 || i >= 30 || slices.Contains(obs, i) || seen[row[1]] {
				t.Errorf("%v: bad row %v", m, row)
			}
			seen[row[1]] = true
			u, mu, sd := num(row[3]), num(row[4]), num(row[5])
			if sd < 0 || math.Abs(u-(mu+math.Sqrt(m.beta)*sd)) > 1e-9*math.Max(1, math.Abs(u)) {
				t.Errorf("%v: ucb %v != mean %v + sqrt(beta) sd %v", m, u, mu, sd)
			}
		}
		batches[fmt.Sprint(m.method, m.q)] = fmt.Sprint(rows)
	}
	if batches["qvs0"] != batches["ucb1"] {
		t.Errorf("qvs q=0 %v differs from ucb %v", batches["qvs0"], batches["ucb1"])
	}
	if batches["qvs1"] == batches["ucb1"] {
		t.Errorf("qvs q=1 equals ucb on this kernel: the test does not exercise diversity")
	}
	all := suggest("ucb", 1, 2, 24)
	if len(all) != 24 {
		t.Fatalf("%d rows for the 24 free items", len(all))
	}
	for r := 1; r < len(all); r++ {
		if num(all[r][3]) > num(all[r-1][3]) {
			t.Errorf("ucb batch not in decreasing UCB order at rank %d: %v > %v", r+1, all[r][3], all[r-1][3])
		}
	}
}

// TestSuggestDiscreteBadInput: every bad input gives the documented exit
// code, a message naming the file, line or key, and empty stdout.
func TestSuggestDiscreteBadInput(t *testing.T) {
	dir := t.TempDir()
	kernel, _ := toyKernel(t, dir, 6)
	good := testutil.WriteFile(t, dir, "good.csv", "index,value\n1,2.5\n")
	p := func(name, body string) string { return testutil.WriteFile(t, dir, name, body) }
	ids := p("ids.txt", "a\nb\nc\nd\ne\nf\n")
	for _, c := range []struct {
		name string
		set  func(o *BOSuggestOptions)
		code int
		want string
	}{
		{"continuous flag", func(o *BOSuggestOptions) { o.ContinuousFlags = []string{"regions"} }, 2, "--regions applies only with --space"},
		{"batch", func(o *BOSuggestOptions) { o.Batch = 0 }, 2, "--batch 0: expected 1 to 300"},
		{"method", func(o *BOSuggestOptions) { o.Method = "turbo" }, 2, `--method "turbo"`},
		{"beta", func(o *BOSuggestOptions) { o.Discrete.Beta = -1 }, 2, "--beta"},
		{"init 0", func(o *BOSuggestOptions) { o.Init, o.InitGiven = 0, true }, 2, "--init must be at least 1"},
		{"init > n", func(o *BOSuggestOptions) { o.Init, o.InitGiven = 7, true }, 2, "--init 7 exceeds the 6 candidates"},
		{"kernel missing", func(o *BOSuggestOptions) { o.Discrete.Kernel = filepath.Join(dir, "nope.csv") }, 1, "nope.csv"},
		{"kernel not square", func(o *BOSuggestOptions) { o.Discrete.Kernel = p("k23.csv", "1,0,0\n0,1,0\n") }, 1, "k23.csv: expected a square n x n kernel matrix, got 2 x 3"},
		{"kernel asymmetric", func(o *BOSuggestOptions) { o.Discrete.Kernel = p("kas.csv", "1,0.5\n0.2,1\n") }, 1, "kas.csv: not symmetric: row 1, column 2 is 0.5 but row 2, column 1 is 0.2"},
		{"kernel not PSD", func(o *BOSuggestOptions) { o.Discrete.Kernel = p("kneg.csv", "1,0.9,-0.9\n0.9,1,0.9\n-0.9,0.9,1\n") }, 1, "kneg.csv: kernel is not positive semidefinite"},
		{"kernel NaN", func(o *BOSuggestOptions) { o.Discrete.Kernel = p("knan.csv", "1,nan\nnan,1\n") }, 1, "knan.csv"},
		{"observed missing", func(o *BOSuggestOptions) { o.Observed = filepath.Join(dir, "none.csv") }, 1, "none.csv"},
		{"observed empty", func(o *BOSuggestOptions) { o.Observed = p("e0.csv", "") }, 1, "e0.csv: empty file"},
		{"no value column", func(o *BOSuggestOptions) { o.Observed = p("e1.csv", "index,y\n1,2\n") }, 1, `e1.csv: line 1: header "index,y"`},
		{"index out of range", func(o *BOSuggestOptions) { o.Observed = p("e2.csv", "index,value\n1,2\n6,3\n") }, 1, `e2.csv: line 3, column "index": "6" is not an item index in [0, 6)`},
		{"unknown id", func(o *BOSuggestOptions) { o.Discrete.IDs, o.Observed = ids, p("e3.csv", "id,value\nb,2\nz,3\n") }, 1, `e3.csv: line 3, column "id": "z"`},
		{"id without --ids", func(o *BOSuggestOptions) { o.Observed = p("e4.csv", "id,value\nb,2\n") }, 1, `e4.csv: line 2, column "id": "b"`},
		{"value not a number", func(o *BOSuggestOptions) { o.Observed = p("e5.csv", "index,value\n1,2\n2,abc\n") }, 1, `e5.csv: line 3, column "value": "abc" is not a finite number`},
		{"value infinite", func(o *BOSuggestOptions) { o.Observed = p("e6.csv", "index,value\n1,inf\n") }, 1, `e6.csv: line 2, column "value": "inf"`},
		{"failure after success", func(o *BOSuggestOptions) { o.Observed = p("e9.csv", "index,value\n1,2\n1,failed\n") }, 1, "e9.csv: line 3: item 1"},
		{"batch > free with failures", func(o *BOSuggestOptions) { o.Observed, o.Batch = p("e10.csv", "index,value\n1,2\n2,failed\n"), 5 }, 1, "--batch 5: only 4 of the 6 candidates of " + kernel + " are neither evaluated nor failed"},
		{"duplicate", func(o *BOSuggestOptions) { o.Observed = p("e7.csv", "index,value\n1,2\n2,2\n1,3\n") }, 1, "e7.csv: line 4: item 1"},
		{"ragged", func(o *BOSuggestOptions) { o.Observed = p("e8.csv", "index,value\n1,2,3\n") }, 1, "e8.csv: line 2: 3 cells, expected 2"},
		{"ids count", func(o *BOSuggestOptions) { o.Discrete.IDs = p("ids5.txt", "a\nb\nc\nd\ne\n") }, 1, "ids5.txt: 5 ids but the kernel"},
		{"ids duplicate", func(o *BOSuggestOptions) { o.Discrete.IDs = p("idsd.txt", "a\nb\nc\nd\nb\nf\n") }, 1, `idsd.txt: id "b" is given for rows 2 and 5`},
		{"batch > free", func(o *BOSuggestOptions) { o.Batch = 6 }, 1, "--batch 6: only 5 of the 6 candidates"},
	} {
		o := kernelSuggest(kernel, good)
		c.set(o)
		err, out, _ := runCmd(t, RunBOSuggest, o)
		if ExitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.want) || out != "" {
			t.Errorf("%s: exit %d, error %v, stdout %q; want exit %d and a message containing %q", c.name, ExitCode(err), err, out, c.code, c.want)
		}
	}
}

// TestContinuousSuggestBadInput: every bad file or option fails with a
// message naming the file and line, column or key, and nothing on stdout.
func TestContinuousSuggestBadInput(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: n, lower: 1, upper: 9, type: int}\n")
	good := testutil.WriteFile(t, dir, "good.csv", "a,n,value\n0.5,3,1\n")
	mixed := testutil.WriteFile(t, dir, "mixed.yaml", "parameters:\n  - {name: k, type: categorical, choices: [rbf, poly]}\n  - {name: d, lower: 2, upper: 5, type: int, when: {k: poly}}\n")
	for _, c := range []struct {
		name  string
		files map[string]string
		set   func(o *BOSuggestOptions)
		code  int
		want  []string
	}{
		{"candidates 0", nil, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Continuous.Candidates = 0 }, ExitUsage, []string{"candidates = 0: must be at least 1"}},
		{"regions > init", nil, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Init = 2; o.InitGiven = true }, ExitUsage, []string{"init = 2: qvs needs at least regions = 3 initial points"}},
		{"discrete flag", nil, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.DiscreteFlags = []string{"ids"} }, ExitUsage, []string{"--ids applies only with --kernel"}},
		{"floor without qvs", nil, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Method = "turbo"
			o.Continuous.QVSFloor = true
		}, ExitUsage, []string{"--qvs-floor and --qvs-mode apply to --method qvs only, not turbo"}},
		{"bad method", nil, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = good; o.Method = "ucb" }, ExitUsage, []string{`--method "ucb"`}},
		{"bad batch", nil, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = good; o.Batch = 0 }, ExitUsage, []string{"--batch 0"}},
		{"bad length scale", nil, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = good
			o.Continuous.LengthScaleGiven = true
			o.Continuous.LengthScale = -1
		}, ExitUsage, []string{"--length-scale"}},
		{"space unknown key", map[string]string{"s.yaml": "parameters:\n  - {name: a, lower: 0, upper: 1, kind: x}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml"; o.Observed = good }, ExitRuntime, []string{"s.yaml", "kind"}},
		{"space lower >= upper", map[string]string{"s.yaml": "parameters:\n  - {name: a, lower: 2, upper: 1}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml"; o.Observed = good }, ExitRuntime, []string{"s.yaml", `parameter 1 ("a")`, "lower"}},
		{"space log", map[string]string{"s.yaml": "parameters:\n  - {name: a, lower: 0, upper: 1, scale: log}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml"; o.Observed = good }, ExitRuntime, []string{"s.yaml", `"a"`, "scale: log"}},
		{"space duplicate", map[string]string{"s.yaml": "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: a, lower: 0, upper: 1}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml"; o.Observed = good }, ExitRuntime, []string{"s.yaml", "duplicate"}},
		{"missing space file", nil, func(o *BOSuggestOptions) { o.Continuous.Space = "nope.yaml"; o.Observed = good }, ExitRuntime, []string{"nope.yaml"}},
		{"evals missing column", map[string]string{"e.csv": "a,value\n0.5,1\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", `no column "n"`}},
		{"evals outside", map[string]string{"e.csv": "a,n,value\n0.5,3,1\n1.5,3,2\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 3, column \"a\"", "outside"}},
		{"evals non-finite", map[string]string{"e.csv": "a,n,value\n0.5,3,1e999\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 2, column \"value\""}},
		{"evals empty cell", map[string]string{"e.csv": "a,n,value\n,3,1\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 2, column \"a\"", "missing"}},
		{"evals not int", map[string]string{"e.csv": "a,n,value\n0.5,3.5,1\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = space; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 2, column \"n\"", "integer"}},
		{"evals region too big", map[string]string{"e.csv": "iteration,region,a,n,value\n0,-1,0.5,3,1\n0,-1,0.2,2,1\n0,-1,0.9,8,1\n0,-1,0.1,5,1\n0,-1,0.7,1,1\n1,4,0.6,4,1\n"}, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = "e.csv"
			o.InitGiven = true
			o.Init = 5
		}, ExitRuntime, []string{"e.csv", "line 7, column \"region\""}},
		{"evals region too big in the design", map[string]string{"e.csv": "iteration,region,a,n,value\n0,-1,0.5,3,1\n0,3,0.2,2,1\n0,-1,0.9,8,1\n0,-1,0.1,5,1\n0,-1,0.7,1,1\n1,0,0.6,4,1\n"}, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = "e.csv"
			o.InitGiven = true
			o.Init = 5
		}, ExitRuntime, []string{"e.csv", "line 3, column \"region\": 3, but there are only regions 0..2 (--regions 3)"}},
		{"evals region too big, design incomplete", map[string]string{"e.csv": "iteration,region,a,n,value\n0,7,0.5,3,1\n"}, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = "e.csv"
			o.InitGiven = true
			o.Init = 5
		}, ExitRuntime, []string{"e.csv", "line 2, column \"region\": 7"}},
		{"pending outside", map[string]string{"p.csv": "a,n\n0.5,10\n"}, func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = good
			o.Continuous.Pending = "p.csv"
		}, ExitRuntime, []string{"p.csv", "line 2, column \"n\""}},
		{"choice not in list", map[string]string{"e.csv": "k,d,value\npoly,3,1\nlinear,,2\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = mixed; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", `line 3, column "k": "linear" is not one of the choices rbf, poly`}},
		{"conditional given while false", map[string]string{"e.csv": "k,d,value\nrbf,3,1\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = mixed; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 2, column \"d\": must be empty: it applies only when k is poly (here rbf)"}},
		{"conditional missing while true", map[string]string{"e.csv": "k,d,value\npoly,,1\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = mixed; o.Observed = "e.csv" }, ExitRuntime, []string{"e.csv", "line 2, column \"d\": is missing"}},
		{"pending choice not in list", map[string]string{"p.csv": "k,d\nRBF,\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = mixed; o.Continuous.Pending = "p.csv" }, ExitRuntime, []string{"p.csv", `line 2, column "k": "RBF" is not one of the choices`}},
		{"when unknown parameter", map[string]string{"s.yaml": "parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {kernel: a}}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml" }, ExitRuntime, []string{"s.yaml: line 3, column 42: parameter 2 (\"x\"): when: names \"kernel\""}},
		{"when unknown value", map[string]string{"s.yaml": "parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {k: c}}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml" }, ExitRuntime, []string{"s.yaml: line 3", `"c" is not one of its choices [a b]`}},
		{"one choice", map[string]string{"s.yaml": "parameters:\n  - {name: k, type: categorical, choices: [a]}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml" }, ExitRuntime, []string{"s.yaml: line 2", "at least two choices"}},
		{"repeated choice", map[string]string{"s.yaml": "parameters:\n  - {name: k, type: categorical, choices: [a, b, b]}\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml" }, ExitRuntime, []string{"s.yaml: line 2", `choice "b" is repeated`}},
		// --minimize against the file's explicit direction: maximize used
		// to minimise silently.
		{"direction maximize and --minimize", map[string]string{"s.yaml": "parameters:\n  - {name: a, lower: 0, upper: 1}\ndirection: maximize\n"}, func(o *BOSuggestOptions) { o.Continuous.Space = "s.yaml"; o.Continuous.Minimize = true }, ExitUsage, []string{"s.yaml: direction: maximize, but minimize is set (--minimize)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := t.TempDir()
			for name, body := range c.files {
				testutil.WriteFile(t, sub, name, body)
			}
			o := DefaultBOSuggestOptions()
			c.set(&o)
			for _, p := range []*string{&o.Continuous.Space, &o.Observed, &o.Continuous.Pending} {
				if _, ok := c.files[*p]; ok {
					*p = filepath.Join(sub, *p)
				}
			}
			err, stdout, _ := runCmd(t, RunBOSuggest, &o)
			if ExitCode(err) != c.code || err == nil || stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q (want empty); error %v", ExitCode(err), c.code, stdout, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
