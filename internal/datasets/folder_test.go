package datasets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// rawNPY builds a .npy file (format 1.0) the way numpy writes it: magic,
// version, little-endian header length, a Python dict literal padded with
// spaces and a newline so that the data start at a multiple of 64 bytes.
func rawNPY(descr string, fortran bool, shape []int, data []byte) []byte {
	order := "False"
	if fortran {
		order = "True"
	}
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = fmt.Sprint(s)
	}
	sh := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	sh += ")"
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, sh)
	pad := 64 - (10+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	dict += strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

func leBytes(v any) []byte {
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// writeScipyCSR writes an .npz exactly as scipy.sparse.save_npz does
// (numpy.savez_compressed: deflated zip members "<key>.npy"; indices and
// indptr int32, shape int64 (2,), format a 0-d bytes array b"csr").
func writeScipyCSR(t testing.TB, path string, rows, cols int, indptr, indices []int32, data []float64, format string) {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	members := []struct {
		name string
		body []byte
	}{
		{"indices.npy", rawNPY("<i4", false, []int{len(indices)}, leBytes(indices))},
		{"indptr.npy", rawNPY("<i4", false, []int{len(indptr)}, leBytes(indptr))},
		{"format.npy", rawNPY(fmt.Sprintf("|S%d", len(format)), false, nil, []byte(format))},
		{"shape.npy", rawNPY("<i8", false, []int{2}, leBytes([]int64{int64(rows), int64(cols)}))},
		{"data.npy", rawNPY("<f8", false, []int{len(data)}, leBytes(data))},
	}
	for _, m := range members {
		w, err := z.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.body)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyFolder writes a 4-item folder: features via npyio (float64 matrix),
// labels as int64 via a raw .npy, and a CSR graph with a diagonal, an
// explicit zero and unsorted weights.
func tinyFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, folderFeatures))
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f, mat.NewDense(4, 2, []float64{0, 0, 3, 4, 6, 8, 0, 1})); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, folderLabels), rawNPY("<i8", false, []int{4}, leBytes([]int64{1, 0, 2, -1})), 0o644)
	// Dense view of the weights (row i: stored entries):
	// row 0: (0,1) self, (1, 0.5), (3, 0.9)
	// row 1: (0, 0.5), (2, 0.5)
	// row 2: (1, 0.0) explicit zero, (3, 0.25)
	// row 3: none
	writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 4, 4,
		[]int32{0, 3, 5, 7, 7}, []int32{0, 1, 3, 0, 2, 1, 3},
		[]float64{1, 0.5, 0.9, 0.5, 0.5, 0, 0.25}, "csr")
	return dir
}

func TestLoadFolderCSR(t *testing.T) {
	dir := tinyFolder(t)
	if !hasFolder(dir) {
		t.Fatal("hasFolder = false for a complete folder")
	}
	p, err := loadFolder(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Name != filepath.Base(dir) || p.Metric != knn.MetricEuclidean {
		t.Errorf("name %q metric %q", p.Name, p.Metric)
	}
	wantLabels := []bool{true, false, true, false}
	for i, l := range wantLabels {
		if p.Labels[i] != l {
			t.Errorf("label %d = %v, want %v", i, p.Labels[i], l)
		}
	}
	if got := p.Distance(0, 1); got != 5 { // (0,0)-(3,4): a 3-4-5 triangle
		t.Errorf("Distance(0,1) = %v, want 5", got)
	}
	want := []struct {
		nb []int32
		w  []float64
	}{
		{[]int32{3, 1}, []float64{0.9, 0.5}}, // self dropped, by decreasing weight
		{[]int32{0, 2}, []float64{0.5, 0.5}}, // tie: lower index first
		{[]int32{3}, []float64{0.25}},        // explicit zero dropped
		{[]int32{}, []float64{}},
	}
	for i, w := range want {
		if fmt.Sprint(p.Neighbors[i]) != fmt.Sprint(w.nb) || fmt.Sprint(p.Weights[i]) != fmt.Sprint(w.w) {
			t.Errorf("row %d: %v %v, want %v %v", i, p.Neighbors[i], p.Weights[i], w.nb, w.w)
		}
	}
}

func TestLoadFolderNeighborList(t *testing.T) {
	dir := t.TempDir()
	// float32, Fortran order: column-major storage of [[1,2],[3,4],[5,7]].
	os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("<f4", true, []int{3, 2}, leBytes([]float32{1, 3, 5, 2, 4, 7})), 0o644)
	os.WriteFile(filepath.Join(dir, folderLabels), rawNPY("|b1", false, []int{3}, []byte{0, 1, 1}), 0o644)
	// Each point its own first neighbour, as the authors' files have it.
	os.WriteFile(filepath.Join(dir, folderNeighbors), rawNPY("<i8", false, []int{3, 2}, leBytes([]int64{0, 1, 1, 2, 2, 1})), 0o644)
	os.WriteFile(filepath.Join(dir, folderSimilarity), rawNPY("<f8", false, []int{3, 2}, leBytes([]float64{1, 0.3, 1, 0.6, 1, 0.6})), 0o644)
	p, err := loadFolder(dir, knn.MetricEuclidean)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Dense) != "[[1 2] [3 4] [5 7]]" {
		t.Errorf("features %v (Fortran order must be transposed)", p.Dense)
	}
	if fmt.Sprint(p.Labels) != "[false true true]" {
		t.Errorf("labels %v", p.Labels)
	}
	if fmt.Sprint(p.Neighbors) != "[[1] [2] [1]]" || fmt.Sprint(p.Weights) != "[[0.3] [0.6] [0.6]]" {
		t.Errorf("graph %v %v", p.Neighbors, p.Weights)
	}
}

func TestLoadFolderTanimoto(t *testing.T) {
	dir := tinyFolder(t)
	os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("|u1", false, []int{4, 3}, []byte{1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1}), 0o644)
	p, err := loadFolder(dir, knn.MetricTanimoto)
	if err != nil {
		t.Fatal(err)
	}
	// {0,2} vs {0,1}: |and| = 1, |or| = 3.
	if got := p.Distance(0, 1); math.Abs(got-2.0/3) > 1e-15 {
		t.Errorf("Tanimoto distance = %v, want 2/3", got)
	}
	os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("<f8", false, []int{4, 1}, leBytes([]float64{0, 1, 0.5, 1})), 0o644)
	if _, err := loadFolder(dir, knn.MetricTanimoto); err == nil || !strings.Contains(err.Error(), "0/1") {
		t.Errorf("non-binary fingerprint: error %v", err)
	}
}

func TestLoadFolderErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(t *testing.T, dir string)
		want   string
	}{
		{"labels too short", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderLabels), rawNPY("<i8", false, []int{3}, leBytes([]int64{1, 0, 1})), 0o644)
		}, "expected 4 labels"},
		{"csc format", func(t *testing.T, dir string) {
			writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 4, 4, []int32{0, 0, 0, 0, 0}, nil, nil, "csc")
		}, `"csc"`},
		{"wrong shape", func(t *testing.T, dir string) {
			writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 3, 3, []int32{0, 0, 0, 0}, nil, nil, "csr")
		}, "expected 4 x 4"},
		{"column out of range", func(t *testing.T, dir string) {
			writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 4, 4, []int32{0, 1, 1, 1, 1}, []int32{7}, []float64{0.5}, "csr")
		}, "row 0 stores column 7"},
		{"weight above one", func(t *testing.T, dir string) {
			writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 4, 4, []int32{0, 0, 1, 1, 1}, []int32{0}, []float64{2}, "csr")
		}, "row 2, column 1 holds weight 2"},
		{"decreasing indptr", func(t *testing.T, dir string) {
			writeScipyCSR(t, filepath.Join(dir, folderCSRWeights), 4, 4, []int32{0, 1, 0, 1, 1}, []int32{1}, []float64{0.5}, "csr")
		}, "indptr"},
		{"nan feature", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("<f8", false, []int{4, 1}, leBytes([]float64{0, math.NaN(), 1, 2})), 0o644)
		}, "item 1, feature 0 is NaN"},
		{"truncated features", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("<f8", false, []int{4, 1}, leBytes([]float64{0, 1})), 0o644)
		}, "(32 bytes of data), the file has 16"},
		{"string features", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderFeatures), rawNPY("<U3", false, []int{1}, make([]byte, 12)), 0o644)
		}, "not supported"},
		{"not npy", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderLabels), []byte("1,0,1,0\n"), 0o644)
		}, "not a .npy file"},
		{"not zip", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, folderCSRWeights), []byte("junk"), 0o644)
		}, "not a .npz"},
	}
	for _, tc := range tests {
		dir := tinyFolder(t)
		tc.modify(t, dir)
		_, err := loadFolder(dir, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := loadFolder(tinyFolder(t), "manhattan"); err == nil || !strings.Contains(err.Error(), "pool.folder.metric") {
		t.Errorf("bad metric: %v", err)
	}
}

// TestReadCSRNPZDuplicateMember: an archive with two
// members for one array (zip allows it) was read with the first one while
// NumPy and SciPy take the last, so the file meant two matrices. Both
// spellings of the clash ("data.npy" twice; "data" beside "data.npy") are
// refused naming the file, the array and both members; the archive without
// the extra member reads.
func TestReadCSRNPZDuplicateMember(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.npz")
	writeScipyCSR(t, good, 2, 2, []int32{0, 1, 2}, []int32{1, 0}, []float64{0.5, 0.25}, "csr")
	if _, err := fileio.ReadCSRNPZ(good); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	other := rawNPY("<f8", false, []int{2}, leBytes([]float64{0.9, 0.9}))
	for _, extra := range []string{"data.npy", "data"} {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for _, f := range zr.File {
			if err := z.Copy(f); err != nil {
				t.Fatal(err)
			}
		}
		w, err := z.Create(extra)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(other)
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "dup.npz")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`%s: the archive has two members for array "data" ("data.npy" and %q)`, p, extra)
		if _, err := fileio.ReadCSRNPZ(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("extra member %q: %v, want %q", extra, err, want)
		}
	}
}
