package cli

import (
	"math"
	"strconv"
)

// Float is how qvs prints a number in CSV, JSON and messages: the
// shortest decimal that reads back to the same float64 ('g', -1), so a
// printed value fed back as input is the value itself; the non-finite
// values are "inf", "-inf" and "nan", as the JSON documents write them and
// as strconv.ParseFloat (and --q) read them.
func Float(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// rounded is how an aligned table for people prints a number it rounds
// to digits significant digits (%.Ng): the columns of a GP's posterior.
func rounded(digits int) func(float64) string {
	return func(v float64) string { return strconv.FormatFloat(v, 'g', digits, 64) }
}

// fixed is how an aligned table prints a score it rounds to decimals
// places (%.Nf): VS, qVS and probabilities.
func fixed(decimals int) func(float64) string {
	return func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
}
