package cli

import (
	"errors"
	"fmt"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Exit codes of the qvs command (documented in README.md), decided by
// ExitCode alone.
const (
	ExitOK      = 0 // success
	ExitRuntime = 1 // the command ran but failed (bad file contents, numerical failure, I/O, interrupted)
	ExitUsage   = 2 // the command line or config is wrong (unknown flag or key, bad flag or config value)
)

// ExitCode is the exit status for the error a command returned: ExitUsage
// for a UsageError anywhere in its chain (bad flags, arguments or config
// values: Usagef, ConfigErrorf, cobra's argument and flag errors, which
// cmd wraps), ExitRuntime for any other error. A configkeys.SettingError
// on its own is ExitRuntime: a library returns one for a value its
// input's contents refuse (pool.csv.k above the rows of the file); a
// command wraps the ones a config or flag alone decides. A value beyond a
// bound of qvs (configkeys.ErrBeyondBound: n x k edges) and an output qvs
// would not replace (fileio.ErrNotOurs), or a results folder that is a
// file (campaign.ErrNotFolder), are ExitUsage.
func ExitCode(err error) int {
	var ue UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue), errors.Is(err, fileio.ErrNotOurs), errors.Is(err, configkeys.ErrBeyondBound), errors.Is(err, campaign.ErrNotFolder):
		return ExitUsage
	}
	return ExitRuntime
}

// UsageError marks errors in how the command was invoked (exit code 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns an error that makes qvs exit with ExitUsage (%w keeps the
// wrapped error's chain, a SettingError's included).
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// Usage marks err as a usage error (nil stays nil; a usage error is
// returned as it is).
func Usage(err error) error {
	var ue UsageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return UsageError{err}
}

// ConfigErrorf is an error in the values of config file path (exit 2);
// with no config file, the values came from flags.
func ConfigErrorf(path, format string, args ...any) error {
	return ConfigError(path, fmt.Errorf(format, args...))
}

// ConfigError is err, a refused value of config file path or of a flag,
// as a usage error (exit 2): "config PATH: " then err's message (err's
// alone without a file). The message is made when it is printed, so a
// SettingError in err's chain is printed with the flag cmd names for it
// (configkeys.Table.Name).
func ConfigError(path string, err error) error {
	return UsageError{inConfig{path, err}}
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

// SettingError is a refused setting from the config file at path or from
// flags (exit 2).
func SettingError(path, key string, value any, format string, args ...any) error {
	return ConfigError(path, configkeys.Invalid(key, value, format, args...))
}
