package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

func newToyCmd(g *GlobalOptions) *cobra.Command {
	o := &cli.ToyOptions{}
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "toy [--n 10] [--q 0,0.1,1,5,inf] [--starts N] [--out DIR] [--format png|svg]",
		Short: "Figure 1: batches in [-1,1]^2 maximising VS_q and qVS_q (multi-start gradient ascent)",
		Long: `Reproduces Figure 1 of the paper (section 2.4): for each order q, the batch of
n points in [-1, 1]^2 maximising VS_q (top row) and qVS_q (bottom row), with
kernel k(x, y) = exp(-|x - y|^2 / 2) and quality s(x) = exp(-|x|^2 / 2) (the
heat map). Each panel runs --starts projected-gradient ascents from uniform
random batches (seeded by --seed) and keeps the best.

q = 0: VS_0 counts distinct points, so its gradient is zero: the VS panel is
left empty as in the paper, and the qVS panel maximises the mean quality (all
points at the centre, where VS_0 = 1).

Writes DIR/toy.png (or .svg), DIR/toy.csv (row,q,point,x,y,vs,qvs: every
point of every panel, with the panel's VS_q and qVS_q) and DIR/config.yaml,
and prints one line per panel. Points that coincide are drawn once with
their multiplicity.`,
		Annotations: ignoresGlobals("data-dir", "cache-dir"),
		Args:        cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			*o = cli.DefaultToyOptions()
			if err := resolveSettings(g, t, o, nil); err != nil {
				return err
			}
			return run(g, c, o, cli.RunToy)
		},
	}
	f := c.Flags()
	def := cli.DefaultToyOptions()
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.IntVar, "n", "n", def.N, "points per batch", &o.N)
	configkeys.BindValue(t, "q", "q", def.Orders, "comma-separated orders q, one column each", &o.Orders)
	configkeys.Bind(t, f.IntVar, "starts", "starts", def.Starts, "random starts per panel (the best is kept)", &o.Starts)
	configkeys.Bind(t, f.StringVar, "out", "out", def.Out, "output directory", &o.Out)
	configkeys.Bind(t, f.StringVar, "format", "format", def.Format, "figure format: png or svg", &o.Format)
	return c
}
