// Package eval turns the results folders of qvs campaigns into the paper's
// tables and figures (Nguyen & Dieng, ICML 2024): `qvs eval results/`.
//
// A campaign is a folder with a summary.csv (one row per run) and the
// resolved config.yaml, as written by internal/campaign. Its kind is the
// kind: config.yaml records (Kind.Key), else told by the summary's columns:
//
//	vs_q0, ..., kernel_det   active search (`qvs as`)        -> Tables 1-3, Figure 2
//	edc                      discrete BayesOpt (kernel set)   -> Table 4, Figure 5
//	solutions_vs             continuous BayesOpt (rover...)   -> summary table, Figures 3-4
//	hits_total               replay (`qvs as replay`)         -> replay table, hits curve
//
// What eval cannot know from below comes in Options: the tasks whose
// points are paths on a map (Options.Paths: the rover's obstacles, start,
// goal and trajectory, passed by internal/cli) and how a pool is reloaded
// for Figure 2 (Options.Pool).
// The active-search tables' last column is kernel_det_per_item, the
// per-item determinant |det K|^(1/n) (our inference of the paper's "kernel
// matrix det."; noted under each table); summaries written before it existed
// get it from positives, kernel_det and kernel_logdet when loaded.
//
// Tables. Runs are grouped by (method, q, params); a cell is the mean over
// the repeats and its standard error s/sqrt(n) (sample standard deviation,
// n - 1 denominator), printed "mean (SE)" with two decimals; distance
// columns, a user space's values and a replay's seconds a round print at
// least three significant digits (roundSig: 0.052 and
// 0.011 must not both read 0.05 / 0.01), the SE to the same decimals. A row whose
// method ran several hyperparameter settings (ECI thresholds, SELECT beta
// and lambda) is starred and takes, per column, the setting with the best
// mean, as the paper's ECI* and SELECT* rows; the notes say which. Bold
// marks the best printed mean per column, ties at the printed precision
// included.
// Every table is written as Markdown, LaTeX (booktabs) and CSV (one line per
// cell, full precision).
//
// Figures (gonum/plot, PNG and SVG): best value so far against evaluations,
// mean with a standard-error band per method (Figure 3); the final
// trajectories of a task of Options.Paths on its obstacle map (the rover,
// Figure 4); the queries of one-step and
// qVS-AS on a 2-D PCA of the pool and VS_1 of the positives against queries
// (Figure 2); the MDS embedding of a discrete candidate set with each
// method's picks (Figure 5).
//
// Missing or partial campaigns are not errors: Evaluate makes what it can
// and its Report lists what it could not make and why.
package eval
