package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/items"
	"github.com/qvs-dev/qvs/internal/vendi"
)

type scoreOptions struct {
	in     inputFlags
	orders vendi.Orders
	format string
}

func newScoreCmd(g *GlobalOptions) *cobra.Command {
	o := &scoreOptions{}
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
		RunE:        func(c *cobra.Command, _ []string) error { return runScore(c, g, o) },
	}
	o.in.register(c.Flags())
	o.orders = vendi.Orders{0, 0.1, 0.5, 1, 2, vendi.OrderInf}
	c.Flags().Var(&o.orders, "q", "comma-separated orders q (>= 0, or inf)")
	c.Flags().StringVar(&o.format, "format", "table", "output format: table, csv or json")
	c.Flags().StringVar(&o.in.groupColumn, "group-column", "", "--embeddings CSV: score each group of rows (the column's values) under one shared kernel; one row per group")
	return c
}

// scoreRow is one order's scores.
type scoreRow struct {
	Q   string   `json:"q"`
	VS  float64  `json:"vs"`
	QVS *float64 `json:"qvs,omitempty"`
}

// scoreRows are the rows of scores.
func scoreRows(scores []items.Score) []scoreRow {
	rows := make([]scoreRow, len(scores))
	for k, s := range scores {
		rows[k] = scoreRow{Q: s.Q.String(), VS: s.VS, QVS: s.QVS}
	}
	return rows
}

// groupScores are the scores of one group of score --group-column.
type groupScores struct {
	Group  string     `json:"group"`
	N      int        `json:"n"`
	Scores []scoreRow `json:"scores"`
}

// scoreGroups prints, for each group of the items (in order of first
// appearance), VS_q (and qVS_q) of its items under the kernel of all the
// items (items.GroupScores): one RBF length scale, the one printed, for
// every group.
func scoreGroups(c *cobra.Command, g *GlobalOptions, o *scoreOptions, in *items.Items, orders vendi.Orders) error {
	groups, err := in.GroupScores(orders, func(order int, what string) {
		noteDenseEig(c.ErrOrStderr(), g.Quiet, order, "qvs score: eigendecomposing "+what)
	})
	if err != nil {
		return err
	}
	out := make([]groupScores, len(groups))
	for k, gr := range groups {
		out[k] = groupScores{Group: gr.Name, N: gr.N, Scores: scoreRows(gr.Scores)}
	}
	var buf bytes.Buffer
	switch o.format {
	case "json":
		doc := map[string]any{"n": in.N, "group_column": o.in.groupColumn, "groups": out}
		if l, ok := in.LengthScale(); ok {
			doc["length_scale"] = l
		}
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	case "csv":
		head := []string{"group", "n"}
		for _, q := range orders {
			head = append(head, "vs_q"+q.String())
		}
		if in.Quality != nil {
			for _, q := range orders {
				head = append(head, "qvs_q"+q.String())
			}
		}
		rows := make([][]string, len(out))
		for r, gs := range out {
			rows[r] = []string{gs.Group, strconv.Itoa(gs.N)}
			for _, s := range gs.Scores {
				rows[r] = append(rows[r], formatFloat(s.VS))
			}
			for _, s := range gs.Scores {
				if s.QVS != nil {
					rows[r] = append(rows[r], formatFloat(*s.QVS))
				}
			}
		}
		return writeSuggestions(c.OutOrStdout(), "csv", head, rows, nil)
	default:
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "group\tn\t")
		for _, q := range orders {
			fmt.Fprintf(tw, "VS_%s\t", q.String())
		}
		if in.Quality != nil {
			for _, q := range orders {
				fmt.Fprintf(tw, "qVS_%s\t", q.String())
			}
		}
		fmt.Fprintln(tw)
		for _, gs := range out {
			fmt.Fprintf(tw, "%s\t%d\t", tableCell(gs.Group), gs.N)
			for _, s := range gs.Scores {
				fmt.Fprintf(tw, "%.6f\t", s.VS)
			}
			for _, s := range gs.Scores {
				if s.QVS != nil {
					fmt.Fprintf(tw, "%.6f\t", *s.QVS)
				}
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
}

func runScore(c *cobra.Command, g *GlobalOptions, o *scoreOptions) error {
	orders := o.orders // parsed and checked with the flag
	if o.format != "table" && o.format != "csv" && o.format != "json" {
		return usageErrorf("--format %q: expected table, csv or json", o.format)
	}
	o.in.rawNPY = true
	in, err := loadItems(o.in, c.ErrOrStderr(), g.Quiet)
	if err != nil {
		return err
	}
	if in.Groups != nil {
		return scoreGroups(c, g, o, in, orders)
	}
	scores, err := in.Scores(orders, func(order int, what string) {
		noteDenseEig(c.ErrOrStderr(), g.Quiet, order, "qvs score: eigendecomposing "+what)
	})
	if err != nil {
		return err
	}
	rows := scoreRows(scores)
	var buf bytes.Buffer
	switch o.format {
	case "json":
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"n": in.N, "scores": rows}); err != nil {
			return err
		}
	case "csv":
		buf.WriteString("q,vs")
		if in.Quality != nil {
			buf.WriteString(",qvs")
		}
		buf.WriteString("\n")
		for _, r := range rows {
			fmt.Fprintf(&buf, "%s,%s", r.Q, formatFloat(r.VS))
			if r.QVS != nil {
				fmt.Fprintf(&buf, ",%s", formatFloat(*r.QVS))
			}
			buf.WriteString("\n")
		}
	default:
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "q\tVS\t")
		if in.Quality != nil {
			fmt.Fprintf(tw, "qVS\t")
		}
		fmt.Fprintln(tw)
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%.6f\t", r.Q, r.VS)
			if r.QVS != nil {
				fmt.Fprintf(tw, "%.6f\t", *r.QVS)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
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

// formatFloat writes a float with full precision, "inf" for +Inf.
func formatFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
