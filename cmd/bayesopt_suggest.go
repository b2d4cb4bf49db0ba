package cmd

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// `qvs bayesopt suggest` dispatches on its input: --space (a continuous
// space, cmd/bayesopt_suggest_continuous.go) or --kernel (a discrete pool,
// cmd/bayesopt_suggest_discrete.go). This file only holds the shared flags
// and the dispatch.

// suggestCommon are the flags both kinds of suggest share.
type suggestCommon struct {
	observed, method, q, format string
	batch                       int
	rawIDs                      bool
}

func newBayesoptSuggestCmd(g *GlobalOptions) *cobra.Command {
	common := &suggestCommon{}
	cont := &continuousSuggestOptions{}
	disc := &discreteSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--space space.yaml | --kernel K.npy) --observed evals.csv --batch B [flags]",
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
	f.StringVar(&common.observed, "observed", "", "CSV of finished experiments (required)")
	f.IntVar(&common.batch, "batch", 5, "number of suggestions (at most 500 with --space, 300 with --kernel)")
	f.StringVar(&common.method, "method", "qvs", "--space: qvs|turbo|robot|random; --kernel: qvs|ucb|random")
	f.StringVar(&common.q, "q", "1", "order q of the qVS (method qvs; default 1, where a campaign runs 0.5, 1 and 1.5; inf allowed)")
	f.StringVar(&common.format, "format", "csv", "output format: csv, table or json (one document: docs/json.md)")
	f.BoolVar(&common.rawIDs, "raw-ids", false, "--kernel: "+"keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)")
	addContinuousSuggestFlags(c, cont)
	addDiscreteSuggestFlags(c, disc)
	return c
}

// Flags that only one kind of suggest reads (--init and the shared flags
// above serve both).
var (
	continuousOnlyFlags = []string{"pending", "minimize", "regions", "tau", "length-scale", "candidates", "max-train", "retry-failed", "qvs-floor", "qvs-mode"}
	discreteOnlyFlags   = []string{"ids", "beta", "name"}
)

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
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	_, err := w.Write(buf.Bytes())
	return err
}
