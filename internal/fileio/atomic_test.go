package fileio

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFsyncDelayHook: the test hook slows every atomic write by FsyncDelay
// and the file is still written whole.
func TestFsyncDelayHook(t *testing.T) {
	const delay = 150 * time.Millisecond
	old := FsyncDelay
	FsyncDelay = delay
	t.Cleanup(func() { FsyncDelay = old })
	path := filepath.Join(t.TempDir(), "f.csv")
	t0 := time.Now()
	if err := WriteAtomic(path, []byte("a,b\n")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took < delay {
		t.Errorf("WriteAtomic took %v with FsyncDelay %v", took, delay)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a,b\n" {
		t.Errorf("file %q, %v", b, err)
	}
}
