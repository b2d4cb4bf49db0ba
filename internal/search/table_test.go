package search

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestSummaryTable(t *testing.T) {
	header := []string{"key", "method", "q", "params", "repeat", "positives", "vs_q0", "vs_q0.1", "vs_q0.5", "vs_q1", "vs_q2", "vs_qinf", "max_pairwise_distance", "kernel_det", "kernel_logdet", "seconds"}
	row := func(method, q, params string, pos, vs1 float64) []string {
		return []string{"k", method, q, params, "0", fmtG(pos), fmtG(pos), "1", "1", fmtG(vs1), "1", "1", "0.5", "0.25", "-1", "3"}
	}
	rows := [][]string{
		row("qvs", "1", "", 10, 4),
		row("qvs", "1", "", 14, 6),
		row("random", "", "", 2, 1),
		row("eci", "", "threshold=0.25", 8, 5),
		row("eci", "", "threshold=0.5", 12, 3),
	}
	tab, err := SummaryTable(header, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 3 || tab[0].Label != "random search" || tab[1].Label != "ECI*" || tab[2].Label != "qVS-AS q=1" {
		t.Fatalf("rows %+v", tab)
	}
	// qVS-AS positives: mean 12, sd sqrt(8), se sqrt(8)/sqrt(2) = 2.
	const tol = 1e-12
	if c := tab[2].Cells[0]; c.Mean != 12 || math.Abs(c.SE-2) > tol || c.N != 2 {
		t.Errorf("qVS-AS positives cell %+v, want mean 12, se 2, n 2", c)
	}
	// ECI* takes the best setting per column: positives from 0.5, VS_1 from 0.25.
	if c := tab[1].Cells[0]; c.Mean != 12 || c.Params != "threshold=0.5" {
		t.Errorf("ECI* positives %+v, want 12 from threshold=0.5", c)
	}
	if c := tab[1].Cells[4]; c.Mean != 5 || c.Params != "threshold=0.25" {
		t.Errorf("ECI* VS_1 %+v, want 5 from threshold=0.25", c)
	}
	md := Markdown(tab)
	for _, want := range []string{"| method | positives |", "**12.00 ± 2.00**", "**12.00 ± 0.00**", "| random search | 2.00 ± 0.00 |", "**5.00 ± 1.00**",
		// Equal means keep the first setting listed.
		"ECI*: threshold=0.5 (positives, VS q=0); threshold=0.25 (VS q=0.1, VS q=0.5, VS q=1, VS q=2, VS q=inf, max. pairwise dist., kernel det.)."} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if _, err := SummaryTable(header[:5], nil); err == nil {
		t.Error("summary without metric columns accepted")
	}
	bad := row("qvs", "1", "", 1, 1)
	bad[9] = "many"
	if _, err := SummaryTable(header, [][]string{bad}); err == nil || !strings.Contains(err.Error(), "vs_q1") {
		t.Errorf("non-numeric cell: %v", err)
	}
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
