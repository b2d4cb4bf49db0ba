package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Amount is a number of library items given as a count (104) or as a
// fraction of the library (0.01): a value in (0, 1) is a fraction, a whole
// number of at least 1 a count. The text is kept as written, so
// config.yaml records it verbatim. The zero Amount is unset.
type Amount struct {
	text string
	v    float64
}

// parseAmount parses a count or a fraction ("104", "0.01", "1e-2").
func parseAmount(s string) (Amount, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return Amount{}, fmt.Errorf("%q: expected a fraction in (0, 1) or a whole count of at least 1", s)
	case v > 0 && v < 1:
	case v >= 1 && v == math.Trunc(v) && v <= math.MaxInt32:
	default:
		return Amount{}, fmt.Errorf("%q: expected a fraction in (0, 1) or a whole count of at least 1", s)
	}
	return Amount{text: t, v: v}, nil
}

// mustAmount is parseAmount for constants; it panics on a bad text.
func mustAmount(s string) Amount {
	a, err := parseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// IsZero reports an unset Amount.
func (a Amount) IsZero() bool { return a.text == "" }

// IsFraction reports whether a is a fraction of the library.
func (a Amount) IsFraction() bool { return a.v < 1 }

// Of is the count a stands for in a library of n items: a count as it is,
// a fraction f as round(f·n), at least 1.
func (a Amount) Of(n int) int {
	if a.v >= 1 {
		return int(a.v)
	}
	return max(1, int(math.Round(a.v*float64(n))))
}

// String is the text as written.
func (a Amount) String() string { return a.text }

// Set parses a flag's value (pflag.Value).
func (a *Amount) Set(s string) error {
	v, err := parseAmount(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Type names the flag value's type in --help.
func (a *Amount) Type() string { return "count|fraction" }

// UnmarshalYAML reads a scalar (0.01, 104, "1e-2").
func (a *Amount) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return fmt.Errorf("expected a fraction in (0, 1) or a whole count of at least 1")
	}
	return a.Set(s)
}

// MarshalYAML records the value as a YAML number (a count as an integer).
func (a Amount) MarshalYAML() (any, error) {
	if a.v >= 1 {
		return int(a.v), nil
	}
	return a.v, nil
}
