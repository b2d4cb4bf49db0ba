package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/items"
)

func newSelectCmd(g *GlobalOptions) *cobra.Command {
	o := cli.DefaultSelectOptions()
	var t *configkeys.Table
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
		RunE: func(c *cobra.Command, _ []string) error {
			applyItems(g, t, &o.Items)
			return run(g, c, &o, cli.RunSelect)
		},
	}
	f := c.Flags()
	t = configkeys.NewTable(f)
	bindItems(t, &o.Items)
	configkeys.Bind(t, f.IntVar, "k", "", 0, "number of items to pick (required)", &o.K)
	configkeys.BindValue(t, "q", "", o.Q, "order q (>= 0, or inf)", &o.Q)
	configkeys.Bind(t, f.StringVar, "prefix", "", "", "comma-separated 0-based rows already chosen", &o.Prefix)
	configkeys.BindValue(t, "format", "", o.Format, "output format: table, csv or json (one document: docs/json.md)", &o.Format)
	configkeys.Bind(t, f.BoolVar, "raw-ids", "", false, "keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)", &o.RawIDs)
	return c
}
