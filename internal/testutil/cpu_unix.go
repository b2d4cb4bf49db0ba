//go:build unix

package testutil

import "syscall"

// ProcessCPU is the CPU time (user + system, seconds) this process has used
// so far; benchmarks report its difference as cpu-s/op, the figure that
// stays meaningful on a loaded machine where wall time measures the other
// jobs.
func ProcessCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
