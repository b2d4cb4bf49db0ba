package fileio

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// A test binary started with QVS_TEST_HOLD_LOCK=PATH takes that lock, says
// "locked" on stdout and sleeps until killed: a real second process.
func TestMain(m *testing.M) {
	if p := os.Getenv("QVS_TEST_HOLD_LOCK"); p != "" {
		if _, err := TryLock(p); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdLock starts a process that holds the lock on path; the caller kills it.
func holdLock(t *testing.T, path string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "QVS_TEST_HOLD_LOCK="+path)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper process: %q", line)
	}
	return cmd
}

func forceLease(t *testing.T) {
	old := leaseMode
	leaseMode = func() bool { return true }
	t.Cleanup(func() { leaseMode = old })
}

func TestLockExcludesAndKillReleases(t *testing.T) {
	for _, mode := range []string{"flock", "lease"} {
		t.Run(mode, func(t *testing.T) {
			var env []string
			if mode == "lease" {
				forceLease(t)
				env = []string{"QVS_LOCK=lease"}
			}
			path := filepath.Join(t.TempDir(), "run.lock")
			// Two locks in one process exclude each other.
			l, err := TryLock(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
				t.Fatalf("second TryLock: %v, want ErrLocked", err)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("lock file left after Unlock: %v", err)
			}
			// Another process holds it; it names that process; kill -9 frees it.
			cmd := holdLock(t, path, env...)
			_, err = TryLock(path)
			var le *LockedError
			if !errors.As(err, &le) || le.Owner != hostName()+" "+strconv.Itoa(cmd.Process.Pid) {
				t.Fatalf("TryLock while another process holds it: %v", err)
			}
			cmd.Process.Kill()
			cmd.Wait()
			l, err = TryLock(path)
			if err != nil {
				t.Fatalf("TryLock after the holder was killed: %v", err)
			}
			l.Unlock()
		})
	}
}

func TestLeaseStaleness(t *testing.T) {
	forceLease(t)
	dir := t.TempDir()
	write := func(name, content string, age time.Duration) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
		return p
	}
	dead := strconv.Itoa(testutil.DeadPID(t))
	live := strconv.Itoa(os.Getppid())
	cases := []struct {
		name, content string
		age           time.Duration
		free          bool
	}{
		{"dead-owner", hostName() + " " + dead + " n1\n", 0, true},
		{"live-owner", hostName() + " " + live + " n2\n", 0, false},
		// A live pid of this host whose lease nobody refreshes: a new
		// process that reused a dead holder's pid (waited for
		// forever). Pid 1 and the test's parent are live and unrelated.
		{"reused-pid", hostName() + " " + live + " n5\n", 3 * leaseExpiry, true},
		{"reused-pid-1", hostName() + " 1 n6\n", 3 * leaseExpiry, true},
		{"other-host-fresh", "elsewhere 1 n3\n", 0, false},
		{"other-host-expired", "elsewhere 1 n4\n", 2 * leaseExpiry, true},
		{"empty-fresh", "", 0, false}, // owner between create and write
	}
	for _, c := range cases {
		p := write(c.name, c.content, c.age)
		l, err := TryLock(p)
		if c.free != (err == nil) {
			t.Errorf("%s: TryLock = %v, want free=%v", c.name, err, c.free)
		}
		if err == nil {
			if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), hostName()+" "+strconv.Itoa(os.Getpid())+" ") {
				t.Errorf("%s: lease after takeover holds %q", c.name, b)
			}
			l.Unlock()
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.stale-*")); len(m) != 0 {
		t.Errorf("takeover left %v", m)
	}
}

// TestLeaseRefreshKeepsItFresh: a held lease is touched every leaseRefresh,
// so one made to look expired is fresh again, and not taken over, after a
// refresh; once the holder stops refreshing, it is. The test waits for the
// refresh itself: it slept 1.5 x a 200 ms expiry, and on a loaded machine a
// refresher left unscheduled that long let the lease be taken over.
func TestLeaseRefreshKeepsItFresh(t *testing.T) {
	forceLease(t)
	oldR, oldE := leaseRefresh, leaseExpiry
	leaseRefresh, leaseExpiry = 20*time.Millisecond, 10*time.Second
	defer func() { leaseRefresh, leaseExpiry = oldR, oldE }()
	p := filepath.Join(t.TempDir(), "x.lock")
	l, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	// Pretend to be on another host, and make the lease look expired:
	// only a refresh makes it fresh again.
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), hostName(), "elsewhere", 1)), 0o644)
	expired := time.Now().Add(-2 * leaseExpiry)
	os.Chtimes(p, expired, expired)
	refreshed := false
	for deadline := time.Now().Add(time.Minute); !refreshed && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		fi, err := os.Stat(p)
		refreshed = err == nil && time.Since(fi.ModTime()) < leaseExpiry
	}
	if !refreshed {
		t.Fatal("the held lease was not refreshed within a minute")
	}
	if _, err := TryLock(p); !errors.Is(err, ErrLocked) {
		t.Errorf("a refreshed lease was taken over: %v", err)
	}
	close(l.stop)
	l.done.Wait()
	if l.held != nil {
		l.held.Close() // the holder died: the kernel drops its flock
	}
	old := time.Now().Add(-2 * leaseExpiry)
	os.Chtimes(p, old, old)
	if l2, err := TryLock(p); err != nil {
		t.Errorf("an unrefreshed lease of another host was not taken over: %v", err)
	} else {
		l2.Unlock()
	}
}

func TestSweepTempsOnlyOrphans(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("half"), 0o644)
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
		return p
	}
	dead := strconv.Itoa(testutil.DeadPID(t))
	me := strconv.Itoa(os.Getpid())
	orphanLocal := mk(".a.csv.tmp-"+hostName()+"_"+dead+"_1", 0)
	oldStyle := mk(".b.csv.tmp-123456", 2*time.Minute)
	otherOld := mk(".c.csv.tmp-elsewhere_1_2", 2*time.Minute)
	otherNew := mk(".d.csv.tmp-elsewhere_1_3", 0)
	mineLive := mk(".e.csv.tmp-"+hostName()+"_"+me+"_4", 0)
	// A live pid of this host on an unlocked file a minute old: the pid
	// was reused after its writer died (before, kept forever).
	reused := mk(".h.csv.tmp-"+hostName()+"_"+strconv.Itoa(os.Getppid())+"_6", 2*time.Minute)
	reused1 := mk(".i.csv.tmp-"+hostName()+"_1_7", 2*time.Minute)
	// A temp file being written by another process right now: its writer's flock.
	held := mk(".f.csv.tmp-elsewhere_1_5", time.Hour)
	f, _ := os.OpenFile(held, os.O_RDWR, 0)
	if err := flock(f); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	notTemp := mk("g.csv", time.Hour)

	n, err := SweepTemps(dir)
	if err != nil || n != 5 {
		t.Errorf("SweepTemps removed %d (%v), want 5", n, err)
	}
	for p, gone := range map[string]bool{orphanLocal: true, oldStyle: true, otherOld: true, reused: true, reused1: true,
		otherNew: false, mineLive: false, held: false, notTemp: false} {
		if _, err := os.Stat(p); os.IsNotExist(err) != gone {
			t.Errorf("%s: removed=%v, want %v", filepath.Base(p), !gone, gone)
		}
	}
}

// A kill between creating and renaming leaves a temp file that the next
// process writing into that directory removes, and only that one.
func TestWriteAtomicSweepsOrphansOfKilledWriters(t *testing.T) {
	dir := t.TempDir()
	orphan := filepath.Join(dir, ".summary.csv.tmp-"+hostName()+"_"+strconv.Itoa(testutil.DeadPID(t))+"_9")
	os.WriteFile(orphan, []byte("half"), 0o644)
	if err := WriteAtomic(filepath.Join(dir, "summary.csv"), []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(m) != 0 {
		t.Errorf("left %v", m)
	}
}

// FuzzLeaseFile: any content of a lock or lease file (another process, or a
// person, may have written it) is read without panicking; an owner is two
// fields or nothing.
func FuzzLeaseFile(f *testing.F) {
	f.Add("host 123 nonce\n")
	f.Add("")
	f.Add("elsewhere -1\n")
	f.Add("h 99999999999999999999999 n")
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(t.TempDir(), "x.lock")
		os.WriteFile(p, []byte(content), 0o644)
		if o := readOwner(p); o != "" && len(strings.Fields(o)) != 2 {
			t.Fatalf("owner %q", o)
		}
		_ = leaseStale([]byte(content), time.Now())
	})
}

// TestMixedLockModes: a flock process and a
// QVS_LOCK=lease process exclude each other, whichever holds the lock: a
// real second process holds it in one mode, this one asks in the other,
// and kill -9 of the holder frees it. A lease file of another host (no
// flock to see) keeps a flock process out while fresh and is taken over
// once expired; a flock holder's file, however old, keeps a lease process
// out (flock holders never refresh their file).
func TestMixedLockModes(t *testing.T) {
	for _, holder := range []string{"lease", "flock"} {
		t.Run("held by "+holder, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.lock")
			env := []string{"QVS_LOCK=" + holder}
			if holder == "flock" {
				forceLease(t) // this process asks with a lease
			}
			cmd := holdLock(t, path, env...)
			if holder == "flock" {
				old := time.Now().Add(-3 * leaseExpiry)
				os.Chtimes(path, old, old)
			}
			var le *LockedError
			if _, err := TryLock(path); !errors.As(err, &le) || le.Owner != hostName()+" "+strconv.Itoa(cmd.Process.Pid) {
				t.Fatalf("TryLock while a %s holder runs: %v", holder, err)
			}
			cmd.Process.Kill()
			cmd.Wait()
			l, err := TryLock(path)
			if err != nil {
				t.Fatalf("TryLock after the %s holder was killed: %v", holder, err)
			}
			l.Unlock()
		})
	}
	t.Run("old flock of another host", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "run.lock")
		l, err := TryLock(path) // flock: this process stands for the other host's holder
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		os.WriteFile(path, []byte("elsewhere 1\n"), 0o644)
		old := time.Now().Add(-3 * leaseExpiry)
		os.Chtimes(path, old, old)
		forceLease(t)
		if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
			t.Fatalf("lease over a held flock of another host, unrefreshed: %v, want ErrLocked", err)
		}
	})
	t.Run("lease of another host", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "run.lock")
		os.WriteFile(path, []byte("elsewhere 1 n1\n"), 0o644)
		if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
			t.Fatalf("flock over a fresh lease of another host: %v, want ErrLocked", err)
		}
		old := time.Now().Add(-2 * leaseExpiry)
		os.Chtimes(path, old, old)
		l, err := TryLock(path)
		if err != nil {
			t.Fatalf("flock over an expired lease: %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != owner()+"\n" {
			t.Errorf("lock file after takeover holds %q", b)
		}
		l.Unlock()
	})
}
