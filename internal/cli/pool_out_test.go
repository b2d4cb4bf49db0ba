package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestGraphOutRefusesInputsAndForeignFiles: `qvs graph --out` never
// replaces the pool itself (.npy or CSV), a FIFO or a file qvs did not
// write (unless --force), exits 2 naming --out, and rewrites its own .npz.
func TestGraphOutRefusesInputsAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	n, d, x := testutil.GraphPool()
	npy := writeNPY32(t, dir, "Xc.npy", n, d, x)
	var b strings.Builder
	b.WriteString("id,f0,f1\n")
	for i := range n {
		b.WriteString(strings.Join([]string{"i" + strconv.Itoa(i), strconv.FormatFloat(float64(x[i*d]), 'g', -1, 64), strconv.FormatFloat(float64(x[i*d+1]), 'g', -1, 64)}, ","))
		b.WriteString("\n")
	}
	csv := testutil.WriteFile(t, dir, "pool.csv", b.String())
	fifo := filepath.Join(dir, "fifo.npz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	mine := testutil.WriteFile(t, dir, "mine.npz", "not a graph")
	cache := filepath.Join(dir, "cache")
	for _, tc := range []struct{ pool, out, want string }{
		{npy, npy, "is an input of this command"},
		{csv, csv, "is an input of this command"},
		{npy, fifo, "named pipe"},
		{npy, mine, "--force"},
	} {
		var before []byte
		if tc.out != fifo {
			before, _ = os.ReadFile(tc.out)
		}
		// graph --pool POOL --k 3 --out OUT --cache-dir DIR [--id-column id]
		pool := csvPool(tc.pool, func(c *datasets.CSVConfig) { c.K = 3 })
		if tc.pool == csv {
			pool.CSV.IDColumn = "id"
		}
		code, stdout, stderr := exitOf(t, RunGraph, &GraphOptions{Pool: pool, Out: tc.out}, func(e *Env) { e.CacheDir = cache })
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--out "+tc.out) || !strings.Contains(stderr, tc.want) {
			t.Errorf("--pool %s --out %s: exit %d, stderr %q, want exit 2 and %q", tc.pool, tc.out, code, stderr, tc.want)
		}
		if tc.out != fifo {
			if after, _ := os.ReadFile(tc.out); string(after) != string(before) {
				t.Errorf("--out %s was changed", tc.out)
			}
		}
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", fi.Mode())
	}
	if code, _, stderr := exitOf(t, RunGraph, &GraphOptions{Pool: csvPool(npy, func(c *datasets.CSVConfig) { c.K = 3 }), Out: mine}, func(e *Env) {
		e.Force = true
		e.Quiet = true
		e.CacheDir = cache
	}); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	// mine.npz is now a graph qvs wrote: rewritten without --force.
	if code, _, stderr := exitOf(t, RunGraph, &GraphOptions{Pool: csvPool(npy, func(c *datasets.CSVConfig) { c.K = 4 }), Out: mine}, func(e *Env) {
		e.Quiet = true
		e.CacheDir = cache
	}); code != 0 {
		t.Fatalf("rewrite of qvs's own .npz: exit %d: %s", code, stderr)
	}
}

// TestASPoolDir runs a campaign and a suggestion on a pool in the authors'
// folder format (features.npy, labels.npy, nearest_neighbors.npy,
// similarities.npy) written here: 60 points on a line, every 4th positive.
func TestASPoolDir(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "line60")
	if err := os.Mkdir(pool, 0o755); err != nil {
		t.Fatal(err)
	}
	const n, k = 60, 4
	var feat, lab, nn, sim []float64
	for i := 0; i < n; i++ {
		feat = append(feat, float64(i), 0)
		lab = append(lab, b2f(i%4 == 0))
		for _, d := range []int{-2, -1, 1, 2} { // the 4 nearest on the line (wrapping at the ends)
			j := (i + d + n) % n
			nn = append(nn, float64(j))
			sim = append(sim, 1/float64(1+abs(d)))
		}
	}
	testutil.WriteNPY(t, filepath.Join(pool, "features.npy"), "<f8", []int{n, 2}, feat)
	testutil.WriteNPY(t, filepath.Join(pool, "labels.npy"), "<i8", []int{n}, lab)
	testutil.WriteNPY(t, filepath.Join(pool, "nearest_neighbors.npy"), "<i8", []int{n, k}, nn)
	testutil.WriteNPY(t, filepath.Join(pool, "similarities.npy"), "<f8", []int{n, k}, sim)
	out := filepath.Join(dir, "res")
	cfg := SyntheticASConfig()
	cfg.Pool = datasets.DefaultConfig("folder")
	cfg.Pool.Dir, cfg.Task, cfg.Out = pool, "line60", out
	cfg.Methods, cfg.Q, cfg.Repeats, cfg.Budget, cfg.Batch = []string{"one-step", "qvs"}, orders(t, "1"), 2, 8, 2
	if err := CheckASConfig("", &cfg, false); err != nil {
		t.Fatal(err)
	}
	env, sout, serr := campEnv(t)
	env.CacheDir = filepath.Join(dir, "cache")
	code, stdout, stderr := 0, "", ""
	if err := RunCampaign(env, &ASCampaign{Env: env, Config: cfg}, campaign.Shard{}); err != nil {
		code, stderr = ExitCode(err), err.Error()
	}
	stdout, stderr = sout.String(), stderr+serr.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))
	if len(sum) != 1+4 || !strings.Contains(stdout, "| qVS-AS, q = 1 |") {
		t.Fatalf("summary %v\n%s", sum, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "config.yaml")); !strings.Contains(string(b), "task: line60") || !strings.Contains(string(b), "kind: folder") {
		t.Errorf("config.yaml does not record the folder pool:\n%s", b)
	}
	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n1,0\n")
	code, stdout, stderr = exitOf(t, RunASSuggest, suggestOn(folderPool(pool), func(o *ASSuggestOptions, p *search.Protocol) {
		o.Observed = obs
		o.Batch = 2
		o.Method = "one-step"
		o.Format.Value = FormatCSV
		o.Labels.Prior, o.Labels.PriorGiven = "0.25", true
		o.LabelFlags = []string{"prior"}
		p.Prior = "0.25"
	}), func(e *Env) {
		e.CacheDir = filepath.Join(dir, "cache")
		e.Quiet = true
	})
	// Hand computation: a1 = 0.25 (the prevalence 15/60), a0 = 0.75. Item 58
	// lists 56, 57, 59 and 0 (positive, weight 1/3):
	// p = (0.25 + 1/3)/(0.75 + 0.25 + 1/3) = 0.4375. Item 59 lists 0 (positive,
	// 1/2) and 1 (negative, 1/3): p = 0.75/(0.75 + 1/3 + 0.75) = 9/22. Item 2
	// lists 0 and 1 with weight 1/2 each: p = 0.375. So 58, then 59.
	if code != 0 || !strings.HasPrefix(stdout, "rank,index,id,probability,qvs\n1,58,58,0.4374999999999999") || !strings.Contains(stdout, "\n2,59,59,0.409090909090909") {
		t.Errorf("suggest on a folder pool: exit %d, %s\n%s", code, stderr, stdout)
	}
}

func abs(d int) int {
	if d < 0 {
		return -d
	}
	return d
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
