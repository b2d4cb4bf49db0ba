package vendi

import (
	"math"
	"testing"
)

// TestDetPerItem: |det|^(1/n) from log |det|, with the empty matrix (1) and
// a singular one (0).
func TestDetPerItem(t *testing.T) {
	for _, c := range []struct {
		logDet float64
		n      int
		want   float64
	}{
		{math.Log(8), 3, 2},        // det 8 of a 3 x 3 matrix
		{math.Log(0.0625), 4, 0.5}, // det 1/16 of a 4 x 4 matrix
		{0, 0, 1},                  // the empty matrix
		{math.Inf(-1), 5, 0},       // det 0
		{math.NaN(), 2, 0},         // unknown
	} {
		if got := DetPerItem(c.logDet, c.n); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("DetPerItem(%v, %d) = %v, want %v", c.logDet, c.n, got, c.want)
		}
	}
}
