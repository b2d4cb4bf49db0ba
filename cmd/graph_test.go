package cmd

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
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

// graphPool: 50 points on a noisy spiral in 3-d, float32.
func graphPool() (n, d int, x []float32) {
	n, d = 50, 3
	for i := range n {
		a := float64(i) * 0.7
		x = append(x, float32(math.Cos(a)*float64(i)), float32(math.Sin(a)*float64(i)), float32(i%7))
	}
	return n, d, x
}

func TestGraphCommandErrors(t *testing.T) {
	dir := t.TempDir()
	n, d, x := graphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	csv := asWriteFile(t, dir, "pool.csv", linePoolCSV(false))
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

// as suggest on a .npy pool names items by --ids; a campaign on a CSV pool
// with pool.csv.knn: approx records it in config.yaml.
func TestASSuggestNPYPoolAndKNNRecord(t *testing.T) {
	dir := t.TempDir()
	n, d, x := graphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	var ids strings.Builder
	for i := range n {
		ids.WriteString("item" + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "\n")
	}
	idsFile := asWriteFile(t, dir, "ids.txt", ids.String())
	obs := asWriteFile(t, dir, "obs.csv", "id,label\nitemAa,1\nitemBa,0\n")
	code, out, stderr := runQVS(t, "as", "suggest", "--pool", pool, "--ids", idsFile, "--k", "4", "--observed", obs, "--batch", "2", "--format", "csv", "--cache-dir", filepath.Join(dir, "cache"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := suggestRows(t, out)
	for _, r := range rows {
		if !strings.HasPrefix(r[2], "item") {
			t.Errorf("row %v: id not from --ids", r)
		}
	}

	csv := asWriteFile(t, dir, "labelled.csv", linePoolCSV(true))
	cfg := asWriteFile(t, dir, "cfg.yaml", "task: line\npool:\n  kind: csv\n  csv:\n    file: "+csv+"\n    id_column: id\n    feature_prefix: x\n    k: 2\n    knn: approx\nmethods: [random]\nrepeats: 1\nbudget: 5\n")
	outDir := filepath.Join(dir, "campaign")
	if code, _, stderr := runQVS(t, "--config", cfg, "as", "--out", outDir, "--cache-dir", filepath.Join(dir, "cache")); code != 0 {
		t.Fatalf("campaign: exit %d: %s", code, stderr)
	} else if !strings.Contains(stderr, "kNN graph: approximate") {
		t.Errorf("campaign stderr does not state the graph method: %s", stderr)
	}
	rec, _ := os.ReadFile(filepath.Join(outDir, "config.yaml"))
	if !strings.Contains(string(rec), "knn: approx") {
		t.Errorf("config.yaml does not record the approximate graph:\n%s", rec)
	}
	// Resuming with the same config is accepted.
	if code, _, stderr := runQVS(t, "--config", cfg, "as", "--out", outDir, "--cache-dir", filepath.Join(dir, "cache")); code != 0 {
		t.Errorf("resume: exit %d: %s", code, stderr)
	}
}
