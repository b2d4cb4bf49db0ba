package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Locks between processes sharing a folder (shards of one campaign, a
// duplicate command, a late joiner), possibly on several hosts over NFS.
//
// The primary mechanism is flock(2) on the lock file: the kernel releases
// it when the holder exits for any reason, kill -9 included, so a lock never
// outlives its owner. Where flock is unavailable (some network file systems
// answer ENOLCK or EOPNOTSUPP), or where it is local to one host (NFS mounted
// with local_lock=flock or nolock: set QVS_LOCK=lease on every process), a
// lease file is used instead: created with O_EXCL, holding the owner's host,
// pid and a nonce, and touched every leaseRefresh while held. A lease is
// stale, and may be taken over, when its owner is on this host and no longer
// runs, or when it has not been touched for leaseExpiry, whoever the owner:
// an owner on another host that died, or one on this host whose pid a new
// process has taken since (after a reboot pids start again, so a live pid
// proves nothing). Hosts' clocks must agree to within a fraction of
// leaseExpiry.
//
// The two kinds respect each other, so processes with and without
// QVS_LOCK=lease can share a folder (they computed the same runs
// twice): a lease holder also flocks its lease file where flock works, and
// a process that gets the flock of a file holding a live lease (its owner
// on another host, or between creating the file and flocking it) backs off.

// ErrLocked is returned (wrapped in a *LockedError) by TryLock when another
// live process holds the lock.
var ErrLocked = errors.New("locked by another process")

// LockedError tells who holds a lock, as far as the lock file says.
type LockedError struct {
	Path  string
	Owner string // "host pid" from the lock file; "" if unknown
}

func (e *LockedError) Error() string {
	if e.Owner == "" {
		return e.Path + ": " + ErrLocked.Error()
	}
	return fmt.Sprintf("%s: locked by process %s", e.Path, e.Owner)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Lease timing (variables so tests can shorten them). A holder touches its
// lease every leaseRefresh; a lease untouched for leaseExpiry = 6 refreshes
// is stale. A live holder misses six in a row only when stopped (SIGSTOP, a
// suspended machine) or when its file system stalls for two minutes, and
// then the cost of a takeover is one run computed twice, each record file
// still written whole; while a dead holder's run waits at most two minutes.
var (
	leaseRefresh = 20 * time.Second
	leaseExpiry  = 2 * time.Minute
)

// Lock is an exclusive inter-process lock held on a file.
type Lock struct {
	path  string
	f     *os.File      // flock mode: the locked file
	nonce string        // lease mode: our lease's nonce
	held  *os.File      // lease mode: the lease file, flocked where flock works
	stop  chan struct{} // lease mode: stops the refresher
	done  sync.WaitGroup
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// leaseMode reports whether QVS_LOCK=lease forces lease files.
var leaseMode = sync.OnceValue(func() bool { return os.Getenv("QVS_LOCK") == "lease" })

// lockModes are the values QVS_LOCK may have: lease (lease files), flock
// (the default: flock, lease files where it is unavailable), or unset.
var lockModes = []string{"lease", "flock"}

// CheckLockEnv refuses a QVS_LOCK that is not one of lockModes: a typo
// ("leases", "Lease") silently meant flock, which a network file system
// without working flock does not honour.
func CheckLockEnv() error {
	v, set := os.LookupEnv("QVS_LOCK")
	if !set || v == "" || slices.Contains(lockModes, v) {
		return nil
	}
	return fmt.Errorf("$QVS_LOCK = %s: expected lease or flock (or unset, meaning flock)", Excerpt(v))
}

// hostName is this host's name reduced to [A-Za-z0-9.-] (it goes into file
// names), "localhost" if unknown.
var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, h)
})

// owner is how a lock or temp file names this process: "host pid".
func owner() string { return hostName() + " " + strconv.Itoa(os.Getpid()) }

// TryLock takes the exclusive lock on path (created if needed) without
// waiting. It returns a *LockedError (errors.Is ErrLocked) when another live
// process holds it. A lock held by a process that has died is taken over.
// Locks are per process and per call: two TryLocks of one path in the same
// process also exclude each other.
func TryLock(path string) (*Lock, error) {
	if !leaseMode() {
		l, err := tryFlock(path)
		if !errors.Is(err, errFlockUnsupported) {
			return l, err
		}
	}
	return tryLease(path)
}

var errFlockUnsupported = errors.New("flock unsupported")

func tryFlock(path string) (*Lock, error) {
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := flock(f); err != nil {
			f.Close()
			if errors.Is(err, ErrLocked) {
				return nil, &LockedError{Path: path, Owner: readOwner(path)}
			}
			return nil, err
		}
		// The previous holder may have removed the file between our open and
		// our flock: then we hold a lock on an unlinked inode that nobody
		// else can see. Start again on the file now at path.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		if b, err := readSmall(path); err == nil && isLease(b) && !leaseStale(b, pi.ModTime()) {
			f.Close() // a live lease of a QVS_LOCK=lease process
			return nil, &LockedError{Path: path, Owner: readOwner(path)}
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(owner()+"\n"), 0)
		}
		return &Lock{path: path, f: f}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

// maxLockFile bounds what is read of a lock or lease file (qvs writes
// about 50 bytes).
const maxLockFile = 512

// readSmall reads at most maxLockFile+1 bytes of path.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxLockFile+1))
}

// readOwner returns the "host pid" recorded in a lock file, or "".
func readOwner(path string) string {
	b, err := readSmall(path)
	if err != nil || len(b) > maxLockFile {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return ""
	}
	return f[0] + " " + f[1]
}

func tryLease(path string) (*Lock, error) {
	for range 10 {
		nonce := strconv.FormatUint(rand.Uint64(), 36)
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			// Flock the new lease before writing it, so a process without
			// QVS_LOCK=lease sees it held; one that flocked it first (it
			// opened the file we had just created) holds the lock.
			held := f
			switch err := flockNewLease(f); {
			case errors.Is(err, ErrLocked):
				f.Close()
				return nil, &LockedError{Path: path, Owner: readOwner(path)}
			case err != nil:
				held = nil // flock does not work here: the lease alone
			}
			_, err = f.WriteString(owner() + " " + nonce + "\n")
			if held == nil {
				if err2 := f.Close(); err == nil {
					err = err2
				}
			}
			if err != nil {
				os.Remove(path)
				if held != nil {
					held.Close()
				}
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			l := &Lock{path: path, nonce: nonce, held: held, stop: make(chan struct{})}
			l.done.Add(1)
			go l.refresh()
			return l, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if flockHeld(path) {
			// A flock holder (either kind where flock works): alive,
			// however old its file; a flock holder never refreshes it.
			return nil, &LockedError{Path: path, Owner: readOwner(path)}
		}
		old, fi, err := readLease(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !leaseStale(old, fi.ModTime()) {
			return nil, &LockedError{Path: path, Owner: readOwner(path)}
		}
		// Take the stale lease away under a unique name, then check that it is
		// the one judged stale: another process may have replaced it since.
		aside := path + ".stale-" + nonce
		if err := os.Rename(path, aside); err != nil {
			continue
		}
		if got, _, _ := readLease(aside); !bytes.Equal(got, old) {
			_ = os.Link(aside, path) // put a live lease back unless a newer one is there
			os.Remove(aside)
			return nil, &LockedError{Path: path, Owner: readOwner(path)}
		}
		os.Remove(aside)
	}
	return nil, fmt.Errorf("lock %s: contended lease", path)
}

// flockNewLease flocks a lease file just created. Another lease taker's
// flockHeld probe holds the flock for an instant: it is retried for up to
// ~20 ms, so only a real flock holder (a process without QVS_LOCK=lease
// that opened the new file first) makes it fail.
func flockNewLease(f *os.File) error {
	err := flock(f)
	for i := 0; i < 20 && errors.Is(err, ErrLocked); i++ {
		time.Sleep(time.Millisecond)
		err = flock(f)
	}
	return err
}

// flockHeld reports whether another open file holds the flock of path (a
// live holder: the kernel drops the flock of a process that died).
func flockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(flock(f), ErrLocked)
}

func readLease(path string) ([]byte, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	b, err := readSmall(path)
	return b, fi, err
}

// isLease reports whether a lock file's content is a lease ("host pid
// nonce"), not a flock holder's "host pid".
func isLease(content []byte) bool { return len(strings.Fields(string(content))) == 3 }

// leaseStale: the owner is a dead process of this host, or the lease has
// not been refreshed for leaseExpiry, whoever the owner (a live pid of this
// host may be a new process that reused a dead holder's pid: such a lease
// was once waited for forever). An empty or unreadable lease is
// judged by age alone: its owner may be between creating and writing it.
func leaseStale(content []byte, mod time.Time) bool {
	if time.Since(mod) > leaseExpiry {
		return true
	}
	f := strings.Fields(string(content))
	if len(f) >= 2 && f[0] == hostName() {
		if pid, err := strconv.Atoi(f[1]); err == nil {
			return !processAlive(pid)
		}
	}
	return false
}

func (l *Lock) refresh() {
	defer l.done.Done()
	t := time.NewTicker(leaseRefresh)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			_ = os.Chtimes(l.path, now, now)
		}
	}
}

// Unlock removes the lock file and releases the lock. Removing it while
// holding it is safe: TryLock checks that the file it locked is still the
// one at the path.
func (l *Lock) Unlock() error {
	if l == nil {
		return nil
	}
	if l.f != nil {
		err := os.Remove(l.path)
		if err2 := l.f.Close(); err == nil {
			err = err2
		}
		l.f = nil
		return err
	}
	if l.stop != nil {
		close(l.stop)
		l.done.Wait()
		l.stop = nil
		// Remove the lease only if it is still ours, then drop its flock.
		var err error
		if b, err2 := readSmall(l.path); err2 == nil && strings.HasSuffix(strings.TrimSpace(string(b)), " "+l.nonce) {
			err = os.Remove(l.path)
		}
		if l.held != nil {
			l.held.Close()
			l.held = nil
		}
		return err
	}
	return nil
}
