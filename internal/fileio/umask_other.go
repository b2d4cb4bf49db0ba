//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fileio

// processUmask is the usual umask where none can be read.
var processUmask uint32 = 0o022
