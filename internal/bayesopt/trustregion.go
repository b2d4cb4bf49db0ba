package bayesopt

import "math"

// TrustRegionRules are the constants of the TuRBO trust-region state machine
// (Eriksson et al. 2019, with ROBOT's constants). Lengths are fractions of the
// domain width: a region is the box centre ± Length/2 in the unit cube.
type TrustRegionRules struct {
	LengthInit, LengthMin, LengthMax float64
	// SuccessTolerance consecutive successful batches double the length.
	// TuRBO uses 3; ROBOT's code uses 10, and so do we.
	SuccessTolerance int
	// failureTolerance consecutive failed batches halve the length.
	FailureTolerance int
	// FailurePerPoint makes a failed batch add its number of points to the
	// failure counter instead of 1, as ROBOT's and the qVS authors' code do
	// (trust_region.py update_state: failure_counter += len(Y_next)). With
	// failureTolerance 32 and 32 points per region, one failed batch halves
	// the region.
	FailurePerPoint bool
	// RelativeImprovement: a batch succeeds when its best value exceeds
	// Best + RelativeImprovement * |Best| (TuRBO's 1e-3).
	RelativeImprovement float64
}

// DefaultTrustRegionRules returns ROBOT's constants for a
// dim-dimensional problem whose regions each receive batch evaluations per
// iteration on average: L0 = 0.8, Lmin = 0.5^7, Lmax = 1.6, 10 successes to
// expand, and TuRBO's ceil(max(4/batch, dim/batch)) failures to shrink.
func DefaultTrustRegionRules(dim int, batch float64) TrustRegionRules {
	return TrustRegionRules{
		LengthInit:          0.8,
		LengthMin:           math.Pow(0.5, 7),
		LengthMax:           1.6,
		SuccessTolerance:    10,
		FailureTolerance:    failureTolerance(dim, batch),
		RelativeImprovement: 1e-3,
	}
}

// failureTolerance is TuRBO's ceil(max(4/batch, dim/batch)), at least 1.
func failureTolerance(dim int, batch float64) int {
	if batch <= 0 {
		batch = 1
	}
	return max(1, int(math.Ceil(math.Max(4/batch, float64(dim)/batch))))
}

// TrustRegion is the state of one trust region.
type TrustRegion struct {
	Rules        TrustRegionRules
	Length       float64
	SuccessCount int
	FailureCount int
	// Best is the value improvements are measured against: the region's
	// centre value (set by Recenter) raised by every batch it evaluates.
	Best     float64
	Restarts int
}

// Transition names what one Update did.
type Transition int

const (
	Failed    Transition = iota // no sufficient improvement; length unchanged
	succeeded                   // sufficient improvement; length unchanged
	expanded                    // SuccessTolerance-th success in a row: length doubled (capped at LengthMax)
	shrunk                      // failureTolerance-th failure in a row: length halved
	restarted                   // length fell below LengthMin: state reset to LengthInit
)

func (t Transition) String() string {
	return [...]string{"failed", "succeeded", "expanded", "shrunk", "restarted"}[t]
}

// NewTrustRegion returns a fresh region: length LengthInit, no history,
// Best = -Inf.
func NewTrustRegion(r TrustRegionRules) TrustRegion {
	return TrustRegion{Rules: r, Length: r.LengthInit, Best: math.Inf(-1)}
}

// Recenter sets Best to the value of the region's (new) centre. Methods pick
// centres afresh every iteration (top-M, rank-ordered, qVS greedy), so each
// region's successes are judged against its current centre, as in ROBOT.
func (t *TrustRegion) Recenter(centreValue float64) { t.Best = centreValue }

// Update applies the values of one batch the region proposed and returns the
// transition. A batch succeeds if its maximum exceeds Best by the relative
// margin; NaN values never count as improvements. An empty batch changes
// nothing (Failed is returned with the state untouched).
//
// Counters are compared with >= rather than TuRBO's ==: equality would let a
// counter that jumps past the tolerance (as in the original ROBOT code, which
// adds the batch size to the failure counter) never trigger.
func (t *TrustRegion) Update(values []float64) Transition {
	if len(values) == 0 {
		return Failed
	}
	best := math.Inf(-1)
	for _, v := range values {
		if v > best { // NaN compares false
			best = v
		}
	}
	tr := Failed
	if best > t.Best+t.Rules.RelativeImprovement*math.Abs(t.Best) || (math.IsInf(t.Best, -1) && !math.IsInf(best, -1)) {
		t.SuccessCount++
		t.FailureCount = 0
		tr = succeeded
	} else {
		t.SuccessCount = 0
		if t.Rules.FailurePerPoint {
			t.FailureCount += len(values)
		} else {
			t.FailureCount++
		}
	}
	switch {
	case t.SuccessCount >= t.Rules.SuccessTolerance:
		t.Length = math.Min(2*t.Length, t.Rules.LengthMax)
		t.SuccessCount = 0
		tr = expanded
	case t.FailureCount >= t.Rules.FailureTolerance:
		t.Length /= 2
		t.FailureCount = 0
		tr = shrunk
	}
	if best > t.Best {
		t.Best = best
	}
	if t.Length < t.Rules.LengthMin {
		// TuRBO restarts a collapsed region from scratch; here the centre
		// is chosen by the method, so only the length and counters reset.
		t.Length = t.Rules.LengthInit
		t.SuccessCount, t.FailureCount = 0, 0
		t.Restarts++
		tr = restarted
	}
	return tr
}
