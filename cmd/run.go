package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
)

// optionsHook, when set (tests), receives the options a command filled
// from its flags instead of running it: the flags-fill-the-options tests.
var optionsHook func(opts any)

// run calls f, a run function of package cli, with the options o and the
// Env of command c (GlobalOptions.env).
func run[O any](g *GlobalOptions, c *cobra.Command, o *O, f func(*cli.Env, *O) error) error {
	if optionsHook != nil {
		optionsHook(o)
		return nil
	}
	e, stop := g.env(c)
	defer stop()
	return f(e, o)
}
