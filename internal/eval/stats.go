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

// decimals is the number of decimals of every table cell (the paper's
// Tables 1-4 print two); a column with Column.SigDigits prints more when its
// values are small.
const decimals = 2

// distanceSigDigits is the Column.SigDigits of the distance columns: rover
// solutions 0.052 and 0.011 apart would both read "0.05"/"0.01" at two
// decimals, hiding a fivefold difference.
const distanceSigDigits = 3

// maxDecimals caps the decimals roundSig adds (a distance of 1e-30 prints
// as zero, not with 32 decimals).
const maxDecimals = 10

// notAvailable is the printed standard error of a single repeat.
const notAvailable = "n/a"

// round formats v with Decimals decimals the way the tables print it:
// "-" for NaN, "inf"/"-inf" for infinities, and no negative zero ("-0.00"
// becomes "0.00": a determinant of -1e-9 is zero at this precision).
func round(v float64) string { return roundTo(v, decimals) }

// roundSig is Round with at least sig significant digits: Decimals
// decimals, or more (up to maxDecimals) when |v| < 10^(sig-Decimals), so
// 0.052 prints "0.0520" and 0.011 "0.0110" at sig = 3 while 1.5 stays
// "1.50" and 12.345 "12.35". sig <= 0 is Round.
func roundSig(v float64, sig int) string { return roundTo(v, sigDecimals(v, sig)) }

// sigDecimals is the number of decimals roundSig prints v with.
func sigDecimals(v float64, sig int) int {
	if sig <= 0 || v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return decimals
	}
	// The first significant digit of |v| is at decimal -floor(log10|v|).
	d := sig - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	return min(max(d, decimals), maxDecimals)
}

// roundTo formats v with dec decimals (see Round).
func roundTo(v float64, dec int) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if s[0] == '-' {
		if z, _ := strconv.ParseFloat(s, 64); z == 0 {
			s = s[1:]
		}
	}
	return s
}

// String is the cell text "mean (SE)" with two decimals; the standard error
// of a single repeat is "n/a".
func (s Stat) String() string { return s.Format(0) }

// Format is String with at least sig significant digits in the mean
// (roundSig) and the standard error to the same decimals, so the two line
// up: "0.0520 (0.0140)", "0.625 (0.057)".
func (s Stat) Format(sig int) string {
	dec := sigDecimals(s.Mean, sig)
	se := roundTo(s.SE, dec)
	if s.N == 1 {
		se = notAvailable
	}
	return roundTo(s.Mean, dec) + " (" + se + ")"
}
