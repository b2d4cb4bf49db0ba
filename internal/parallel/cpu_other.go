//go:build !unix

package parallel

import "math"

// CPUSeconds is NaN where getrusage is missing (not unix): CPU seconds
// are then unknown, wall seconds still measured.
func CPUSeconds() float64 { return math.NaN() }
