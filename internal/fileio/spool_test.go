package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpoolStdin: the copy is named by its content's format, holds the
// stream byte for byte, is bounded, and Remove leaves nothing.
func TestSpoolStdin(t *testing.T) {
	for content, name := range map[string]string{"\x93NUMPY\x01\x00": "stdin.npy", "PK\x03\x04rest": "stdin.npz", "a,b\n1,2\n": "stdin.csv", "": "stdin.csv"} {
		s, err := SpoolStdin(strings.NewReader(content), 100)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.Path())
		if err != nil || string(b) != content || filepath.Base(s.Path()) != name {
			t.Errorf("%q: %s holds %q (%v), want %s", content, s.Path(), b, err, name)
		}
		if got := s.Rename("bad row in " + s.Path()); got != "bad row in stdin" {
			t.Errorf("Rename: %q", got)
		}
		s.Remove()
		if _, err := os.Stat(filepath.Dir(s.Path())); !os.IsNotExist(err) {
			t.Errorf("%s left after Remove: %v", filepath.Dir(s.Path()), err)
		}
	}
	if _, err := SpoolStdin(strings.NewReader(strings.Repeat("x", 101)), 100); err == nil || !strings.Contains(err.Error(), "more than 100 bytes") {
		t.Errorf("101 bytes with max 100: %v", err)
	}
	if s, err := SpoolStdin(strings.NewReader(strings.Repeat("x", 100)), 100); err != nil {
		t.Errorf("100 bytes with max 100: %v", err)
	} else {
		s.Remove()
	}
	if got := (Spool{}).Rename("msg"); got != "msg" {
		t.Errorf("zero Spool renames: %q", got)
	}
}

// TestSweepSpools: spool folders of processes that were killed (lock
// free, a minute old) are removed by the next spool; a live spool (lock
// held) and a fresh one are kept. Before, they stayed for ever (573 MB +
// 243 MB in one temporary folder).
func TestSweepSpools(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := SpoolStdin(strings.NewReader("a,b\n1,2\n"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	old := time.Now().Add(-2 * time.Minute)
	orphan := filepath.Join(tmp, spoolPrefix+"otherhost_1_9")
	deadPid := filepath.Join(tmp, spoolPrefix+hostName()+"_999999999_1")
	fresh := filepath.Join(tmp, spoolPrefix+hostName()+"_999999999_2")
	for _, d := range []string{orphan, deadPid, fresh} {
		os.Mkdir(d, 0o700)
		os.WriteFile(filepath.Join(d, "stdin.csv"), []byte("x"), 0o600)
	}
	for _, p := range []string{orphan, deadPid, filepath.Join(orphan, "stdin.csv"), filepath.Join(deadPid, "stdin.csv"), live.Path(), filepath.Dir(live.Path())} {
		os.Chtimes(p, old, old)
	}
	other := filepath.Join(tmp, "unrelated")
	os.Mkdir(other, 0o700)
	os.Chtimes(other, old, old)
	second, err := SpoolStdin(strings.NewReader("c\n"), 1<<20) // sweeps first
	if err != nil {
		t.Fatal(err)
	}
	defer second.Remove()
	for p, want := range map[string]bool{orphan: false, deadPid: false, fresh: true, filepath.Dir(live.Path()): true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if b, err := os.ReadFile(live.Path()); err != nil || string(b) != "a,b\n1,2\n" {
		t.Errorf("live spool: %q %v", b, err)
	}
}
