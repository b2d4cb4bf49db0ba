package eval

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

// Stat is a column of one row of a results table: the mean of a metric over
// the repeats of a run group and its standard error.
type Stat struct {
	Mean float64
	// SE is the standard error of the mean, s / sqrt(n) with s the sample
	// standard deviation (n - 1 denominator, as scipy.stats.sem). NaN when
	// n < 2: one repeat gives no spread estimate, and the tables print "n/a".
	SE float64
	N  int // repeats with a finite value (non-finite values are dropped)
}

// Summarize returns the mean and standard error of the finite values of x,
// with gonum's stat.MeanVariance (a compensated two-pass algorithm, stable
// for the near-constant columns the tables hold: kernel determinants near 1,
// maximum distances) and stat.StdErr. It is the only mean/standard-error
// routine of qvs: every table and curve band goes through it.
//
// Non-finite values (a run whose metric is undefined) are dropped and do not
// count in N; with no finite value the mean is NaN; with one, SE is NaN.
func Summarize(x []float64) Stat {
	finite := make([]float64, 0, len(x))
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	n := len(finite)
	switch n {
	case 0:
		return Stat{Mean: math.NaN(), SE: math.NaN()}
	case 1:
		return Stat{Mean: finite[0], SE: math.NaN(), N: 1}
	}
	mean, variance := stat.MeanVariance(finite, nil)
	// Rounding can leave a variance of -1e-17 for constant data.
	sd := math.Sqrt(math.Max(variance, 0))
	return Stat{Mean: mean, SE: stat.StdErr(sd, float64(n)), N: n}
}

// Decimals is the number of decimals of every table cell (the paper's
// Tables 1-4 print two).
const Decimals = 2

// NotAvailable is the printed standard error of a single repeat.
const NotAvailable = "n/a"

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

// String is the cell text "mean (SE)" with two decimals; the standard error
// of a single repeat is "n/a".
func (s Stat) String() string {
	se := Round(s.SE)
	if s.N == 1 {
		se = NotAvailable
	}
	return Round(s.Mean) + " (" + se + ")"
}
