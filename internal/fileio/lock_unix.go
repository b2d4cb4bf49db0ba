//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fileio

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// flock takes an exclusive flock on f without waiting: ErrLocked when
// another open file holds it, errFlockUnsupported when the file system
// cannot lock.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP),
			errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS):
			return errFlockUnsupported
		}
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
}

// processAlive reports whether a process with this pid runs on this host
// (EPERM: it runs under another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
