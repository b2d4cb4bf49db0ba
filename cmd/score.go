package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/items"
)

func newScoreCmd(g *GlobalOptions) *cobra.Command {
	o := cli.DefaultScoreOptions()
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "score (--kernel K.csv|K.npy | --embeddings X.csv|X.npy [--embedding-kernel cosine|linear|rbf|tanimoto] [--length-scale L] [--fingerprint-column fp] [--feature-columns c1,... | --feature-prefix x] [--exclude-columns c1,...] [--standardize] [--group-column COL]) [--quality s.csv | --quality-column NAME] [--q 0,0.1,1,inf]",
		Short: "Vendi scores (VS) and quality-weighted Vendi scores (qVS) of a set of items",
		Long: `Computes VS_q of a set of items for each order q (paper eq. 1 and 3) and,
with --quality, qVS_q = mean quality x VS_q (eq. 2).

The kernel must be symmetric with finite entries (unit diagonal expected;
--normalize rescales it). Eigenvalues are clipped at 0 (for every q, 2
included) and normalised to sum 1;
normalised eigenvalues <= 1e-10 count as zero; q = 0 is their count (rank),
q = 1 exp(Shannon entropy), q = inf 1/max. A kernel with no positive
eigenvalue (all zeros, or negative semidefinite) has no VS: an error.
Before a dense eigendecomposition of order ` + items.NoticeOrders + ` or
more, a line on stderr says what is decomposed (not with --quiet).

--group-column COL (embeddings CSV) prints one row per group of rows (the
values of COL, in order of first appearance): the VS of each group under
one kernel of the whole file, so one RBF length scale (the median heuristic
over every row unless --length-scale) serves every group and their scores
compare. Scoring each group's file alone would give each its own median
distance, rescaling every group to look alike.

` + embeddingsHelp,
		Annotations: ignoresGlobals("config", "seed", "data-dir", "cache-dir"),
		Args:        cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			applyItems(g, t, &o.Items)
			return run(g, c, &o, cli.RunScore)
		},
	}
	f := c.Flags()
	t = configkeys.NewTable(f)
	bindItems(t, &o.Items)
	configkeys.BindValue(t, "q", "", o.Orders, "comma-separated orders q (>= 0, or inf)", &o.Orders)
	configkeys.BindValue(t, "format", "", o.Format, "output format: table, csv or json", &o.Format)
	configkeys.Bind(t, f.StringVar, "group-column", "", "", "--embeddings CSV: score each group of rows (the column's values) under one shared kernel; one row per group", &o.Items.Emb.GroupColumn)
	return c
}

// embeddingsHelp describes the --embeddings options of score and select.
const embeddingsHelp = `Embeddings (--embeddings, one row per item): the kernel is cosine (default),
linear (X X^T) or rbf, exp(-|x_i - x_j|^2 / (2 l^2)) with l = --length-scale,
by default the median heuristic: the median Euclidean distance between
distinct rows (exact up to 2,048 rows, a fixed sample of 2^21 pairs above),
printed on stderr; or tanimoto, for fingerprints: a text column
(--fingerprint-column; --fingerprint-format bits, '0'/'1' with bit 0 first,
or hex, chemfp's FPS convention: two hex digits per byte, bytes in order,
bit i = 1<<(i%8) of byte i/8, so '04' = '00100000'), or a uint8 .npy of
fingerprints packed most significant bit first (numpy.packbits(fp, axis=1):
bit b is bit 7 - b%8 of byte b/8, as 'qvs as suggest --pool X.npy --metric
tanimoto' reads it) or a bool .npy (one bit per column), or 0/1 columns, or
non-negative integer counts compared by sum(min)/sum(max) (Tanimoto on
0/1; counts in a .npy need an integer or float dtype wider than uint8);
two all-zero fingerprints have similarity 1, an all-zero and another 0. --standardize z-scores each column first, (x - mean)/sd with the
population sd (divisor n; a constant column becomes 0).

A CSV with a header may hold more than the embedding: --id-column names the
ids, --quality-column the qualities, --feature-columns or --feature-prefix
the dimensions, --exclude-columns columns that are never dimensions.
Columns never leak: a column without a name (the index pandas' to_csv
writes, or "Unnamed: 0") is never a dimension: it is read as the row index
when it holds 0..n-1, as the ids when its values are unique (said on
stderr), else refused; a column named like a label or target (label,
target, y without x, class, activity, active, is_*) is refused unless
--exclude-columns leaves it out or --feature-columns names it; one named
like quality, score or value that is read as a dimension draws a warning.`
