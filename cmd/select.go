package cmd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/items"
	"github.com/qvs-dev/qvs/internal/vendi"
)

type selectOptions struct {
	in     inputFlags
	k      int
	order  vendi.Order
	prefix string
	format string
	rawIDs bool
}

func newSelectCmd(g *GlobalOptions) *cobra.Command {
	o := &selectOptions{}
	c := &cobra.Command{
		Use:   "select (--kernel K | --embeddings X [--embedding-kernel cosine|linear|rbf] [--length-scale L]) [--quality s | --quality-column NAME] --k N [--q Q]",
		Short: "Pick N items greedily maximising the quality-weighted Vendi score qVS_q",
		Long: `Picks N items one at a time, each maximising the qVS_q of the items picked so
far plus the candidate (paper eq. 5). Without --quality every item has
quality 1 and the picks maximise VS_q. --prefix lists items already chosen
(0-based rows): they count in the score but are never picked.

Ties (scores within a relative 1e-10) go to the lowest row index. A kernel
with no positive eigenvalue (all zeros, or negative semidefinite) is an
error, as in score: the VS of every set would be undefined.
Output: rank, index (0-based input row), id (with --ids/--id-column) and the
qVS of the prefix plus the picks so far. When the prefix plus --k reaches
` + items.NoticeOrders + `, a line on stderr says so first
(not with --quiet, nor on embeddings with a linear or cosine kernel, whose
greedy works in d x d).

` + embeddingsHelp,
		Annotations: ignoresGlobals("config", "seed", "data-dir", "cache-dir"),
		Args:        cobra.NoArgs,
		RunE:        func(c *cobra.Command, _ []string) error { return runSelect(c, g, o) },
	}
	o.in.register(c.Flags())
	c.Flags().IntVar(&o.k, "k", 0, "number of items to pick (required)")
	o.order = 1
	c.Flags().Var(&o.order, "q", "order q (>= 0, or inf)")
	c.Flags().StringVar(&o.prefix, "prefix", "", "comma-separated 0-based rows already chosen")
	c.Flags().StringVar(&o.format, "format", "table", "output format: table, csv or json (one document: docs/json.md)")
	c.Flags().BoolVar(&o.rawIDs, "raw-ids", false, "keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)")
	return c
}

func runSelect(c *cobra.Command, g *GlobalOptions, o *selectOptions) error {
	q := o.order // parsed and checked with the flag
	if o.k < 1 {
		return usageErrorf("--k must be at least 1")
	}
	if o.format != "table" && o.format != "csv" && o.format != formatJSON {
		return usageErrorf("--format %q: expected table, csv or json", o.format)
	}
	steps := newStepLog(c.ErrOrStderr(), g.Quiet)
	steps.step("reading the items")
	in, err := loadItems(o.in, c.ErrOrStderr(), g.Quiet)
	steps.end()
	if err != nil {
		return err
	}
	var prefix []int
	inPrefix := make([]bool, in.N)
	for _, f := range strings.Split(o.prefix, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		i, err := strconv.Atoi(f)
		if err != nil || i < 0 || i >= in.N {
			return usageErrorf("--prefix: %q is not a row index in [0, %d)", f, in.N)
		}
		if inPrefix[i] {
			return usageErrorf("--prefix: row %d is listed twice", i)
		}
		inPrefix[i] = true
		prefix = append(prefix, i)
	}
	if o.k > in.N-len(prefix) {
		return usageErrorf("--k %d: only %s can be picked (%s, %d in the prefix)", o.k, nItems(in.N-len(prefix), "item"), nItems(in.N, "item"), len(prefix))
	}
	steps.step(fmt.Sprintf("picking %s from %d (greedy on qVS_%s)", nItems(o.k, "item"), in.N, q))
	res, err := in.Select(o.k, q, prefix, g.Workers, func(size int) {
		noteDenseEig(c.ErrOrStderr(), g.Quiet, size, fmt.Sprintf("qvs select: picking %s: the greedy eigendecomposes chosen sets of order up to %d", nItems(o.k, "item"), size))
	})
	steps.end()
	if err != nil {
		return err
	}
	if o.format == "csv" || o.format == formatJSON {
		head := []string{"rank", "index"}
		if in.IDs != nil {
			head = append(head, "id")
		}
		head = append(head, "qvs")
		rows := make([][]string, len(res.Picks))
		for r, i := range res.Picks {
			rows[r] = []string{strconv.Itoa(r + 1), strconv.Itoa(i)}
			if in.IDs != nil {
				rows[r] = append(rows[r], in.IDs[i])
			}
			rows[r] = append(rows[r], formatFloat(res.Scores[r]))
		}
		if o.format == formatJSON {
			// JSON keeps ids verbatim: no spreadsheet opens it.
			return writeJSONTable(c.OutOrStdout(), "select", head, rows, jsonField{"q", jsonNumber(float64(q))}, jsonField{"prefix", prefixOrEmpty(prefix)})
		}
		if in.IDs != nil {
			for _, r := range rows {
				r[2] = csvID(r[2], o.rawIDs)
			}
		}
		return writeSuggestions(c.OutOrStdout(), "csv", head, rows, nil)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "rank\tindex\t")
	if in.IDs != nil {
		fmt.Fprint(tw, "id\t")
	}
	fmt.Fprintf(tw, "qVS_%s\n", q.String())
	for r, i := range res.Picks {
		fmt.Fprintf(tw, "%d\t%d\t", r+1, i)
		if in.IDs != nil {
			fmt.Fprintf(tw, "%s\t", tableCell(in.IDs[i]))
		}
		fmt.Fprintf(tw, "%.6f\n", res.Scores[r])
	}
	tw.Flush()
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
}

// csvID is id as a CSV output shows it: fileio.SpreadsheetSafe unless raw
// (--raw-ids).
func csvID(id string, raw bool) string {
	if raw {
		return id
	}
	return fileio.SpreadsheetSafe(id)
}

// csvField quotes a CSV field when needed.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// prefixOrEmpty is prefix, or an empty list (JSON [] rather than null).
func prefixOrEmpty(prefix []int) []int {
	if prefix == nil {
		return []int{}
	}
	return prefix
}
