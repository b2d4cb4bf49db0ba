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
	// rounded to 3 decimals (priorFromPrevalence). It reads every label of
	// the pool, so it is a choice for simulated campaigns only; the paper
	// configs state it explicitly.
	PriorPrevalence = "prevalence"
	// PriorEstimate is the rule that uses only what a user knows: the
	// observed labels and the kNN graph (FitPrior, empirical Bayes).
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
// a pool whose true prevalence is prevalence (read only by PriorPrevalence;
// pass NaN when the pool's labels are unknown), given m, the kNN model
// with the labels observed so far (read only by PriorEstimate, FitPrior;
// its own pseudo-counts do not matter).
func (p Prior) PseudoCounts(prevalence float64, m *Model) (a0, a1 float64, err error) {
	switch p.Rule {
	case PriorPrevalence:
		if math.IsNaN(prevalence) {
			return 0, 0, fmt.Errorf("prior %s needs the pool's labels, and this pool has none: use prior %s or a number", PriorPrevalence, PriorEstimate)
		}
		a0, a1 = priorFromPrevalence(prevalence)
		if a1 == 0 {
			return 0, 0, fmt.Errorf("prior %s: the prevalence %g rounds to 0 (the model would give probability 0 far from positives): use prior %s or a number", PriorPrevalence, prevalence, PriorEstimate)
		}
		return a0, a1, nil
	case PriorEstimate:
		a1 = FitPrior(m).A1
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

// PriorFit is an empirical-Bayes estimate of the prior a1 (FitPrior) and
// what it was computed from.
type PriorFit struct {
	A1 float64
	// Labels is the number of observed items, Positives of them positive;
	// Isolated is the number with no observed item in their own neighbour
	// row, IsolatedPositives of them positive: their leave-one-out
	// probability is a1 itself, so they inform a1 most.
	Labels, Positives, Isolated, IsolatedPositives int
}

// priorPseudoLabels is the weight of the pseudo-labels FitPrior adds, one
// isolated positive and one isolated negative each (Laplace's rule of
// succession on isolated labels): they keep a1 inside (0, 1) when every
// label agrees, and with no label give a1 = 1/2.
const priorPseudoLabels = 1

// FitPrior is the default prior a1 (prior: estimate), the kNN model's
// probability of an item with no labelled neighbour: the empirical-Bayes
// estimate that maximises the leave-one-out likelihood of the observed
// labels under the kNN model,
//
//	Σ_{l positive} log p_l(a1) + Σ_{l negative} log(1 - p_l(a1)) + log a1 + log(1 - a1),
//	p_l(a1) = (a1 + P_l) / (1 + P_l + N_l),
//
// with P_l, N_l the summed weights from l's own neighbour row to the other
// observed positives and negatives (a0 = 1 - a1; the model never lists an
// item as its own neighbour, so these are leave-one-out), plus one
// pseudo-label of each class (priorPseudoLabels). Why it is honest: it
// reads only the observed labels and the graph, never the pool size or
// unobserved labels; a label with no observed neighbour (p_l = a1) counts
// as one Bernoulli draw of a1, while a positive found next to other
// positives (large P_l) is explained by them and barely moves a1, so a
// search that queries the neighbours of its positives does not inflate
// the estimate as the raw positive rate among labels would. The
// log-likelihood is concave in a1 (a sum of logs of affine functions), so
// its derivative is decreasing and the maximiser is found by bisection to
// the float resolution. Cost: O(labels) per bisection step.
//
// Closed forms: with no label a1 = 1/2; when no label has a labelled
// neighbour, a1 = (positives + 1)/(labels + 2) (Laplace's rule). So one
// positive and nothing else gives 2/3: the estimate says "unknown" rather
// than guess from the pool's size, and a search started there explores
// (far items look promising) until its first labels far from the start
// bring a1 down. How it compares with the true prevalence and what it
// costs in positives found, on five pools: docs/results.md, "The default
// prior". Since labels chosen next to positives carry little weight, it
// tends to underestimate a pool's prevalence once most labels have
// labelled neighbours (photoswitch, digits), which costs no positives
// there.
func FitPrior(m *Model) PriorFit {
	const c = priorPseudoLabels
	var pos, neg []float64 // P_l (positives) and 1 + N_l (negatives) of the non-isolated labels
	f := PriorFit{}
	isoPos, isoNeg := float64(c), float64(c)
	for l := range m.Len() {
		if !m.Observed(l) {
			continue
		}
		f.Labels++
		isolated := m.pos[l] == 0 && m.neg[l] == 0
		if isolated {
			f.Isolated++
		}
		if m.Positive(l) {
			f.Positives++
			if isolated {
				f.IsolatedPositives++
				isoPos++
			} else {
				pos = append(pos, m.pos[l])
			}
		} else if isolated {
			isoNeg++
		} else {
			neg = append(neg, 1+m.neg[l])
		}
	}
	// d(a) = Σ 1/(a + P_l) - Σ 1/(1 + N_l - a): decreasing, +Inf at 0
	// and -Inf at 1 (the isolated and pseudo terms).
	d := func(a float64) float64 {
		s := isoPos/a - isoNeg/(1-a)
		for _, p := range pos {
			s += 1 / (a + p)
		}
		for _, q := range neg {
			s -= 1 / (q - a)
		}
		return s
	}
	// Bisection down to adjacent floats (about 55 steps for a1 above
	// 1e-3), so a closed-form root such as Laplace's 1/2 comes out exact.
	lo, hi := 0.0, 1.0
	for {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		switch v := d(mid); {
		case v > 0:
			lo = mid
		case v < 0:
			hi = mid
		default:
			f.A1 = mid
			return f
		}
	}
	f.A1 = lo
	if -d(hi) < d(lo) {
		f.A1 = hi
	}
	return f
}
