package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/configkeys"
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
// the file); cmd wraps the ones a config or flag alone decides.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
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
	if path == "" {
		return usageErrorf(format, args...)
	}
	return usageErrorf("config %s: "+format, append([]any{path}, args...)...)
}

// settingError is a refused setting from the config file at path or from
// flags (exit 2).
func settingError(path, key string, value any, format string, args ...any) error {
	return configErrorf(path, "%w", configkeys.Invalid(key, value, format, args...))
}

// flagKeys maps each flag whose config key is not its name with dashes
// turned into underscores (--max-train sets max_train) to that key: the
// one table that names, in a SettingError's message, the flag the user
// typed for a key.
var flagKeys = map[string]string{
	"pool":           "pool.csv.file",
	"id-column":      "pool.csv.id_column",
	"features":       "pool.csv.feature_columns",
	"feature-prefix": "pool.csv.feature_prefix",
	"metric":         "pool.csv.metric",
	"k":              "pool.csv.k",
}

// flagKey is the config key flag sets.
func flagKey(flag string) string {
	if k, ok := flagKeys[flag]; ok {
		return k
	}
	return strings.ReplaceAll(flag, "-", "_")
}

// errorMessage is err's message, with the key of the SettingError in its
// chain (if any) named by the flag that set it: "--max-train (key
// max_train) = 0: must be at least 1" when the user typed --max-train, who
// never saw the key. A flag sets the key when the user gave it on c's
// command line, or when the command took the flag's default value for the
// key (fromFlags: `as suggest --pool` fills every pool.csv key from its
// flags).
func errorMessage(err error, c *cobra.Command, fromFlags map[string]bool) string {
	msg := err.Error()
	var se *configkeys.SettingError
	if c == nil || !errors.As(err, &se) || se.Flag != "" {
		return msg
	}
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if se.Flag == "" && flagKey(f.Name) == se.Key && (f.Changed || fromFlags[f.Name]) {
			plain := se.Error()
			se.Flag = f.Name
			msg = strings.Replace(msg, plain, se.Error(), 1)
		}
	})
	return msg
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
