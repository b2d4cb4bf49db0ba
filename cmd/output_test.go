package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestGraphOutRefusesInputsAndForeignFiles: `qvs graph --out` never
// replaces the pool itself (.npy or CSV), a FIFO or a file qvs did not
// write (unless --force), exits 2 naming --out, and rewrites its own .npz.
func TestGraphOutRefusesInputsAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	n, d, x := graphPool()
	npy := writeNPY32(t, dir, "Xc.npy", n, d, x)
	var b strings.Builder
	b.WriteString("id,f0,f1\n")
	for i := range n {
		b.WriteString(strings.Join([]string{"i" + strconv.Itoa(i), strconv.FormatFloat(float64(x[i*d]), 'g', -1, 64), strconv.FormatFloat(float64(x[i*d+1]), 'g', -1, 64)}, ","))
		b.WriteString("\n")
	}
	csv := writeFile(t, dir, "pool.csv", b.String())
	fifo := filepath.Join(dir, "fifo.npz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	mine := writeFile(t, dir, "mine.npz", "not a graph")
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
		args := []string{"graph", "--pool", tc.pool, "--k", "3", "--out", tc.out, "--cache-dir", cache}
		if tc.pool == csv {
			args = append(args, "--id-column", "id")
		}
		code, stdout, stderr := runQVS(t, args...)
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
	if code, _, stderr := runQVS(t, "graph", "--force", "--quiet", "--pool", npy, "--k", "3", "--out", mine, "--cache-dir", cache); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	// mine.npz is now a graph qvs wrote: rewritten without --force.
	if code, _, stderr := runQVS(t, "graph", "--quiet", "--pool", npy, "--k", "4", "--out", mine, "--cache-dir", cache); code != 0 {
		t.Fatalf("rewrite of qvs's own .npz: exit %d: %s", code, stderr)
	}
}

// TestToyOutKeepsItsConfig: `qvs toy --config config.yaml --out .` is
// refused (the resolved config replaced the user's file) and so is a
// folder holding someone else's toy.csv; toy's own folder is rewritten.
func TestToyOutKeepsItsConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.yaml", "n: 3\nstarts: 1\n")
	code, _, stderr := runQVS(t, "toy", "--config", cfg, "--out", dir, "--quiet")
	if code != ExitUsage || !strings.Contains(stderr, "is an input of this command") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "n: 3\nstarts: 1\n" {
		t.Errorf("config.yaml became %q", b)
	}
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	writeFile(t, other, "toy.csv", "a,b\n")
	if code, _, stderr := runQVS(t, "toy", "--n", "3", "--starts", "1", "--out", other, "--quiet"); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("foreign toy.csv: exit %d, %s", code, stderr)
	}
	own := filepath.Join(dir, "own")
	for range 2 {
		if code, _, stderr := runQVS(t, "toy", "--n", "3", "--starts", "1", "--out", own, "--quiet"); code != 0 {
			t.Fatalf("toy into its own folder: exit %d, %s", code, stderr)
		}
	}
}
