//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fileio

import "os"

// flock is unavailable here: lease files are used.
func flock(*os.File) error { return errFlockUnsupported }

// processAlive cannot tell here; leases then expire by age only.
func processAlive(int) bool { return true }
