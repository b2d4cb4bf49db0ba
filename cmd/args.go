package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

// noArgsButSubcommands is the Args check of a command that has
// subcommands and takes no arguments itself (qvs as, qvs bayesopt): a
// stray word is most likely a mistyped subcommand, so the error names the
// nearest one, as a mistyped flag's does: `unknown command "sugest" for
// "qvs as" (did you mean suggest?)`. cobra's own suggestions only cover the
// root command.
func noArgsButSubcommands(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	if s := configkeys.Suggest(args[0], names); s != "" {
		err = fmt.Errorf("%w (did you mean %s?)", err, s)
	}
	return cli.Usage(err)
}
