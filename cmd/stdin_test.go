package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// runQVSStdin runs qvs with stdin holding in.
func runQVSStdin(t *testing.T, in []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = MainIO(args, bytes.NewReader(in), &o, &e)
	return code, o.String(), e.String()
}

// TestStdinDash: "-" as a file argument reads stdin
// (CSV or .npy), with the same output as the file; messages name stdin,
// not the temporary copy, which is removed; "-" twice is refused.
func TestStdinDash(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	same := func(name string, in []byte, file string, args ...string) {
		t.Helper()
		withFile := make([]string, len(args))
		for i, a := range args {
			withFile[i] = a
			if a == "-" {
				withFile[i] = file
			}
		}
		code, want, stderr := runQVS(t, withFile...)
		if code != 0 {
			t.Fatalf("%s with the file: exit %d: %s", name, code, stderr)
		}
		code, got, stderr := runQVSStdin(t, in, args...)
		if code != 0 || got != want {
			t.Errorf("%s from stdin: exit %d (%s)\n%s\nwant\n%s", name, code, stderr, got, want)
		}
	}
	k := testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
	same("score --kernel -", []byte(testutil.Kernel3), k, "score", "--kernel", "-", "--format", "csv")
	q := "0.5\n1\n0.25\n"
	same("score --quality -", []byte(q), testutil.WriteFile(t, dir, "q.csv", q), "score", "--kernel", k, "--quality", "-", "--format", "csv")
	emb := "id,x1,x2\na,1,0\nb,0,1\nc,0.7,0.7\nd,-1,0\n"
	same("select --embeddings -", []byte(emb), testutil.WriteFile(t, dir, "emb.csv", emb), "select", "--embeddings", "-", "--id-column", "id", "--k", "2", "--format", "json")
	npy := filepath.Join(dir, "X.npy")
	testutil.WriteNPY(t, npy, "<f8", []int{3, 2}, []float64{1, 0, 0, 1, 0.6, 0.8})
	b, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	same("score --embeddings - (.npy)", b, npy, "score", "--embeddings", "-", "--format", "csv")

	pool := testutil.LinePoolCSV(false)
	poolPath := asWriteFile(t, dir, "pool.csv", pool)
	obs := "id,label\nm10,1\nm30,0\n"
	obsPath := asWriteFile(t, dir, "obs.csv", obs)
	base := []string{"as", "suggest", "--cache-dir", filepath.Join(dir, "cache"), "--id-column", "id", "--feature-prefix", "x", "--k", "3", "--batch", "3", "--format", "csv", "--quiet"}
	same("as suggest --observed -", []byte(obs), obsPath, append(base, "--pool", poolPath, "--observed", "-")...)
	same("as suggest --pool -", []byte(pool), poolPath, append(base, "--pool", "-", "--observed", obsPath)...)
	pend := "id\nm11\n"
	same("as suggest --pending -", []byte(pend), asWriteFile(t, dir, "pending.csv", pend), append(base, "--pool", poolPath, "--observed", obsPath, "--pending", "-")...)

	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: n, lower: 1, upper: 9, type: int}\n")
	evals := "a,n,value\n0.5,3,1\n0.2,7,0.5\n0.9,2,2\n0.4,5,1.5\n"
	same("bayesopt suggest --observed -", []byte(evals), testutil.WriteFile(t, dir, "evals.csv", evals), "bayesopt", "suggest", "--space", space, "--observed", "-", "--batch", "2", "--init", "3", "--seed", "1")
	running := "a,n\n0.3,4\n"
	same("bayesopt suggest --pending -", []byte(running), testutil.WriteFile(t, dir, "running.csv", running), "bayesopt", "suggest", "--space", space, "--observed", testutil.WriteFile(t, dir, "evals2.csv", evals), "--pending", "-", "--batch", "2", "--init", "3", "--seed", "1")
	testutil.WriteToyMOF(t, dir, 8)
	kb, err := os.ReadFile(filepath.Join(dir, "mof", "kernel.csv"))
	if err != nil {
		t.Fatal(err)
	}
	same("bayesopt suggest --kernel -", kb, filepath.Join(dir, "mof", "kernel.csv"), "bayesopt", "suggest", "--kernel", "-", "--observed", testutil.WriteFile(t, dir, "good.csv", "index,value\n1,2.5\n4,1\n"), "--batch", "2", "--seed", "1")

	// --graph: an edge list and a scipy CSR .npz (a line graph 0-1-...-9).
	m := &fileio.CSR{Rows: 10, Cols: 10, Indptr: []int{0}}
	var edges strings.Builder
	edges.WriteString("i,j,w\n")
	for i := range 10 {
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < 10 {
				m.Indices, m.Data = append(m.Indices, j), append(m.Data, 0.5)
				fmt.Fprintf(&edges, "%d,%d,0.5\n", i, j)
			}
		}
		m.Indptr = append(m.Indptr, len(m.Data))
	}
	npz := filepath.Join(dir, "W.npz")
	if err := fileio.WriteCSRNPZ(npz, m); err != nil {
		t.Fatal(err)
	}
	nb, err := os.ReadFile(npz)
	if err != nil {
		t.Fatal(err)
	}
	lineObs := asWriteFile(t, dir, "lobs.csv", "index,label\n4,1\n")
	graph := []string{"as", "suggest", "--observed", lineObs, "--batch", "3", "--format", "csv", "--quiet", "--graph", "-"}
	same("as suggest --graph - (.npz)", nb, npz, graph...)
	same("as suggest --graph - (edges)", []byte(edges.String()), testutil.WriteFile(t, dir, "edges.csv", edges.String()), graph...)

	// Errors name stdin.
	code, out, stderr := runQVSStdin(t, []byte("id,label\nm99,1\n"), append(base, "--pool", poolPath, "--observed", "-")...)
	if code != 1 || out != "" || !strings.Contains(stderr, `stdin: line 2, column 1 (id): id "m99"`) || strings.Contains(stderr, "qvs-stdin") {
		t.Errorf("bad stdin: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = runQVSStdin(t, []byte(obs), append(base, "--pool", poolPath, "--observed", "-", "--pending", "-")...)
	if code != 2 || out != "" || !strings.Contains(stderr, "--observed and --pending are both - (stdin)") {
		t.Errorf("- twice: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "qvs-stdin-*")); len(left) != 0 {
		t.Errorf("temporary copies left behind: %v", left)
	}
}

// endless is a reader that never ends (like /dev/zero), counting what was
// read from it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '1'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestStdinDashBounded: a file flag given as "-" reads at most maxStdin
// bytes of stdin (an endless stdin, `< /dev/zero`, was read without end
// into memory) and says so; the temporary copy is removed; stdin within
// the bound still works.
func TestStdinDashBounded(t *testing.T) {
	saved := maxStdin
	maxStdin = 1 << 20
	defer func() { maxStdin = saved }()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src := &endless{}
	var o, e bytes.Buffer
	code := MainIO([]string{"score", "--kernel", "-"}, src, &o, &e)
	if code == 0 || o.Len() != 0 || !strings.Contains(e.String(), "--kernel -: stdin holds more than 1048576 bytes") || src.n > 2<<20 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d bytes read", code, o.String(), e.String(), src.n)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left %v in TMPDIR", left)
	}
	if code, out, errs := runQVSStdin(t, []byte("1,0\n0,1\n"), "score", "--kernel", "-", "--q", "1", "--format", "csv"); code != 0 || out != "q,vs\n1,2\n" {
		t.Errorf("a 2 x 2 kernel on stdin: exit %d, %q, %s", code, out, errs)
	}
}

// TestSpaceFromStdin: `bayesopt suggest --space -` reads the space from
// stdin, as "-" does for every file read once (it failed with "stat -: no
// such file or directory"), with the same output as the file; a campaign,
// which reads its space again on every rerun, refuses "-" naming --space.
func TestSpaceFromStdin(t *testing.T) {
	dir := t.TempDir()
	const body = "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n"
	space := testutil.WriteFile(t, dir, "space.yaml", body)
	code, want, stderr := runQVS(t, "bayesopt", "suggest", "--space", space, "--batch", "3")
	if code != 0 {
		t.Fatal(stderr)
	}
	code, got, stderr := runQVSStdin(t, []byte(body), "bayesopt", "suggest", "--space", "-", "--batch", "3")
	if code != 0 || got != want {
		t.Errorf("--space -: exit %d, %q (file: %q), %s", code, got, want, stderr)
	}
	code, _, stderr = runQVSStdin(t, []byte(body), "bayesopt", "--space", "-", "--objective-cmd", "false", "--out", filepath.Join(dir, "bo"))
	if code != ExitUsage || !strings.Contains(stderr, "--space -: a campaign records its --space file") {
		t.Errorf("campaign --space -: exit %d, %s", code, stderr)
	}
}
