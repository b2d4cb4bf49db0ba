package cmd

import (
	"github.com/spf13/cobra"
)

// `qvs bayesopt suggest` dispatches on its input: --space (a continuous
// space, cmd/bayesopt_suggest_continuous.go) or --kernel (a discrete pool,
// the discrete engine). This file only holds the shared flags and the
// dispatch.

func init() { bayesoptSubcommands = append(bayesoptSubcommands, newBayesoptSuggestCmd) }

// suggestCommon are the flags both kinds of suggest share.
type suggestCommon struct {
	observed, method, q, format string
	batch                       int
}

func newBayesoptSuggestCmd(g *GlobalOptions) *cobra.Command {
	common := &suggestCommon{}
	cont := &continuousSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--space space.yaml | --kernel K.npy) --observed evals.csv --batch B [flags]",
		Short: "Suggest the next batch of experiments for your own problem, given the evaluations so far",
		Long: `Suggests the next batch of experiments from the evaluations so far, with
the same engine and rules as the campaigns of qvs bayesopt.

--space space.yaml: a continuous space of named parameters (see
examples/README.md); method qvs, turbo, robot or random.
--kernel K.npy: a discrete pool given by its kernel matrix (Algorithm 3).

Exactly one of --space and --kernel. Only the suggestions go to stdout.

` + continuousSuggestHelp,
		Args:        cobra.NoArgs,
		Annotations: ignoresGlobals("config", "data-dir", "cache-dir"),
		RunE: func(c *cobra.Command, _ []string) error {
			space, kernel := c.Flags().Changed("space"), c.Flags().Changed("kernel")
			switch {
			case space == kernel:
				return usageErrorf("give exactly one of --space (continuous parameters) or --kernel (a discrete pool)")
			case space:
				return runContinuousSuggest(c, g, common, cont)
			}
			return usageErrorf("--kernel: the discrete suggest is not available in this build")
		},
	}
	f := c.Flags()
	f.StringVar(&common.observed, "observed", "", "CSV of finished experiments (required)")
	f.IntVar(&common.batch, "batch", 5, "number of suggestions")
	f.StringVar(&common.method, "method", "qvs", "method")
	f.StringVar(&common.q, "q", "1", "order q of the qVS (method qvs; inf allowed)")
	f.StringVar(&common.format, "format", "csv", "output format: csv or table")
	f.String("kernel", "", "discrete pool: kernel matrix (.npy or .csv)")
	addContinuousSuggestFlags(c, cont)
	return c
}
