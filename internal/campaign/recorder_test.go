package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// TestRecorderAppendOverlapsWrite: Append returns while the record file is
// still being written (every fsync slowed to 400 ms), the next Append waits
// for that write, the file on disk is always a complete version (the rows
// of every finished write, never part of one), and Flush leaves every row
// on disk.
func TestRecorderAppendOverlapsWrite(t *testing.T) {
	fileio.FsyncDelay = 400 * time.Millisecond
	defer func() { fileio.FsyncDelay = 0 }()
	dir := t.TempDir()
	path := filepath.Join(dir, "k.csv")
	rec := &Recorder{path: path, dir: dir, key: "k", header: []string{"a", "b"}, mu: &sync.Mutex{}}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			return "(" + err.Error() + ")"
		}
		return string(b)
	}
	if err := rec.Append([]string{"1", "x"}, []string{"2", "y"}); err != nil {
		t.Fatal(err)
	}
	if got := read(); !strings.Contains(got, "no such file") {
		t.Fatalf("right after the first Append the record file is %q: Append waited for its write", got)
	}
	if err := rec.Append([]string{"3", "z"}); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "a,b\n1,x\n2,y\n"; got != want {
		t.Fatalf("after the second Append the record file is %q, want the first write's %q", got, want)
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "a,b\n1,x\n2,y\n3,z\n"; got != want {
		t.Fatalf("after Flush the record file is %q, want %q", got, want)
	}
	if err := rec.Flush(); err != nil { // nothing in flight
		t.Fatal(err)
	}
}

// TestRecorderWriteErrorSurfaces: a write that fails (the record file's
// folder is a file) is reported by the next Append or Flush, naming the
// file.
func TestRecorderWriteErrorSurfaces(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "runs")
	if err := os.WriteFile(blocker, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "k.csv")
	for _, second := range []string{"append", "flush"} {
		rec := &Recorder{path: path, dir: blocker, key: "k", header: []string{"a"}, mu: &sync.Mutex{}}
		if err := rec.Append([]string{"1"}); err != nil {
			t.Fatalf("%s: the first Append returned %v before its write ended", second, err)
		}
		var err error
		if second == "append" {
			err = rec.Append([]string{"2"})
		} else {
			err = rec.Flush()
		}
		if err == nil || !strings.Contains(err.Error(), "k.csv") && !strings.Contains(err.Error(), "runs") {
			t.Fatalf("%s after a failed write: %v, want the write's error naming the file", second, err)
		}
	}
}
