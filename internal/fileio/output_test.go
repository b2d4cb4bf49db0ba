package fileio

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteAtomicRefusesNonRegular: an atomic write over a named pipe, a
// device node or a socket is refused and leaves it as it was (rename
// replaced each with a regular file; as root, /dev/null itself).
func TestWriteAtomicRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{fifo: "named pipe"}
	sock := filepath.Join(dir, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		targets[sock] = "socket"
	}
	if os.Getuid() == 0 {
		dev := filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
			targets[dev] = "device"
		}
	}
	for path, kind := range targets {
		before, _ := os.Lstat(path)
		err := WriteAtomic(path, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the path and %q", path, err, kind)
		}
		after, _ := os.Lstat(path)
		if after == nil || after.Mode() != before.Mode() {
			t.Errorf("%s: mode %v became %v", path, before.Mode(), after)
		}
	}
	if _, err := writeTarget(os.DevNull); err == nil {
		t.Errorf("writeTarget(%s) accepted a device", os.DevNull)
	}
}

// TestWriteAtomicModes: a new file gets 0666 less the umask, an existing
// file keeps its mode (a 0600 file rewritten used to become 0644).
func TestWriteAtomicModes(t *testing.T) {
	dir := t.TempDir()
	old := processUmask
	t.Cleanup(func() { processUmask = old })
	for _, u := range []uint32{0o022, 0o077, 0o002} {
		processUmask = u
		p := filepath.Join(dir, "new"+strings.Repeat("x", int(u%7)))
		if err := WriteAtomic(p, []byte("a")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if want := fs.FileMode(0o666 &^ u); fi.Mode().Perm() != want {
			t.Errorf("umask %03o: new file mode %v, want %v", u, fi.Mode().Perm(), want)
		}
	}
	processUmask = 0o022
	p := filepath.Join(dir, "secret")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600)
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten 0600 file has mode %v", fi.Mode().Perm())
	}
}

// TestCheckOutput: an output path that is an input (also through a
// symbolic or hard link), a non-regular file, or a file qvs does not
// recognise without Force is refused naming the flag and path.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "X.npy")
	os.WriteFile(in, []byte("data"), 0o644)
	sym := filepath.Join(dir, "sym.npz")
	os.Symlink(in, sym)
	hard := filepath.Join(dir, "hard.npz")
	os.Link(in, hard)
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("mine"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	ours := func(p string) bool { return p == filepath.Join(dir, "ours") }
	os.WriteFile(filepath.Join(dir, "ours"), nil, 0o644)
	c := OutputCheck{Inputs: []string{in}, Flag: "--out", Ours: ours}
	for _, tc := range []struct {
		path  string
		force bool
		want  string // "" accepted
	}{
		{filepath.Join(dir, "new.npz"), false, ""},
		{in, true, "is an input of this command"},
		{sym, true, "is an input of this command"},
		{hard, true, "is an input of this command"},
		{fifo, true, "named pipe"},
		{dir, true, "a directory"},
		{other, false, "--force"},
		{other, true, ""},
		{filepath.Join(dir, "ours"), false, ""},
	} {
		c.Force = tc.force
		err := CheckOutput(tc.path, c)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--out "+tc.path)):
			t.Errorf("%s (force %v): error %v, want %q", tc.path, tc.force, err, tc.want)
		}
		if tc.want == "--force" && !errors.Is(err, ErrNotOurs) {
			t.Errorf("%s: %v is not ErrNotOurs", tc.path, err)
		}
	}
}
