package cmd

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: the hidden --cpuprofile flag writes a Go CPU profile (a
// gzip-compressed protocol buffer, which `go tool pprof` reads) for any
// command; an unwritable path is an error naming the flag.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	code, _, errs := runQVS(t, "version", "--cpuprofile", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("profile is not gzip data: %v", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || len(body) == 0 {
		t.Errorf("profile: %d bytes after decompression, err %v", len(body), err)
	}
	code, _, errs = runQVS(t, "version", "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"))
	if code == ExitOK || !strings.Contains(errs, "--cpuprofile") {
		t.Errorf("unwritable profile path: exit %d, stderr %q", code, errs)
	}
}
