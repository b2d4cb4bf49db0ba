//go:build openblas

package linalg

import "testing"

// TestOpenBLASOpened: the openblas build finds its libraries where they
// are installed (this test runs only in that build, which CI makes after
// installing them), so its tests exercise LAPACK, not the fallback.
func TestOpenBLASOpened(t *testing.T) {
	if got := InUse(); got != "openblas" {
		t.Fatalf("InUse() = %q: libopenblas.so.0 / liblapacke.so.3 did not open", got)
	}
}
