package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// statTol is the relative agreement expected between Summarize and gonum's
// one-pass formulas on well-scaled data: a few ulps of accumulated rounding.
const statTol = 1e-12

func TestSummarizeHand(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		x        []float64
		mean, se float64 // se NaN = undefined
		n        int
	}{
		// var = ((1.5^2 + 0.5^2) * 2) / 3 = 5/3; SE = sqrt(5/3 / 4).
		{"four", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 12.0), 4},
		{"constant", []float64{7, 7, 7}, 7, 0, 3},
		{"one repeat", []float64{3}, 3, nan, 1},
		{"empty", nil, nan, nan, 0},
		{"non-finite dropped", []float64{1, nan, 3, math.Inf(1)}, 2, 1, 2}, // sd sqrt(2), SE 1
		{"all NaN", []float64{nan, nan}, nan, nan, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.x)
			if s.N != tc.n || !near(s.Mean, tc.mean) || !near(s.SE, tc.se) {
				t.Errorf("Summarize(%v) = %+v, want mean %v SE %v n %d", tc.x, s, tc.mean, tc.se, tc.n)
			}
		})
	}
}

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= statTol*math.Max(1, math.Abs(b))
}

// TestSummarizeAgainstDefinition checks Summarize (gonum's compensated
// two-pass variance) against the textbook definition evaluated in the test,
// SE = sqrt(sum (x - mean)^2 / (n - 1) / n), on random samples, including
// samples with a large offset where a naive one-pass formula would lose
// digits.
func TestSummarizeAgainstDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 50; trial++ {
		n := 2 + rng.IntN(30)
		x := make([]float64, n)
		shift := rng.NormFloat64() * 100
		for i := range x {
			x[i] = shift + rng.NormFloat64()*rng.Float64()*10
		}
		var sum float64
		for _, v := range x {
			sum += v
		}
		mean := sum / float64(n)
		var ss float64
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
		se := math.Sqrt(ss / float64(n-1) / float64(n))
		s := Summarize(x)
		// 1e-10 relative to the spread: the two variance formulas differ
		// by rounding of order n * eps * shift^2 / spread.
		if s.N != n || !near(s.Mean, mean) || math.Abs(s.SE-se) > 1e-10*math.Max(1, se) {
			t.Fatalf("trial %d: Summarize = %+v, definition mean %v SE %v", trial, s, mean, se)
		}
	}
}

// TestSummarizeNearConstant: a near-constant column (determinants rounding
// around 1) gives a finite, non-negative SE, never NaN from a negative
// rounded variance.
func TestSummarizeNearConstant(t *testing.T) {
	x := []float64{1 - 1e-16, 1, 1 + 2e-16, 1, 1}
	s := Summarize(x)
	if s.N != 5 || math.IsNaN(s.SE) || s.SE < 0 || s.SE > 1e-15 {
		t.Errorf("Summarize(%v) = %+v, want a tiny non-negative SE", x, s)
	}
}

func TestRound(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{72.2, "72.20"}, {0.004, "0.00"}, {-0.004, "0.00"}, {-1e-300, "0.00"}, {-0.5, "-0.50"},
		{1234.567, "1234.57"}, {math.NaN(), "-"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	}
	for _, tc := range tests {
		if got := round(tc.v); got != tc.want {
			t.Errorf("Round(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := (Stat{Mean: 167.5, SE: 11.03, N: 10}).String(); got != "167.50 (11.03)" {
		t.Errorf("Stat.String = %q", got)
	}
	if got := (Cell{Stat: Stat{Mean: 3, SE: math.NaN(), N: 1}}).Text(); got != "3.00 (n/a)" {
		t.Errorf("one-repeat cell = %q", got)
	}
	if got := (Cell{Stat: Stat{Mean: math.NaN(), SE: math.NaN()}}).Text(); got != "-" {
		t.Errorf("empty cell = %q", got)
	}
}

func tableOf(dirs []int, means [][]float64) *Table {
	t := &Table{}
	for j, d := range dirs {
		t.Columns = append(t.Columns, Column{Key: strconv.Itoa(j), Name: strconv.Itoa(j), Better: d})
	}
	for _, row := range means {
		r := Row{Method: "m"}
		for _, m := range row {
			n := 3
			if math.IsNaN(m) {
				n = 0
			}
			r.Cells = append(r.Cells, Cell{Stat: Stat{Mean: m, SE: 0.1, N: n}})
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

func TestMarkBestCases(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name  string
		dirs  []int
		means [][]float64
		want  [][]bool
	}{
		{"tie at two decimals", []int{1}, [][]float64{{1.004}, {1.001}, {0.5}}, [][]bool{{true}, {true}, {false}}},
		{"no tie at three decimals", []int{1}, [][]float64{{1.006}, {1.004}}, [][]bool{{true}, {false}}},
		{"lower is better", []int{-1}, [][]float64{{3}, {2}, {2.001}}, [][]bool{{false}, {true}, {true}}},
		{"unranked", []int{0}, [][]float64{{3}, {2}}, [][]bool{{false}, {false}}},
		{"missing never bold", []int{1}, [][]float64{{nan}, {-2}}, [][]bool{{false}, {true}}},
		{"negative zero ties zero", []int{1}, [][]float64{{-0.001}, {0.001}}, [][]bool{{true}, {true}}},
		{"columns independent", []int{1, 1}, [][]float64{{1, 0}, {0, 1}}, [][]bool{{true, false}, {false, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := tableOf(tc.dirs, tc.means)
			tab.MarkBest()
			for i, r := range tab.Rows {
				for j, c := range r.Cells {
					if c.Bold != tc.want[i][j] {
						t.Errorf("row %d col %d (mean %v): bold %v, want %v", i, j, c.Mean, c.Bold, tc.want[i][j])
					}
				}
			}
		})
	}
}

// TestMarkBestBruteForce checks the bold rule against its definition on
// random tables: a cell is bold iff its printed text is the best printed
// value of its column, compared as decimal strings.
func TestMarkBestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 200; trial++ {
		rows, cols := 1+rng.IntN(8), 1+rng.IntN(4)
		means := make([][]float64, rows)
		dirs := make([]int, cols)
		for j := range dirs {
			dirs[j] = []int{-1, 1}[rng.IntN(2)]
		}
		for i := range means {
			means[i] = make([]float64, cols)
			for j := range means[i] {
				means[i][j] = float64(rng.IntN(40))/100 + rng.Float64()*0.004 // many ties at 2 decimals
			}
		}
		tab := tableOf(dirs, means)
		tab.MarkBest()
		for j := 0; j < cols; j++ {
			best := ""
			for i := 0; i < rows; i++ {
				s := round(means[i][j])
				if best == "" || (dirs[j] > 0 && s > best) || (dirs[j] < 0 && s < best) { // "0.xx" strings order as numbers
					best = s
				}
			}
			for i := 0; i < rows; i++ {
				if want := round(means[i][j]) == best; tab.Rows[i].Cells[j].Bold != want {
					t.Fatalf("trial %d row %d col %d: mean %v bold %v, want %v (best %s)", trial, i, j, means[i][j], tab.Rows[i].Cells[j].Bold, want, best)
				}
			}
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{0, "0 s"}, {42.4, "42 s"}, {59.6, "1 min 00 s"}, {185, "3 min 05 s"}, {3725, "1 h 02 min"}, {math.NaN(), "-"}} {
		if got := Duration(tc.s); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestDistanceColumnsSignificantDigits: distance columns print at least
// distanceSigDigits significant digits (rover's 0.052 and 0.011 printed as
// 0.05 and 0.01 before), the standard error to the mean's decimals, and the
// bold rule compares what is printed: 0.052 beats 0.048 (both "0.05" at two
// decimals, which made them tie).
func TestDistanceColumnsSignificantDigits(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.052, "0.0520"}, {0.011, "0.0110"}, {0.0999, "0.0999"}, {0.5, "0.500"},
		{-0.0523, "-0.0523"}, {1.5, "1.50"}, {12.3456, "12.35"}, {0, "0.00"},
		{1e-30, "0.0000000000"},  // capped at maxDecimals = 10
		{-1e-12, "0.0000000000"}, // no negative zero
		{math.NaN(), "-"}, {math.Inf(1), "inf"},
	} {
		if got := roundSig(tc.v, distanceSigDigits); got != tc.want {
			t.Errorf("roundSig(%v, 3) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := (Stat{Mean: 0.052, SE: 0.014, N: 5}).Format(3); got != "0.0520 (0.0140)" {
		t.Errorf("Format = %q", got)
	}
	if got := (Stat{Mean: 0.625, SE: 0.0573, N: 3}).Format(3); got != "0.625 (0.057)" {
		t.Errorf("Format = %q", got)
	}
	for _, key := range []string{"solutions_mean_distance", "solutions_min_distance"} {
		var col Column
		for _, c := range bayesOptColumns {
			if c.Key == key {
				col = c
			}
		}
		tab := &Table{Columns: []Column{col}}
		for _, m := range []float64{0.052, 0.048, 0.011} {
			tab.Rows = append(tab.Rows, Row{Method: "m", Cells: []Cell{{Stat: Stat{Mean: m, SE: 0.002, N: 3}, SigDigits: col.SigDigits}}})
		}
		tab.MarkBest()
		var got []string
		for _, r := range tab.Rows {
			got = append(got, fmt.Sprintf("%s bold=%v", r.Cells[0].Text(), r.Cells[0].Bold))
		}
		want := []string{"0.0520 (0.0020) bold=true", "0.0480 (0.0020) bold=false", "0.0110 (0.0020) bold=false"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: cells %q, want %q", key, got, want)
		}
	}
}
