package eval

import (
	"strings"
	"testing"
)

func TestActiveSearchTableWith(t *testing.T) {
	c := &Campaign{Name: "toy", Kind: KindActiveSearch, Runs: []map[string]string{
		{"key": "random-r00", "method": "random", "positives": "10", "vs_q1": "3"},
		{"key": "random-r01", "method": "random", "positives": "14", "vs_q1": "5"},
		{"key": "qvs-q1-r00", "method": "qvs", "q": "1", "positives": "9", "vs_q1": "7"},
		{"key": "qvs-q1-r01", "method": "qvs", "q": "1", "positives": "9", "vs_q1": "8"},
	}}
	cols := []Column{{Key: "positives", Name: "positives", Better: 1}, ActiveSearchColumns[3]}
	got, def := ActiveSearchTableWith(c, cols), ActiveSearchTable(c)
	if got.Name != def.Name || got.Title != def.Title || got.Label != def.Label || got.Campaign != "toy" {
		t.Errorf("names %q %q %q, want those of ActiveSearchTable", got.Name, got.Title, got.Label)
	}
	if len(got.Columns) != 2 || len(got.Rows) != 2 || len(got.Rows[0].Cells) != 2 {
		t.Fatalf("table %+v", got)
	}
	var b strings.Builder
	if err := got.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	// random: positives 10, 14 -> 12 (SE 2√2/√2 = 2), VS_1 3, 5 -> 4 (1);
	// qVS-AS: positives 9, 9 -> 9 (0), VS_1 7, 8 -> 7.5 (0.5).
	want := "| method | positives | VS q=1 |\n| --- | ---: | ---: |\n" +
		"| random search | **12.00 (2.00)** | 4.00 (1.00) |\n" +
		"| qVS-AS, q = 1 | 9.00 (0.00) | **7.50 (0.50)** |\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant\n%s", b.String(), want)
	}
}
