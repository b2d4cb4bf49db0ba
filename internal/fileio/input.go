package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// errNotRegular is wrapped by OpenInput's error for a path that is not a
// regular file.
var errNotRegular = errors.New("not a regular file")

// notRegularError says what path is instead of a regular file.
type notRegularError struct{ what string }

func (e notRegularError) Error() string {
	return e.what + ", not a regular file: qvs reads its inputs from files whose size it knows (save the data to a file)"
}

func (e notRegularError) Unwrap() error { return errNotRegular }

// OpenInput opens path, a file qvs reads, like os.Open, but refuses what
// is not a regular file (after symbolic links) without opening it: a named
// pipe (FIFO) with no writer would block the open forever, and a device
// such as /dev/zero or a pipe would be read without end (eleven
// readers hung on a FIFO, `--observed /dev/zero` read until memory ran
// out). A regular file's size then bounds what every reader holds. The
// error is an *fs.PathError ("open PATH: a named pipe (FIFO), not a
// regular file: ..."), so errors.Is(err, fs.ErrNotExist) works as with
// os.Open. Every reader of a user's file, and of qvs's own files in a
// results folder or cache, opens it through here or ReadInput.
func OpenInput(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced between the two calls.
	if fi, err = f.Stat(); err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkRegular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: notRegularError{what(fi.Mode())}}
}

// ReadInput is os.ReadFile through OpenInput: a regular file read whole,
// never beyond the size it had when opened (a file growing while read, a
// log, is read up to that size).
func ReadInput(path string) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b[:n], nil
}
