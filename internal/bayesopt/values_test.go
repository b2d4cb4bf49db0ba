package bayesopt

import (
	"math"
	"testing"
)

func TestCheckObjective(t *testing.T) {
	for _, tc := range []struct {
		v  float64
		ok bool
	}{
		{0, true}, {-3.5, true}, {maxAbsObjective, true}, {-maxAbsObjective, true},
		{math.Nextafter(maxAbsObjective, math.Inf(1)), false}, {-1e308, false},
		{math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
	} {
		if err := CheckObjective(tc.v); (err == nil) != tc.ok {
			t.Errorf("CheckObjective(%v) = %v, want ok %v", tc.v, err, tc.ok)
		}
	}
	// The bound keeps the standardisation finite: the variance of n values
	// at ±maxAbsObjective, summed as squares, for n up to 10^8.
	if s := 1e8 * maxAbsObjective * maxAbsObjective; math.IsInf(s, 0) {
		t.Errorf("10^8 squares of MaxAbsObjective overflow: %v", s)
	}
}
