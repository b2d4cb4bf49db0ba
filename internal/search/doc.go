// Package search implements diverse active search (Nguyen & Dieng, ICML
// 2024, Section 3.1 and 4.1): a pool of items with hidden binary labels, a
// budget of label queries made in batches, and policies that choose each
// batch from a probabilistic model.
//
// The model is the k-nearest-neighbour model of Garnett et al. (2012) on the
// pool's DIRECTED kNN graph, as the authors' code does: Model keeps, per item, the
// summed weight to observed positives and negatives among its own
// neighbours, updated in O(in-degree) per observation through reverse
// neighbour lists.
//
// Policies (all deterministic, ties to the lowest item index, except random):
//
//	Random    uniform queries
//	OneStep   top-b probabilities (qVS-AS with q = 0)
//	ECI       expected coverage improvement (Malkomes et al. 2021)
//	SELECT    UCB with a variance bonus (Vanchinathan et al. 2015)
//	ENS       efficient nonmyopic search (Jiang et al. 2017), budget-aware
//	QVS       qVS-AS, Algorithm 2: greedy maximisation of eq. 7 with the
//	          observed positives as a fixed prefix of quality 1 and
//	          candidates of quality Pr(y = 1 | D)
//
// Each policy is one Method in a registry (its name, its settings under a
// protocol, its constructor, its growable grid keys); Methods, LookupMethod,
// NewPolicy, Plan and GrowableKeys read it, so adding a policy is its type
// and Method in a file of its own and one line in the registry.
//
// ECI, SELECT and ENS build a batch by fantasising each pick's label
// (pessimistic: negative, or optimistic: positive). Every fast path (ENS's
// prefix sums and bounds, ECI's incremental rescoring and the memory it
// keeps between the batches of a run in State.Carry, qVS-AS's secular
// equation in package vendi and the greedy's memo of block spectra and
// roots it keeps there) is exact: it never changes a pick relative to
// evaluating the definition.
//
// Run executes one search run (start, budget, batch size) and replays the
// queries of an interrupted attempt; Measure computes the paper's metrics of
// the collected positives (VS_q for q in {0, 0.1, 0.5, 1, 2, ∞} on the
// symmetrised graph kernel, maximum pairwise feature distance, kernel
// determinant).
//
// A campaign (`qvs as`) is a Protocol: methods with their hyperparameter
// grids, repeats, budget, batch size, seed. Plan lists its runs, repeat by
// repeat; Campaign.RunFunc executes one under internal/campaign, every method
// of a repeat starting from the same random positive on the same search
// Space (the Pool relabelled in the repeat's random order), and returns the
// run's metrics for summary.csv.
//
// Memory: a Space holds the relabelled graph (one array for every row) and
// the kNN model with its reverse lists (vendi.KNNReverse: the listing item
// and a position in its row per edge, 8 bytes, the weight read from the
// row); its diversity kernel is a
// vendi.KNNKernel, whose rows are built when read (a run reads its picks'
// rows), and the Pool's own kernel, for the metrics, is built once, on a
// campaign's first use. A suggestion on 1,000,000 items with k = 20 peaks
// at 1.9 GB (docs/performance.md).
//
// The model's prior a1 is a Prior: the authors' rule (the pool's true
// prevalence, PriorFromPrevalence; the paper configs), FitPrior (empirical
// Bayes from the observed labels and the graph only, for real use), or a
// number.
// Suggest (`qvs as suggest`) picks the next batch from the labels a user
// has observed, on a pool whose labels may be unknown, breaking exact ties
// in a random order drawn from the seed as campaigns do. With no label (a
// cold start) every item's probability is the prior, eq. 7 is a1 · VS_q,
// and every method but random returns qVS-AS's batch: the greedy
// maximisation of VS_q on the diversity kernel (ColdStartMethod).
//
//	m, _ := search.NewModel(pool.Neighbors, pool.Weights, a0, a1)
//	m.Observe(start, true)
//	batch, _ := search.ECI{Threshold: 0.5}.Batch(&search.State{Model: m, Remaining: 200, Workers: 1}, 5)
package search
