// Package surrogate runs the paper's Algorithm 3 (discrete qVS-BayesOpt)
// at library scale: a Gaussian process on the pool's own representation
// (packed fingerprints, counts or numeric features; never an n x n matrix)
// fitted to the scores measured so far, an acquisition on its posterior as
// the quality, and a batch chosen by greedy qVS_q over the most promising
// unscored items.
//
//	res, err := surrogate.Suggest(ctx, pool, surrogate.Request{
//		Observed: idx, Values: scores, Minimize: true, Batch: 100,
//	})
//
// Kernels (unit diagonal): Tanimoto on packed bits, MinMax (Σ min / Σ max)
// on non-negative counts, RBF or Matern-5/2 on numeric features with one
// length scale. The GP is f ~ GP(m, s² k) with Gaussian noise σ², fitted
// on standardised targets (z = (y - mean)/sd, larger is better; scores to
// minimise are negated) by maximising the log marginal likelihood over m,
// s², σ² (and the length scale, on a grid of multiples of the median
// distance), on at most DefaultFitSubset labels drawn at random.
//
// Posterior: exact on the labels up to defaultMaxExact (3,000) of them;
// beyond, the deterministic training conditional (DTC) on defaultInducing
// (600) inducing labels (the best-scored half and a random half of the
// rest): see Model. The mean costs one kernel row per item (filled by tiles
// of gathered labels for Tanimoto); the sd a triangular solve with the
// labels' Cholesky factor, blocked so that each block of the factor is
// read once for 128 items (solveRowsLT).
//
// Batch: MethodQVS keeps the candidates of highest acquisition, the exact
// top C, without computing every item's posterior sd: shortlist computes
// the sd in decreasing order of an upper bound of the acquisition, taken
// at an upper bound of the item's sd (in the exact form the posterior
// variance given only its 4 most similar labels, which conditioning on
// more labels can only lower: Model.sdBound; the prior sd in the DTC
// form), until the next item's bound falls below the C-th best
// acquisition. At Enamine 50k's last round (2,485 labels, C = 1,988) it
// computes ~3,500 sds of the 47,000 items. It then maps the acquisition
// to non-negative qualities (phit and ei as they are, ucb and the mean by
// min-max over the candidates) and runs a greedy qVS over the pending
// items (a fixed prefix) and the candidates with the GP's own kernel. The
// diversity kernel is the GP's base kernel (Tanimoto between fingerprints:
// the pool's similarity), not its posterior covariance.
//
// By default (DefaultHistory, DefaultHitPower; q = 2 on that kernel) the
// Vendi score of the greedy is that of the expected hit set: the scored
// hits at weight 1 and each member at its posterior probability p of being
// a hit (the probability-weighted VS_2, closed form), and each quality is
// multiplied by (p/p_max)^4, p_max the largest p among them
// (HistoryExpected has the objective). With History none
// the set is the pending items and the picks alone: the scored items are
// not in it, since at library scale they outnumber the batch by orders of
// magnitude and their qualities would swamp the mean quality of eq. 2;
// the expected hit set brings the scored hits into the Vendi score only,
// not into the mean quality. Off q = 2 on the dense kernel the default
// is History none and vendi.Greedy runs the batch.
//
// AcqThompson replaces the acquisition by one joint draw of f from the
// posterior over the candidates (chosen by ucb) and the pending items: an
// exact draw through the Cholesky factor of their posterior covariance
// (Model.Covariance, Model.Sample; O(C³) for C candidates, C at most
// MaxCandidates), seeded by Request.Seed and the number of scored items.
//
// Settings measured for the diversity of the hits and left off by default
// (docs/results.md, "setting by setting", has the figures):
// Request.QualityPower and QualityRank (flatter or sharper qualities),
// History hits and all (scored items in greedyQ2's diversity term),
// HistoryGain (the expected gain of the hit set's VS_2 per pick), other
// hit powers, larger Candidates.
package surrogate
