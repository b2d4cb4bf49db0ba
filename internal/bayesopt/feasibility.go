package bayesopt

import "math"

// The feasibility model: failed experiments (Evaluation.Failed) teach the
// engine where the objective cannot be evaluated. Once a run has a failed
// evaluation (and unless Settings.RetryFailed), every Ask estimates for
// each Thompson candidate x the probability of success
//
//	p(x) = (A·p0 + Σ_i w_i(x)·s_i) / (A + Σ_i w_i(x)),   w_i(x) = exp(-|φ(x) - φ(x_i)|² / (2h²)),
//
// over every evaluation i so far (s_i = 1 for a success, 0 for a failure),
// φ the GP's features (the unit-cube point, or Encoder.Encode), p0 =
// (successes + 1) / (evaluations + 2) the smoothed success rate far from
// any evaluation, and A = feasibilityPriorWeight pseudo-evaluations of it
// (a Nadaraya-Watson classifier with a Beta prior). The bandwidth h is
// the one of feasibilityBandwidths·sqrt(features) with the largest
// leave-one-out log-likelihood of the outcomes (the smallest on ties;
// held out: every evaluation, or feasibilityMaxHeldOut of them); the
// last, infinite, makes p constant: failures scattered with no relation to
// place weigh every candidate alike. The evaluations of an iteration in
// which every evaluation failed do not train the model (a pipeline outage,
// not a region), and the model is off while no other evaluation failed.
// The acquisition's quality is multiplied by p(x)^feasibilityPower: qvs's
// quality (the Thompson sample min-max scaled over the merged candidates)
// and, for turbo, robot and qvs authors, the sample min-max scaled over the
// region's candidates before its argmax. Batches thus leave failing
// regions while qVS keeps them diverse. Without failures the model is off
// and every draw and pick is the same as before it existed.

// feasibilityPriorWeight is A, the pseudo-count of the success rate p0.
const feasibilityPriorWeight = 0.5

// feasibilityPower is the exponent of p(x) in the quality: 2 prefers a
// sure candidate of quality 0.5 to a coin flip of quality 1.
const feasibilityPower = 2

// feasibilityBandwidths are the candidate bandwidths, as fractions of
// sqrt(features) (the unit cube's diagonal without an Encoder).
var feasibilityBandwidths = []float64{0.03, 0.06, 0.1, 0.15, 0.25, 0.4, math.Inf(1)}

// feasibilityMaxHeldOut bounds the held-out points of the bandwidth's
// leave-one-out (an even stride of the evaluations beyond it).
const feasibilityMaxHeldOut = 500

// feasibility is a fitted success-probability model (see above).
type feasibility struct {
	feats [][]float64
	ok    []float64
	p0    float64
	inv2h float64 // 1 / (2h²)
}

// newFeasibility fits the model on the features of every evaluation and
// their outcomes (true: success).
func newFeasibility(feats [][]float64, success []bool) *feasibility {
	n := len(feats)
	f := &feasibility{feats: feats, ok: make([]float64, n)}
	succ := 0
	for i, s := range success {
		if s {
			f.ok[i] = 1
			succ++
		}
	}
	f.p0 = float64(succ+1) / float64(n+2)
	D := 1.0
	if n > 0 {
		D = float64(len(feats[0]))
	}
	// The held-out points of the leave-one-out: all of them, or an even
	// stride of feasibilityMaxHeldOut (memory stays O(n), time
	// O(feasibilityMaxHeldOut·n) per bandwidth).
	step := max(1, (n+feasibilityMaxHeldOut-1)/feasibilityMaxHeldOut)
	B := len(feasibilityBandwidths)
	inv := make([]float64, B)
	for k, frac := range feasibilityBandwidths {
		h := frac * math.Sqrt(D)
		inv[k] = 1 / (2 * h * h)
	}
	// Every bandwidth's sums in one pass over the pairs (each squared
	// distance computed once), each summed in the same order as one
	// bandwidth at a time.
	ll := make([]float64, B)
	num, den := make([]float64, B), make([]float64, B)
	for i := 0; i < n; i += step {
		for k := range num {
			num[k], den[k] = feasibilityPriorWeight*f.p0, feasibilityPriorWeight
		}
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			d2 := sqDist(feats[i], feats[j])
			for k, iv := range inv {
				w := math.Exp(-d2 * iv)
				num[k] += w * f.ok[j]
				den[k] += w
			}
		}
		for k := range ll {
			p := num[k] / den[k]
			if f.ok[i] == 1 {
				ll[k] += math.Log(p)
			} else {
				ll[k] += math.Log1p(-p)
			}
		}
	}
	best := math.Inf(-1)
	for k := range ll {
		if ll[k] > best {
			best, f.inv2h = ll[k], inv[k]
		}
	}
	return f
}

// Prob is p(x) for features x.
func (f *feasibility) Prob(x []float64) float64 {
	num, den := feasibilityPriorWeight*f.p0, feasibilityPriorWeight
	for i, y := range f.feats {
		w := math.Exp(-sqDist(x, y) * f.inv2h)
		num += w * f.ok[i]
		den += w
	}
	return num / den
}

// weight is the factor of the quality: Prob(x)^feasibilityPower.
func (f *feasibility) weight(x []float64) float64 {
	p := f.Prob(x)
	return p * p
}
