package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Exit codes of the qvs command (documented in README.md), decided by
// exitCode alone.
const (
	ExitOK      = 0 // success
	ExitRuntime = 1 // the command ran but failed (bad file contents, numerical failure, I/O, interrupted)
	ExitUsage   = 2 // the command line or config is wrong (unknown flag or key, bad flag or config value)
)

// exitCode is the exit status for the error a command returned: ExitUsage
// for a usageError anywhere in its chain (bad flags, arguments or config
// values: usageErrorf, configErrorf, cobra's argument and flag errors,
// which NewRootCommand wraps), ExitRuntime for any other error. A
// configkeys.SettingError on its own is ExitRuntime: a library returns one
// for a value its input's contents refuse (pool.csv.k above the rows of
// the file); cmd wraps the ones a config or flag alone decides. A value
// beyond a bound of qvs (configkeys.ErrBeyondBound: n x k edges) and an
// output qvs would not replace (fileio.ErrNotOurs) are ExitUsage.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue), errors.Is(err, fileio.ErrNotOurs), errors.Is(err, configkeys.ErrBeyondBound):
		return ExitUsage
	}
	return ExitRuntime
}

// usageError marks errors in how the command was invoked (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageErrorf returns an error that makes qvs exit with ExitUsage (%w keeps
// the wrapped error's chain, a SettingError's included).
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// configErrorf is an error in the values of config file path (exit 2);
// with no config file, the values came from flags.
func configErrorf(path, format string, args ...any) error {
	return configError(path, fmt.Errorf(format, args...))
}

// configError is err, a refused value of config file path or of a flag,
// as a usage error (exit 2): "config PATH: " then err's message (err's
// alone without a file). The message is made when it is printed, so a
// SettingError in err's chain is printed with the flag Main names for it
// (GlobalOptions.errorMessage).
func configError(path string, err error) error {
	return usageError{inConfig{path, err}}
}

// inConfig is an error in config file path; its message is made when asked.
type inConfig struct {
	path string
	err  error
}

func (e inConfig) Error() string {
	if e.path == "" {
		return e.err.Error()
	}
	return "config " + e.path + ": " + e.err.Error()
}

func (e inConfig) Unwrap() error { return e.err }

// settingError is a refused setting from the config file at path or from
// flags (exit 2).
func settingError(path, key string, value any, format string, args ...any) error {
	return configError(path, configkeys.Invalid(key, value, format, args...))
}

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
		if err := check(c, args); err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return err
			}
			return usageError{err}
		}
		return nil
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}
