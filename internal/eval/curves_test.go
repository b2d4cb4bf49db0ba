package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAggregateCurves(t *testing.T) {
	// Run a records at x = 1, 2, 3; run b at x = 1, 3 (a step function:
	// at x = 2 it still holds its x = 1 value); run c ends at x = 2.
	curves := []curve{
		{X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}},
		{X: []float64{1, 3}, Y: []float64{3, 5}},
		{X: []float64{1, 2}, Y: []float64{2, 2}},
	}
	b := aggregateCurves(curves)
	want := []struct {
		x    float64
		vals []float64
	}{
		{1, []float64{1, 3, 2}},
		{2, []float64{2, 3, 2}},
		{3, []float64{3, 5}}, // c has ended
	}
	if len(b.X) != len(want) {
		t.Fatalf("grid %v, want x = 1, 2, 3", b.X)
	}
	for i, w := range want {
		s := Summarize(w.vals)
		if b.X[i] != w.x || b.Stat[i].N != s.N || !near(b.Stat[i].Mean, s.Mean) || !near(b.Stat[i].SE, s.SE) {
			t.Errorf("x=%v: %+v, want %+v", b.X[i], b.Stat[i], s)
		}
	}
}

func TestReadCurveErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct{ name, body, msg string }{
		{"nocol.csv", "a,b\n1,2\n", `lacks column "evaluations"`},
		{"text.csv", "evaluations,best_so_far\n1,x\n", "row 2"},
		{"down.csv", "evaluations,best_so_far\n2,1\n1,2\n", "decreases"},
		{"empty.csv", "", "empty file"},
	}
	for _, tc := range tests {
		_, err := readCurve(write(tc.name, tc.body), "evaluations", "best_so_far")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want one naming the file and %q", tc.name, err, tc.msg)
		}
	}
	c, err := readCurve(write("ok.csv", "evaluations,best_so_far\n1,-2.5\n2,inf\n"), "evaluations", "best_so_far")
	if err != nil || len(c.X) != 2 || c.Y[0] != -2.5 || !math.IsInf(c.Y[1], 1) {
		t.Errorf("ok.csv: %+v, %v", c, err)
	}
}
