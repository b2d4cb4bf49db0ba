package cli

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

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
	n, d, x := testutil.GraphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	const k = 4
	nbr, w := bruteKNNGaussian(x, n, d, k)
	for _, knn := range []string{"exact", "approx"} {
		out := filepath.Join(dir, knn+".npz")
		graph := func(quiet bool) (int, string, string) {
			o := GraphOptions{Pool: datasets.DefaultConfig(datasets.KindCSV), Out: out}
			o.Pool.CSV.File, o.Pool.CSV.K, o.Pool.CSV.KNN = pool, 4, knn
			env, sout, serr := testEnv(t)
			env.CacheDir, env.Quiet = filepath.Join(dir, "cache"), quiet
			if err := RunGraph(env, &o); err != nil {
				return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
			}
			return 0, sout.String(), serr.String()
		}
		code, stdout, stderr := graph(false)
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
		code, _, stderr = graph(false)
		again, _ := os.ReadFile(out)
		if code != 0 || !strings.Contains(stderr, "read from the cache") || !bytes.Equal(first, again) {
			t.Errorf("%s cached: exit %d, stderr %q, same file %v", knn, code, stderr, bytes.Equal(first, again))
		}
		if code, _, stderr := graph(true); code != 0 || stderr != "" {
			t.Errorf("--quiet: exit %d, stderr %q", code, stderr)
		}
	}
}

// TestQuietKeepsPoolWarnings: the warning that an approximate graph's
// measured recall is below knn.MinApproxRecall says the result may be
// wrong, so `graph` and `as suggest` print it once with --quiet as without
// (--quiet silenced it with the pool's notes). On 2,000 standard Gaussian
// points in 64 dimensions the approximate graph's recall@10 is about 0.92
// (`qvs graph --pool X.npy --k 10 --knn approx` prints it).
func TestQuietKeepsPoolWarnings(t *testing.T) {
	dir := t.TempDir()
	const n, d = 2000, 64
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	pool := datasets.DefaultConfig(datasets.KindCSV)
	pool.CSV.File, pool.CSV.K, pool.CSV.KNN = writeNPY32(t, dir, "gauss.npy", n, d, x), 10, knn.KNNApprox
	const warning = "warning: the approximate kNN graph's recall@10 is "
	for _, quiet := range []bool{false, true} {
		env, _, serr := testEnv(t)
		env.Quiet, env.CacheDir = quiet, filepath.Join(dir, "cache")
		if err := RunGraph(env, &GraphOptions{Pool: pool, Out: filepath.Join(dir, "w.npz")}); err != nil {
			t.Fatalf("graph, quiet %v: %v", quiet, err)
		}
		if got := strings.Count(serr.String(), warning); got != 1 || quiet && !strings.HasPrefix(serr.String(), warning) {
			t.Errorf("graph, quiet %v: the low-recall warning is printed %d times, want once:\n%s", quiet, got, serr.String())
		}
		env, sout, serr := testEnv(t)
		env.Quiet, env.CacheDir = quiet, filepath.Join(dir, "cache")
		o := DefaultASSuggestOptions()
		o.Format.Value, o.PoolGiven = FormatCSV, true
		o.Resolve = func() (datasets.Config, search.Protocol, error) {
			p := search.PaperProtocol()
			p.Prior = search.PriorEstimate
			return pool, p, nil
		}
		if err := RunASSuggest(env, &o); err != nil {
			t.Fatalf("as suggest, quiet %v: %v", quiet, err)
		}
		if got := strings.Count(serr.String(), "qvs: "+warning); got != 1 || sout.Len() == 0 {
			t.Errorf("as suggest, quiet %v: the low-recall warning is printed %d times, want once (stdout %d bytes):\n%s", quiet, got, sout.Len(), serr.String())
		}
	}
}
