package cmd

import (
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/toy"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// toyOptions are the settings of `qvs toy`; the yaml tags are the keys of
// its YAML config and of the config.yaml it writes.
type toyOptions struct {
	N      int       `yaml:"n"`
	Orders toyOrders `yaml:"q"`
	Starts int       `yaml:"starts"`
	Out    string    `yaml:"out"`
	Format string    `yaml:"format"`
}

// toyOrders are toy's orders q, parsed where they enter (--q, the
// config's q: list or comma-separated string) and recorded in config.yaml
// as one comma-separated string of the orders as written (q: 0,0.1,inf),
// as when q was a string.
type toyOrders struct{ vendi.OrderList }

// MarshalYAML writes the orders as written, comma-separated.
func (o toyOrders) MarshalYAML() (any, error) { return o.String(), nil }

// defaultToyOptions are the settings of Figure 1.
func defaultToyOptions() toyOptions {
	return toyOptions{N: toy.DefaultN, Orders: toyOrders{vendi.NewOrderList(0, 0.1, 1, 5, vendi.OrderInf)}, Starts: toy.DefaultStarts, Out: "results/toy", Format: "png"}
}

func newToyCmd(g *GlobalOptions) *cobra.Command {
	o := &toyOptions{}
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
		RunE:        func(c *cobra.Command, _ []string) error { return runToy(c, g, t, o) },
	}
	f := c.Flags()
	def := defaultToyOptions()
	t = configkeys.NewTable(f)
	configkeys.Bind(t, f.IntVar, "n", "n", def.N, "points per batch", &o.N)
	configkeys.BindValue(t, "q", "q", def.Orders, "comma-separated orders q, one column each", &o.Orders)
	configkeys.Bind(t, f.IntVar, "starts", "starts", def.Starts, "random starts per panel (the best is kept)", &o.Starts)
	configkeys.Bind(t, f.StringVar, "out", "out", def.Out, "output directory", &o.Out)
	configkeys.Bind(t, f.StringVar, "format", "format", def.Format, "figure format: png or svg", &o.Format)
	return c
}

// resolveToyOptions resolves the settings (resolveSettings): the
// defaults, the config file, the flags set explicitly.
func resolveToyOptions(g *GlobalOptions, t *configkeys.Table, o *toyOptions) (toyOptions, error) {
	*o = defaultToyOptions()
	if err := resolveSettings(g, t, o, nil); err != nil {
		return *o, err
	}
	switch {
	case o.Orders.Len() == 0:
		return *o, usageErrorf("--q (q) must name at least one order")
	case o.N < 1 || o.N > toy.MaxN:
		return *o, usageErrorf("--n (n) must be 1 to %d, got %d (the cost grows like n^3: n = 100 takes ~25 min)", toy.MaxN, o.N)
	case o.Starts < 1 || o.Starts > toy.MaxStarts:
		return *o, usageErrorf("--starts (starts) must be 1 to %d, got %d (each start's result is kept until the panel's best is chosen)", toy.MaxStarts, o.Starts)
	case o.Format != "png" && o.Format != "svg":
		return *o, usageErrorf("--format (format) %q: expected png or svg", o.Format)
	case o.Out == "":
		return *o, usageErrorf("--out (out) must name a directory")
	}
	return *o, nil
}

func runToy(c *cobra.Command, g *GlobalOptions, t *configkeys.Table, settings *toyOptions) error {
	o, err := resolveToyOptions(g, t, settings)
	if err != nil {
		return err
	}
	if err := toy.CheckOut(o.Out, []string{g.Config}, g.Force); err != nil {
		return cli.Usage(err)
	}
	orders := o.Orders.Orders()
	ctx, stop := interruptContext(c)
	defer stop()

	stderr := c.ErrOrStderr()
	if !g.Quiet {
		fmt.Fprintf(stderr, "toy: n=%d, %d orders, %d starts per panel, %d workers, seed %d\n", o.N, len(orders), o.Starts, g.Workers, g.Seed)
	}
	start := time.Now()
	panels, err := toy.Figure1(ctx, orders, toy.Config{N: o.N, Starts: o.Starts, Workers: g.Workers, Seed: g.Seed})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)

	resolved := struct {
		toyOptions `yaml:",inline"`
		Seed       uint64 `yaml:"seed"`
		Version    string `yaml:"qvs_version"`
	}{o, g.Seed, Version}
	csvPath, figPath, err := toy.WriteResults(o.Out, o.Format, panels, resolved)
	if err != nil {
		return err
	}

	out := c.OutOrStdout()
	for _, p := range panels {
		fmt.Fprintln(out, toyPanelLine(p))
	}
	if !g.Quiet {
		fmt.Fprintf(stderr, "toy: %.1fs; wrote %s, %s\n", elapsed.Seconds(), figPath, csvPath)
	}
	return nil
}

// toyPanelLine summarises one panel: its scores, how far its points are from
// the centre, how many distinct locations they occupy, and any q = 0 note.
func toyPanelLine(p toy.Panel) string {
	head := fmt.Sprintf("%-3s q=%-4s", p.Row, p.Q.String())
	if p.Empty {
		return head + "  empty: " + p.Note
	}
	var dist float64
	for _, x := range p.Points {
		dist += math.Hypot(x[0], x[1])
	}
	dist /= float64(len(p.Points))
	line := fmt.Sprintf("%s  VS=%.6f  qVS=%.6f  mean|x|=%.4f  locations=%d  best start %d/%d",
		head, p.VS, p.QVS, dist, len(toy.Stacks(p.Points)), p.BestStart+1, p.Starts)
	if p.Note != "" {
		line += "  note: " + p.Note
	}
	return line
}
