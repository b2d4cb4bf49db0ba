package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/items"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// withEmbeddings is o scoring the embeddings in path under kernel ("" the
// default, cosine), as --embeddings path [--embedding-kernel kernel].
func withEmbeddings(o *ItemsOptions, path, kernel string) {
	o.Embeddings = path
	if kernel != "" {
		o.Emb.Kernel = kernel
		o.EmbFlags = append(o.EmbFlags, "embedding-kernel")
	}
}

// embScore is `qvs score --embeddings path [--embedding-kernel kernel]
// --format format [--q orders]`.
func embScore(path, kernel, format string, orders ...float64) *ScoreOptions {
	o := scoreOf("", "", format, orders...)
	withEmbeddings(&o.Items, path, kernel)
	return o
}

func TestScoreEmbeddingsNPY(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "X.npy")
	f, _ := os.Create(p)
	// Two identical directions and one orthogonal: cosine kernel
	// [[1,1,0],[1,1,0],[0,0,1]], VS_inf = 3/2.
	if err := npyio.Write(f, []float64{1, 0, 2, 0, 0, 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// npyio.Write of a flat slice gives a 1-D array: reshape via a 2-D matrix file instead.
	csvp := testutil.WriteFile(t, dir, "X.csv", "1,0\n2,0\n0,3\n")
	code, out, errs := exitOf(t, RunScore, embScore(csvp, "", FormatCSV, math.Inf(1), 0))
	if code != 0 || out != "q,vs\ninf,1.5\n0,2\n" {
		t.Errorf("exit %d, out %q, err %s", code, out, errs)
	}
	// A 1-D .npy is one column: 6 items with 1-D embeddings; cosine of
	// non-zero scalars is +-1, zero rows are an error.
	if code, _, errs := exitOf(t, RunScore, embScore(p, "", FormatTable)); code != 1 || !strings.Contains(errs, "row 2 is all zeros") {
		t.Errorf("zero row in npy: exit %d, %s", code, errs)
	}
}

// TestScoreMissingFile: a kernel file that does not exist is a runtime
// error (exit 1) naming it, with nothing on stdout.
func TestScoreMissingFile(t *testing.T) {
	o := scoreOf(filepath.Join(t.TempDir(), "nope.csv"), "", FormatTable)
	if code, out, errs := exitOf(t, RunScore, o); code != 1 || out != "" || !strings.Contains(errs, "nope.csv") {
		t.Errorf("exit %d, stdout %q, message %q", code, out, errs)
	}
}

// sameScores checks that qvs score gives the same VS_q (q = 0, 0.5, 1, 2,
// inf; cosine and linear) for two files of embeddings, within relative tol.
func sameScores(t *testing.T, fileA, fileB string, tol float64) {
	t.Helper()
	for _, kernel := range []string{"", items.Linear} {
		orders := []float64{0, 0.5, 1, 2, math.Inf(1)}
		_, outA, errA := exitOf(t, RunScore, embScore(fileA, kernel, FormatCSV, orders...))
		_, outB, errB := exitOf(t, RunScore, embScore(fileB, kernel, FormatCSV, orders...))
		la, lb := strings.Split(strings.TrimSpace(outA), "\n"), strings.Split(strings.TrimSpace(outB), "\n")
		if len(la) != 6 || len(lb) != 6 {
			t.Fatalf("%q: %s %q (%s), %s %q (%s)", kernel, fileA, outA, errA, fileB, outB, errB)
		}
		for k := 1; k < 6; k++ {
			a, _ := strconv.ParseFloat(strings.Split(la[k], ",")[1], 64)
			b, _ := strconv.ParseFloat(strings.Split(lb[k], ",")[1], 64)
			if math.Abs(a-b) > tol*b {
				t.Errorf("%q: %s row %q, %s row %q", kernel, fileA, la[k], fileB, lb[k])
			}
		}
	}
}

// TestScoreRawNPY: a float32 .npy of embeddings is scored from the float32
// data (blocked float32 Gram) and agrees with the same values given as CSV
// (float64 path) to 1e-6; a float64 .npy is read raw too and agrees with
// a CSV of its exact values to 1e-12; bad values name row and column.
func TestScoreRawNPY(t *testing.T) {
	dir := t.TempDir()
	const n, d = 40, 3
	x := make([]float32, n*d)
	var csv strings.Builder
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*1.7) + 0.1*float64(i%7))
		csv.WriteString(strconv.FormatFloat(float64(x[i]), 'g', -1, 32))
		if i%d == d-1 {
			csv.WriteString("\n")
		} else {
			csv.WriteString(",")
		}
	}
	npy := filepath.Join(dir, "X.npy")
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, n, d, x); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(npy, b.Bytes(), 0o644)
	csvp := testutil.WriteFile(t, dir, "X.csv", csv.String())
	// qvs score keeps the float32 data (no float64 table), qvs select does
	// not: TestLoadRawNPY in internal/items.
	sameScores(t, npy, csvp, 1e-6)
	// The same values as a float64 .npy (NumPy's default dtype): read raw
	// into float64, scored in float64 throughout, so equal to the scores of
	// a CSV of the same float64 values (printed exactly) to rounding.
	x64 := make([]float64, n*d)
	var csv64 strings.Builder
	for i, v := range x {
		x64[i] = float64(v)
		csv64.WriteString(strconv.FormatFloat(x64[i], 'g', -1, 64))
		if i%d == d-1 {
			csv64.WriteString("\n")
		} else {
			csv64.WriteString(",")
		}
	}
	csv64p := testutil.WriteFile(t, dir, "X64.csv", csv64.String())
	npy64 := filepath.Join(dir, "X64.npy")
	f64, err := os.Create(npy64)
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f64, mat.NewDense(n, d, x64)); err != nil {
		t.Fatal(err)
	}
	f64.Close()
	sameScores(t, npy64, csv64p, 1e-12)
	x[1*d+2] = float32(math.Inf(1))
	b.Reset()
	fileio.WriteNPYFloat32(&b, n, d, x)
	os.WriteFile(npy, b.Bytes(), 0o644)
	if code, _, errs := exitOf(t, RunScore, embScore(npy, "", FormatTable)); code != 1 || !strings.Contains(errs, "X.npy: row 2, column 3") {
		t.Errorf("Inf: exit %d, %s", code, errs)
	}
	for i := 0; i < d; i++ {
		x[4*d+i] = 0
	}
	x[1*d+2] = 1
	b.Reset()
	fileio.WriteNPYFloat32(&b, n, d, x)
	os.WriteFile(npy, b.Bytes(), 0o644)
	if code, _, errs := exitOf(t, RunScore, embScore(npy, "", FormatTable)); code != 1 || !strings.Contains(errs, "X.npy: row 5 is all zeros") {
		t.Errorf("zero row: exit %d, %s", code, errs)
	}
}

// TestScoreSelectUndefinedKernel: a kernel with no positive eigenvalue
// (zero, or negative definite so it clips to zero) has no defined VS; score
// and select refuse it with the same message naming the file (select used
// to print picks with qVS 0); so is a kernel --normalize cannot rescale.
// A zero-diagonal kernel with eigenvalues ±1 is fine in both: VS_1 of
// [[0,1],[1,0]] clipped is 1.
func TestScoreSelectUndefinedKernel(t *testing.T) {
	dir := t.TempDir()
	kernel := func(p string, normalize bool) func(*ItemsOptions) {
		return func(o *ItemsOptions) { o.Kernel, o.Normalize = p, normalize }
	}
	linear := func(p, qualityColumn string) func(*ItemsOptions) {
		return func(o *ItemsOptions) {
			withEmbeddings(o, p, items.Linear)
			if qualityColumn != "" {
				o.Emb.QualityColumn = qualityColumn
				o.EmbFlags = append(o.EmbFlags, "quality-column")
			}
		}
	}
	cases := []struct {
		name   string
		items  func(*ItemsOptions)
		errHas string
	}{
		{"zero kernel", kernel(testutil.WriteFile(t, dir, "zero.csv", "0,0,0\n0,0,0\n0,0,0\n"), false),
			"zero.csv: the kernel has no positive eigenvalue (a zero matrix?): VS is undefined"},
		{"-I", kernel(testutil.WriteFile(t, dir, "negI.csv", "-1,0\n0,-1\n"), false),
			"negI.csv: the kernel has no positive eigenvalue"},
		{"linear, zero rows", linear(testutil.WriteFile(t, dir, "zrows.csv", "0,0\n0,0\n0,0\n"), ""),
			"zrows.csv: every row is all zeros: the linear kernel is the zero matrix and VS is undefined"},
		{"linear, zero rows, quality", linear(testutil.WriteFile(t, dir, "zq.csv", "e1,e2,quality\n0,0,1\n0,0,2\n"), "quality"),
			"zq.csv: every row is all zeros"},
		// --normalize names the file's 1-based row of a non-positive
		// diagonal entry (it said "diagonal entry 1", 0-based, for row 2).
		{"normalize, zero diagonal", kernel(testutil.WriteFile(t, dir, "zdiag.csv", "a,b\n2,1\n1,0\n"), true),
			"zdiag.csv: --normalize: row 2, column 2 (the diagonal) is 0; K_ij / sqrt(K_ii K_jj) needs every diagonal entry > 0"},
		{"normalize, negative diagonal", kernel(testutil.WriteFile(t, dir, "ndiag.csv", "-1,0\n0,1\n"), true),
			"ndiag.csv: --normalize: row 1, column 1 (the diagonal) is -1"},
	}
	for _, c := range cases {
		so := DefaultScoreOptions()
		c.items(&so.Items)
		code, out, scoreErr := exitOf(t, RunScore, &so)
		if code != 1 || out != "" || !strings.Contains(scoreErr, c.errHas) {
			t.Errorf("%s: score exit %d, stdout %q, stderr %q; want 1, empty, %q", c.name, code, out, scoreErr, c.errHas)
		}
		sel := DefaultSelectOptions()
		sel.K = 2
		c.items(&sel.Items)
		code, out, selectErr := exitOf(t, RunSelect, &sel)
		if code != 1 || out != "" || selectErr != scoreErr {
			t.Errorf("%s: select exit %d, stdout %q, stderr %q; want 1, empty, score's %q", c.name, code, out, selectErr, scoreErr)
		}
	}
	swap := testutil.WriteFile(t, dir, "swap.csv", "0,1\n1,0\n")
	if code, out, errs := exitOf(t, RunScore, scoreOf(swap, "", FormatCSV, 1)); code != 0 || out != "q,vs\n1,1\n" {
		t.Errorf("score [[0,1],[1,0]]: exit %d, %q, %s", code, out, errs)
	}
	// Either single item scores 0 (tie: row 0); the pair's clipped spectrum is {1}.
	sel := DefaultSelectOptions()
	sel.Items.Kernel, sel.K, sel.Format.Value = swap, 2, FormatCSV
	if code, out, errs := exitOf(t, RunSelect, &sel); code != 0 || out != "rank,index,qvs\n1,0,0\n2,1,1\n" {
		t.Errorf("select [[0,1],[1,0]]: exit %d, %q, %s", code, out, errs)
	}
}

// TestScoreZeroKernelRefusedBeforeEigendecomposition: a large zero kernel
// (and -I) is refused by O(n²) checks before the dense eigendecomposition,
// whose notice must not appear (a 20,000 x 20,000 zero kernel
// was still being decomposed after 120 s); all-zero float32 embeddings
// under the linear kernel likewise. 2000 is the pure-Go notice threshold.
func TestScoreZeroKernelRefusedBeforeEigendecomposition(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.npy")
	testutil.WriteNPY(t, zero, "<f8", []int{n, n}, make([]float64, n*n))
	negI := make([]float64, n*n)
	for i := 0; i < n; i++ {
		negI[i*n+i] = -1
	}
	neg := filepath.Join(dir, "negI.npy")
	testutil.WriteNPY(t, neg, "<f8", []int{n, n}, negI)
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, n, n, make([]float32, n*n)); err != nil {
		t.Fatal(err)
	}
	emb := testutil.WriteFile(t, dir, "zemb.npy", b.String())
	for _, o := range []*ScoreOptions{scoreOf(zero, "", FormatTable), scoreOf(neg, "", FormatTable), embScore(emb, items.Linear, FormatTable)} {
		code, out, errs := exitOf(t, RunScore, o)
		if code != 1 || out != "" || strings.Contains(errs, "eigendecomposing") || !strings.Contains(errs, "VS is undefined") {
			t.Errorf("%+v: exit %d, stdout %q, stderr %q; want 1, nothing, VS undefined without an eigendecomposition", o.Items, code, out, errs)
		}
	}
}
