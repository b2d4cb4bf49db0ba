package fileio

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WriteAtomic writes data to path through a temporary file in the same
// directory that is synced and then renamed over path. Readers see either the
// old file or the new one, never a mixture. Parent directories are created
// (mode 0777 less the umask). A path that is not a regular file (a named
// pipe, a device such as /dev/null, a directory) is refused and left as it
// is; an existing file keeps its permission bits, a new one gets 0666 less
// the umask (newFileMode).
func WriteAtomic(path string, data []byte) error {
	return WriteAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomicFunc is WriteAtomic with the contents produced by write.
// If write fails, path is left untouched.
//
// The temporary file is ".BASE.tmp-HOST_PID_RANDOM" and is flock-ed by its
// writer until renamed, so SweepTemps can tell an orphan (its writer was
// killed) from a file another process is writing right now. The first write
// into a directory by this process sweeps that directory's orphans.
func WriteAtomicFunc(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	mode, err := writeTarget(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	SweepOnce(dir)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+hostName()+"_"+strconv.Itoa(os.Getpid())+"_*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
		f.Close()
	}()
	_ = flock(f) // best effort: without it SweepTemps goes by host and pid
	// CreateTemp makes the file 0600: the new file gets the mode of the
	// one it replaces, or the user's umask's (writeTarget).
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if FsyncDelay > 0 {
		time.Sleep(FsyncDelay)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Rename while still holding the lock (closing would release it and let
	// a sweeper take the finished temp file for an orphan).
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// FsyncDelay is a test hook: when positive, WriteAtomic sleeps that long
// before every fsync, as on a slow network file system. Only test binaries
// set it (cmd's TestMain from QVS_TEST_SLOW_FSYNC, before any write); the
// qvs binary never does, whatever its environment.
var FsyncDelay time.Duration

// tempOrphanAge is how old a temporary file of another host must be before
// SweepTemps removes it when the file system offers no lock to ask.
var tempOrphanAge = time.Hour

// SweepTemps removes the temporary files ".NAME.tmp-*" of dir whose writer
// is gone (killed between creating and renaming them), and leaves those
// being written. A writer is gone when its flock on the file can be taken
// and either it is on this host and its pid no longer runs, or the file is
// at least a minute old (tempOrphanAge when flock is unavailable): a live
// writer holds its flock from a moment after creating the file, so a free
// lock on a file a minute old means its writer died, even when its pid now
// runs another process (pids are reused, from 1 again after a reboot). It
// returns how many files it removed.
func SweepTemps(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, ".tmp-")
		if !strings.HasPrefix(name, ".") || i < 0 || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, name)
		if tempOrphan(path, name[i+len(".tmp-"):]) && os.Remove(path) == nil {
			removed++
		}
	}
	return removed, nil
}

func tempOrphan(path, tag string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	age := time.Since(fi.ModTime())
	locked := false // whether we could take the writer's lock
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		err = flock(f)
		f.Close()
		if err == nil {
			locked = true
		} else if err != errFlockUnsupported {
			return false // held by its writer
		}
	}
	// tag is HOST_PID_RANDOM (hostName has no underscores).
	parts := strings.Split(tag, "_")
	if len(parts) == 3 && parts[0] == hostName() {
		if pid, err := strconv.Atoi(parts[1]); err == nil && !processAlive(pid) {
			return true
		}
	}
	if locked {
		return age > time.Minute
	}
	return age > tempOrphanAge
}

var swept sync.Map // directory -> struct{}: swept once by this process

// SweepOnce runs SweepTemps on dir the first time this process asks (and
// ignores errors: sweeping is housekeeping). Readers of caches call it, so
// an orphan in a cache directory goes even when every lookup is a hit.
func SweepOnce(dir string) {
	if _, done := swept.LoadOrStore(filepath.Clean(dir), struct{}{}); !done {
		_, _ = SweepTemps(dir)
	}
}

// WriteCSVAtomic writes a header and rows as CSV to path atomically.
func WriteCSVAtomic(path string, header []string, rows [][]string) error {
	return WriteAtomicFunc(path, func(w io.Writer) error { return writeCSV(w, header, rows) })
}

// writeCSV writes a header (if not nil) and rows as CSV to w in one write.
func writeCSV(out io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if header != nil {
		if err := w.Write(header); err != nil {
			return err
		}
	}
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	_, err := out.Write(buf.Bytes())
	return err
}
