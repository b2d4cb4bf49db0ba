//go:build !unix

package replay

import "math"

// cpuSeconds is NaN where getrusage is missing (not unix): the records'
// CPU seconds are then NaN, their wall seconds still measured.
func cpuSeconds() float64 { return math.NaN() }
