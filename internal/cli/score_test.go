package cli

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// runCmd calls run with o and an Env of buffers: the error, stdout and
// stderr.
func runCmd[O any](t *testing.T, run func(*Env, *O) error, o *O) (err error, stdout, stderr string) {
	t.Helper()
	e, out, errb := testEnv(t)
	err = run(e, o)
	return err, out.String(), errb.String()
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

func scoreOf(kernel, quality string, format string, orders ...float64) *ScoreOptions {
	o := DefaultScoreOptions()
	o.Items.Kernel, o.Items.Quality, o.Format.Value = kernel, quality, format
	if orders != nil {
		o.Orders = nil
		for _, q := range orders {
			o.Orders = append(o.Orders, vendi.Order(q))
		}
	}
	return &o
}

func TestScoreCSV(t *testing.T) {
	dir := t.TempDir()
	k := testutil.WriteFile(t, dir, "K.csv", "a,b,c\n"+testutil.Kernel3) // optional header row
	s := testutil.WriteFile(t, dir, "s.csv", "0.5\n1\n0.25\n")
	err, out, _ := runCmd(t, RunScore, scoreOf(k, s, FormatCSV, 1, math.Inf(1), 0))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "q,vs,qvs" || len(lines) != 4 {
		t.Fatalf("output:\n%s", out)
	}
	f := strings.Split(lines[1], ",")
	vs, _ := strconv.ParseFloat(f[1], 64)
	qvs, _ := strconv.ParseFloat(f[2], 64)
	if f[0] != "1" || !closeTo(vs, 2.1573004833739833) || !closeTo(qvs, 2.1573004833739833*1.75/3) {
		t.Errorf("q=1 row %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "inf,") || !strings.HasPrefix(lines[3], "0,3,") {
		t.Errorf("rows in asked order with inf written 'inf': %q %q", lines[2], lines[3])
	}
	// Without quality: no qvs column. JSON and table formats work.
	if err, out, _ := runCmd(t, RunScore, scoreOf(k, "", FormatCSV, 2)); err != nil || !strings.HasPrefix(out, "q,vs\n2,") {
		t.Errorf("no-quality csv: %v %q", err, out)
	}
	if err, out, _ := runCmd(t, RunScore, scoreOf(k, "", FormatJSON)); err != nil || !strings.Contains(out, `"q": "inf"`) {
		t.Errorf("json: %v %q", err, out)
	}
	// The table: right-aligned, 6 decimals.
	if err, out, _ := runCmd(t, RunScore, scoreOf(k, s, FormatTable, 1)); err != nil || out != "  q        VS       qVS\n  1  2.157300  1.258425\n" {
		t.Errorf("table: %v %q", err, out)
	}
}

func TestScoreEmbeddingsCSV(t *testing.T) {
	// Two identical directions and one orthogonal: cosine kernel
	// [[1,1,0],[1,1,0],[0,0,1]], VS_inf = 3/2, VS_0 = its rank 2.
	o := scoreOf("", "", FormatCSV, math.Inf(1), 0)
	o.Items.Embeddings = testutil.WriteFile(t, t.TempDir(), "X.csv", "1,0\n2,0\n0,3\n")
	if err, out, _ := runCmd(t, RunScore, o); err != nil || out != "q,vs\ninf,1.5\n0,2\n" {
		t.Errorf("err %v, out %q", err, out)
	}
}

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	// Samples [0,0,2,2,4,4], k = exp(-|a-b|), quality exp(-|a-2|): greedy
	// picks values [2, 0, 2] (rows 2, 0, 3) with final qVS_1
	// 1.3338057427881422 (hand-checked).
	xs := []float64{0, 0, 2, 2, 4, 4}
	var kb, qb strings.Builder
	for _, a := range xs {
		for j, b := range xs {
			if j > 0 {
				kb.WriteString(",")
			}
			kb.WriteString(strconv.FormatFloat(math.Exp(-math.Abs(a-b)), 'g', -1, 64))
		}
		kb.WriteString("\n")
		qb.WriteString(strconv.FormatFloat(math.Exp(-math.Abs(a-2)), 'g', -1, 64) + "\n")
	}
	o := DefaultSelectOptions()
	o.Items.Kernel, o.Items.Quality = testutil.WriteFile(t, dir, "K.csv", kb.String()), testutil.WriteFile(t, dir, "s.csv", qb.String())
	o.Items.IDs = testutil.WriteFile(t, dir, "ids.txt", "id\na\nb\nc\nd\ne\nf\n")
	o.K, o.Format.Value = 3, FormatCSV
	err, out, _ := runCmd(t, RunSelect, &o)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "rank,index,id,qvs" || len(lines) != 4 {
		t.Fatalf("output %q", out)
	}
	if !strings.HasPrefix(lines[1], "1,2,c,") || !strings.HasPrefix(lines[2], "2,0,a,") || !strings.HasPrefix(lines[3], "3,3,d,") {
		t.Errorf("picks %q", out)
	}
	last, _ := strconv.ParseFloat(strings.Split(lines[3], ",")[3], 64)
	if !closeTo(last, 1.3338057427881422) {
		t.Errorf("final qVS %v, want 1.3338057427881422", last)
	}
	// The table rounds the same rows to 6 decimals under qVS_1.
	o.Format.Value = FormatTable
	if err, out, _ := runCmd(t, RunSelect, &o); err != nil || !strings.HasPrefix(out, "rank  index  id  qVS_1\n1     2      c   ") || !strings.HasSuffix(out, "3     3      d   1.333806\n") {
		t.Errorf("table: %v\n%s", err, out)
	}
}

// TestScoreSelectBadInputs: bad file contents are runtime errors (exit 1)
// naming file, row and column; a bad combination of options a usage error
// (exit 2); stdout stays empty.
func TestScoreSelectBadInputs(t *testing.T) {
	dir := t.TempDir()
	good := testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
	score := func(kernel, quality string) func() (error, string, string) {
		return func() (error, string, string) { return runCmd(t, RunScore, scoreOf(kernel, quality, FormatTable)) }
	}
	sel := func(kernel, ids, prefix string, k int) func() (error, string, string) {
		return func() (error, string, string) {
			o := DefaultSelectOptions()
			o.Items.Kernel, o.Items.IDs, o.Prefix, o.K = kernel, ids, prefix, k
			return runCmd(t, RunSelect, &o)
		}
	}
	both := scoreOf(good, "", FormatTable)
	both.Items.Embeddings = good
	for _, c := range []struct {
		name   string
		run    func() (error, string, string)
		code   int
		errHas string
	}{
		{"non-square", score(testutil.WriteFile(t, dir, "ns.csv", "1,0\n0,1\n0,0\n"), ""), 1, "must be square"},
		{"non-symmetric", score(testutil.WriteFile(t, dir, "asym.csv", "1,0.5\n0.2,1\n"), ""), 1, "row 1, column 2"},
		{"NaN", score(testutil.WriteFile(t, dir, "nan.csv", "1,nan\nnan,1\n"), ""), 1, "not a finite number"},
		{"Inf", score(testutil.WriteFile(t, dir, "inf.csv", "1,0\n0,inf\n"), ""), 1, "row 2, column 2"},
		{"ragged", score(testutil.WriteFile(t, dir, "rag.csv", "1,0\n0\n"), ""), 1, "line 2"},
		{"empty", score(testutil.WriteFile(t, dir, "empty.csv", ""), ""), 1, "no numeric rows"},
		{"text cell", score(testutil.WriteFile(t, dir, "txt.csv", "1,0\n0,x\n"), ""), 1, `line 2, column 2: "x"`},
		{"negative quality", score(good, testutil.WriteFile(t, dir, "neg.csv", "1\n-1\n1\n")), 1, "row 2: quality -1 is negative"},
		{"quality length", score(good, testutil.WriteFile(t, dir, "short.csv", "1\n1\n")), 1, "2 qualities for 3 items"},
		{"one quality", score(good, testutil.WriteFile(t, dir, "q1.csv", "1\n")), 1, "1 quality for 3 items"},
		{"missing file", score(filepath.Join(dir, "nope.csv"), ""), 1, "nope.csv"},
		{"both inputs", func() (error, string, string) { return runCmd(t, RunScore, both) }, 2, "exactly one"},
		{"ids length", sel(good, testutil.WriteFile(t, dir, "ids.csv", "a\nb\n"), "", 1), 1, "2 ids for 3 items"},
		{"one id", sel(good, testutil.WriteFile(t, dir, "id1.csv", "a\n"), "", 1), 1, "1 id for 3 items"},
		{"k too large", sel(good, "", "", 4), 2, "only 3 items can be picked (3 items, 0 in the prefix)"},
		// One item and one pickable item read in the singular.
		{"k on one item", sel(testutil.WriteFile(t, dir, "one.csv", "1\n"), "", "", 2), 2, "--k 2: only 1 item can be picked (1 item, 0 in the prefix)"},
		{"k after a prefix", sel(good, "", "0,1", 2), 2, "only 1 item can be picked (3 items, 2 in the prefix)"},
		{"k missing", sel(good, "", "", 0), 2, "--k must be at least 1"},
		{"prefix twice", sel(good, "", "1,1", 1), 2, "--prefix: row 1 is listed twice"},
	} {
		err, out, _ := c.run()
		if ExitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.errHas) || out != "" {
			t.Errorf("%s: exit %d (want %d), error %v (want %q), stdout %q (want empty)", c.name, ExitCode(err), c.code, err, c.errHas, out)
		}
	}
}

func vendiOrder(q float64) vendi.Order { return vendi.Order(q) }
