package bayesopt

import (
	"fmt"
	"math"
)

// maxAbsObjective bounds the magnitude of an objective value read from a
// user's file or program. The GPs standardise the values (mean and
// variance): beyond about 1e154 the sum of squares overflows float64 and the
// posterior turns NaN, which used to surface as a panic of the qVS greedy
// (continuous) or NaN suggestions (discrete). 1e150 leaves room for sums of
// up to 10^8 squares.
const maxAbsObjective = 1e150

// CheckObjective reports a value that is not finite or whose magnitude
// exceeds maxAbsObjective, in words for a message that names the file and
// line (the caller adds them).
func CheckObjective(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%v is not a finite number", v)
	case math.Abs(v) > maxAbsObjective:
		return fmt.Errorf("%g exceeds %g in magnitude (the GP's standardisation would overflow): rescale the objective", v, maxAbsObjective)
	}
	return nil
}
