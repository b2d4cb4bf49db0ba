package cmd

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// `qvs bayesopt suggest` dispatches on its input: --space (a continuous
// space, cmd/bayesopt_suggest_continuous.go) or --kernel (a discrete pool,
// cmd/bayesopt_suggest_discrete.go). This file only holds the shared flags
// and the dispatch.

// suggestCommon are the flags both kinds of suggest share.
type suggestCommon struct {
	observed, method, format string
	q                        vendi.Order
	batch                    int
	rawIDs, retryFailed      bool
}

func newBayesoptSuggestCmd(g *GlobalOptions) *cobra.Command {
	common := &suggestCommon{}
	cont := &continuousSuggestOptions{}
	disc := &discreteSuggestOptions{}
	var t *configkeys.Table
	c := &cobra.Command{
		Use:   "suggest (--space space.yaml | --kernel K.npy) [--observed evals.csv] --batch B [flags]",
		Short: "Suggest the next batch of experiments for your own problem, given the evaluations so far",
		Long: `Suggests the next batch of experiments from the evaluations so far, with
the same engine and rules as the campaigns of qvs bayesopt.

--space space.yaml: a continuous space of named parameters (see
examples/README.md); method qvs, turbo, robot or random.
--kernel K.npy: a discrete pool given by its kernel matrix (Algorithm 3).

Exactly one of --space and --kernel. Only the suggestions go to stdout.

` + continuousSuggestHelp + "\n" + discreteSuggestHelp,
		Args:        cobra.NoArgs,
		Annotations: ignoresGlobals("config", "data-dir", "cache-dir"),
		RunE: func(c *cobra.Command, _ []string) error {
			g.table = t
			space, kernel := c.Flags().Changed("space"), c.Flags().Changed("kernel")
			switch {
			case space == kernel:
				return usageErrorf("give exactly one of --space (continuous parameters) or --kernel (a discrete pool)")
			case space:
				if err := flagsOnlyFor(c, "--kernel", discreteOnlyFlags); err != nil {
					return err
				}
				return runContinuousSuggest(c, g, common, cont)
			}
			if err := flagsOnlyFor(c, "--space", continuousOnlyFlags); err != nil {
				return err
			}
			return runDiscreteSuggest(c, g, common, cont.init, disc)
		},
	}
	f := c.Flags()
	f.StringVar(&common.observed, "observed", "", "CSV of finished experiments (none: nothing evaluated yet, the first batch of the initial design)")
	f.IntVar(&common.batch, "batch", defaultSuggestBatch, "number of suggestions (at most 500 with --space, 300 with --kernel)")
	f.StringVar(&common.method, "method", "qvs", "--space: qvs|turbo|robot|random; --kernel: qvs|ucb|random")
	common.q = 1
	f.Var(&common.q, "q", "order q of the qVS (method qvs; default 1, where a campaign runs 0.5, 1 and 1.5; inf allowed)")
	f.StringVar(&common.format, "format", "csv", "output format: csv, table or json (one document: docs/json.md)")
	f.BoolVar(&common.rawIDs, "raw-ids", false, "--kernel: "+"keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)")
	f.BoolVar(&common.retryFailed, "retry-failed", false, "allow suggestions at or near failed experiments (default: --space, none within 0.05 x sqrt(parameters) in the unit-scaled space; --kernel, never the failed item itself)")
	addContinuousSuggestFlags(c, cont)
	addDiscreteSuggestFlags(c, disc)
	// No config file: the table only names the flag of a refused setting
	// (the engines' settings are keyed as a campaign's config is).
	t = configkeys.NewTable(f)
	for _, flag := range []string{"init", "batch", "regions", "tau", "candidates", "max-train", "qvs-floor", "qvs-mode", "beta", "q", "method"} {
		t.Key(flag, strings.ReplaceAll(flag, "-", "_"))
	}
	return c
}

// Flags that only one kind of suggest reads (--init and the shared flags
// above serve both).
var (
	continuousOnlyFlags = []string{"pending", "minimize", "regions", "tau", "length-scale", "candidates", "max-train", "qvs-floor", "qvs-mode"}
	discreteOnlyFlags   = []string{"ids", "beta", "name"}
)

// warnFailed tells stderr how many of the total experiments of observed
// failed (n > 0) and what suggest does about them: near says where no
// suggestion falls without --retry-failed.
func warnFailed(w io.Writer, n, total int, observed, near string, retry bool) {
	if n == 0 {
		return
	}
	what := "no suggestion " + near + " (--retry-failed allows it)"
	if retry {
		what = "--retry-failed: they may be suggested again"
	}
	fmt.Fprintf(w, "qvs bayesopt suggest: %d of %d experiments in %s failed: left out of the model; %s\n", n, total, observed, what)
}

// observedLabel names --observed in messages: the file, or "(no
// --observed: nothing evaluated yet)" on a cold start, which suggest
// treats as a file with the header alone.
func observedLabel(observed string) string {
	if observed == "" {
		return "(no --observed: nothing evaluated yet)"
	}
	return observed
}

// checkSuggestFlags checks the flags every suggest command has: --batch
// from 1 to maxBatch (why: what grows with the batch and what to do
// instead), --format table, csv or json, and --method one of methods.
func checkSuggestFlags(batch, maxBatch int, why, format, method string, methods []string) error {
	switch {
	case batch < 1 || batch > maxBatch:
		return usageErrorf("--batch %d: expected 1 to %d (%s)", batch, maxBatch, why)
	case format != "table" && format != "csv" && format != formatJSON:
		return usageErrorf("--format %q: expected table, csv or json", format)
	case !slices.Contains(methods, method):
		return usageErrorf("--method %q: expected one of %s", method, strings.Join(methods, ", "))
	}
	return nil
}

// flagsOnlyFor reports a flag of names given to the other kind of suggest.
func flagsOnlyFor(c *cobra.Command, kind string, names []string) error {
	for _, n := range names {
		if c.Flags().Changed(n) {
			return usageErrorf("--%s applies only with %s", n, kind)
		}
	}
	return nil
}

// writeSuggestions writes a suggest command's rows under head to w in one
// write, so an error leaves stdout empty: CSV with --format csv, JSON
// (writeJSONTable) with --format json, otherwise
// an aligned table whose rows shorten (if non-nil) first rounds for reading.
func writeSuggestions(w io.Writer, format string, head []string, rows [][]string, shorten func([]string)) error {
	if format == formatJSON {
		return writeJSONTable(w, "bayesopt suggest", head, rows)
	}
	var buf bytes.Buffer
	if format == "csv" {
		cw := csv.NewWriter(&buf)
		_ = cw.Write(head)
		_ = cw.WriteAll(rows)
	} else {
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			if shorten != nil {
				shorten(r)
			}
			fmt.Fprintln(tw, strings.Join(tableCells(r), "\t"))
		}
		tw.Flush()
	}
	_, err := w.Write(buf.Bytes())
	return err
}
