package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

// Exit codes of the qvs command (documented in README.md): cli.ExitCode
// decides them.
const (
	ExitOK      = cli.ExitOK      // success
	ExitRuntime = cli.ExitRuntime // the command ran but failed
	ExitUsage   = cli.ExitUsage   // the command line or config is wrong
)

// errorMessage is err's message, with the key of the SettingError in its
// chain (if any) named by the flag that set it, through the settings
// table of the command that ran (configkeys.Table.Name): "--max-train
// (key max_train) = 0: must be at least 1" when the user typed
// --max-train, who never saw the key; "config FILE: max_train = 0: ..."
// when the config file set it. Messages that mention a key in passing are
// named when they are made (keyName).
func (g *GlobalOptions) errorMessage(err error) string {
	g.table.Name(err, g.fromFlag)
	return err.Error()
}

// fromFlag reports whether the command took flag's default value for its
// config key (`as suggest --pool` fills every pool.csv key from its flags).
func (g *GlobalOptions) fromFlag(flag string) bool { return g.fromFlags[flag] }

// keyName is how a message names config key in passing: "--FLAG (key
// KEY)" when a flag of the command's settings table set it, else the key
// (knn.GraphOptions.Name).
func (g *GlobalOptions) keyName(key string) string {
	se := configkeys.SettingError{Key: key}
	g.table.Name(&se, g.fromFlag)
	return se.Name()
}

// usageArgs wraps the argument check of c (a subcommand) and of its
// subcommands so that cobra's own argument errors ("accepts 1 arg(s)",
// "unknown command") are usage errors. A subcommand without a check gets
// cobra's default for one (any arguments). The root's unknown-command
// error comes from cobra's command lookup instead (Main).
func usageArgs(c *cobra.Command) {
	check := c.Args
	if check == nil {
		check = cobra.ArbitraryArgs
	}
	c.Args = func(c *cobra.Command, args []string) error {
		return cli.Usage(check(c, args)) // nil stays nil, a usage error as it is
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}
