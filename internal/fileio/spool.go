package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// StdinName is how messages name data read from stdin (Spool.Rename).
const StdinName = "stdin"

// Spool is a temporary copy of a stream (stdin) that the file readers can
// open by path; the zero value is none.
type Spool struct{ dir, path string }

// SpoolStdin copies r, at most max bytes, to a new temporary file named by
// what it holds, since the readers tell formats by extension: stdin.npy
// when it starts with the NumPy magic, stdin.npz when it is a zip (scipy's
// save_npz), stdin.csv otherwise. The copy is streamed, never held in
// memory; more than max bytes is an error (a stream has no size to justify
// what is read: `< /dev/zero` would never end). On error nothing is left.
func SpoolStdin(r io.Reader, max int64) (Spool, error) {
	in := bufio.NewReader(r)
	head, _ := in.Peek(6)
	dir, err := os.MkdirTemp("", "qvs-stdin-")
	if err != nil {
		return Spool{}, err
	}
	name := "stdin.csv"
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		name = "stdin.npy"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		name = "stdin.npz"
	}
	s := Spool{dir: dir, path: filepath.Join(dir, name)}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		var n int64
		n, err = io.Copy(f, io.LimitReader(in, max+1))
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err == nil && n > max {
			err = fmt.Errorf("stdin holds more than %d bytes, the most qvs reads from stdin: give the data as a file", max)
		}
	}
	if err != nil {
		s.Remove()
		return Spool{}, err
	}
	return s, nil
}

// Path is the temporary file's path ("" for none).
func (s Spool) Path() string { return s.path }

// Remove deletes the temporary copy.
func (s Spool) Remove() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// Rename names the stream (StdinName) instead of the temporary copy in a
// message.
func (s Spool) Rename(msg string) string {
	if s.path == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.path, StdinName)
}
