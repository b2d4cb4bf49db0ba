package cmd

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
)

func runQVS(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The hand-checked kernel: VS_1 = 2.1573004833739833.
const kernel3 = "1,0.9,0\n0.9,1,0\n0,0,1\n"

// TestScoreEndToEnd: the binary's path for score (the run itself is
// tested in internal/cli): the README's command prints the table.
func TestScoreEndToEnd(t *testing.T) {
	dir := t.TempDir()
	k := writeFile(t, dir, "K.csv", "a,b,c\n"+kernel3)
	if code, out, _ := runQVS(t, "score", "--kernel", k); code != 0 || !strings.Contains(out, "2.157300") {
		t.Errorf("table: %d %q", code, out)
	}
}

func closeTo(a, b float64) bool {
	d := a - b
	return d < 1e-12*b && d > -1e-12*b
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
	csvp := writeFile(t, dir, "X.csv", "1,0\n2,0\n0,3\n")
	code, out, errs := runQVS(t, "score", "--embeddings", csvp, "--q", "inf,0", "--format", "csv")
	if code != 0 || out != "q,vs\ninf,1.5\n0,2\n" {
		t.Errorf("exit %d, out %q, err %s", code, out, errs)
	}
	// A 1-D .npy is one column: 6 items with 1-D embeddings; cosine of
	// non-zero scalars is +-1, zero rows are an error.
	if code, _, errs := runQVS(t, "score", "--embeddings", p); code != 1 || !strings.Contains(errs, "row 2 is all zeros") {
		t.Errorf("zero row in npy: exit %d, %s", code, errs)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "K.csv", kernel3)
	cases := []struct {
		name   string
		args   []string
		code   int
		errHas string
	}{
		{"q < 0", []string{"score", "--kernel", good, "--q", "-1"}, 2, "--q"},
		{"k missing", []string{"select", "--kernel", good}, 2, "--k"},
		{"missing file", []string{"score", "--kernel", filepath.Join(dir, "nope.csv")}, 1, "nope.csv"},
		{"unknown flag", []string{"score", "--bogus"}, 2, "unknown flag"},
		{"bad format", []string{"score", "--kernel", good, "--format", "xml"}, 2, "--format"},
	}
	for _, c := range cases {
		code, out, errs := runQVS(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.errHas) || out != "" {
			t.Errorf("%s: exit %d (want %d), stderr %q (want %q), stdout %q (want empty)", c.name, code, c.code, errs, c.errHas, out)
		}
	}
}

// sameScores checks that qvs score gives the same VS_q (q = 0, 0.5, 1, 2,
// inf; cosine and linear) for two files of embeddings, within relative tol.
func sameScores(t *testing.T, fileA, fileB string, tol float64) {
	t.Helper()
	for _, extra := range [][]string{nil, {"--embedding-kernel", "linear"}} {
		args := append([]string{"score", "--q", "0,0.5,1,2,inf", "--format", "csv"}, extra...)
		_, outA, errA := runQVS(t, append(args, "--embeddings", fileA)...)
		_, outB, errB := runQVS(t, append(args, "--embeddings", fileB)...)
		la, lb := strings.Split(strings.TrimSpace(outA), "\n"), strings.Split(strings.TrimSpace(outB), "\n")
		if len(la) != 6 || len(lb) != 6 {
			t.Fatalf("%v: %s %q (%s), %s %q (%s)", extra, fileA, outA, errA, fileB, outB, errB)
		}
		for k := 1; k < 6; k++ {
			a, _ := strconv.ParseFloat(strings.Split(la[k], ",")[1], 64)
			b, _ := strconv.ParseFloat(strings.Split(lb[k], ",")[1], 64)
			if math.Abs(a-b) > tol*b {
				t.Errorf("%v: %s row %q, %s row %q", extra, fileA, la[k], fileB, lb[k])
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
	csvp := writeFile(t, dir, "X.csv", csv.String())
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
	csv64p := writeFile(t, dir, "X64.csv", csv64.String())
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
	if code, _, errs := runQVS(t, "score", "--embeddings", npy); code != 1 || !strings.Contains(errs, "X.npy: row 2, column 3") {
		t.Errorf("Inf: exit %d, %s", code, errs)
	}
	for i := 0; i < d; i++ {
		x[4*d+i] = 0
	}
	x[1*d+2] = 1
	b.Reset()
	fileio.WriteNPYFloat32(&b, n, d, x)
	os.WriteFile(npy, b.Bytes(), 0o644)
	if code, _, errs := runQVS(t, "score", "--embeddings", npy); code != 1 || !strings.Contains(errs, "X.npy: row 5 is all zeros") {
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
	cases := []struct {
		name   string
		args   []string
		errHas string
	}{
		{"zero kernel", []string{"--kernel", writeFile(t, dir, "zero.csv", "0,0,0\n0,0,0\n0,0,0\n")},
			"zero.csv: the kernel has no positive eigenvalue (a zero matrix?): VS is undefined"},
		{"-I", []string{"--kernel", writeFile(t, dir, "negI.csv", "-1,0\n0,-1\n")},
			"negI.csv: the kernel has no positive eigenvalue"},
		{"linear, zero rows", []string{"--embeddings", writeFile(t, dir, "zrows.csv", "0,0\n0,0\n0,0\n"), "--embedding-kernel", "linear"},
			"zrows.csv: every row is all zeros: the linear kernel is the zero matrix and VS is undefined"},
		{"linear, zero rows, quality", []string{"--embeddings", writeFile(t, dir, "zq.csv", "e1,e2,quality\n0,0,1\n0,0,2\n"), "--embedding-kernel", "linear", "--quality-column", "quality"},
			"zq.csv: every row is all zeros"},
		// --normalize names the file's 1-based row of a non-positive
		// diagonal entry (it said "diagonal entry 1", 0-based, for row 2).
		{"normalize, zero diagonal", []string{"--kernel", writeFile(t, dir, "zdiag.csv", "a,b\n2,1\n1,0\n"), "--normalize"},
			"zdiag.csv: --normalize: row 2, column 2 (the diagonal) is 0; K_ij / sqrt(K_ii K_jj) needs every diagonal entry > 0"},
		{"normalize, negative diagonal", []string{"--kernel", writeFile(t, dir, "ndiag.csv", "-1,0\n0,1\n"), "--normalize"},
			"ndiag.csv: --normalize: row 1, column 1 (the diagonal) is -1"},
	}
	for _, c := range cases {
		code, out, scoreErr := runQVS(t, append([]string{"score"}, c.args...)...)
		if code != 1 || out != "" || !strings.Contains(scoreErr, c.errHas) {
			t.Errorf("%s: score exit %d, stdout %q, stderr %q; want 1, empty, %q", c.name, code, out, scoreErr, c.errHas)
		}
		code, out, selectErr := runQVS(t, append([]string{"select", "--k", "2"}, c.args...)...)
		if code != 1 || out != "" || selectErr != scoreErr {
			t.Errorf("%s: select exit %d, stdout %q, stderr %q; want 1, empty, score's %q", c.name, code, out, selectErr, scoreErr)
		}
	}
	swap := writeFile(t, dir, "swap.csv", "0,1\n1,0\n")
	if code, out, errs := runQVS(t, "score", "--kernel", swap, "--q", "1", "--format", "csv"); code != 0 || out != "q,vs\n1,1\n" {
		t.Errorf("score [[0,1],[1,0]]: exit %d, %q, %s", code, out, errs)
	}
	// Either single item scores 0 (tie: row 0); the pair's clipped spectrum is {1}.
	if code, out, errs := runQVS(t, "select", "--kernel", swap, "--k", "2", "--format", "csv"); code != 0 || out != "rank,index,qvs\n1,0,0\n2,1,1\n" {
		t.Errorf("select [[0,1],[1,0]]: exit %d, %q, %s", code, out, errs)
	}
}

// TestNItems: counts in messages agree with their number.
func TestNItems(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{{0, "item", "0 items"}, {1, "item", "1 item"}, {2, "item", "2 items"}, {1, "query", "1 query"},
		{3, "query", "3 queries"}, {2, "quality", "2 qualities"}, {2, "key", "2 keys"}, {4, "id", "4 ids"}} {
		if got := nItems(c.n, c.noun); got != c.want {
			t.Errorf("nItems(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
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
	writeNPY(t, zero, "<f8", []int{n, n}, make([]float64, n*n))
	negI := make([]float64, n*n)
	for i := 0; i < n; i++ {
		negI[i*n+i] = -1
	}
	neg := filepath.Join(dir, "negI.npy")
	writeNPY(t, neg, "<f8", []int{n, n}, negI)
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, n, n, make([]float32, n*n)); err != nil {
		t.Fatal(err)
	}
	emb := writeFile(t, dir, "zemb.npy", b.String())
	for _, args := range [][]string{{"--kernel", zero}, {"--kernel", neg}, {"--embeddings", emb, "--embedding-kernel", "linear"}} {
		code, out, errs := runQVS(t, append([]string{"score"}, args...)...)
		if code != 1 || out != "" || strings.Contains(errs, "eigendecomposing") || !strings.Contains(errs, "VS is undefined") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, VS undefined without an eigendecomposition", args, code, out, errs)
		}
	}
}
