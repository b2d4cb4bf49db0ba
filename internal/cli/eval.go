package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qvs-dev/qvs/internal/eval"
)

// EvalOptions are the settings of `qvs eval`; the yaml tags are the keys
// of its config.
type EvalOptions struct {
	Dir     string   `yaml:"-"` // the campaigns' folder
	Out     string   `yaml:"out"`
	Format  []string `yaml:"format"`
	Figures []string `yaml:"figures"`
}

// DefaultEvalOptions are eval's defaults: every table and figure format
// (clones: the package's lists stay as they are whatever the settings
// become).
func DefaultEvalOptions() EvalOptions {
	return EvalOptions{Format: slices.Clone(eval.TableFormats), Figures: slices.Clone(eval.FigureFormats)}
}

// RunEval regenerates the paper's tables and figures from the campaigns
// under o.Dir (eval.Evaluate) and prints what it made: on e.Out, or on
// e.Err when it failed (stdout stays empty on an error).
func RunEval(e *Env, opts *EvalOptions) error {
	o := *opts
	if len(o.Figures) == 1 && o.Figures[0] == "none" {
		o.Figures = nil
	}
	for _, f := range o.Format {
		if !slices.Contains(eval.TableFormats, f) {
			return Usagef("--format %q: expected comma-separated md, tex, csv", f)
		}
	}
	if len(o.Format) == 0 {
		return Usagef("--format: give at least one of md, tex, csv")
	}
	for _, f := range o.Figures {
		if !slices.Contains(eval.FigureFormats, f) {
			return Usagef("--figures %q: expected comma-separated png, svg, or none", f)
		}
	}
	if o.Out == "" {
		o.Out = filepath.Join(o.Dir, "eval")
	}
	if err := eval.CheckOut(o.Out, e.Force); err != nil {
		return Usage(err)
	}
	var log io.Writer
	if !e.Quiet {
		log = e.Err
	}
	rep, err := eval.Evaluate(e.Context(), eval.Options{
		Dir: o.Dir, Out: o.Out, Formats: o.Format, FigureFormats: o.Figures,
		DataDir: e.DataDir, CacheDir: e.CacheDir, Workers: e.Workers, Log: log,
	})
	if rep != nil {
		w := e.Out
		if err != nil {
			w = e.Err
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
