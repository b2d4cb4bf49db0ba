package configkeys

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// SettingError is a setting whose value is refused: the config key (dotted
// for nested keys, as in pool.csv.k), the value as the user would write it
// and why it is refused. Validate and Plan functions return it so that the
// command line can name the flag the user typed for the key (Flag) and
// decide the exit code with errors.As instead of reading the message.
//
//	max_train = 0: must be at least 1
//	--max-train (key max_train) = 0: must be at least 1      (Flag set)
type SettingError struct {
	Key    string // config key, e.g. "max_train" or "pool.csv.k"
	Value  string // the value as written ("" when the key is missing or empty)
	Reason string // what is wrong or expected, e.g. "must be at least 1"
	// Flag, when set (by the command line, for a flag the user gave), is
	// named before the key: "--max-train (key max_train)".
	Flag string
	// File, when set, is the input file whose contents refuse the value
	// (a column the CSV lacks), named before the setting (In).
	File string
	// Err is the underlying error, if any (Wrap): errors.Is and errors.As
	// see through a SettingError to it.
	Err error
}

// In sets the file whose contents refuse the value and returns e:
// "pool.csv: pool.csv.k = 40: expected less than the 30 rows".
func (e *SettingError) In(file string) *SettingError {
	e.File = file
	return e
}

// Wrap returns a SettingError for key whose reason is err (an unreadable
// file named by the key, say); errors.Is(result, fs.ErrNotExist) still holds.
func Wrap(key string, err error) *SettingError {
	return &SettingError{Key: key, Reason: err.Error(), Err: err}
}

// SettingKey is the key the error is about (Keyed).
func (e *SettingError) SettingKey() string { return e.Key }

// NameFlag names flag (without "--") as the one the user typed for the
// key, unless a flag is named already (Keyed).
func (e *SettingError) NameFlag(flag string) {
	if e.Flag == "" {
		e.Flag = flag
	}
}

// Unwrap returns the underlying error of Wrap, or nil.
func (e *SettingError) Unwrap() error { return e.Err }

// Invalid returns a SettingError for key with value (formatted with %v;
// strings quoted) and the reason format(args...).
func Invalid(key string, value any, format string, args ...any) *SettingError {
	var v string
	switch x := value.(type) {
	case nil:
	case string:
		v = quoteCut(x)
	case float64:
		v = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		v = fmt.Sprint(x)
	}
	return &SettingError{Key: key, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// Name is how the message names the setting: the key, or "--FLAG (key
// KEY)" when Flag is set.
func (e *SettingError) Name() string {
	if e.Flag != "" {
		return "--" + e.Flag + " (key " + e.Key + ")"
	}
	return e.Key
}

// Error is "KEY = VALUE: REASON" ("KEY: REASON" without a value),
// after "FILE: " when File is set.
func (e *SettingError) Error() string {
	s := e.Name() + ": " + e.Reason
	if e.Value != "" {
		s = e.Name() + " = " + e.Value + ": " + e.Reason
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s
}

// Unique refuses a list setting (methods: [qvs, random, qvs]) that names a
// value twice: the error is a SettingError for key naming the first value
// seen again.
func Unique(key string, values []string) error {
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if seen[v] {
			return Invalid(key, v, "listed twice")
		}
		seen[v] = true
	}
	return nil
}

// ErrBeyondBound is the Err of a SettingError for a value beyond a bound
// qvs sets on what it holds in memory (Beyond): a command-line error
// (exit 2) whatever input file revealed it, unlike a value the file's
// contents refuse.
var ErrBeyondBound = fmt.Errorf("beyond a bound on memory")

// Beyond is Invalid for a value beyond a bound of qvs (ErrBeyondBound).
func Beyond(key string, value any, format string, args ...any) *SettingError {
	e := Invalid(key, value, format, args...)
	e.Err = ErrBeyondBound
	return e
}

// maxValue is the longest string value a SettingError quotes whole
// (longer than any path); a longer one (a 100 KB flag value) is quoted as
// its first 60 bytes and its length.
const maxValue = 4096

// excerptBytes is how much of a longer value is quoted.
const excerptBytes = 60

// quoteCut is strconv.Quote of s, or, beyond maxValue bytes, of its first
// excerptBytes bytes (cut at a character boundary) followed by "... (N
// bytes)".
func quoteCut(s string) string {
	if len(s) <= maxValue {
		return strconv.Quote(s)
	}
	cut := excerptBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
