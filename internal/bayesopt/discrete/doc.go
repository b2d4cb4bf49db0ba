// Package discrete is Bayesian optimisation over a finite candidate set
// whose only geometry is a precomputed kernel matrix: the MOF search of
// Nguyen & Dieng (ICML 2024, §4.2, Algorithm 3, Table 4, Figures 5-6),
// after Liu et al. 2024 (Chem. Sci., doi:10.1039/D4SC03609C), and a
// photoswitch stand-in with the same machinery (the MOF data is not public;
// any candidate set given as a kernel matrix and objective values runs).
//
// # Model
//
// A Gaussian process with prior f ~ GP(m, s² K) over the n candidates, K
// the given PSD kernel, observed with Gaussian noise σ² (GP). Targets are
// standardised; m, s² and σ² maximise the marginal likelihood, with m and
// s² profiled out in closed form and σ²/s² found by a log-grid scan plus
// golden-section refinement (FitGP). The posterior mean and standard
// deviation of every candidate follow from one Cholesky factor of the
// observed block.
//
// # Policies (one batch of b queries per iteration)
//
//   - random: b unqueried candidates uniformly at random.
//   - ucb: the b unqueried candidates of largest UCB = mu + sqrt(beta) sd,
//     beta = 2 (botorch's convention, as the authors' code
//     vertaix/VBO mof_search/run_bo.py calls
//     UpperConfidenceBound(model, beta=2) and takes torch.topk): regular,
//     diversity-blind BayesOpt.
//   - qvs: Algorithm 3. The batch X is built greedily; each step adds the
//     unqueried x maximising qVS_q(D ∪ X ∪ {x}; k, s): the observed data D
//     count in the score (they are the fixed prefix of vendi.Greedy), k is
//     the kernel normalised to unit diagonal, and the quality s is the UCB
//     of every item (D included) min-max scaled to [0, 1] over all
//     candidates (QualityFromUCB). q = 0 gives the ucb batch, since VS_0 is
//     the count (paper §2.3).
//
// # Ask and tell
//
// Engine is the search as a state machine whose only state is the
// evaluation history: Ask(b) returns the next batch, Tell records finished
// evaluations. Problem.Search (a campaign run, with exact resume) is a loop
// of Ask and Tell, and `qvs bayesopt suggest --kernel` tells a user's
// history and asks once: the same history gives the same batch.
// ReadEvaluations reads such a history from a CSV file.
//
// Every run of a repeat starts from the same Init random points. The budget
// counts every evaluation, initial points included (as for the continuous
// tasks of `qvs bayesopt`). Defaults, the authors': 2 initial points, then
// 100 queries in batches of 5 (budget 102), 10 repeats.
//
// # Metrics
//
// Per run (Evaluate): the best objective after each iteration (the curve),
// the best item and its extra metrics (e.g. the MOF energy penalty of
// Figure 6), and the effective discovery count EDC = VS_1 of the "good"
// items found (objective >= threshold; MOF: storage >= 15), initial points
// included, on the unit-diagonal kernel.
//
// # Outputs
//
// RunFunc plugs a Problem into internal/campaign: runs/KEY.csv holds one
// record per query (RecordHeader), runs/KEY.curve.csv the curve, and the
// summary row has best_value, edc, good_found, evaluations, best_id,
// best_index and best_<metric> per extra metric. Resumed runs replay their
// records; all draws derive from (seed, set name, repeat, iteration).
//
// MDS gives the 2-D classical multidimensional-scaling embedding of the
// kernel for Figure 5; CachedMDS caches it under the cache directory and
// WriteMDSFile writes the campaign's mds.csv (index, id, x, y, objective).
//
//	set, _ := datasets.PhotoswitchKernelSet(path)
//	p, _ := discrete.NewProblem(set, 450)
//	s := discrete.DefaultSettings()
//	s.Method, s.Q = discrete.MethodQVS, 1
//	iters, _ := p.Search(ctx, s, nil, nil)
//	out, _ := p.Evaluate(iters) // out.BestValue, out.EDC
package discrete
