package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// stdinName is how messages name data read from stdin (Spool.Rename).
const stdinName = "stdin"

// Spool is a temporary copy of a stream (stdin) that the file readers can
// open by path; the zero value is none.
type Spool struct {
	dir, path string
	lock      *os.File // the copy, open and flock-ed while this process lives
}

// spoolPrefix opens the name of every spool folder in the temporary
// directory: qvs-stdin-HOST_PID_RANDOM.
const spoolPrefix = "qvs-stdin-"

// SpoolStdin copies r, at most max bytes, to a new temporary file named by
// what it holds, since the readers tell formats by extension: stdin.npy
// when it starts with the NumPy magic, stdin.npz when it is a zip (scipy's
// save_npz), stdin.csv otherwise. The copy is streamed, never held in
// memory; more than max bytes is an error (a stream has no size to justify
// what is read: `< /dev/zero` would never end). On error nothing is left.
func SpoolStdin(r io.Reader, max int64) (Spool, error) {
	in := bufio.NewReader(r)
	head, _ := in.Peek(6)
	sweepSpools(os.TempDir())
	dir, err := os.MkdirTemp("", spoolPrefix+hostName()+"_"+strconv.Itoa(os.Getpid())+"_*")
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
		// The lock tells sweepSpools this copy's process is alive; it
		// is released when the process ends, however it ends.
		_ = flock(f)
		s.lock = f
		var n int64
		n, err = io.Copy(f, io.LimitReader(in, max+1))
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
	if s.lock != nil {
		s.lock.Close()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// spoolOrphanAge is how old a spool folder whose lock is free must be
// before sweepSpools removes it (its writer takes the lock a moment after
// creating it).
var spoolOrphanAge = time.Minute

// sweepSpools removes the spool folders (qvs-stdin-*) of dir left by qvs
// processes that were killed or interrupted before they removed them
// (hundreds of MB each): those whose copy no process holds locked and that
// are at least spoolOrphanAge old, or, where flock is unavailable, whose
// pid on this host no longer runs (tempOrphanAge for another host's). A
// spool of a running process is never removed. It returns how many it
// removed; every SpoolStdin calls it first.
func sweepSpools(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, spoolPrefix) {
			continue
		}
		path := filepath.Join(dir, name)
		if spoolOrphan(path, strings.TrimPrefix(name, spoolPrefix)) && os.RemoveAll(path) == nil {
			removed++
		}
	}
	return removed
}

func spoolOrphan(path, tag string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	age := time.Since(fi.ModTime())
	files, _ := os.ReadDir(path)
	for _, f := range files {
		if age = min(age, fileAge(filepath.Join(path, f.Name()))); age < spoolOrphanAge {
			return false
		}
		g, err := os.OpenFile(filepath.Join(path, f.Name()), os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		err = flock(g)
		g.Close()
		switch {
		case err == nil:
			return true // its process is gone
		case err != errFlockUnsupported:
			return false // held
		}
	}
	if age < spoolOrphanAge {
		return false
	}
	parts := strings.Split(tag, "_")
	if len(parts) == 3 && parts[0] == hostName() {
		if pid, err := strconv.Atoi(parts[1]); err == nil {
			return !processAlive(pid)
		}
	}
	return age > tempOrphanAge
}

func fileAge(path string) time.Duration {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return time.Since(fi.ModTime())
}

// Rename names the stream (stdinName) instead of the temporary copy in a
// message.
func (s Spool) Rename(msg string) string {
	if s.path == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.path, stdinName)
}
