package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
