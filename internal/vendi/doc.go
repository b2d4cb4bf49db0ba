// Package vendi computes Vendi scores (VS) of any order q, their
// quality-weighted form (qVS), and greedy sequential maximisation of qVS
// (Nguyen & Dieng, ICML 2024, §2).
//
// # Conventions
//
// Given a kernel matrix K (symmetric, similarity k(x, x) = 1 on the diagonal),
// let λ_1..λ_n be its eigenvalues, clipped at 0 (kernels such as symmetrised
// kNN graphs may be indefinite; the negative part is discarded) and divided by
// their sum, so that the normalised eigenvalues λ̄ sum to 1. With a unit
// diagonal this is the spectrum of K/n. Then (paper eq. 1 and 3):
//
//	VS_q = (Σ λ̄^q)^(1/(1-q))         0 < q, q ≠ 1
//	VS_1 = exp(-Σ λ̄ log λ̄)           the limit q → 1 (0 log 0 = 0)
//	VS_0 = #{i : λ̄_i > ZeroTol}       the limit q → 0: the numerical rank
//	VS_∞ = 1 / max λ̄                  the limit q → ∞
//
// The clipping applies to every order, q = 2 included, so VS_q is
// non-increasing in q on any symmetric kernel. The closed form
// VS_2 = (tr K)² / ‖K‖_F² (no eigendecomposition) equals the clipped form
// only when K is positive semidefinite, so it is used only there: Gram
// matrices of embeddings (ScoreEmbeddings) and Greedy with
// GreedyProblem.KnownPSD. On an indefinite kernel it counts the negative
// eigenvalues and can fall below VS_∞ ([[1, 1.5], [1.5, 1]]: 0.615 against
// 1).
//
// ZeroTol (1e-10) is relative to the sum of the eigenvalues: a normalised
// eigenvalue at or below it is numerical noise from a duplicate or a linear
// dependence, not a new effective item, and counts as 0 for every q (raised
// to a small q, rounding noise of 1e-16 would otherwise add 0.03 per
// eigenvalue at q = 0.1). This keeps VS_q continuous as q → 0. VS of an empty set is 0 and of a
// single item 1. Orders are of type Order (a float64, OrderInf
// for q = ∞), which parses, checks and formats q and holds the formulas
// that differ between orders.
//
// The quality-weighted score (eq. 2) is qVS_q(X) = (Σ s(x_i) / n) VS_q(X),
// with qualities s finite and >= 0 (negative objectives must be mapped to a
// non-negative scale first).
//
// # Greedy maximisation
//
// Greedy implements eq. 5 with an optional fixed prefix (items that count
// in the score but are already chosen, such as the observed positives of
// active search, Algorithm 2). It never eigendecomposes from scratch per
// candidate: it keeps the eigendecomposition of each connected block of the
// chosen set's kernel and gets the spectrum with a candidate added from the
// secular equation of the bordered (arrowhead) matrix, whose new eigenvalues
// interlace the old ones: O(r²) per candidate for a touched block of size r.
// Candidates with no similarity to the chosen set share one VS value,
// computed once. A candidate's roots are kept while the blocks it touches
// stay the same, and GreedyMemo carries the prefix blocks' spectra and the
// first pick's roots to the next call (a search's next batch), where blocks
// of the same content come back (memo.go): bit for bit what solving again
// gives. Candidates touching a large block are first bounded (each
// new eigenvalue enclosed in a certified bracket, O(r) per root with the
// block's Cauchy matrix tabulated) and solved in decreasing bound order only
// while the bound can reach the best value: the picks are those of solving
// every candidate (prune.go). At q = 1 a cheaper level-0 bound from four
// exact power sums and interlacing boxes comes first (level0.go). On embeddings with a linear or cosine kernel
// the greedy works in the d x d dual (greedydual.go). There, for
// 1 <= q <= 2, a candidate's increment of Σ φ(λ) only grows as the chosen
// set does, so bounds and solves of earlier picks bound it at later ones
// in O(1) (lazy.go); a first stage bounds the candidates without one from
// xᵀx and xᵀCx and its components along C's few smallest positive
// eigendirections before any full O(d²) projection, and an exact solve
// stops once its largest roots bound the candidate below the best
// (dualprune.go). Every bound is tightened by the second and third power
// sums of the spectrum, known in O(d) (moments.go). Every order q, same
// picks and scores. See Greedy for the tie rule.
package vendi
