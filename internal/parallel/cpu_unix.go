//go:build unix

package parallel

import (
	"math"
	"syscall"
)

// CPUSeconds is the CPU time (user + system, seconds) this process has
// used so far, NaN when the system does not say. Its difference over a
// piece of work is the cost that stays meaningful on a loaded machine,
// where wall time also measures the other jobs: replay records and
// benchmarks (cpu-s/op) report it.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
