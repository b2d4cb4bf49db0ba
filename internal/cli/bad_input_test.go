package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// badInputCase is one hostile input (testutil.CheckBadInput with
// callRun): In runs the command on it (exitOf) and returns the exit code,
// stdout and the error's message followed by stderr.
type badInputCase = testutil.BadInput[func() (int, string, string)]

// callRun runs a badInputCase's command.
func callRun(run func() (int, string, string)) (code int, stdout, msg string) { return run() }

// TestSelectBadInput: ids name the picks, so a repeated id is an error
// (it used to print two picks with the same id); so is a row listed twice
// in --prefix (it used to count twice against --k).
func TestSelectBadInput(t *testing.T) {
	dir := t.TempDir()
	emb := testutil.WriteFile(t, dir, "emb.csv", "id,x1\na,1\nb,2\na,3\n")
	k3 := testutil.WriteFile(t, dir, "k3.csv", testutil.Kernel3)
	testutil.CheckBadInput(t, callRun, []badInputCase{
		{Name: "--id-column repeats an id", In: func() (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Embeddings = emb
				o.Items.IDColumn = "id"
				o.K = 2
			}))
		},
			Code: 1, Want: `emb.csv column "id": id "a" is given for rows 1 and 3; ids must be unique`},
		{Name: "--ids repeats an id", In: func() (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.Items.IDs = testutil.WriteFile(t, dir, "ids.csv", "id\nu\nv\nu\n")
				o.K = 2
			}))
		},
			Code: 1, Want: `ids.csv: id "u" is given for rows 1 and 3`},
		{Name: "--ids has an empty id", In: func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Kernel = k3
				o.Items.IDs = testutil.WriteFile(t, dir, "ids2.csv", "u\n\"\"\nw\n")
				o.Orders = vendi.Orders{1}
			}))
		},
			Code: 1, Want: `ids2.csv: id 2 is empty`},
		{Name: "--prefix repeats a row", In: func() (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.Prefix = "1,1"
				o.K = 1
			}))
		},
			Code: 2, Want: "--prefix: row 1 is listed twice"},
	})
	// The median heuristic on identical rows falls back to 1 and says why.
	same := testutil.WriteFile(t, dir, "same.csv", "x1,x2\n1,2\n1,2\n1,2\n")
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = same
		o.Items.Emb.Kernel = "rbf"
		o.Orders = vendi.Orders{1}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if code != 0 || out != "q,vs\n1,1\n" || !strings.Contains(stderr, "RBF length scale = 1: every row is the same") {
		t.Errorf("identical rows: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestHugeValuesScoreTheirScale: diag(1e308)
// said "no positive eigenvalue (a zero matrix?)" and a 1e308 embedding row
// "every row is all zeros" (products overflowed float64; under cosine the
// row was silently scaled to zero). VS is invariant to the kernel's scale,
// so they now score as their rescaled selves: diag(c, c) is VS = 2 at
// every order; rows (1e308, 1) and (2, 3) under cosine have similarity
// c = 2/sqrt(13) (the first row is (1, 1e-308) after normalising), so the
// eigenvalues are 1 ± c and VS_1 = exp(-Σ p log p) with p = (1 ± c)/2;
// the same rows under the linear kernel are dominated by the first: VS_1
// = 1 to float64 precision (the other eigenvalue is ~1e-616 of it).
func TestHugeValuesScoreTheirScale(t *testing.T) {
	dir := t.TempDir()
	c := 2 / math.Sqrt(13)
	p, q := (1+c)/2, (1-c)/2
	cosineVS1 := math.Exp(-(p*math.Log(p) + q*math.Log(q)))
	for _, tc := range []struct {
		name string
		set  func(*ScoreOptions)
		want map[string]float64 // q -> VS
	}{
		{"diag(1e308) kernel", func(o *ScoreOptions) {
			o.Items.Kernel = testutil.WriteFile(t, dir, "K.csv", "1e308,0\n0,1e308\n")
		}, map[string]float64{"0": 2, "1": 2, "inf": 2}},
		{"diag(1e-310) kernel", func(o *ScoreOptions) { o.Items.Kernel = testutil.WriteFile(t, dir, "Ks.csv", "1e-310,0\n0,1e-310\n") }, nil},
		{"1e308 row, cosine", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "E.csv", "1e308,1\n2,3\n")
		}, map[string]float64{"1": cosineVS1}},
		{"1e308 rows, linear", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "L.csv", "1e308,0\n0,1e308\n")
			o.Items.Emb.Kernel = "linear"
			o.Items.EmbFlags = []string{"embedding-kernel"}
		}, map[string]float64{"1": 2, "inf": 2}},
	} {
		code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Format.Value, o.Orders = FormatCSV, vendi.Orders{0, 1, vendi.OrderInf}
			tc.set(o)
		}))
		if tc.want == nil { // subnormal entries: refused or scored, never a crash
			if code != 0 && code != 1 {
				t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
			continue
		}
		got := testutil.ScoreCSV(t, out)
		for q, w := range tc.want {
			if math.Abs(got[q][0]-w) > 1e-12*w {
				t.Errorf("%s: VS_%s = %v, want %v", tc.name, q, got[q][0], w)
			}
		}
	}
}

// TestFileShapeMessages: a CSV whose lines
// end with CR alone said "no numeric rows (empty file?)"; a directory
// given as a .npy said "no \x93NUMPY magic". Each now names the cause.
func TestFileShapeMessages(t *testing.T) {
	dir := t.TempDir()
	npyDir := filepath.Join(dir, "features.npy")
	if err := os.Mkdir(npyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.CheckBadInput(t, callRun, []badInputCase{
		{Name: "CR-only lines", In: func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = testutil.WriteFile(t, dir, "cr.csv", "1,0\r0,1\r") }))
		}, Code: 1,
			Want: "cr.csv: lines end with a carriage return alone (CR, old Mac format; offset 3): save the file with LF or CRLF line endings"},
		{Name: "directory as .npy", In: func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Embeddings = npyDir }))
		}, Code: 1, Want: npyDir + ": a directory, not a regular file"},
	})
}
