package eval

import (
	"math"
	"strconv"
)

// Stat is a column of one row of a results table: the mean of a metric over
// the repeats of a run group and its standard error.
type Stat struct {
	Mean float64
	// SE is the standard error of the mean, s / sqrt(n) with s the sample
	// standard deviation (n - 1 denominator, as scipy.stats.sem). NaN when
	// n < 2: one repeat gives no spread estimate, and the tables print "-".
	SE float64
	N  int // repeats with a finite value (non-finite values are dropped)
}

// Summarize returns the mean and standard error of the finite values of x.
// Non-finite values (a run whose metric is undefined) are dropped and do not
// count in N; with no finite value the mean is NaN.
func Summarize(x []float64) Stat {
	var n int
	var sum float64
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			n++
			sum += v
		}
	}
	if n == 0 {
		return Stat{Mean: math.NaN(), SE: math.NaN()}
	}
	mean := sum / float64(n)
	if n < 2 {
		return Stat{Mean: mean, SE: math.NaN(), N: n}
	}
	// Two-pass variance: stable for the near-constant columns (kernel
	// determinants near 1, maximum distances) the tables hold.
	var ss, comp float64
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			d := v - mean
			ss += d * d
			comp += d
		}
	}
	variance := (ss - comp*comp/float64(n)) / float64(n-1)
	return Stat{Mean: mean, SE: math.Sqrt(math.Max(variance, 0) / float64(n)), N: n}
}

// Decimals is the number of decimals of every table cell (the paper's
// Tables 1-4 print two).
const Decimals = 2

// Round formats v with Decimals decimals the way the tables print it:
// "-" for NaN, "inf"/"-inf" for infinities, and no negative zero ("-0.00"
// becomes "0.00": a determinant of -1e-9 is zero at this precision).
func Round(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'f', Decimals, 64)
	if s[0] == '-' {
		if z, _ := strconv.ParseFloat(s, 64); z == 0 {
			s = s[1:]
		}
	}
	return s
}

// String is the cell text "mean (SE)" with two decimals.
func (s Stat) String() string {
	return Round(s.Mean) + " (" + Round(s.SE) + ")"
}
