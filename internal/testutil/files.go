// Files and parsers the tests of cmd and internal/cli share: writing
// pools, kernels and .npy files, reading CSV output, comparing campaign
// folders.

package testutil

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// WriteGzip writes body gzip-compressed to dir/name and returns the path.
func WriteGzip(t *testing.T, dir, name, body string) string {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(body))
	z.Close()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// B2I is 1 for true, 0 for false.
func B2I(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BlankSeconds is the CSV b with every "seconds" column emptied (wall
// times, the only values two equal runs may differ in).
func BlankSeconds(t *testing.T, b []byte) []byte {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("corrupt CSV: %v\n%s", err, b)
	}
	if len(recs) == 0 {
		return b
	}
	if c := slices.Index(recs[0], "seconds"); c >= 0 {
		for _, r := range recs[1:] {
			r[c] = ""
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(recs)
	return buf.Bytes()
}

// ChemPool writes n random fingerprints of nbits bits (density 1/3) as
// id,fp rows and returns them.
func ChemPool(rng *rand.Rand, n, nbits int) []string {
	fps := make([]string, n)
	for i := range fps {
		var b strings.Builder
		for range nbits {
			if rng.IntN(3) == 0 {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		fps[i] = b.String()
	}
	return fps
}

// CutRecords keeps the first keep lines of the record file p, after edit
// (if not nil) has changed them.
func CutRecords(t *testing.T, p string, keep int, edit func([][]string)) {
	t.Helper()
	recs := ReadCSVFile(t, p)[:keep]
	if edit != nil {
		edit(recs)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(recs)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// GraphPool: 50 points on a noisy spiral in 3-d, float32.
func GraphPool() (n, d int, x []float32) {
	n, d = 50, 3
	for i := range n {
		a := float64(i) * 0.7
		x = append(x, float32(math.Cos(a)*float64(i)), float32(math.Sin(a)*float64(i)), float32(i%7))
	}
	return n, d, x
}

// LinePoolCSV is a pool of 40 items on a line (x1 = i, x2 = 0) with ids
// m00..m39, a text column the features must skip, and, with labels, a label
// column (every 5th item positive).
func LinePoolCSV(labels bool) string {
	var b strings.Builder
	b.WriteString("id,note,x1,x2")
	if labels {
		b.WriteString(",label")
	}
	b.WriteString("\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "m%02d,n/a,%d,0", i, i)
		if labels {
			fmt.Fprintf(&b, ",%d", B2I(i%5 == 0))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// NpyHeader is the header of a .npy file (format 1.0) of a C-order array
// of dtype descr and shape, padded to 64 bytes as NumPy pads it.
func NpyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.Itoa(s)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + sh + "), }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(out, header...)
}

// Num parses a number of a CSV cell, failing the test otherwise.
func Num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return v
}

// ParseCSV parses s as CSV, failing the test on an error.
func ParseCSV(t *testing.T, s string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		rows = append(rows, strings.Split(line, ","))
	}
	return rows
}

// ReadCSVFile parses the CSV file at path, failing the test on an error.
func ReadCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// ReadFileString is the contents of path, failing the test on an error.
func ReadFileString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// SameResults compares every file of two campaign directories, with the
// wall-time columns ("seconds") blanked: they are the only legitimately
// different values. Temporary files of interrupted atomic writes are ignored.
func SameResults(t *testing.T, a, b string) {
	t.Helper()
	list := func(root string) map[string]string {
		files := map[string]string{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(d.Name(), ".tmp-") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[rel] = p
			return nil
		})
		return files
	}
	fa, fb := list(a), list(b)
	if len(fa) != len(fb) {
		var na, nb []string
		for k := range fa {
			na = append(na, k)
		}
		for k := range fb {
			nb = append(nb, k)
		}
		slices.Sort(na)
		slices.Sort(nb)
		t.Fatalf("file sets differ:\n%v\n%v", na, nb)
	}
	for rel, pa := range fa {
		pb, ok := fb[rel]
		if !ok {
			t.Fatalf("%s missing from %s", rel, b)
		}
		ba, _ := os.ReadFile(pa)
		bb, _ := os.ReadFile(pb)
		if strings.HasSuffix(rel, ".csv") {
			ba, bb = BlankSeconds(t, ba), BlankSeconds(t, bb)
		}
		if !bytes.Equal(ba, bb) {
			t.Errorf("%s differs:\n%s\n---\n%s", rel, ba, bb)
		}
	}
}

// ScoreCSV parses `score --format csv` output into q -> [vs, qvs].
func ScoreCSV(t *testing.T, out string) map[string][]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "q,vs") {
		t.Fatalf("output %q", out)
	}
	res := map[string][]float64{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		for _, c := range f[1:] {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			res[f[0]] = append(res[f[0]], v)
		}
	}
	return res
}

// SuggestRows parses `suggest --format csv` output.
func SuggestRows(t *testing.T, out string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 || strings.Join(recs[0], ",") != "rank,index,id,probability,qvs" {
		t.Fatalf("output %q (%v)", out, err)
	}
	return recs[1:]
}

// TextTanimoto is the Tanimoto similarity of two '0'/'1' strings by its
// definition (1 for two empty fingerprints).
func TextTanimoto(a, b string) float64 {
	and, or := 0, 0
	for i := range a {
		if a[i] == '1' && b[i] == '1' {
			and++
		}
		if a[i] == '1' || b[i] == '1' {
			or++
		}
	}
	if or == 0 {
		return 1
	}
	return float64(and) / float64(or)
}

// WriteFile writes content to dir/name and returns the path.
func WriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteNPY writes a little-endian .npy file (format 1.0) of float64 ('<f8')
// or int64 ('<i8') values.
func WriteNPY(t *testing.T, path, descr string, shape []int, vals []float64) {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(NpyHeader(descr, shape))
	for _, v := range vals {
		var u uint64
		if descr == "<i8" {
			u = uint64(int64(v))
		} else {
			u = math.Float64bits(v)
		}
		for b := 0; b < 8; b++ {
			buf.WriteByte(byte(u >> (8 * b)))
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteToyMOF writes an n-item candidate set in the MOF format under
// dir/mof: a Gaussian kernel of random points in the unit square and a
// table with the objective and an energy penalty.
func WriteToyMOF(t *testing.T, dir string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([][2]float64, n)
	for i := range x {
		x[i] = [2]float64{rng.Float64(), rng.Float64()}
	}
	var kb, tb strings.Builder
	tb.WriteString("id,storage,energy_penalty\n")
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := (x[i][0]-x[j][0])*(x[i][0]-x[j][0]) + (x[i][1]-x[j][1])*(x[i][1]-x[j][1])
			if j > 0 {
				kb.WriteString(",")
			}
			fmt.Fprintf(&kb, "%.17g", math.Exp(-d/(2*0.25*0.25)))
		}
		kb.WriteString("\n")
		fmt.Fprintf(&tb, "MOF-%02d,%.6f,%.4f\n", i, 20*math.Exp(-((x[i][0]-0.7)*(x[i][0]-0.7)+(x[i][1]-0.2)*(x[i][1]-0.2))/0.05), x[i][1])
	}
	if err := os.MkdirAll(filepath.Join(dir, "mof"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mof", "kernel.csv"), []byte(kb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mof", "mofs.csv"), []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
