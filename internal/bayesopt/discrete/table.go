package discrete

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Stat is a mean with its standard error over runs (SE = sample sd / √n,
// NaN for fewer than two values); missing (NaN) values are skipped.
type Stat struct {
	Mean, SE float64
	N        int
}

func newStat(v []float64) Stat {
	var s Stat
	var sum float64
	for _, x := range v {
		if !math.IsNaN(x) {
			sum += x
			s.N++
		}
	}
	if s.N == 0 {
		return Stat{Mean: math.NaN(), SE: math.NaN()}
	}
	s.Mean = sum / float64(s.N)
	s.SE = math.NaN()
	if s.N > 1 {
		var ss float64
		for _, x := range v {
			if !math.IsNaN(x) {
				ss += (x - s.Mean) * (x - s.Mean)
			}
		}
		s.SE = math.Sqrt(ss/float64(s.N-1)) / math.Sqrt(float64(s.N))
	}
	return s
}

// Format writes "mean (se)" with dec decimals ("mean" alone without an SE, "-" without values).
func (s Stat) Format(dec int) string {
	if math.IsNaN(s.Mean) {
		return "-"
	}
	if math.IsNaN(s.SE) {
		return strconv.FormatFloat(s.Mean, 'f', dec, 64)
	}
	return fmt.Sprintf("%.*f (%.*f)", dec, s.Mean, dec, s.SE)
}

// TableRow aggregates the finished runs of one method and order: the
// Table 4 quantities (best value, EDC) plus the extra metrics of the best
// items (Figure 6).
type TableRow struct {
	Method, Q string
	Runs      int
	Best      Stat
	EDC       Stat
	Good      Stat
	Metrics   []Stat // one per Table.MetricFields
}

// Table is the aggregate of a campaign's summary.csv.
type Table struct {
	MetricFields []string // best_<metric> columns, in file order
	Rows         []TableRow
}

// ReadTable aggregates DIR/summary.csv by (method, q) in order of first
// appearance.
func ReadTable(summaryPath string) (*Table, error) {
	b, err := os.ReadFile(summaryPath)
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", summaryPath, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", summaryPath)
	}
	col := map[string]int{}
	t := &Table{}
	for j, h := range recs[0] {
		col[h] = j
		if strings.HasPrefix(h, "best_") && h != "best_value" && h != "best_id" && h != "best_index" {
			t.MetricFields = append(t.MetricFields, h)
		}
	}
	for _, need := range []string{"method", "q", "best_value", "edc", "good_found"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no column %q: not a discrete BayesOpt summary", summaryPath, need)
		}
	}
	type group struct {
		best, edc, good []float64
		metrics         [][]float64
	}
	var order []string
	groups := map[string]*group{}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	for _, r := range recs[1:] {
		key := r[col["method"]] + "\x00" + r[col["q"]]
		g, ok := groups[key]
		if !ok {
			g = &group{metrics: make([][]float64, len(t.MetricFields))}
			groups[key] = g
			order = append(order, key)
		}
		g.best = append(g.best, num(r[col["best_value"]]))
		g.edc = append(g.edc, num(r[col["edc"]]))
		g.good = append(g.good, num(r[col["good_found"]]))
		for k, f := range t.MetricFields {
			g.metrics[k] = append(g.metrics[k], num(r[col[f]]))
		}
	}
	for _, key := range order {
		g := groups[key]
		m, q, _ := strings.Cut(key, "\x00")
		row := TableRow{Method: m, Q: q, Runs: len(g.best), Best: newStat(g.best), EDC: newStat(g.edc), Good: newStat(g.good)}
		for _, v := range g.metrics {
			row.Metrics = append(row.Metrics, newStat(v))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// WriteMarkdown writes the table as Markdown: method, q, runs, best value,
// EDC, good items found and the metrics of the best items, each as
// "mean (standard error)".
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| method | q | runs | best value | EDC | good found |")
	for _, f := range t.MetricFields {
		fmt.Fprintf(&b, " %s |", f)
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	for range t.MetricFields {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		q := r.Q
		if q == "" {
			q = "-"
			if r.Method == MethodUCB {
				q = "(0)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |", r.Method, q, r.Runs, r.Best.Format(2), r.EDC.Format(2), r.Good.Format(1))
		for _, m := range r.Metrics {
			fmt.Fprintf(&b, " %s |", m.Format(3))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
