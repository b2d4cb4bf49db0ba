package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// TableColumns are the summary columns of the paper's Tables 1-3, in order,
// with their headings.
var TableColumns = []struct{ Key, Heading string }{
	{"positives", "positives"},
	{"vs_q0", "VS q=0"},
	{"vs_q0.1", "VS q=0.1"},
	{"vs_q0.5", "VS q=0.5"},
	{"vs_q1", "VS q=1"},
	{"vs_q2", "VS q=2"},
	{"vs_qinf", "VS q=inf"},
	{"max_pairwise_distance", "max. pairwise dist."},
	{"kernel_det", "kernel det."},
}

// tuned are the methods reported with a star: the best hyperparameter
// setting per column (the paper's ECI* and SELECT*, reference notes §2).
var tuned = map[string]string{"eci": "ECI*", "select": "SELECT*"}

var methodOrder = []string{"random", "one-step", "eci", "select", "ens", "qvs"}

// Cell is a mean and its standard error over repeats.
type Cell struct {
	Mean, SE float64
	N        int
	Params   string // for starred rows: the setting the value comes from
}

// TableRow is one row of a results table.
type TableRow struct {
	Label string
	Cells []Cell // one per TableColumns entry
}

// SummaryTable groups the rows of a campaign's summary.csv by method, q and
// params and returns the paper-style table: per method (and per q for
// qVS-AS) the mean and standard error (sample sd / √n) over repeats of every
// TableColumns column; ECI and SELECT report, per column, their best setting
// by mean. Columns missing from the header are an error.
func SummaryTable(header []string, rows [][]string) ([]TableRow, error) {
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range append([]string{"method", "q", "params"}, keys()...) {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("summary has no %q column (header %v)", need, header)
		}
	}
	type group struct {
		method, q, params string
		vals              [][]float64 // per column
	}
	var groups []*group
	byKey := map[string]*group{}
	for r, row := range rows {
		if len(row) != len(header) {
			return nil, fmt.Errorf("summary row %d has %d fields, header %d", r+2, len(row), len(header))
		}
		m, q, p := row[col["method"]], row[col["q"]], row[col["params"]]
		k := m + "\x00" + q + "\x00" + p
		g := byKey[k]
		if g == nil {
			g = &group{method: m, q: q, params: p, vals: make([][]float64, len(TableColumns))}
			byKey[k] = g
			groups = append(groups, g)
		}
		for c, tc := range TableColumns {
			s := row[col[tc.Key]]
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("summary row %d: %s = %q is not a number", r+2, tc.Key, s)
			}
			g.vals[c] = append(g.vals[c], v)
		}
	}
	stat := func(g *group) []Cell {
		cells := make([]Cell, len(TableColumns))
		for c, vs := range g.vals {
			cells[c] = meanSE(vs)
			cells[c].Params = g.params
		}
		return cells
	}
	var out []TableRow
	seen := map[string]bool{}
	emit := func(method string) {
		seen[method] = true
		var gs []*group
		for _, g := range groups {
			if g.method == method {
				gs = append(gs, g)
			}
		}
		if len(gs) == 0 {
			return
		}
		if star, ok := tuned[method]; ok {
			best := make([]Cell, len(TableColumns))
			for c := range best {
				best[c].Mean = math.Inf(-1)
			}
			for _, g := range gs {
				for c, cell := range stat(g) {
					if cell.Mean > best[c].Mean {
						best[c] = cell
					}
				}
			}
			out = append(out, TableRow{Label: star, Cells: best})
			return
		}
		for _, g := range gs {
			label := method
			switch {
			case method == "random":
				label = "random search"
			case method == "qvs":
				label = "qVS-AS q=" + g.q
			case g.params != "":
				label += " (" + g.params + ")"
			}
			out = append(out, TableRow{Label: label, Cells: stat(g)})
		}
	}
	for _, m := range methodOrder {
		emit(m)
	}
	for _, g := range groups {
		if !seen[g.method] {
			emit(g.method)
		}
	}
	return out, nil
}

func keys() []string {
	var k []string
	for _, c := range TableColumns {
		k = append(k, c.Key)
	}
	return k
}

func meanSE(vs []float64) Cell {
	n := float64(len(vs))
	mean := 0.0
	for _, v := range vs {
		mean += v
	}
	mean /= n
	if len(vs) < 2 || math.IsInf(mean, 0) || math.IsNaN(mean) {
		return Cell{Mean: mean, N: len(vs)}
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return Cell{Mean: mean, SE: math.Sqrt(ss/(n-1)) / math.Sqrt(n), N: len(vs)}
}

// Markdown renders rows as a Markdown table of "mean ± se" with two
// decimals, the best mean of each column in bold (ties at two decimals
// included, as in the paper).
func Markdown(rows []TableRow) string {
	var b strings.Builder
	b.WriteString("| method |")
	for _, c := range TableColumns {
		b.WriteString(" " + c.Heading + " |")
	}
	b.WriteString("\n|---|")
	for range TableColumns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	best := make([]string, len(TableColumns))
	for c := range TableColumns {
		m := math.Inf(-1)
		for _, r := range rows {
			m = math.Max(m, r.Cells[c].Mean)
		}
		best[c] = fmt.Sprintf("%.2f", m)
	}
	for _, r := range rows {
		b.WriteString("| " + r.Label + " |")
		for c, cell := range r.Cells {
			s := fmt.Sprintf("%.2f ± %.2f", cell.Mean, cell.SE)
			if fmt.Sprintf("%.2f", cell.Mean) == best[c] {
				s = "**" + s + "**"
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	// Say which setting each starred column comes from.
	for _, r := range rows {
		if !strings.HasSuffix(r.Label, "*") {
			continue
		}
		var order []string
		cols := map[string][]string{}
		for c, cell := range r.Cells {
			if _, ok := cols[cell.Params]; !ok {
				order = append(order, cell.Params)
			}
			cols[cell.Params] = append(cols[cell.Params], TableColumns[c].Heading)
		}
		var parts []string
		for _, p := range order {
			parts = append(parts, p+" ("+strings.Join(cols[p], ", ")+")")
		}
		b.WriteString("\n" + r.Label + ": " + strings.Join(parts, "; ") + ".\n")
	}
	return b.String()
}
