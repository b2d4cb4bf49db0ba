package cli

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestGraphProgressPhases: with no delay, the approximate build shows its
// phases on stderr in order, each closed by a line with its work (trees,
// the recall sample, the rounds, re-rank, recall), then the summary; with
// --quiet stderr is empty; stdout (empty for graph, the batch for as
// suggest) is the same either way and the graph file the same bytes.
func TestGraphProgressPhases(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	defer func(f func(io.Writer) bool) { stepFrames = f }(stepFrames)
	stepFrames = func(io.Writer) bool { return true } // a terminal
	dir := t.TempDir()
	const n, d = 800, 4
	rng := rand.New(rand.NewPCG(7, 1))
	x := make([]float32, 0, n*d)
	for i := range n {
		c := float64(i % 8)
		for range d {
			x = append(x, float32(3*c+rng.NormFloat64()))
		}
	}
	pool := writeNPY32(t, dir, "pool.npy", n, d, x)
	var files [2][]byte
	for q, quiet := range []bool{false, true} {
		out := filepath.Join(dir, "w.npz")
		// graph --pool pool.npy --k 5 --knn approx --out w.npz [--quiet]
		code, stdout, stderr := exitOf(t, RunGraph, &GraphOptions{Pool: csvPool(pool, func(c *datasets.CSVConfig) {
			c.K, c.KNN = 5, knn.KNNApprox
		}), Out: out}, func(e *Env) { e.CacheDir, e.Quiet = filepath.Join(dir, fmt.Sprint("cache", q)), quiet })
		if code != 0 || stdout != "" {
			t.Fatalf("quiet %v: exit %d, stdout %q, stderr %s", quiet, code, stdout, stderr)
		}
		var err error
		if files[q], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		if quiet {
			if stderr != "" {
				t.Errorf("--quiet: stderr %q", stderr)
			}
			continue
		}
		// The lines that close each phase, in order (a bar is cleared by
		// a carriage return).
		stderr = strings.ReplaceAll(stderr, "\r", "\n")
		re := regexp.MustCompile(`(?m)^kNN graph: ([a-z0-9 -]+): (\d+) (steps|distances|pairs) in \d+\.\d s$`)
		var phases []string
		for _, m := range re.FindAllStringSubmatch(stderr, -1) {
			phases = append(phases, m[1])
			if m[2] == "0" {
				t.Errorf("phase %q did no work", m[1])
			}
		}
		rounds := regexp.MustCompile(`NN-descent, (\d+) rounds`).FindStringSubmatch(stderr)
		if rounds == nil {
			t.Fatalf("no rounds in %q", stderr)
		}
		want := []string{"trees", "recall sample"}
		r, _ := strconv.Atoi(rounds[1])
		for i := 1; i <= r; i++ {
			want = append(want, "round "+strconv.Itoa(i))
		}
		want = append(want, "re-rank", "recall")
		if strings.Join(phases, ",") != strings.Join(want, ",") {
			t.Errorf("phases %q, want %q; stderr:\n%s", phases, want, stderr)
		}
		// A phase's bar is shown under its own description.
		if !regexp.MustCompile(`kNN graph: trees +\d+% \|`).MatchString(stderr) {
			t.Errorf("no bar for the trees:\n%s", stderr)
		}
		if last := strings.LastIndex(stderr, "kNN graph: recall:"); last < 0 || last > strings.Index(stderr, "built in") {
			t.Errorf("the summary does not follow the phases:\n%s", stderr)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the graph file differs with --quiet")
	}
	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n1,0\n")
	var outs [2]string
	for q, quiet := range []bool{false, true} {
		// as suggest --pool pool.npy --k 5 --knn approx --observed obs.csv --batch 3 [--quiet]
		code, stdout, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
			c.K, c.KNN = 5, knn.KNNApprox
		}), func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed, o.Batch = obs, 3
		}), func(e *Env) { e.CacheDir, e.Quiet = filepath.Join(dir, fmt.Sprint("as-cache", q)), quiet })
		if code != 0 {
			t.Fatalf("as suggest: exit %d: %s", code, stderr)
		}
		if quiet && stderr != "" {
			t.Errorf("as suggest --quiet: stderr %q", stderr)
		}
		if !quiet && !strings.Contains(stderr, "kNN graph: round 1:") {
			t.Errorf("as suggest: no phase lines:\n%s", stderr)
		}
		outs[q] = stdout
	}
	if outs[0] != outs[1] || outs[0] == "" {
		t.Errorf("as suggest stdout differs with --quiet:\n%s\n%s", outs[0], outs[1])
	}
}

// TestGraphStepsNotTerminal: the approximate graph's build through `qvs
// graph` writes its phases as lines when stderr is not a terminal (a
// start and an end line each, no frames), a few hundred bytes, fewer than
// with frames.
func TestGraphStepsNotTerminal(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	defer func(f func(io.Writer) bool) { stepFrames = f }(stepFrames)
	dir := t.TempDir()
	const n, d = 3000, 4
	rng := rand.New(rand.NewPCG(7, 2))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	pool := writeNPY32(t, dir, "pool.npy", n, d, x)
	var sizes [2]int
	for i, frames := range []bool{false, true} {
		stepFrames = func(io.Writer) bool { return frames }
		code, _, stderr := exitOf(t, RunGraph, &GraphOptions{Pool: csvPool(pool, func(c *datasets.CSVConfig) {
			c.K = 10
			c.KNN = "approx"
		}), Out: filepath.Join(dir, "w.npz")}, func(e *Env) { e.CacheDir = filepath.Join(dir, fmt.Sprint("c", i)) })
		if code != 0 {
			t.Fatalf("graph: exit %d: %s", code, stderr)
		}
		sizes[i] = len(stderr)
		if frames {
			continue
		}
		if strings.Contains(stderr, "\r") || strings.Contains(stderr, "%") {
			t.Errorf("not a terminal: frames on stderr:\n%q", stderr)
		}
		for _, phase := range []string{"kNN graph: trees", "kNN graph: round 1", "kNN graph: re-rank"} {
			if strings.Count(stderr, phase) != 2 {
				t.Errorf("not a terminal: phase %q has %d lines, want a start and an end line:\n%s", phase, strings.Count(stderr, phase), stderr)
			}
		}
	}
	if sizes[0] >= sizes[1] {
		t.Errorf("stderr without frames %d bytes, with %d: want fewer", sizes[0], sizes[1])
	}
}
