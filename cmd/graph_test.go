package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// writeNPY32 writes rows x cols float32 values as a .npy file.
func writeNPY32(t *testing.T, dir, name string, rows, cols int, data []float32) string {
	t.Helper()
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, rows, cols, data); err != nil {
		t.Fatal(err)
	}
	return asWriteFile(t, dir, name, b.String())
}

func TestGraphCommandErrors(t *testing.T) {
	dir := t.TempDir()
	n, d, x := testutil.GraphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	csv := asWriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pool", pool}, "--out W.npz is required"},
		{[]string{"--out", "w.npz"}, "--pool"},
		{[]string{"--pool", pool, "--out", "w.npz", "--knn", "fast"}, `invalid argument "fast" for "--knn" flag: expected auto, exact or approx`},
		{[]string{"--pool", csv, "--out", "w.npz", "--metric", "hamming"}, `invalid argument "hamming" for "--metric" flag: expected euclidean, cosine or tanimoto`},
		{[]string{"--pool", pool, "--out", "w.npz", "--k", "50"}, "--k (key pool.csv.k) = 50: expected less than the 50 rows"},
		{[]string{"--pool", pool, "--out", "w.npz", "--ids", csv}, "ids for the 50 rows"},
		{[]string{"--pool", pool, "--out", "w.npz", "--similarity", "native"}, "similarity"},
	} {
		code, stdout, stderr := runQVS(t, append([]string{"graph", "--cache-dir", filepath.Join(dir, "cache")}, c.args...)...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want it to mention %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
