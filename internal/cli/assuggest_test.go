package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
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
