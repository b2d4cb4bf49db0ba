package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestASSuggestColumnsNeverLeak: the same rules on an as suggest pool: a
// pandas CSV with its index and a target column is refused naming the
// target and --exclude-columns; excluded, the batch equals the one of the
// file without index and target, and stderr says how the index was read.
func TestASSuggestColumnsNeverLeak(t *testing.T) {
	dir := t.TempDir()
	var pandas, plain strings.Builder
	pandas.WriteString(",x1,x2,target\n")
	plain.WriteString("x1,x2\n")
	for i := range 30 {
		x1, x2 := float64(i%6)+0.1*float64(i%4), float64(i/6)+0.05*float64(i%3)
		fmt.Fprintf(&pandas, "%d,%g,%g,%d\n", i, x1, x2, i%2)
		fmt.Fprintf(&plain, "%g,%g\n", x1, x2)
	}
	pp, pl := testutil.WriteFile(t, dir, "pandas.csv", pandas.String()), testutil.WriteFile(t, dir, "plain.csv", plain.String())
	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n7,0\n")
	base := []string{"as", "suggest", "--observed", obs, "--k", "5", "--batch", "3", "--prior", "0.2", "--format", "csv", "--cache-dir", t.TempDir()}
	code, out, stderr := runQVS(t, append(base, "--pool", pp)...)
	if code != 1 || out != "" || !strings.Contains(stderr, `column "target" looks like a label or target`) || !strings.Contains(stderr, "--exclude-columns (key pool.csv.exclude_columns) target") {
		t.Errorf("target: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_, want, _ := runQVS(t, append(base, "--pool", pl)...)
	code, out, stderr = runQVS(t, append(base, "--pool", pp, "--exclude-columns", "target")...)
	if code != 0 || out != want || !strings.Contains(stderr, `holds 0..29: read as the row index`) {
		t.Errorf("excluded: exit %d, %q (want %q), stderr %q", code, out, want, stderr)
	}
}
