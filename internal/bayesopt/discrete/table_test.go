package discrete

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.csv")
	summary := `key,method,q,params,repeat,best_value,edc,good_found,evaluations,best_id,best_index,best_energy_penalty,seconds
random-r00,random,,,0,10,2,3,102,a,1,0.5,1
random-r01,random,,,1,14,4,5,102,b,2,,1
qvs-q1-r00,qvs,1,,0,20,6,7,102,c,3,0.2,1
`
	if err := os.WriteFile(path, []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || strings.Join(tab.MetricFields, ",") != "best_energy_penalty" {
		t.Fatalf("table %+v", tab)
	}
	r := tab.Rows[0]
	// best values 10, 14: mean 12, sample sd 2√2, SE = 2√2/√2 = 2.
	const tol = 1e-12
	if r.Method != "random" || r.Runs != 2 || math.Abs(r.Best.Mean-12) > tol || math.Abs(r.Best.SE-2) > tol {
		t.Errorf("random row %+v", r)
	}
	// The empty energy penalty is skipped: mean of {0.5} with no SE.
	if r.Metrics[0].N != 1 || r.Metrics[0].Mean != 0.5 || !math.IsNaN(r.Metrics[0].SE) {
		t.Errorf("metric stat %+v", r.Metrics[0])
	}
	var b strings.Builder
	if err := tab.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "| method | q | runs | best value | EDC | good found | best_energy_penalty |\n" +
		"|---|---|---|---|---|---|---|\n" +
		"| random | - | 2 | 12.00 (2.00) | 3.00 (1.00) | 4.0 (1.0) | 0.500 |\n" +
		"| qvs | 1 | 1 | 20.00 | 6.00 | 7.0 | 0.200 |\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant\n%s", b.String(), want)
	}
	os.WriteFile(path, []byte("key,method,q\nx,y,1\n"), 0o644)
	if _, err := ReadTable(path); err == nil || !strings.Contains(err.Error(), "best_value") {
		t.Errorf("foreign summary: %v", err)
	}
}
