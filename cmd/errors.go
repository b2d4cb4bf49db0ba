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

// keyFlags maps each config key to the flag that sets it where the flag
// is not the key with underscores turned into dashes (max_train is set by
// --max-train): the one table that names, in a SettingError's message, the
// flag the user typed for a key.
var keyFlags = map[string]string{
	"pool.csv.file":               "pool",
	"pool.csv.id_column":          "id-column",
	"pool.csv.feature_columns":    "features",
	"pool.csv.feature_prefix":     "feature-prefix",
	"pool.csv.metric":             "metric",
	"pool.csv.k":                  "k",
	"pool.csv.fingerprint_column": "fingerprint-column",
	"pool.csv.fingerprint_format": "fingerprint-format",
	"pool.csv.exclude_columns":    "exclude-columns",
	"pool.graph.file":             "graph",
	"pool.graph.kernel":           "kernel",
	"pool.graph.ids":              "ids",
	"pool.graph.k":                "k",
}

// keyFlag is the flag that sets config key.
func keyFlag(key string) string {
	if f, ok := keyFlags[key]; ok {
		return f
	}
	return strings.ReplaceAll(key, "_", "-")
}

// errorMessage is err's message, with the key of the SettingError in its
// chain (if any) named by the flag that set it: "--max-train (key
// max_train) = 0: must be at least 1" when the user typed --max-train, who
// never saw the key. A flag sets the key when the user gave it on c's
// command line, or when the command took the flag's default value for the
// key (fromFlags: `as suggest --pool` fills every pool.csv key from its
// flags). Without a SettingError, the pool keys of keyFlags that a message
// mentions in passing (the CSV column and fingerprint readers' "column
// "fp" (pool.csv.fingerprint_column)", "leave it out with
// pool.csv.exclude_columns") are named the same way (nameKeys).
func errorMessage(err error, c *cobra.Command, fromFlags map[string]bool) string {
	msg := err.Error()
	if c == nil {
		return msg
	}
	set := func(flag string) *pflag.Flag {
		if f := c.Flags().Lookup(flag); f != nil && (f.Changed || fromFlags[f.Name]) {
			return f
		}
		return nil
	}
	var se *configkeys.SettingError
	if !errors.As(err, &se) {
		return nameKeys(msg, set)
	}
	if f := set(keyFlag(se.Key)); f != nil && se.Flag == "" {
		plain := se.Error()
		se.Flag = f.Name
		msg = strings.Replace(msg, plain, se.Error(), 1)
	}
	return msg
}

// nameKeys writes each whole-word mention of a key of keyFlags in msg as
// "--FLAG (key KEY)" when set(FLAG) says the flag set it.
func nameKeys(msg string, set func(flag string) *pflag.Flag) string {
	for key, flag := range keyFlags {
		if set(flag) == nil {
			continue
		}
		var b strings.Builder
		rest := msg
		for {
			i := strings.Index(rest, key)
			if i < 0 {
				break
			}
			end := i + len(key)
			// A key ends a sentence with '.', never continues with one.
			next := end < len(rest) && keyByte(rest[end]) && !(rest[end] == '.' && (end+1 == len(rest) || !keyByte(rest[end+1])))
			whole := (i == 0 || !keyByte(rest[i-1])) && !next
			b.WriteString(rest[:i])
			if whole {
				b.WriteString("--" + flag + " (key " + key + ")")
			} else {
				b.WriteString(key)
			}
			rest = rest[end:]
		}
		msg = b.String() + rest
	}
	return msg
}

// keyByte reports whether c can be part of a config key.
func keyByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
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
