package datasets

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// writeKernelFile writes content to dir/name and returns the path.
func writeKernelFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const mofTable = `id,storage,energy_penalty,extra
mof-a,12.5,0.30,x
mof-b,16.0,,y
mof-c,9.25,0.12,z
`

// A 3 x 3 correlation matrix, PSD because it is strictly diagonally dominant
// with a positive diagonal (Gershgorin).
const mofKernelCSV = `1,0.5,0.2
0.5,1,0.4
0.2,0.4,1
`

func mofFiles(dir string) KernelSetFiles {
	return KernelSetFiles{
		Kernel:          filepath.Join(dir, "kernel.csv"),
		Table:           filepath.Join(dir, "mofs.csv"),
		IDColumn:        "id",
		ObjectiveColumn: "storage",
		MetricColumns:   []string{"energy_penalty"},
		Note:            "The MOF data is not public.",
	}
}

func TestReadKernelSetCSV(t *testing.T) {
	dir := t.TempDir()
	writeKernelFile(t, dir, "mofs.csv", mofTable)
	writeKernelFile(t, dir, "kernel.csv", mofKernelCSV)
	set, err := ReadKernelSet("mof", mofFiles(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.IDs, " "); got != "mof-a mof-b mof-c" {
		t.Errorf("ids = %q", got)
	}
	wantObj := []float64{12.5, 16, 9.25}
	for i, v := range wantObj {
		if set.Objective[i] != v {
			t.Errorf("objective[%d] = %v, want %v", i, set.Objective[i], v)
		}
	}
	if set.ObjectiveName != "storage" || len(set.MetricNames) != 1 || set.MetricNames[0] != "energy_penalty" {
		t.Errorf("names = %q, %q", set.ObjectiveName, set.MetricNames)
	}
	if m := set.Metrics[0]; m[0] != 0.30 || !math.IsNaN(m[1]) || m[2] != 0.12 {
		t.Errorf("energy_penalty = %v, want [0.3 NaN 0.12] (empty cell = missing)", m)
	}
	if set.Kernel.At(0, 1) != 0.5 || set.Kernel.At(2, 1) != 0.4 || set.Kernel.At(2, 2) != 1 {
		t.Errorf("kernel read wrong: %v", mat.Formatted(set.Kernel))
	}
}

func TestReadKernelSetNPY(t *testing.T) {
	dir := t.TempDir()
	writeKernelFile(t, dir, "mofs.csv", mofTable)
	// A non-unit diagonal covariance (scaled correlation) is a valid GP kernel.
	K := mat.NewDense(3, 3, []float64{4, 1, 0.4, 1, 1, 0.4, 0.4, 0.4, 1})
	f, err := os.Create(filepath.Join(dir, "kernel.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f, K); err != nil {
		t.Fatal(err)
	}
	f.Close()
	files := mofFiles(dir)
	files.Kernel = filepath.Join(dir, "kernel.npy")
	set, err := ReadKernelSet("mof", files)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(set.Kernel, K, 0) {
		t.Errorf("kernel = %v, want %v", mat.Formatted(set.Kernel), mat.Formatted(K))
	}
}

func TestReadKernelSetMissingFiles(t *testing.T) {
	dir := t.TempDir()
	files := mofFiles(dir)
	_, err := ReadKernelSet("mof", files)
	var me *MissingDataError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want *MissingDataError", err)
	}
	if len(me.Missing) != 2 {
		t.Fatalf("missing = %q, want both files", me.Missing)
	}
	msg := err.Error()
	for _, want := range []string{
		`task "mof"`, files.Kernel, files.Table, ".npy", "CSV", "n x n",
		`"id" (unique item name)`, `"storage" (objective, maximised)`, `"energy_penalty"`,
		"The MOF data is not public.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
	// Only the kernel missing: only it is listed.
	writeKernelFile(t, dir, "mofs.csv", mofTable)
	_, err = ReadKernelSet("mof", files)
	if !errors.As(err, &me) || len(me.Missing) != 1 || !strings.HasPrefix(me.Missing[0], files.Kernel) {
		t.Fatalf("err = %v, want only the kernel listed", err)
	}
}

func TestReadKernelSetErrors(t *testing.T) {
	cases := []struct {
		name, table, kernel string
		want                []string // substrings of the error
	}{
		{"not square", mofTable, "1,0\n0,1\n0,0\n", []string{"kernel.csv", "square", "3 x 2"}},
		{"size mismatch", mofTable, "1,0\n0,1\n", []string{"kernel.csv", "2 x 2", "3 candidates"}},
		{"asymmetric", mofTable, "1,0.5,0.2\n0.5,1,0.4\n0.2,0.3,1\n", []string{"not symmetric: row 2, column 3 is 0.4 but row 3, column 2 is 0.3"}},
		{"zero diagonal", mofTable, "1,0,0\n0,0,0\n0,0,1\n", []string{"row 2, column 2 (the diagonal) is 0"}},
		{"cauchy-schwarz", mofTable, "1,1.5,0\n1.5,1,0\n0,0,1\n", []string{"not positive semidefinite: row 1, column 2 is 1.5, larger in magnitude than sqrt(K_ii K_jj) = 1 (rows 1 and 2 of the diagonal)"}},
		// x = (1, -1, -1) gives xᵀKx = 3 - 5.4 < 0.
		{"indefinite", mofTable, "1,0.9,0.9\n0.9,1,-0.9\n0.9,-0.9,1\n", []string{"not positive semidefinite", "smallest eigenvalue"}},
		{"not finite", mofTable, "1,nan,0\nnan,1,0\n0,0,1\n", []string{"kernel.csv", "not a finite number"}},
		{"no objective column", "id,capacity\na,1\nb,2\nc,3\n", mofKernelCSV, []string{"mofs.csv", `no column "storage"`, "id, capacity"}},
		{"duplicate id", "id,storage,energy_penalty\na,1,0\nb,2,0\na,3,0\n", mofKernelCSV, []string{"mofs.csv", "line 4", `"a" repeats line 2`}},
		{"bad objective", "id,storage,energy_penalty\na,1,0\nb,high,0\nc,3,0\n", mofKernelCSV, []string{"mofs.csv", "line 3", `"storage"`, `"high"`}},
		{"missing objective", "id,storage,energy_penalty\na,1,0\nb,,0\nc,3,0\n", mofKernelCSV, []string{"line 3", "not a finite number"}},
		{"bad metric", "id,storage,energy_penalty\na,1,0\nb,2,lots\nc,3,0\n", mofKernelCSV, []string{"line 3", `"energy_penalty"`, `"lots"`}},
		{"ragged", "id,storage,energy_penalty\na,1,0\nb,2\nc,3,0\n", mofKernelCSV, []string{"line 3: 2 cells, expected 3"}},
		{"empty table", "", mofKernelCSV, []string{"mofs.csv", "empty file"}},
		{"header only", "id,storage,energy_penalty\n", mofKernelCSV, []string{"no data rows"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeKernelFile(t, dir, "mofs.csv", c.table)
			writeKernelFile(t, dir, "kernel.csv", c.kernel)
			_, err := ReadKernelSet("mof", mofFiles(dir))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestPhotoswitchKernelSet(t *testing.T) {
	path := filepath.Join(testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), "photoswitch", "UMAP-AllHits.csv")
	set, err := PhotoswitchKernelSet(path)
	if err != nil {
		t.Fatal(err)
	}
	// 1,919 molecules, 718 with lambda-max >= 450 nm (photoswitch/PROVENANCE.md).
	if set.Len() != 1919 {
		t.Fatalf("n = %d, want 1919", set.Len())
	}
	good := 0
	for _, v := range set.Objective {
		if v >= 450 {
			good++
		}
	}
	if good != 718 {
		t.Errorf("%d molecules with lambda-max >= 450, want 718", good)
	}
	if r, c := set.Kernel.Dims(); r != 1919 || c != 1919 {
		t.Fatalf("kernel %d x %d", r, c)
	}
	dupPairs := 0
	for i := 0; i < set.Len(); i++ {
		if set.Kernel.At(i, i) != 1 {
			t.Fatalf("K(%d, %d) = %v, want 1", i, i, set.Kernel.At(i, i))
		}
		for j := i + 1; j < set.Len(); j++ {
			v := set.Kernel.At(i, j)
			if v < 0 || v > 1 {
				t.Fatalf("K(%d, %d) = %v outside [0, 1]", i, j, v)
			}
			if v == 1 {
				dupPairs++
			}
		}
	}
	// 26 rows share a fingerprint with an earlier row (PROVENANCE.md), so at
	// least 26 off-diagonal pairs have similarity exactly 1.
	if dupPairs < 26 {
		t.Errorf("%d pairs with similarity 1, want >= 26", dupPairs)
	}
}

func TestTanimotoKernelSmall(t *testing.T) {
	// a = {0,1,2}, b = {1,2,3}, c = {} : T(a,b) = 2/4, T(a,c) = 0, T(c,c) = 1.
	bits := [][]uint64{{0b0111}, {0b1110}, {0}}
	K := tanimotoKernel(bits)
	want := mat.NewSymDense(3, []float64{1, 0.5, 0, 0.5, 1, 0, 0, 0, 1})
	if !mat.Equal(K, want) {
		t.Errorf("K = %v, want %v", mat.Formatted(K), mat.Formatted(want))
	}
}
