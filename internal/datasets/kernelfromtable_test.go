package datasets

import (
	"math"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// TestKernelFromTable: a kernel file symmetric up to kernelSymmetryTol is
// symmetrised to (K + Kᵀ)/2; beyond it, or not square, it is refused naming
// the entry; normalize gives K_ij / sqrt(K_ii K_jj) (closed form on a 2 x 2)
// and refuses a diagonal entry <= 0.
func TestKernelFromTable(t *testing.T) {
	tab := func(n int, v ...float64) *fileio.Table {
		return &fileio.Table{Path: "k.csv", Rows: n, Cols: len(v) / n, Data: v}
	}
	K, err := KernelFromTable(tab(2, 4, 1, 1+1e-9, 9), false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := K.At(0, 1), 1+0.5e-9; got != want || K.At(1, 0) != want {
		t.Errorf("symmetrised entry %v, want %v", got, want)
	}
	K, err = KernelFromTable(tab(2, 4, 1, 1, 9), true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := K.At(0, 1), 1/math.Sqrt(4*9); math.Abs(got-want) > 1e-15 || K.At(0, 0) != 1 || K.At(1, 1) != 1 {
		t.Errorf("normalised: %v, want off-diagonal %v and unit diagonal", K, want)
	}
	for _, tc := range []struct {
		t         *fileio.Table
		normalize bool
		want      string
	}{
		{tab(2, 4, 1, 1.5, 9), false, "k.csv: kernel is not symmetric: row 1, column 2 is 1 but row 2, column 1 is 1.5"},
		{tab(1, 1, 2), false, "k.csv: kernel must be square, got 1 rows x 2 columns"},
		{tab(2, 4, 1, 1, 0), true, "k.csv: --normalize: row 2, column 2 (the diagonal) is 0"},
	} {
		if _, err := KernelFromTable(tc.t, tc.normalize); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
