//go:build !unix

package testutil

// ProcessCPU returns 0 where getrusage is not available.
func ProcessCPU() float64 { return 0 }
