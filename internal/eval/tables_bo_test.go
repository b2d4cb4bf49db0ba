package eval

import (
	"strings"
	"testing"
)

// TestBayesOptTableMinimised: a campaign that minimised its objective
// (config minimize: true) shows its value columns as the objective printed
// them (summary.csv holds them negated) and bolds the lowest; the other
// columns, and a maximising campaign, are unchanged.
func TestBayesOptTableMinimised(t *testing.T) {
	runs := []map[string]string{
		{"key": "random-r00", "method": "random", "best_value": "-3", "solutions_mean_value": "-5", "solutions_vs": "2"},
		{"key": "random-r01", "method": "random", "best_value": "-5", "solutions_mean_value": "-7", "solutions_vs": "2"},
		{"key": "turbo-r00", "method": "turbo", "best_value": "-1", "solutions_mean_value": "-2", "solutions_vs": "1"},
	}
	col := func(tab *Table, key string) int {
		for j, c := range tab.Columns {
			if c.Key == key {
				return j
			}
		}
		t.Fatalf("no column %s", key)
		return -1
	}
	for _, minimised := range []bool{false, true} {
		c := &Campaign{Name: "reactor", Kind: KindContinuousBO, Runs: runs, Config: map[string]any{"minimize": minimised}}
		tab := bayesOptTable(c)
		if len(tab.Rows) != 2 {
			t.Fatalf("%d rows", len(tab.Rows))
		}
		best, mean, vs := col(tab, "best_value"), col(tab, "solutions_mean_value"), col(tab, "solutions_vs")
		rnd, tr := tab.Rows[0], tab.Rows[1]
		sign := 1.0
		if minimised {
			sign = -1
		}
		// random: best -3, -5 -> -4; turbo: -1.
		if rnd.Cells[best].Mean != sign*-4 || tr.Cells[best].Mean != sign*-1 || tr.Cells[mean].Mean != sign*-2 {
			t.Fatalf("minimised %v: best %v / %v, mean %v", minimised, rnd.Cells[best].Mean, tr.Cells[best].Mean, tr.Cells[mean].Mean)
		}
		// The better best value is turbo's either way (-1 > -4 maximised;
		// 1 < 4 as printed), and the VS column is not flipped.
		if !tr.Cells[best].Bold || rnd.Cells[best].Bold {
			t.Errorf("minimised %v: bold random %v turbo %v", minimised, rnd.Cells[best].Bold, tr.Cells[best].Bold)
		}
		if rnd.Cells[vs].Mean != 2 || !rnd.Cells[vs].Bold {
			t.Errorf("minimised %v: VS %+v", minimised, rnd.Cells[vs])
		}
		if got := strings.Contains(tab.Title, "minimised"); got != minimised {
			t.Errorf("minimised %v: title %q", minimised, tab.Title)
		}
	}
}

// TestBayesOptTableUserSpace: a campaign on a user's space (config space:)
// prints its value columns with 3 significant digits (0.0158 was "0.02
// (0.00)") and, when summary.csv has it, a failures column; a paper
// task's table keeps two decimals and no such column.
func TestBayesOptTableUserSpace(t *testing.T) {
	runs := []map[string]string{
		{"key": "qvs-q1-r00", "method": "qvs", "q": "1", "best_value": "0.0158", "solutions_mean_value": "0.0158", "solutions_vs": "2", "failures": "3"},
	}
	header := []string{"key", "method", "q", "best_value", "solutions_mean_value", "solutions_vs", "failures"}
	for _, user := range []bool{false, true} {
		cfg := map[string]any{}
		if user {
			cfg["space"] = "reactor.yaml"
		}
		tab := bayesOptTable(&Campaign{Name: "reactor", Kind: KindContinuousBO, Runs: runs, Header: header, Config: cfg})
		var b strings.Builder
		if err := tab.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		if got := strings.Contains(md, "0.0158 (-)") || strings.Contains(md, "0.0158 (n/a)"); got != user {
			t.Errorf("user %v: 0.0158 printed with its digits: %v\n%s", user, got, md)
		}
		if got := strings.Contains(md, "| failures"); got != user {
			t.Errorf("user %v: failures column %v\n%s", user, got, md)
		}
	}
}
