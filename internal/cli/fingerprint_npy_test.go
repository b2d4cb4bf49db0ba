package cli

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// writePackedNPY writes fingerprints (rows of '0'/'1', bit 0 first) as a
// uint8 .npy the way numpy.packbits(fp, axis=1) packs them: bit b is bit
// 7 - b%8 of byte b/8, the last byte padded with zeros.
func writePackedNPY(t *testing.T, path string, fps []string) {
	t.Helper()
	d := (len(fps[0]) + 7) / 8
	var buf bytes.Buffer
	buf.Write(testutil.NpyHeader("|u1", []int{len(fps), d}))
	for _, fp := range fps {
		row := make([]byte, d)
		for b := range fp {
			if fp[b] == '1' {
				row[b/8] |= 0x80 >> (b % 8)
			}
		}
		buf.Write(row)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vs1 is exp of the Shannon entropy of the eigenvalues of K/n, computed
// here from gonum's eigen decomposition (not through package vendi).
func vs1(t *testing.T, K *mat.SymDense) float64 {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(K, false) {
		t.Fatal("eigen decomposition failed")
	}
	n := float64(K.SymmetricDim())
	h := 0.0
	for _, l := range e.Values(nil) {
		if p := l / n; p > 1e-15 {
			h -= p * math.Log(p)
		}
	}
	return math.Exp(h)
}

// TestPackedNPYFingerprintsAgree: a uint8 .npy under Tanimoto is read as
// packed bits (numpy.packbits, most significant bit first) by every
// command. score's VS equals the one computed by hand from the unpacked
// bits (and not the one of the bytes read as counts, which differs on
// this file); select picks the same items from the .npy as from the same
// fingerprints in a CSV bit column; the graph of `qvs graph` (the pool
// reader of `as suggest`) holds the brute-force Tanimoto similarities; and
// `as suggest` suggests the same batch from the .npy as from the CSV.
func TestPackedNPYFingerprintsAgree(t *testing.T) {
	dir := t.TempDir()
	const n, nbits = 12, 21 // 3 bytes a row, 3 padding bits
	rng := rand.New(rand.NewPCG(3, 9))
	fps := make([]string, n)
	for i := range fps {
		b := make([]byte, nbits)
		for j := range b {
			b[j] = '0'
			if rng.Float64() < 0.35 || j == i {
				b[j] = '1'
			}
		}
		fps[i] = string(b)
	}
	npy := filepath.Join(dir, "fp.npy")
	writePackedNPY(t, npy, fps)
	var csv strings.Builder
	csv.WriteString("id,fp\n")
	for i, fp := range fps {
		// The CSV holds the .npy's 24 bits, padding included.
		fmt.Fprintf(&csv, "%d,%s000\n", i, fp)
	}
	csvPath := testutil.WriteFile(t, dir, "fp.csv", csv.String())

	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			K.SetSym(i, j, testutil.TextTanimoto(fps[i], fps[j]))
		}
	}
	want := vs1(t, K)
	// The bytes as counts (the old reading): a different kernel.
	counts := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			lo, hi := 0.0, 0.0
			for c := 0; c < 3; c++ {
				a, b := packByte(fps[i], c), packByte(fps[j], c)
				lo, hi = lo+math.Min(a, b), hi+math.Max(a, b)
			}
			counts.SetSym(i, j, lo/hi)
		}
	}
	if wrong := vs1(t, counts); math.Abs(wrong-want) < 0.05 {
		t.Fatalf("the test file does not tell bits from counts: %v, %v", want, wrong)
	}
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = npy
		o.Items.Emb.Kernel = "tanimoto"
		o.Orders = vendi.Orders{1}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	if got := testutil.ScoreCSV(t, out)["1"]; len(got) != 1 || math.Abs(got[0]-want) > 1e-9 {
		t.Errorf("score of the packed .npy: %v, want %v (by hand)", got, want)
	}

	code, fromNPY, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = npy
		o.Items.Emb.Kernel = "tanimoto"
		o.K = 4
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if code != 0 {
		t.Fatalf("select: exit %d: %s", code, stderr)
	}
	code, fromCSV, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = csvPath
		o.Items.IDColumn = "id"
		o.Items.Emb.FingerprintColumn = "fp"
		o.Items.Emb.Kernel = "tanimoto"
		o.K = 4
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"fingerprint-column", "embedding-kernel"}
	}))
	if code != 0 {
		t.Fatalf("select CSV: exit %d: %s", code, stderr)
	}
	if strings.ReplaceAll(fromNPY, ",,", ",") == "" || selectIndices(fromNPY) != selectIndices(fromCSV) {
		t.Errorf("select picks differ:\n.npy:\n%s\nCSV:\n%s", fromNPY, fromCSV)
	}

	w := filepath.Join(dir, "w.npz")
	// graph --pool X.npy --metric tanimoto --k n-1 --knn exact --out w.npz
	pool := csvPool(npy, func(c *datasets.CSVConfig) {
		c.Metric, c.Similarity, c.K, c.KNN = knn.MetricTanimoto, knn.SimilarityNative, n-1, knn.KNNExact
	})
	code, _, stderr = exitOf(t, RunGraph, &GraphOptions{Pool: pool, Out: w}, beQuiet, func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
	if code != 0 {
		t.Fatalf("graph: exit %d: %s", code, stderr)
	}
	g, err := fileio.ReadCSRNPZ(w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for p := g.Indptr[i]; p < g.Indptr[i+1]; p++ {
			if j := g.Indices[p]; math.Abs(g.Data[p]-K.At(i, j)) > 1e-12 {
				t.Errorf("graph weight (%d, %d) = %v, want Tanimoto %v", i, j, g.Data[p], K.At(i, j))
			}
		}
	}

	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n1,0\n")
	var batches [2]string
	// as suggest --metric tanimoto --k 4 --knn exact --observed obs.csv --batch 3
	// --format csv --quiet, on --pool X.npy and on --pool fp.csv --fingerprint-column fp
	for s, fp := range [][2]string{{npy, ""}, {csvPath, "fp"}} {
		pool := csvPool(fp[0], func(c *datasets.CSVConfig) {
			c.Metric, c.Similarity, c.K, c.KNN, c.FingerprintColumn = knn.MetricTanimoto, knn.SimilarityNative, 4, knn.KNNExact, fp[1]
		})
		code, out, stderr := exitOf(t, RunASSuggest, suggestOn(pool, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed, o.Batch, o.Format.Value = obs, 3, FormatCSV
		}), beQuiet, func(e *Env) { e.CacheDir = filepath.Join(dir, fmt.Sprint("as", s)) })
		if code != 0 {
			t.Fatalf("as suggest %s: exit %d: %s", fp[0], code, stderr)
		}
		batches[s] = out
	}
	if batches[0] != batches[1] {
		t.Errorf("as suggest batches differ:\n.npy:\n%s\nCSV:\n%s", batches[0], batches[1])
	}
}

// packByte is byte c of a fingerprint packed MSB first, as a number.
func packByte(fp string, c int) float64 {
	v := 0
	for b := 8 * c; b < 8*c+8 && b < len(fp); b++ {
		if fp[b] == '1' {
			v |= 0x80 >> (b % 8)
		}
	}
	return float64(v)
}

// selectIndices is the index column of select's CSV output, in order.
func selectIndices(out string) string {
	var idx []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) > 1 {
			idx = append(idx, f[1])
		}
	}
	return strings.Join(idx, " ")
}
