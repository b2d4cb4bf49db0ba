package surrogate

import (
	"math"
)

// HistoryExpected is the History value aimed at the diversity of the hits
// found (not at the batch's own): MethodQVS's greedy (q = 2, dense)
// maximises qVS_2 with the Vendi score of the expected hit set,
//
//	J(S) = (Σ_{i∈S} quality_i / s) · VS_2^w(H ∪ S),
//	VS_2^w(T) = (Σ_{i∈T} w_i)² / Σ_{i,j∈T} w_i w_j k(i, j)²,
//
// where S is the pending items and the picks (s of them), H the scored
// hits (values at or beyond the hit threshold τ of Request.HitThreshold or
// HitTopFraction) at weight 1, and each member i of S at weight p_i =
// Pr(f_i ≥ τ) under the GP posterior (the phit acquisition): an item is in
// the hit set with its probability of being a hit. VS_2^w is VS_2 with
// probability weights w/Σw (the eigenvalues of diag(√π) K diag(√π), π =
// w/Σw: Σλ² = Σ_{ij} π_i π_j k_ij²), 0 when every weight is 0; the quality
// is the acquisition's (Request.Acquisition), times (p_i/p_max)^HitPower
// when HitPower > 0, p_max the largest p of the members (the same argmax
// as p_i^HitPower, which is a constant factor p_max^HitPower away, but
// without its underflow to 0 when every p is tiny, as under a hit
// threshold beyond every score: the factors of p^4 at p ~ 1e-80 are 0 in
// float64; when every p is 0 the factor is 1). Adding item c at weight p_c to a set with Σw = W, Σ w_i w_j
// k_ij² = F and Σ_{j} w_j k(c, j)² = r_c gives (W + p_c)² / (F + p_c² + 2
// p_c r_c): one kernel row per pick, as greedyQ2.
const HistoryExpected = "expected"

// HistoryGain: as HistoryExpected, but each pick is the candidate c of
// largest quality_c · (VS_2^w(H ∪ S ∪ {c at weight 1}) − VS_2^w(H ∪ S)):
// its quality times the gain in the expected hit set's VS_2 if c is a hit
// (under HitPower 1 and quality 1, the expected gain p_c · ΔVS_2); c then
// joins S at weight p_c.
const HistoryGain = "gain"

// hitWeights returns p_i = Pr(f_i ≥ τ) of the members under the GP
// posterior (standardised τ = a.tau).
func hitWeights(model *Model, a *acquirer, members []int) []float64 {
	mu, sd := make([]float64, len(members)), make([]float64, len(members))
	model.Predict(members, mu, sd)
	ph := acquirer{kind: acqPHit, tau: a.tau}
	w := make([]float64, len(members))
	for t := range w {
		w[t] = ph.value(mu[t], sd[t])
	}
	return w
}

// expectedHitsBatch is qvsBatch's greedy under HistoryExpected: the
// members' hit probabilities as their weights (and, under HitPower, a
// factor of their qualities), then greedyHitsQ2 with the scored hits.
func expectedHitsBatch(model *Model, a *acquirer, members []int, quality []float64, req Request, res *Result) {
	w := hitWeights(model, a, members)
	if pmax := maxOf(w); req.HitPower > 0 && pmax > 0 {
		quality = append([]float64(nil), quality...)
		for t := range quality {
			quality[t] *= math.Pow(w[t]/pmax, req.HitPower)
		}
	}
	picks, values := greedyHitsQ2(model.kern, members, quality, w, len(req.Pending), req.Batch, req.history, req.History == HistoryGain)
	for t, c := range picks {
		res.Picks = append(res.Picks, members[c])
		res.Quality = append(res.Quality, quality[c])
		res.Values = append(res.Values, values[t])
	}
}

// greedyHitsQ2 is the greedy maximisation of J (HistoryExpected) over the
// members after the first P (the prefix, always in S): b picks, each the
// candidate of largest J(S ∪ {c}), ties within vendi.TieTol to the lowest
// member position; values are J after each pick. weight[m] is member m's
// weight, hits (pool items, not members) weigh 1. Under gain the picks
// maximise HistoryGain's value, and values are J after each pick too.
func greedyHitsQ2(kern featureKernel, members []int, quality, weight []float64, P, b int, hits []int, gain bool) (picks []int, values []float64) {
	L := len(members)
	r := make([]float64, L) // Σ_{j∈T} w_j k(c, j)², T = hits ∪ S
	in := make([]bool, L)
	var Q, W, F float64
	s := 0
	row := make([]float64, L)
	for a, x := range hits {
		hrow := make([]float64, a)
		kern.Fill(x, hits[:a], hrow)
		var pair float64
		for _, v := range hrow {
			pair += v * v
		}
		W++
		F += 1 + 2*pair
		kern.Fill(x, members, row)
		for c, v := range row {
			r[c] += v * v
		}
	}
	add := func(m int) {
		w := weight[m]
		kern.Fill(members[m], members, row)
		W += w
		F += w*w + 2*w*r[m]
		Q += quality[m]
		s++
		in[m] = true
		for c, v := range row {
			r[c] += w * v * v
		}
	}
	value := func(c int) float64 {
		w := weight[c]
		if gain {
			// quality × the gain in VS_2^w if c is a hit
			vs0 := 0.0
			if F > 0 {
				vs0 = W * W / F
			}
			return quality[c] * ((W+1)*(W+1)/(F+1+2*r[c]) - vs0)
		}
		vs := 0.0
		if f := F + w*w + 2*w*r[c]; f > 0 {
			vs = (W + w) * (W + w) / f
		}
		return (Q + quality[c]) / float64(s+1) * vs
	}
	if !gain {
		return greedyLoop(L, P, b, in, value, add)
	}
	// the values reported are J after each pick, as HistoryExpected's
	// (the pick's gain is no qVS, and may be negative)
	var js []float64
	addJ := func(m int) {
		add(m)
		if s > P {
			j := 0.0
			if F > 0 {
				j = Q / float64(s) * (W * W / F)
			}
			js = append(js, j)
		}
	}
	picks, _ = greedyLoop(L, P, b, in, value, addJ)
	return picks, js
}
