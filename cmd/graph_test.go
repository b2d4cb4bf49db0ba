package cmd

import (
	"bytes"
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
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

// bruteKNNGaussian is the directed kNN graph of the n x d points x (row
// major) by brute force: row i = the k nearest items by Euclidean distance
// (in float64, ties to the lower index), nearest first, weighing
// exp(-d^2 / h^2) with h^2 the lower median squared edge length (the
// default pool.csv similarity, gaussian).
func bruteKNNGaussian(x []float32, n, d, k int) (nbr [][]int, w [][]float64) {
	dist := func(i, j int) float64 {
		var s float64
		for c := range d {
			e := float64(x[i*d+c]) - float64(x[j*d+c])
			s += e * e
		}
		return math.Sqrt(s)
	}
	type nb struct {
		j int
		v float64
	}
	near := make([][]nb, n)
	var d2 []float64
	for i := range n {
		for j := range n {
			if j != i {
				near[i] = append(near[i], nb{j, dist(i, j)})
			}
		}
		slices.SortFunc(near[i], func(a, b nb) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.j, b.j)) })
		near[i] = near[i][:k]
		for _, e := range near[i] {
			d2 = append(d2, e.v*e.v)
		}
	}
	slices.Sort(d2)
	h2 := d2[(len(d2)-1)/2]
	nbr, w = make([][]int, n), make([][]float64, n)
	for i, row := range near {
		for _, e := range row {
			nbr[i] = append(nbr[i], e.j)
			w[i] = append(w[i], math.Exp(-e.v*e.v/h2))
		}
	}
	return nbr, w
}

// qvs graph writes the kNN graph as a CSR .npz: row i = the k nearest items
// by brute force (ties to the lower index), Gaussian weights with h^2 the
// median squared edge length; exact and approximate agree on this pool.
func TestGraphCommand(t *testing.T) {
	dir := t.TempDir()
	n, d, x := graphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	const k = 4
	nbr, w := bruteKNNGaussian(x, n, d, k)
	for _, knn := range []string{"exact", "approx"} {
		out := filepath.Join(dir, knn+".npz")
		code, stdout, stderr := runQVS(t, "graph", "--pool", pool, "--k", "4", "--knn", knn, "--out", out, "--cache-dir", filepath.Join(dir, "cache"))
		if code != 0 || stdout != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %s", knn, code, stdout, stderr)
		}
		m, err := fileio.ReadCSRNPZ(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != n || m.Cols != n || len(m.Data) != n*k {
			t.Fatalf("%s: %d x %d with %d values", knn, m.Rows, m.Cols, len(m.Data))
		}
		for i := range n {
			for e := 0; e < k; e++ {
				p := m.Indptr[i] + e
				if m.Indices[p] != nbr[i][e] || math.Abs(m.Data[p]-w[i][e]) > 1e-12 {
					t.Fatalf("%s: row %d entry %d: (%d, %v), want (%d, %v)", knn, i, e, m.Indices[p], m.Data[p], nbr[i][e], w[i][e])
				}
			}
		}
		if wantLine := map[string]string{"exact": "kNN graph: exact;", "approx": "recall@4 1.0000 measured against brute force on 50 rows"}[knn]; !strings.Contains(stderr, wantLine) {
			t.Errorf("%s: stderr %q lacks %q", knn, stderr, wantLine)
		}
		if !strings.Contains(stderr, "the next load of these features takes about") {
			t.Errorf("%s: stderr %q does not say how long the cached path takes", knn, stderr)
		}
		// Again: from the cache, same bytes.
		first, _ := os.ReadFile(out)
		code, _, stderr = runQVS(t, "graph", "--pool", pool, "--k", "4", "--knn", knn, "--out", out, "--cache-dir", filepath.Join(dir, "cache"))
		again, _ := os.ReadFile(out)
		if code != 0 || !strings.Contains(stderr, "read from the cache") || !bytes.Equal(first, again) {
			t.Errorf("%s cached: exit %d, stderr %q, same file %v", knn, code, stderr, bytes.Equal(first, again))
		}
		if code, _, stderr := runQVS(t, "graph", "--quiet", "--pool", pool, "--k", "4", "--knn", knn, "--out", out, "--cache-dir", filepath.Join(dir, "cache")); code != 0 || stderr != "" {
			t.Errorf("--quiet: exit %d, stderr %q", code, stderr)
		}
	}
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
