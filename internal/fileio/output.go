package fileio

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ErrNotOurs is wrapped by CheckOutput's error for an existing file qvs did
// not write (replaced only with --force).
var ErrNotOurs = errors.New("exists and was not written by qvs")

// newFileMode is the mode of a file qvs creates: 0666 less the umask the
// process started with, as os.Create would give (077 gives 0600).
func newFileMode() fs.FileMode { return fs.FileMode(0o666 &^ processUmask) }

// writeTarget checks the file an atomic write is about to replace and
// returns the mode the new file gets: an existing regular file keeps its
// permission bits (a 0600 file stays 0600); a new one gets newFileMode.
// What is not a regular file (after symbolic links) is refused: renaming
// over a named pipe, a device (/dev/null) or a socket would replace it with
// a regular file, and a directory cannot be replaced.
func writeTarget(path string) (fs.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newFileMode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	if err := checkRegular(path, fi); err != nil {
		return 0, fmt.Errorf("write %s: %s, not a regular file: qvs writes only regular files (choose another path)", path, what(fi.Mode()))
	}
	return fi.Mode().Perm(), nil
}

// OutputCheck says what a command's output file may replace.
type OutputCheck struct {
	// Inputs are the files the same command reads: the output may be
	// none of them (compared as files, so a symbolic or hard link to an
	// input is one too).
	Inputs []string
	// Force lets an existing file that Ours does not recognise be
	// replaced (--force).
	Force bool
	// Ours tells whether an existing regular file at the output path is
	// one qvs writes there (nil: none is).
	Ours func(path string) bool
	// Flag names the output in messages ("--out").
	Flag string
}

// CheckOutput checks, before a command does any work, that path may be
// written: it is not one of the command's inputs, it is a regular file or
// nothing (the same check as every atomic write), and an existing file is
// one qvs wrote (c.Ours) unless c.Force. Every error names the flag and
// the path.
func CheckOutput(path string, c OutputCheck) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", c.Flag, path, err)
	}
	for _, in := range c.Inputs {
		if in == "" {
			continue
		}
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			return fmt.Errorf("%s %s is an input of this command (%s): choose another output path", c.Flag, path, in)
		}
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s: %s, not a regular file: qvs writes only regular files (choose another path)", c.Flag, path, what(fi.Mode()))
	}
	if c.Force || (c.Ours != nil && c.Ours(path)) {
		return nil
	}
	return fmt.Errorf("%s %s %w: give --force to replace it, or choose another path", c.Flag, path, ErrNotOurs)
}

// what names a file's kind for messages ("a named pipe (FIFO)").
func what(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// IsCSRNPZ tells whether path is a zip archive holding exactly the members
// of a SciPy CSR .npz (what WriteCSRNPZ writes); only the archive's
// directory is read.
func IsCSRNPZ(path string) bool {
	f, err := OpenInput(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	z, err := zip.NewReader(f, fi.Size())
	if err != nil || len(z.File) != len(csrMembers) {
		return false
	}
	for _, m := range z.File {
		if !slices.Contains(csrMembers, strings.TrimSuffix(m.Name, ".npy")) {
			return false
		}
	}
	return true
}
