package cli

import (
	"fmt"
	"math"
	"time"

	"github.com/qvs-dev/qvs/internal/toy"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ToyOptions are the settings of `qvs toy`; the yaml tags are the keys of
// its YAML config and of the config.yaml it writes.
type ToyOptions struct {
	N      int       `yaml:"n"`
	Orders ToyOrders `yaml:"q"`
	Starts int       `yaml:"starts"`
	Out    string    `yaml:"out"`
	Format string    `yaml:"format"`
}

// ToyOrders are toy's orders q, parsed where they enter (--q, the
// config's q: list or comma-separated string) and recorded in config.yaml
// as one comma-separated string of the orders as written (q: 0,0.1,inf),
// as when q was a string.
type ToyOrders struct{ vendi.OrderList }

// MarshalYAML writes the orders as written, comma-separated.
func (o ToyOrders) MarshalYAML() (any, error) { return o.String(), nil }

// DefaultToyOptions are the settings of Figure 1.
func DefaultToyOptions() ToyOptions {
	return ToyOptions{N: toy.DefaultN, Orders: ToyOrders{vendi.NewOrderList(0, 0.1, 1, 5, vendi.OrderInf)}, Starts: toy.DefaultStarts, Out: "results/toy", Format: "png"}
}

// check refuses settings toy cannot run (usage errors naming the flag
// and the key).
func (o *ToyOptions) check() error {
	switch {
	case o.Orders.Len() == 0:
		return Usagef("--q (q) must name at least one order")
	case o.N < 1 || o.N > toy.MaxN:
		return Usagef("--n (n) must be 1 to %d, got %d (the cost grows like n^3: n = 100 takes ~25 min)", toy.MaxN, o.N)
	case o.Starts < 1 || o.Starts > toy.MaxStarts:
		return Usagef("--starts (starts) must be 1 to %d, got %d (each start's result is kept until the panel's best is chosen)", toy.MaxStarts, o.Starts)
	case o.Format != "png" && o.Format != "svg":
		return Usagef("--format (format) %q: expected png or svg", o.Format)
	case o.Out == "":
		return Usagef("--out (out) must name a directory")
	}
	return nil
}

// RunToy reproduces Figure 1 (toy.Figure1) into o.Out: the figure, the
// points as CSV and config.yaml (the settings, the seed and the version),
// then one line per panel on e.Out.
func RunToy(e *Env, o *ToyOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := toy.CheckOut(o.Out, []string{e.Config}, e.Force); err != nil {
		return Usage(err)
	}
	orders := o.Orders.Orders()
	if !e.Quiet {
		fmt.Fprintf(e.Err, "toy: n=%d, %d orders, %d starts per panel, %d workers, seed %d\n", o.N, len(orders), o.Starts, e.Workers, e.Seed)
	}
	start := time.Now()
	panels, err := toy.Figure1(e.Context(), orders, toy.Config{N: o.N, Starts: o.Starts, Workers: e.Workers, Seed: e.Seed})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	resolved := struct {
		ToyOptions `yaml:",inline"`
		Seed       uint64 `yaml:"seed"`
		Version    string `yaml:"qvs_version"`
	}{*o, e.Seed, e.Version}
	csvPath, figPath, err := toy.WriteResults(o.Out, o.Format, panels, resolved)
	if err != nil {
		return err
	}
	for _, p := range panels {
		fmt.Fprintln(e.Out, toyPanelLine(p))
	}
	if !e.Quiet {
		fmt.Fprintf(e.Err, "toy: %.1fs; wrote %s, %s\n", elapsed.Seconds(), figPath, csvPath)
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
