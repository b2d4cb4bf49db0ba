//go:build unix

package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenInputRefusesNonRegular: a named pipe with no writer (whose open
// blocks forever), a device that never ends (/dev/zero) and a directory
// are refused at once, naming the path and what it is, by OpenInput,
// ReadInput and the readers built on them; a regular file and a missing one
// behave as with os.Open.
func TestOpenInputRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "k.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	for path, want := range map[string]string{
		fifo:        "a named pipe (FIFO), not a regular file",
		"/dev/zero": "a device, not a regular file",
		dir:         "a directory, not a regular file",
	} {
		done := make(chan error, 4)
		go func() {
			_, err := OpenInput(path)
			done <- err
			_, err = ReadInput(path)
			done <- err
			_, err = ReadTable(path, false)
			done <- err
			_, err = ReadNPYFile(path + "")
			done <- err
		}()
		for i := 0; i < 4; i++ {
			select {
			case err := <-done:
				if !errors.Is(err, errNotRegular) || !strings.Contains(err.Error(), path+": "+want) {
					t.Errorf("%s, reader %d: error %v, want %q", path, i, err, want)
				}
			case <-time.After(time.Minute): // a FIFO without a writer blocks forever
				t.Fatalf("%s, reader %d: still blocked after 60 s", path, i)
			}
		}
	}
	reg := filepath.Join(dir, "r.csv")
	os.WriteFile(reg, []byte("1,2\n"), 0o644)
	if b, err := ReadInput(reg); err != nil || string(b) != "1,2\n" {
		t.Errorf("regular file: %q, %v", b, err)
	}
	if _, err := ReadInput(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
