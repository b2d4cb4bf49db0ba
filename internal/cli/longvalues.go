package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// MaxEchoedValue is the length of a flag value or argument beyond which
// messages quote an excerpt of it (fileio.Excerpt) rather than the whole
// value: longer than any path (PATH_MAX is 4096), so file names are always
// named whole.
const MaxEchoedValue = 4096

// LongValueError is pflag's invalid-value error for a long value, with the
// value cut to an excerpt wherever the message quotes it.
type LongValueError struct{ Err *pflag.InvalidValueError }

func (l LongValueError) Error() string {
	v := l.Err.GetValue()
	ex := fileio.Excerpt(v)
	cause := ""
	if c := errors.Unwrap(l.Err); c != nil {
		cause = strings.ReplaceAll(c.Error(), strconv.Quote(v), ex)
		cause = strings.ReplaceAll(cause, v, ex)
		if len(cause) > MaxEchoedValue {
			cut := MaxEchoedValue
			for cut > 0 && !utf8.RuneStart(cause[cut]) {
				cut--
			}
			cause = cause[:cut] + "..."
		}
		cause = ": " + cause
	}
	return fmt.Sprintf("invalid argument %s for \"--%s\" flag%s", ex, l.Err.GetFlag().Name, cause)
}

func (l LongValueError) Unwrap() error { return l.Err }

// CutLongValues replaces, in a message, every command-line word longer
// than MaxEchoedValue (a flag's value, an argument), as typed or quoted,
// by its excerpt (fileio.Excerpt): a 100 KB value is named by its first 60
// bytes and its length, whichever message quotes it.
func CutLongValues(msg string, args []string) string {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			a = v
		}
		if len(a) <= MaxEchoedValue {
			continue
		}
		ex := fileio.Excerpt(a)
		msg = strings.ReplaceAll(msg, strconv.Quote(a), ex)
		msg = strings.ReplaceAll(msg, a, ex)
	}
	return msg
}
