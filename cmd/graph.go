package cmd

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
)

type graphOptions struct {
	as  asOptions
	out string
}

func newGraphCmd(g *GlobalOptions) *cobra.Command {
	o := &graphOptions{}
	c := &cobra.Command{
		Use:   "graph --pool X.npy|pool.csv [--metric euclidean|cosine|tanimoto] [--k 20] [--knn auto|exact|approx] [--ids ids.txt] [--similarity gaussian|native|unweighted] --out W.npz",
		Short: "Build (or take from the cache) a pool's kNN graph and export it as a SciPy CSR .npz",
		Long: `Builds the kNN graph of a pool exactly as 'qvs as suggest' does (same
flags, same cache under --cache-dir, so one command warms the cache for the
other) and writes its weights as a SciPy CSR matrix, n x n, row i holding
item i's k nearest neighbours (never i) with their similarity weights in
(0, 1], nearest first: scipy.sparse.load_npz(W.npz) reads it.

The pool: --pool pool.csv (feature columns as for 'qvs as suggest') or
--pool X.npy, a 2-D C-order matrix one row per item: float32 or float64
features; uint8 or bool values; with --metric tanimoto, uint8 rows are
fingerprints packed most significant bit first (numpy.packbits(fp, axis=1):
bit b is bit 7 - b%8 of byte b/8) and bool columns are one bit each. --ids
FILE gives the item ids (one per line), else they are the row index.

--knn auto (the default) builds the exact graph below ` + strconv.Itoa(knn.ApproxMinItems) + ` items (` + strconv.Itoa(knn.ApproxMinItemsTanimoto) + `
with --metric tanimoto) and the approximate one (random-projection trees,
then NN-descent; distances exact) from there; its recall@k, measured against brute force on sampled rows, is
printed on stderr. --similarity turns distances into weights: gaussian
exp(-d^2/h^2), h^2 the median squared edge distance (default for euclidean
and cosine; for tanimoto it means native), native 1 - d (cosine; tanimoto:
the Tanimoto similarity), unweighted 1.

On stderr (nothing with --quiet), every step that runs over a second shows
a progress bar (on a terminal; else one line with its total work) or a
status line, then one line with its work and duration:
reading the .npy, hashing it for the cache key, the approximate graph's
phases (trees, the recall sample, each NN-descent round, re-rank, recall:
each bar counts the distances or pairs its phase measures, its total known
when the phase starts, so its time left is that phase's), edge weights,
writing W.npz. The last lines say how the graph was made and how long the
cached path will take next time. Nothing is written to stdout.`,
		Args: cobra.NoArgs,
		// No config (the pool flags alone), no random draw, no paper data.
		Annotations: ignoresGlobals("config", "seed", "data-dir"),
		RunE:        func(c *cobra.Command, _ []string) error { return runGraph(c, g, o) },
	}
	f := c.Flags()
	t := configkeys.NewTable(f)
	o.as.table = t
	o.as.csv.register(t, &o.as.cfg)
	configkeys.Bind(t, f.StringVar, "similarity", "pool.csv.similarity", knn.SimilarityGaussian, "edge weights: gaussian, native or unweighted (default native for tanimoto)", &o.as.cfg.Pool.CSV.Similarity)
	configkeys.Bind(t, f.StringVar, "out", "", "", "the .npz to write (required)", &o.out)
	// The pool flags of `as suggest` include a graph or kernel of the
	// user's own, which graph refuses: not listed in its help.
	for _, name := range []string{"graph", "kernel"} {
		_ = f.MarkHidden(name)
	}
	return c
}

func runGraph(c *cobra.Command, g *GlobalOptions, o *graphOptions) error {
	fl := c.Flags()
	if !fl.Changed("pool") {
		return cli.Usagef("--pool X.npy|pool.csv is required")
	}
	// No config: the pool flags on a CSV pool's defaults.
	o.as.cfg = asConfig{Pool: datasets.DefaultConfig(datasets.KindCSV)}
	g.table = o.as.table
	o.as.csv.fromFlags = g.fromFlags
	if err := o.as.csv.choose(fl, &o.as.cfg); err != nil {
		return err
	}
	o.as.table.Apply()
	if err := o.as.csv.check(fl, &o.as.cfg); err != nil {
		return err
	}
	cfg := o.as.cfg
	if o.out == "" {
		return cli.Usagef("--out W.npz is required")
	}
	if fl.Changed("similarity") {
		// Checked before the pool is read and its graph built.
		if err := knn.CheckSimilarity(cfg.Pool.CSV.Similarity, cfg.Pool.CSV.Metric); err != nil {
			return cli.Usagef("--similarity: %v", err)
		}
	}
	return run(g, c, &cli.GraphOptions{Pool: cfg.Pool, Out: o.out}, cli.RunGraph)
}
