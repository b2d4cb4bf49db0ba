package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestInputsCheckedBeforeGraph: a mistyped --observed, --pending or --ids
// path, or a bad --observed/--pending header or label, is reported by `as
// suggest` (and a bad --ids or --out folder by `qvs graph`) before the
// pool is read or its graph built: exit 1, stdout empty, the error names
// the file, no phase of the load shows (progress lines have no delay
// here) and the cache stays empty; the same command with good files does
// build and cache the graph.
func TestInputsCheckedBeforeGraph(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	dir := t.TempDir()
	const n, d = 3000, 8
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	pool := writeNPY32(t, dir, "pool.npy", n, d, x)
	var ids strings.Builder
	ids.WriteString("id\n")
	for i := range n {
		ids.WriteString("m" + strconv.Itoa(i) + "\n")
	}
	idsPath := testutil.WriteFile(t, dir, "ids.txt", ids.String())
	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n1,0\n")
	missing := filepath.Join(dir, "nosuch.csv")
	badHeader := testutil.WriteFile(t, dir, "bad_header.csv", "item;label\n0;1\n")
	badLabel := testutil.WriteFile(t, dir, "bad_label.csv", "index,label\n0,1\n1,maybe\n")
	badPending := testutil.WriteFile(t, dir, "bad_pending.csv", "row\n3\n")
	// as suggest --pool pool.npy --k 10 --knn exact --batch 2 [--ids ids]
	// --cache-dir cache, then set's flags.
	suggest := func(ids string, set func(*ASSuggestOptions)) func(cache string) (int, string, string) {
		return func(cache string) (int, string, string) {
			pool := csvPool(pool, func(c *datasets.CSVConfig) { c.K, c.KNN, c.IDsFile = 10, knn.KNNExact, ids })
			return exitOf(t, RunASSuggest, suggestOn(pool, func(o *ASSuggestOptions, _ *search.Protocol) {
				o.Batch = 2
				set(o)
			}), func(e *Env) { e.CacheDir = cache })
		}
	}
	// graph --pool pool.npy --k 10 --knn exact [--ids ids] --out out --cache-dir cache
	graph := func(ids, out string) func(cache string) (int, string, string) {
		return func(cache string) (int, string, string) {
			pool := csvPool(pool, func(c *datasets.CSVConfig) { c.K, c.KNN, c.IDsFile = 10, knn.KNNExact, ids })
			return exitOf(t, RunGraph, &GraphOptions{Pool: pool, Out: out}, func(e *Env) { e.CacheDir = cache })
		}
	}
	observed := func(file string) func(*ASSuggestOptions) { return func(o *ASSuggestOptions) { o.Observed = file } }
	for i, c := range []struct {
		name string
		run  func(cache string) (code int, stdout, msg string)
		want string
	}{
		{"as suggest --observed nosuch.csv", suggest("", observed(missing)), "nosuch.csv: no such file"},
		{"as suggest --observed bad_header.csv", suggest("", observed(badHeader)), `bad_header.csv: header`},
		{"as suggest --observed bad_label.csv", suggest("", observed(badLabel)), "bad_label.csv: line 3, column 2 (label): label"},
		{"as suggest --pending nosuch.csv", suggest("", func(o *ASSuggestOptions) { o.Observed, o.Pending = obs, missing }), "nosuch.csv: no such file"},
		{"as suggest --pending bad_pending.csv", suggest("", func(o *ASSuggestOptions) { o.Observed, o.Pending = obs, badPending }), "bad_pending.csv: header"},
		{"as suggest --ids nosuch.csv", suggest(missing, func(*ASSuggestOptions) {}), "nosuch.csv: no such file"},
		{"graph --ids nosuch.csv", graph(missing, filepath.Join(dir, "w.npz")), "nosuch.csv: no such file"},
		{"graph --out nodir/w.npz", graph("", filepath.Join(dir, "nodir", "w.npz")), "nodir: the folder of"},
	} {
		cache := filepath.Join(dir, "cache"+strconv.Itoa(i))
		code, stdout, stderr := c.run(cache)
		if code != ExitRuntime || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 naming %q", c.name, code, stdout, stderr, c.want)
		}
		if strings.Contains(stderr, "reading "+pool) || strings.Contains(stderr, "kNN graph") {
			t.Errorf("%s: the pool was loaded before the error:\n%s", c.name, stderr)
		}
		if entries, _ := os.ReadDir(filepath.Join(cache, "knn")); len(entries) > 0 {
			t.Errorf("%s: a graph was cached before the error", c.name)
		}
	}
	// The control: good files build and cache the graph.
	cache := filepath.Join(dir, "cache-good")
	code, stdout, stderr := suggest(idsPath, observed(obs))(cache)
	if code != 0 || stdout == "" || !strings.Contains(stderr, "kNN graph") {
		t.Fatalf("good files: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(cache, "knn")); len(entries) == 0 {
		t.Error("good files: no graph cached")
	}
}

// TestDiscreteSuggestChecksFilesFirst: bayesopt suggest --kernel checks
// --observed and --ids before it reads the kernel (a large one takes
// long): with a corrupt kernel as well, the error names the missing file.
func TestDiscreteSuggestChecksFilesFirst(t *testing.T) {
	dir := t.TempDir()
	kernel := testutil.WriteFile(t, dir, "K.npy", "not a npy file")
	missing := filepath.Join(dir, "nosuch.csv")
	for _, flag := range []string{"--observed", "--ids"} {
		// bayesopt suggest --kernel K.npy FLAG nosuch.csv --batch 1
		code, stdout, stderr := exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Discrete.Kernel, o.OnKernel, o.Batch = kernel, true, 1
			if flag == "--observed" {
				o.Observed = missing
			} else {
				o.Discrete.IDs, o.DiscreteFlags = missing, []string{"ids"}
			}
		}))
		if code != ExitRuntime || stdout != "" || !strings.Contains(stderr, "nosuch.csv: no such file") || strings.Contains(stderr, "K.npy") {
			t.Errorf("%s missing: exit %d, stdout %q, stderr %q; want exit 1 naming nosuch.csv, not K.npy", flag, code, stdout, stderr)
		}
	}
}
