package vendi

import "math"

// # How far a majorising spectrum's Σ φ must move: the moment gain
//
// Every pruning bound of the dual greedy (greedydual.go, dualprune.go)
// compares the unknown spectrum μ of a candidate set with a vector ν that μ
// majorises (the diagonal in some orthonormal basis, by Schur's theorem, or
// the water-filled roots of an interlacing box) and uses Σ φ(μ) >= Σ φ(ν)
// for convex φ (Karamata), with φ(t) = t log t (q = 1) or t^q, the summand
// of VS_q (paper eq. 1 and 3). That step ignores how much more spread μ is
// than ν, which the second and third power sums measure and which are
// known exactly in O(d): for C + x xᵀ with C = V Λ Vᵀ, w = Vᵀx, a = xᵀx,
// b = Σ λ_k w_k² and c = Σ λ_k² w_k²,
//
//	Σ μ = tr C + a,   Σ μ² = Σ λ² + 2b + a²,   Σ μ³ = Σ λ³ + 3c + 3ab + a³
//
// (the traces of (Λ + w wᵀ)^k expanded; wᵀΛw = b, wᵀΛ²w = c, wᵀw = a).
//
// Lemma. Let σ = +1 for q >= 1 and -1 for 0 < q < 1, so that σφ is convex
// on [0, ∞), and κ = σφ'' = 1/t (q = 1) or |q(q-1)| t^(q-2). Let
// g(t) = A t²/2 + B t³/6 with g'' = A + B t <= κ(t) on (0, top]. Then
// ψ = σφ - g is convex on [0, top] (continuous at 0), so for μ ≻ ν with
// entries in [0, top] and equal sums, Σ ψ(μ) >= Σ ψ(ν), that is
//
//	σ (Σ φ(μ) - Σ φ(ν)) >= Σ g(μ) - Σ g(ν) = (A/2) Δ₂ + (B/6) Δ₃,
//	Δ_k = Σ μ^k - Σ ν^k.
//
// The same holds with a tangent relaxation inside: if σ Σ φ(ν) is replaced
// by a sum of tangents of σφ, those of ψ give the same inequality with Δ_k
// the power sums of μ less the tangents of t^k at the same points (the
// callers state their Δs).
//
// The choice of g (momentGain):
//   - κ convex (q < 2, and q >= 3): its tangent at any t₀ > 0 lies below it
//     on all of (0, ∞): A = κ(t₀) - κ'(t₀) t₀, B = κ'(t₀); with κ = c t^e
//     (e = q - 2, or e = -1 and c = 1 at q = 1) the gain is
//     (c/2)(1-e) t₀^e Δ₂ + (c/6) e t₀^(e-1) Δ₃, which at t₀ = Δ₃/(3Δ₂)
//     (its maximum for Δ₂, Δ₃ > 0) is (c/2) t₀^e Δ₂. At q = 1 that is
//     3Δ₂²/(2Δ₃). No range is needed (top = ∞).
//   - q = 2: κ = 2, gain Δ₂ (the bound is then exact).
//   - 2 < q < 3: κ is concave, increasing and 0 at 0, so it lies above its
//     chord from 0 to top: A = 0, B = κ(top)/top, gain (B/6) Δ₃.
//
// Rounding, and Δs known only within an interval: for fixed (A, B) the
// gain is monotone in Δ₂ (increasing where A > 0: q < 3 with the tangent,
// decreasing where A < 0: q > 3) and in Δ₃ (decreasing where B < 0: q < 2,
// increasing where B > 0: q > 2), so the callers pass the end of each
// interval that makes it smallest (momentUpper says which), widened by
// momentTol of the sums they cancel; t₀ is then taken from those values
// (any t₀ > 0 gives a valid g).

// momentTol is the relative rounding slack of the power sums Δ₂ and Δ₃ of
// the moment gain, relative to the largest power sum they cancel: the
// computed roots and diagonal entries are within about d·eps of their
// magnitude, so their squares and cubes within a few d·eps of the sums.
const momentTol = 1e-10

// momentUpper reports whether momentGain decreases in Δ₂ (A < 0: q > 3)
// and in Δ₃ (B < 0: q < 2) at order q: the caller must then pass an upper
// bound on that Δ, else a lower one.
func momentUpper(q Order) (d2Up, d3Up bool) { return float64(q) > 3, float64(q) < 2 }

// momentGain returns G >= 0 with σ (Σ φ(μ) - Σ φ(ν)) >= G for μ ≻ ν
// (0 < q < ∞), given Δ₂ = Σ μ² - Σ ν² (a lower bound), Δ₃ = Σ μ³ - Σ ν³
// (bounded as momentUpper says) and top >= every entry of μ and ν
// (used at 2 < q < 3 only); 0 when no positive gain is certain. See the
// lemma above.
func momentGain(q Order, d2, d3, top float64) float64 {
	qf := float64(q)
	switch {
	case q == 0 || q.IsInf():
		return 0
	case qf == 2:
		return math.Max(d2, 0)
	case qf == 3: // κ = 6t: g = φ, the gain is Δ₃ itself
		return math.Max(d3, 0)
	case qf > 2 && qf < 3:
		if d3 <= 0 || !(top > 0) {
			return 0
		}
		c := qf * (qf - 1)
		return c * math.Pow(top, qf-3) * d3 / 6
	}
	if d2 <= 0 || d3 <= 0 {
		return 0
	}
	t0 := d3 / (3 * d2)
	switch {
	case qf == 1:
		return 0.5 * d2 / t0
	}
	c := math.Abs(qf * (qf - 1))
	return 0.5 * c * math.Pow(t0, qf-2) * d2
}
