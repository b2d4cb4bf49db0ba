package eval

import (
	"math"
	"testing"
)

// TestActiveSearchTablePositives: the positives found are the first column
// of every active-search table (qvs as, qvs as table and qvs eval alike),
// summarised like the others.
func TestActiveSearchTablePositives(t *testing.T) {
	c := &Campaign{Name: "toy", Kind: KindActiveSearch, Runs: []map[string]string{
		{"key": "random-r00", "method": "random", "positives": "10", "vs_q1": "3"},
		{"key": "random-r01", "method": "random", "positives": "14", "vs_q1": "5"},
		{"key": "qvs-q1-r00", "method": "qvs", "q": "1", "positives": "9", "vs_q1": "7"},
		{"key": "qvs-q1-r01", "method": "qvs", "q": "1", "positives": "9", "vs_q1": "8"},
	}}
	tab := activeSearchTable(c)
	if tab.Columns[0].Key != "positives" || tab.Columns[0].Name != "positives found" {
		t.Fatalf("first column %+v, want the positives found", tab.Columns[0])
	}
	vs1 := -1
	for j, col := range tab.Columns {
		if col.Key == "vs_q1" {
			vs1 = j
		}
	}
	// random: positives 10, 14 -> 12 (SE 2√2/√2 = 2), VS_1 3, 5 -> 4 (1);
	// qVS-AS: positives 9, 9 -> 9 (0), VS_1 7, 8 -> 7.5 (0.5).
	want := []struct {
		label       string
		pos, posSE  float64
		vs, vsSE    float64
		posBold, vb bool
	}{
		{"random search", 12, 2, 4, 1, true, false},
		{"qVS-AS, q = 1", 9, 0, 7.5, 0.5, false, true},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(want))
	}
	const tol = 1e-12 // exact small sums
	for i, w := range want {
		r := tab.Rows[i]
		p, v := r.Cells[0], r.Cells[vs1]
		if r.Label() != w.label || math.Abs(p.Mean-w.pos) > tol || math.Abs(p.SE-w.posSE) > tol ||
			math.Abs(v.Mean-w.vs) > tol || math.Abs(v.SE-w.vsSE) > tol || p.Bold != w.posBold || v.Bold != w.vb {
			t.Errorf("row %d: %s positives %v VS_1 %v, want %+v", i, r.Label(), p, v, w)
		}
	}
}
