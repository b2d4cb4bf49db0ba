// Package bayesopt is the continuous diverse Bayesian-optimisation engine of
// the paper (Nguyen & Dieng, ICML 2024, §3.2 and §4.2, Algorithm 1): it
// maximises a black-box Objective over a box with M trust regions and
// returns M solutions that should be both good and diverse.
//
// # Model
//
// Inputs are mapped to the unit cube. Each trust region fits its own exact
// Gaussian process (GP, FitGP): Matérn-5/2 ARD kernel, constant mean,
// Gaussian noise, targets standardised to mean 0 and standard deviation 1;
// the hyperparameters maximise the log marginal likelihood (L-BFGS from
// gonum/optimize with analytic gradients, at most 30 iterations from a fixed
// start) within TuRBO's bounds (DefaultGPBounds), enforced by optimising a
// logistic transform of their logarithms. The training set is capped at the
// MaxTrain (default 300) evaluated points nearest the region's centre. A
// covariance that is not numerically positive definite gets a growing
// diagonal jitter (1e-10 ... 1e-3 of its mean diagonal).
//
// # Thompson sampling
//
// A region of side length L (a fraction of the domain width) is the box
// centre ± L/2 clipped to the unit cube. Its candidates (default 1000) are
// scrambled Sobol' points (Sobol: Joe-Kuo direction numbers up to 64
// dimensions, linear matrix scramble plus digital shift) in the box, each
// coordinate perturbed from the centre with probability min(20/d, 1), at
// least one per candidate (TrustRegionCandidates). GP.JointSamples draws
// exact joint posterior samples over all candidates (Cholesky of the
// posterior covariance, O(m³) in m candidates); with Settings.Sampler =
// SamplerPathwise, GP.PathwiseSamples draws them by pathwise conditioning
// (Wilson et al. 2020) on a 1,024-feature random-Fourier prior, O(m) in m,
// which makes ROBOT's 5,000 candidates per region affordable. A region
// taking k points draws k samples and takes the argmax of each, without
// replacement (ThompsonPicks).
//
// # Trust regions
//
// TrustRegion is TuRBO's state machine with the constants of ROBOT's code:
// L0 = 0.8, Lmin = 0.5^7, Lmax = 1.6; a batch succeeds if its best value
// beats the region's best by a relative 1e-3; 10 successes in a row double
// L (TuRBO uses 3; ROBOT's code uses 10); ceil(max(4/b,
// d/b)) failures in a row halve it, with b = batch / M the region's average
// share of a batch (Settings.FailureTolerance replaces this count, and with
// Settings.FailurePerPoint a failed batch adds its size to the counter, as
// ROBOT's code does); below Lmin the region restarts at L0. Centres are chosen
// afresh every iteration by the method, and each region's Best is reset to
// its centre's value before its batch is judged (as in ROBOT).
//
// # Methods (Optimize)
//
// All methods start from the same Init uniform points per repeat, then
// evaluate batches of Batch points until Budget evaluations:
//
//   - random: uniform points;
//   - turbo: centres = the top-M points; the batch is split over regions in
//     rank order (splitBatch: b/M each, the remainder to the best regions);
//   - robot: centre j = the best point at task distance >= Tau from centres
//     1..j-1 (an unevaluated random feasible point if none is left); regions
//     are processed in rank order and a candidate of region j within Tau of a
//     point picked this iteration by regions 1..j-1 is dropped, so a region
//     may propose fewer points (the budget is then spent in later
//     iterations);
//   - qvs (qVS-BayesOpt): centres = the greedy qVS_q maximiser (vendi.Greedy,
//     paper eq. 5) over all evaluated points with similarity exp(-d²/2), d
//     the task's distance, and quality = the objective min-max scaled over
//     the evaluated points to [0, 1] (the original code used raw, possibly
//     negative, values, but qVS counts high-quality items only when
//     quality is >= 0); each batch is Algorithm 1: every
//     region draws one joint sample f̄ over its candidates, the candidates are
//     merged, and the batch is the greedy qVS_q maximiser over them with
//     quality = f̄ min-max scaled over all merged candidates. For speed the
//     greedy considers each region's top-b candidates by f̄. Settings.TauFloor
//     (off by default, as in the paper) adds the authors' code's rule: a
//     centre whose VS_q falls below that of as many points pairwise Tau
//     apart (TauFloorVS) is rejected; regions left without one get a random
//     centre at distance >= Tau, as ROBOT's do;
//   - qvs with Settings.Mode = ModeAuthors: the authors' code instead (see
//     ModeAuthors): quality = raw objective values, a floor always on and
//     computed at q = 1 (VS_q of the centres >= VS_1 of as many points
//     pairwise Tau apart), an evaluated random centre for a region without
//     a valid one, and qVS picks only the centres: each region proposes its
//     share of the batch as plain Thompson points. Its centre greedy is a
//     branch and bound (authorsGreedy) that needs the task distances of few
//     low-value points.
//
// The final M solutions are the method's centres computed on all
// evaluations (for random, the greedy qVS_1 set). Result reports the best
// value, the solutions' mean value, their pairwise task distances and mean,
// and their Vendi score of order 1 under exp(-d²/2).
//
// # Ask and tell
//
// Engine is the optimiser as a state machine driven by its evaluation
// history: InitialDesign, then Ask(b) for the next batch (each point with its
// region) and Tell(evaluations) to add an iteration and update the trust
// regions. Optimize is a loop over Ask and Tell; `qvs bayesopt suggest`
// rebuilds an Engine from a user's evaluation file with the same calls.
// Ask accepts pending points (experiments still running): the batch avoids
// them and treats them as already picked this iteration. A Domain that is a
// Snapper (integer parameters) has its candidates snapped before sampling,
// and no snapped point is proposed twice.
//
// # Determinism and resume
//
// Every random draw derives from rng.New: the initial design from
// (seed, "init", repeat), iteration t from (seed, key, t, region). Given the
// records of an interrupted run (RecordHeader, FormatRecord, ParseRecords:
// floats round-trip exactly; an objective that is a RecordCoder writes and
// reads its own x cells, which must round-trip as exactly), Optimize
// replays them without evaluating the objective, rebuilds the trust regions
// (a deterministic function of the history) and continues; the result
// equals an uninterrupted run, whatever Settings.Workers is.
//
// Deviations from the authors' GPU code, chosen for a CPU: an exact local GP
// per region instead of a deep-kernel sparse GP shared by all regions; a
// total batch split over regions (configs/*-authors.yaml give each region
// ROBOT's 32 points). In the paper mode the qVS centre selection drops the
// original's rejection of picks whose VS falls below that of points tau
// apart (Settings.TauFloor restores it at the run's q; ModeAuthors at q = 1,
// as the original).
//
//	res, err := bayesopt.Optimize(ctx, obj, bayesopt.Settings{
//		Method: bayesopt.MethodQVS, Q: 1, Budget: 1000, Init: 50, Batch: 30, Regions: 3,
//	}, bayesopt.RunID{Seed: 0, Key: "qvs-q1-r00"}, nil, record)
package bayesopt
