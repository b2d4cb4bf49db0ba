package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/rover"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/eval"
)

// evalConfig holds the keys `qvs eval` reads from --config; flags the user
// sets override them.
type evalConfig struct {
	Out     string   `yaml:"out"`
	Format  []string `yaml:"format"`
	Figures []string `yaml:"figures"`
}

// evalOptions are the settings of `qvs eval`, filled by its settings
// table (resolveSettings).
type evalOptions struct {
	cfg   evalConfig
	table *configkeys.Table
}

func newEvalCmd(g *GlobalOptions) *cobra.Command {
	o := &evalOptions{}
	c := &cobra.Command{
		Use:   "eval DIR [--out DIR] [--format md,tex,csv] [--figures png,svg|none]",
		Short: "Regenerate the paper's tables and figures from campaign results",
		Long: `Finds every campaign under DIR (each folder with a summary.csv and the
resolved config.yaml written by qvs as / qvs bayesopt) and writes:

  OUT/tables/TASK-as-table.*    Tables 1-3 layout (active search): VS at
                                q = 0, 0.1, 0.5, 1, 2, inf, max. pairwise
                                distance, kernel det., per method
  OUT/tables/TASK-table4.*      Table 4 layout (discrete BayesOpt): best value,
                                EDC and the extra metrics of the best item
  OUT/tables/TASK-bo-table.*    BayesOpt summary: best value and the final
                                solutions' value and diversity per method
  OUT/figures/TASK-*.png|svg    best value so far (Fig. 3), rover trajectories
                                (Fig. 4), active-search PCA scatter and VS_1
                                curves (Fig. 2), MDS scatter (Fig. 5)
  OUT/README.md                 every table, figure links, and what could
                                not be made

Cells are mean (standard error) over repeats with two decimals (distance
columns: at least three significant digits, the standard error to the same
decimals; "n/a" for the standard error of a single repeat); active-search
tables start with the positives found; the best per column is bold (ties at
the printed precision included); starred rows (ECI*, SELECT*) take the best hyperparameter setting
per column. Missing or partial campaigns and figures the data cannot make
are listed, not fatal; a damaged summary cell (not a finite number) makes
its campaign unreadable, named by file, line and column; a file that cannot
be written (disk full) is exit 1. OUT defaults to DIR/eval.`,
		Annotations: ignoresGlobals("seed"),
		Args:        cobra.ExactArgs(1),
		RunE:        func(c *cobra.Command, args []string) error { return runEval(c, g, o, args[0]) },
	}
	f := c.Flags()
	t := configkeys.NewTable(f)
	o.table = t
	configkeys.Bind(t, f.StringVar, "out", "out", "", "output folder (default DIR/eval)", &o.cfg.Out)
	configkeys.BindList(t, "format", "format", nil, "table formats: comma-separated md, tex, csv (default md,tex,csv)", &o.cfg.Format)
	configkeys.BindList(t, "figures", "figures", nil, "figure formats: comma-separated png, svg, or none (default png,svg)", &o.cfg.Figures)
	return c
}

func runEval(c *cobra.Command, g *GlobalOptions, o *evalOptions, dir string) error {
	// Clones: the package's lists stay as they are whatever the settings
	// become.
	o.cfg = evalConfig{Format: slices.Clone(eval.TableFormats), Figures: slices.Clone(eval.FigureFormats)}
	if err := resolveSettings(g, o.table, &o.cfg, nil); err != nil {
		return err
	}
	cfg := o.cfg
	if len(cfg.Figures) == 1 && cfg.Figures[0] == "none" {
		cfg.Figures = nil
	}
	for _, f := range cfg.Format {
		if !slices.Contains(eval.TableFormats, f) {
			return usageErrorf("--format %q: expected comma-separated md, tex, csv", f)
		}
	}
	if len(cfg.Format) == 0 {
		return usageErrorf("--format: give at least one of md, tex, csv")
	}
	for _, f := range cfg.Figures {
		if !slices.Contains(eval.FigureFormats, f) {
			return usageErrorf("--figures %q: expected comma-separated png, svg, or none", f)
		}
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join(dir, "eval")
	}
	if err := eval.CheckOut(cfg.Out, g.Force); err != nil {
		return cli.Usage(err)
	}
	var log io.Writer
	if !g.Quiet {
		log = c.ErrOrStderr()
	}
	ctx, stop := interruptContext(c)
	defer stop()
	rep, err := eval.Evaluate(ctx, eval.Options{
		Dir: dir, Out: cfg.Out, Formats: cfg.Format, FigureFormats: cfg.Figures,
		DataDir: g.DataDir, CacheDir: g.CacheDir, Workers: g.Workers, Log: log,
		Paths: evalPaths(),
	})
	if rep != nil {
		// A failed eval leaves stdout empty, as every command does; what
		// it did write is still worth knowing, so the report goes to
		// stderr then.
		w := c.OutOrStdout()
		if err != nil {
			w = c.ErrOrStderr()
		}
		printEvalReport(w, rep)
	}
	return err
}

// printEvalReport prints one line per campaign, the files written and what
// was not made.
func printEvalReport(w io.Writer, rep *eval.Report) {
	for _, c := range rep.Campaigns {
		status := "complete"
		if len(c.Partial) > 0 {
			status = "PARTIAL: " + strings.Join(c.Partial, "; ")
		}
		fmt.Fprintf(w, "campaign %s (%s, %s): %d finished runs (%s of run time), %s\n", c.Name, c.Kind, c.Dir, c.Runs, eval.Duration(c.Seconds), status)
	}
	for _, f := range rep.Files {
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	for _, s := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", s)
	}
	for _, s := range rep.NotMade {
		fmt.Fprintf(w, "not made: %s\n", s)
	}
}

// evalPaths are the tasks whose points eval draws as paths on their map
// (the rover's trajectories, Figure 4).
func evalPaths() map[string]eval.PathTask {
	var obstacles [][2][2]float64
	for _, o := range rover.Obstacles() {
		obstacles = append(obstacles, [2][2]float64{o.Low, o.High})
	}
	return map[string]eval.PathTask{"rover": {
		Dim: rover.Dim, Obstacles: obstacles, Start: rover.Start, Goal: rover.Goal, Path: rover.Trajectory,
	}}
}
