//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestReadersRefuseFIFOsAndDevices: each of the eleven readers the audit
// found blocking forever on a named pipe with no writer (kernel, quality,
// embeddings, pool, observed, space, evals, pending, config, summary.csv,
// features.npy) refuses it at once naming the file, exit 1 or 2 and
// nothing on stdout; `--observed /dev/zero`, read without end before, is
// refused as a device.
func TestReadersRefuseFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	kernel := testutil.WriteFile(t, dir, "k.csv", "1,0\n0,1\n")
	pool := testutil.WriteFile(t, dir, "pool.csv", "id,x,y\na,0,0\nb,1,0\nc,0,1\nd,1,1\ne,2,2\n")
	observed := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n")
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	evals := testutil.WriteFile(t, dir, "e.csv", "a,value\n0.5,1\n")
	camp := filepath.Join(dir, "camp")
	os.MkdirAll(camp, 0o755)
	if err := syscall.Mkfifo(filepath.Join(camp, "summary.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	os.MkdirAll(folder, 0o755)
	if err := syscall.Mkfifo(filepath.Join(folder, "features.npy"), 0o644); err != nil {
		t.Fatal(err)
	}
	suggestPool := []string{"--cache-dir", filepath.Join(dir, "cache"), "as", "suggest", "--pool", pool, "--id-column", "id", "--k", "2", "--batch", "1", "--method", "random"}
	fifoMsg := ": a named pipe (FIFO), not a regular file"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"kernel", []string{"score", "--kernel", fifo}, fifo + fifoMsg},
		{"quality", []string{"score", "--kernel", kernel, "--quality", fifo}, fifo + fifoMsg},
		{"embeddings", []string{"score", "--embeddings", fifo}, fifo + fifoMsg},
		{"pool", []string{"as", "suggest", "--pool", fifo, "--observed", observed, "--batch", "1", "--method", "random"}, fifo + fifoMsg},
		{"observed", append(suggestPool, "--observed", fifo), fifo + fifoMsg},
		{"observed /dev/zero", append(suggestPool, "--observed", "/dev/zero"), "/dev/zero: a device, not a regular file"},
		{"space", []string{"bayesopt", "suggest", "--space", fifo, "--observed", evals}, fifo + fifoMsg},
		{"evals", []string{"bayesopt", "suggest", "--space", space, "--observed", fifo}, fifo + fifoMsg},
		{"evals /dev/zero", []string{"bayesopt", "suggest", "--space", space, "--observed", "/dev/zero"}, "/dev/zero: a device"},
		{"pending", []string{"bayesopt", "suggest", "--space", space, "--observed", evals, "--pending", fifo}, fifo + fifoMsg},
		{"config", []string{"as", "--config", fifo, "--out", filepath.Join(dir, "o")}, fifo + fifoMsg},
		{"summary.csv", []string{"eval", camp, "--out", filepath.Join(dir, "ev")}, "summary.csv" + fifoMsg},
		{"features.npy", []string{"as", "suggest", "--pool-dir", folder, "--observed", observed, "--batch", "1", "--method", "random"}, "features.npy" + fifoMsg},
	} {
		type result struct {
			code     int
			out, err string
		}
		done := make(chan result, 1)
		go func() {
			code, out, errs := runQVS(t, c.args...)
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			// eval prints its report (here "not made: ...") on stdout.
			if r.code == 0 || (r.out != "" && c.name != "summary.csv") || !strings.Contains(r.err, c.want) {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want an error containing %q", c.name, r.code, r.out, r.err, c.want)
			}
		case <-time.After(time.Minute): // a FIFO without a writer blocks forever
			t.Errorf("%s: %v still blocked after 60 s", c.name, c.args)
		}
	}
}
