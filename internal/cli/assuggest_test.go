package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// testEnv is an Env whose streams are buffers.
func testEnv(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Out: &out, Err: &errb, Workers: 1, CacheDir: filepath.Join(t.TempDir(), "cache")}, &out, &errb
}

// unnamedIndexPool writes a pool CSV whose first column has no name and
// holds 0..n-1: its loader notes that the column is read as the row index.
func unnamedIndexPool(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString(",x1,x2\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,%d\n", i, i%7, (i*3)%5)
	}
	p := filepath.Join(t.TempDir(), "pool.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func suggestOptions(pool string) *ASSuggestOptions {
	o := DefaultASSuggestOptions()
	o.Batch, o.Format.Value, o.PoolGiven = 2, FormatCSV, true
	o.Resolve = func() (datasets.Config, search.Protocol, error) {
		c := datasets.DefaultConfig(datasets.KindCSV)
		c.CSV.File, c.CSV.K = pool, 3
		p := search.PaperProtocol()
		p.Prior = search.PriorEstimate
		return c, p, nil
	}
	return &o
}

// TestASSuggestPoolNoteOnce: the loader's note about the pool (here: a
// column without a name read as the row index) is printed once on stderr,
// and not at all under --quiet; stdout (the batch) is the same either way.
func TestASSuggestPoolNoteOnce(t *testing.T) {
	pool := unnamedIndexPool(t, 30)
	const note = "read as the row index"
	var outs []string
	for _, quiet := range []bool{false, true} {
		e, out, errb := testEnv(t)
		e.Quiet = quiet
		if err := RunASSuggest(e, suggestOptions(pool)); err != nil {
			t.Fatalf("quiet %v: %v", quiet, err)
		}
		want := 1
		if quiet {
			want = 0
		}
		if got := strings.Count(errb.String(), note); got != want {
			t.Errorf("quiet %v: the pool's note is printed %d times, want %d:\n%s", quiet, got, want, errb.String())
		}
		outs = append(outs, out.String())
	}
	if outs[0] != outs[1] || !strings.HasPrefix(outs[0], "rank,index,id,probability,qvs\n") || strings.Count(outs[0], "\n") != 3 {
		t.Errorf("stdout differs with --quiet or is not a batch of 2:\n%s\n%s", outs[0], outs[1])
	}
}

// TestASSuggestRefusesOtherKindsFlags: a flag of scored input given with
// 0/1 labels (and the reverse) is a usage error naming it; the pool is
// never resolved.
func TestASSuggestRefusesOtherKindsFlags(t *testing.T) {
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.csv")
	scores := filepath.Join(dir, "scores.csv")
	os.WriteFile(labels, []byte("index,label\n0,1\n"), 0o644)
	os.WriteFile(scores, []byte("index,value\n0,1.5\n"), 0o644)
	for _, c := range []struct {
		observed string
		set      func(o *ASSuggestOptions)
		want     string
	}{
		{labels, func(o *ASSuggestOptions) { o.ScoreFlags = []string{"minimize"} }, "--minimize applies only with scores"},
		{scores, func(o *ASSuggestOptions) { o.LabelFlags = []string{"fantasy"} }, "--fantasy applies only with 0/1 labels"},
	} {
		e, out, _ := testEnv(t)
		o := suggestOptions("unused.csv")
		o.Observed = c.observed
		o.Resolve = func() (datasets.Config, search.Protocol, error) {
			t.Fatal("resolved the pool of a refused command line")
			return datasets.Config{}, search.Protocol{}, nil
		}
		c.set(o)
		err := RunASSuggest(e, o)
		if err == nil || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%s: err %v (exit %d), stdout %q; want a usage error %q", c.observed, err, ExitCode(err), out, c.want)
		}
	}
}

// linePool writes 40 items on a line (x1 = i) with ids m00..m39 and, with
// labels, every 5th item positive.
func linePool(t *testing.T, labels bool) string {
	var b strings.Builder
	b.WriteString("id,x1")
	if labels {
		b.WriteString(",label")
	}
	b.WriteString("\n")
	for i := range 40 {
		fmt.Fprintf(&b, "m%02d,%d", i, i)
		if labels {
			fmt.Fprintf(&b, ",%d", map[bool]int{true: 1, false: 0}[i%5 == 0])
		}
		b.WriteString("\n")
	}
	return testutil.WriteFile(t, t.TempDir(), "pool.csv", b.String())
}

// TestASSuggestKNNProbabilities: the probability column against the kNN
// model's closed form. k = 2 on a line: items 9 and 11 list the positive
// m10 with the Gaussian weight of the median edge (every edge has length
// 1: w = 1/e), so p = (a1 + w)/(1 + w); every item away from both labels
// has p = a1. a1 is the estimate from the two labels alone, both with no
// labelled neighbour (Laplace's rule, (1 + 1)/(2 + 2) = 1/2), a given
// number, or the pool's prevalence (8/40) when asked for; labels of the
// pool that are not in --observed change nothing otherwise.
func TestASSuggestKNNProbabilities(t *testing.T) {
	obs := testutil.WriteFile(t, t.TempDir(), "obs.csv", "id,label\nm10,1\nm30,0\n")
	suggest := func(pool, prior string, given bool) ([][]string, string) {
		t.Helper()
		o := suggestOptions(pool)
		o.Observed, o.Batch, o.Method = obs, 3, "one-step"
		o.Labels.PriorGiven = given
		o.Resolve = func() (datasets.Config, search.Protocol, error) {
			c := datasets.DefaultConfig(datasets.KindCSV)
			c.CSV.File, c.CSV.IDColumn, c.CSV.K = pool, "id", 2
			p := search.PaperProtocol()
			p.Prior = prior
			return c, p, nil
		}
		err, out, stderr := runCmd(t, RunASSuggest, o)
		if err != nil {
			t.Fatalf("prior %s: %v", prior, err)
		}
		var rows [][]string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			rows = append(rows, strings.Split(l, ","))
		}
		return rows, stderr
	}
	w := math.Exp(-1)
	pool, labelled := linePool(t, false), linePool(t, true)
	for _, c := range []struct {
		pool, prior string
		given       bool
		a1          float64
		says        string
	}{
		{pool, search.PriorEstimate, false, 0.5, "prior a1 = 0.5: empirical Bayes from 2 observed label(s), 1 positive (2 with no labelled neighbour, 1 positive)"},
		{labelled, search.PriorEstimate, false, 0.5, "prior a1 = 0.5: empirical Bayes"},
		{pool, "0.05", true, 0.05, "prior a1 = 0.05 (given)"},
		{labelled, search.PriorPrevalence, true, 0.2, "prior a1 = 0.2: the pool's true prevalence"},
	} {
		rows, stderr := suggest(c.pool, c.prior, c.given)
		if !strings.Contains(stderr, c.says) {
			t.Errorf("prior %s: stderr %q does not say %q", c.prior, stderr, c.says)
		}
		if near := map[string]bool{rows[0][2]: true, rows[1][2]: true}; !near["m09"] || !near["m11"] {
			t.Fatalf("prior %s: first picks %v, want m09 and m11 (next to the positive)", c.prior, rows)
		}
		for r, want := range []float64{(c.a1 + w) / (1 + w), (c.a1 + w) / (1 + w), c.a1} {
			if p, _ := strconv.ParseFloat(rows[r][3], 64); math.Abs(p-want) > 1e-12 {
				t.Errorf("prior %s, rank %d (%s): probability %.17g, want %.17g", c.prior, r+1, rows[r][2], p, want)
			}
		}
	}
	// prior: prevalence from a config, not a flag, is refused.
	o := suggestOptions(labelled)
	o.Observed = obs
	o.Resolve = func() (datasets.Config, search.Protocol, error) {
		c := datasets.DefaultConfig(datasets.KindCSV)
		c.CSV.File = labelled
		p := search.PaperProtocol()
		p.Prior = search.PriorPrevalence
		return c, p, nil
	}
	if err, out, _ := runCmd(t, RunASSuggest, o); ExitCode(err) != ExitUsage || out != "" || !strings.Contains(err.Error(), "pass --prior prevalence") {
		t.Errorf("prior: prevalence from a config: %v, %q", err, out)
	}
}
