//go:build unix

package replay

import (
	"math"
	"syscall"
)

// cpuSeconds is the process's user + system CPU time (NaN when the system
// does not say).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
