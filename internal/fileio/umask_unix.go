//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fileio

import "syscall"

// processUmask is the umask the process started with, read once at
// package initialisation (syscall.Umask sets it to read it; doing that
// before main starts keeps it from racing with a file being created).
var processUmask = func() uint32 {
	u := syscall.Umask(0o022)
	syscall.Umask(u)
	return uint32(u)
}()
