package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rules for the kNN model's prior a1 (config key prior, flag --prior).
const (
	// PriorPrevalence is the authors' rule: the pool's true prevalence
	// rounded to 3 decimals (PriorFromPrevalence). It reads every label of
	// the pool, so it is a choice for simulated campaigns only; the paper
	// configs state it explicitly.
	PriorPrevalence = "prevalence"
	// PriorEstimate is the rule that uses only what a user knows: the
	// observed labels and the pool size (EstimatePrior).
	PriorEstimate = "estimate"
)

// Prior says how the kNN model's pseudo-counts are set: by a rule
// (PriorPrevalence, PriorEstimate) or as a fixed a1 in (0, 1).
type Prior struct {
	Rule string  // PriorPrevalence, PriorEstimate, or "" for a fixed A1
	A1   float64 // the fixed a1 when Rule is ""
}

// ParsePrior parses a prior as written in a config or on the command line:
// "prevalence", "estimate" or a number a1 with 0 < a1 < 1.
func ParsePrior(s string) (Prior, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case PriorPrevalence, PriorEstimate:
		return Prior{Rule: t}, nil
	}
	a1, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(a1 > 0 && a1 < 1) {
		return Prior{}, fmt.Errorf("prior %q: expected %s, %s or a number a1 with 0 < a1 < 1", s, PriorPrevalence, PriorEstimate)
	}
	return Prior{A1: a1}, nil
}

// PseudoCounts returns the pseudo-counts (a0, a1 = 1 - a0) of the rule for
// a pool of n items whose true prevalence is prevalence (read only by
// PriorPrevalence; pass NaN when the pool's labels are unknown) and in
// which observed items are labelled, positives of them positive.
func (p Prior) PseudoCounts(n, observed, positives int, prevalence float64) (a0, a1 float64, err error) {
	switch p.Rule {
	case PriorPrevalence:
		if math.IsNaN(prevalence) {
			return 0, 0, fmt.Errorf("prior %s needs the pool's labels, and this pool has none: use prior %s or a number", PriorPrevalence, PriorEstimate)
		}
		a0, a1 = PriorFromPrevalence(prevalence)
		if a1 == 0 {
			return 0, 0, fmt.Errorf("prior %s: the prevalence %g rounds to 0 (the model would give probability 0 far from positives): use prior %s or a number", PriorPrevalence, prevalence, PriorEstimate)
		}
		return a0, a1, nil
	case PriorEstimate:
		a1 = EstimatePrior(n, observed, positives)
		return 1 - a1, a1, nil
	case "":
		return 1 - p.A1, p.A1, nil
	}
	return 0, 0, fmt.Errorf("prior rule %q: expected %s or %s", p.Rule, PriorPrevalence, PriorEstimate)
}

// String writes the prior as ParsePrior reads it.
func (p Prior) String() string {
	if p.Rule != "" {
		return p.Rule
	}
	return strconv.FormatFloat(p.A1, 'g', -1, 64)
}

// EstimatePrior is the default prior a1 of a pool of n items of which
// observed are labelled, positives of them positive: the geometric mean
// sqrt(L U) of a lower and an upper estimate of the pool's prevalence,
//
//	L = (positives + 1) / (n + 2),   U = (positives + 1) / (observed + 2).
//
// Why: the labelled items are not a random sample. A user starts from
// items believed positive and an active search queries the likeliest
// positives, so the positive rate among them, U (Laplace's rule of
// succession), overestimates the prevalence. The rate over the whole pool,
// L, assumes no unlabelled item is positive and so underestimates it; the
// true prevalence lies in between unless the labels were picked to avoid
// positives. The prior enters the model as odds a1/a0, so the error that
// matters is a ratio; the geometric mean is the value whose worst ratio to
// any point of [L, U] is smallest (sqrt(U/L)). The +1/+2 (Laplace) keep a1
// in (0, 1) with no label or no positive. It depends only on the counts,
// never on labels the user has not observed. Examples: nothing labelled in
// a pool of 4,000: a1 = sqrt(1/(2 x 4002)) = 0.0112; one positive of one:
// 0.0183; 30 positives of 100 labelled in 4,000: 0.0485.
func EstimatePrior(n, observed, positives int) float64 {
	lo := float64(positives+1) / float64(n+2)
	hi := float64(positives+1) / float64(observed+2)
	return math.Sqrt(lo * hi)
}
