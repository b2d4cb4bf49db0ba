package eval

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestTablesAgainstDirectComputation recomputes every cell of the fixture's
// tables from summary.csv with the textbook formulas, independently of
// Summarize and buildTable: mean = sum/n, SE = sqrt(sum (x - mean)^2 /
// (n - 1)) / sqrt(n); a starred row's cell is the best setting's; bold iff
// the printed mean equals the column's best printed mean.
func TestTablesAgainstDirectComputation(t *testing.T) {
	const tol = 1e-9 // relative: two summation orders of at most 10 values
	camps, _, err := discover(fixtureResults)
	if err != nil {
		t.Fatal(err)
	}
	if len(camps) == 0 {
		t.Fatal("no fixture campaign")
	}
	for _, c := range camps {
		tab := TableOf(c)
		known := map[Kind]map[string]methodStyle{KindActiveSearch: asMethods, KindDiscreteBO: discreteMethods, KindContinuousBO: boMethods}[c.Kind]
		// The raw rows, read without LoadCampaign.
		f, err := os.Open(filepath.Join(c.Dir, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for j, h := range recs[0] {
			col[h] = j
		}
		// Settings of each table row: label -> params -> values of a column.
		rowOf := func(r []string) string {
			st := styleOf(known, r[col["method"]])
			q := r[col["q"]]
			if q == "" {
				q = st.qAlias
			}
			if !st.byQ || q == "" {
				return st.label
			}
			return st.label + ", q = " + q + st.qSuffix
		}
		for j, column := range tab.Columns {
			best := math.Inf(-1)
			printedMeans := map[*Cell]float64{}
			for ri := range tab.Rows {
				row := &tab.Rows[ri]
				label := row.Method
				if row.Setting != "" {
					label += ", " + row.Setting
				}
				label = trimStar(label)
				bySetting := map[string][]float64{}
				for _, r := range recs[1:] {
					if rowOf(r) == label {
						v, err := strconv.ParseFloat(r[col[column.Key]], 64)
						if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
							bySetting[r[col["params"]]] = append(bySetting[r[col["params"]]], v)
						}
					}
				}
				if len(bySetting) == 0 {
					t.Fatalf("%s: row %q has no runs in summary.csv", c.Name, label)
				}
				wantMean, wantSE, found := 0.0, 0.0, false
				for _, xs := range bySetting {
					var s float64
					for _, x := range xs {
						s += x
					}
					m := s / float64(len(xs))
					var ss float64
					for _, x := range xs {
						ss += (x - m) * (x - m)
					}
					se := math.NaN()
					if len(xs) > 1 {
						se = math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
					}
					if !found || m > wantMean {
						wantMean, wantSE, found = m, se, true
					}
				}
				cell := &row.Cells[j]
				if !near(cell.Mean, wantMean) || !(near(cell.SE, wantSE) || math.Abs(cell.SE-wantSE) < tol*math.Abs(wantMean)) {
					t.Errorf("%s %q %s: cell mean %v SE %v, direct %v %v", c.Name, label, column.Key, cell.Mean, cell.SE, wantMean, wantSE)
				}
				p, _ := strconv.ParseFloat(strconv.FormatFloat(wantMean, 'f', 2, 64), 64)
				if p == 0 {
					p = 0 // -0.00 prints as 0.00
				}
				printedMeans[cell] = p
				best = math.Max(best, p)
			}
			for cell, p := range printedMeans {
				if want := column.Better > 0 && p == best; cell.Bold != want {
					t.Errorf("%s %s: cell %s bold %v, want %v (best printed %v)", c.Name, column.Key, cell.Text(), cell.Bold, want, best)
				}
			}
		}
	}
}

func trimStar(s string) string {
	out := []rune{}
	for _, r := range s {
		if r != '*' {
			out = append(out, r)
		}
	}
	return string(out)
}
