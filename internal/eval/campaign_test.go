package eval

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestUnfinishedRuns(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"a-r00.csv", "a-r00.summary.csv", "a-r00.curve.csv", // finished, with an extra file
		"qvs-q0.5-r00.csv", "qvs-q0.5-r00.curve.csv", // killed after its curve: unfinished, dotted key
		"b-r01.csv",              // killed mid-run
		"qvs-q0.5-r01.curve.csv", // stray extra file of no known run: reported
	} {
		if err := os.WriteFile(filepath.Join(runs, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := unfinishedRuns(dir, []map[string]string{{"key": "a-r00"}})
	want := []string{"b-r01", "qvs-q0.5-r00", "qvs-q0.5-r01.curve"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unfinishedRuns = %v, want %v", got, want)
	}
}

// TestLoadCampaignWithoutSummary: a campaign still running (no summary.csv
// yet) is read from its runs/*.summary.csv files, with a note.
func TestLoadCampaignWithoutSummary(t *testing.T) {
	src := filepath.Join(fixtureResults, "mof")
	full, err := LoadCampaign(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(src, "runs", "*"))
	for _, f := range append(files, filepath.Join(src, "config.yaml")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, f)
		if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !isCampaignDir(dir) {
		t.Fatal("a folder with run summaries but no summary.csv is not recognised")
	}
	c, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != len(full.Runs) || c.Kind != full.Kind || c.Name != full.Name {
		t.Errorf("read %d runs of kind %v named %s, want %d of %v named %s", len(c.Runs), c.Kind, c.Name, len(full.Runs), full.Kind, full.Name)
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "campaign running or interrupted") {
		t.Errorf("problems %v", c.Problems)
	}
	a, b := TableOf(full), TableOf(c)
	if a.Rows[0].Cells[0] != b.Rows[0].Cells[0] {
		t.Errorf("first cell %+v, want %+v", b.Rows[0].Cells[0], a.Rows[0].Cells[0])
	}
}

// TestOldSummaryGetsDetPerItem: an active-search summary.csv written before
// kernel_det_per_item existed still loads, and the column is derived from
// positives and kernel_logdet (with kernel_det's sign), or from kernel_det
// alone in older files; the table carries the inferred-definition note.
func TestOldSummaryGetsDetPerItem(t *testing.T) {
	dir := t.TempDir()
	const header = "key,method,q,params,repeat,positives,vs_q0,vs_q0.1,vs_q0.5,vs_q1,vs_q2,vs_qinf,max_pairwise_distance,kernel_det,kernel_logdet,seconds\n"
	// Rows: det 0.125 of 3 positives (per item 0.5); det -4 of 2 (2: the
	// geometric mean of |eigenvalues|); det underflowed to 0 with log det
	// -1000 of 500 (e^-2); det 0 (0).
	body := "random-r00,random,,,0,3,3,3,3,3,3,3,1,0.125,-2.0794415416798357,1\n" +
		"random-r01,random,,,1,2,2,2,2,2,2,2,1,-4,1.3862943611198906,1\n" +
		"random-r02,random,,,2,500,9,9,9,9,9,9,1,0,-1000,1\n" +
		"random-r03,random,,,3,2,1,1,1,1,1,1,1,0,-inf,1\n"
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(header+body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 2, math.Exp(-2), 0}
	for i, r := range c.Runs {
		got := parseFloat(r["kernel_det_per_item"])
		if math.Abs(got-want[i]) > 1e-12 { // one exp/log round trip
			t.Errorf("run %d: kernel_det_per_item %q, want %v", i, r["kernel_det_per_item"], want[i])
		}
	}
	// Older still: no kernel_logdet; det 0.125 of 3 positives gives 0.5.
	old := "key,method,q,params,repeat,positives,vs_q0,vs_q0.1,vs_q0.5,vs_q1,vs_q2,vs_qinf,max_pairwise_distance,kernel_det,seconds\n" +
		"random-r00,random,,,0,3,3,3,3,3,3,3,1,0.125,1\n"
	if err := os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = LoadCampaign(dir); err != nil {
		t.Fatal(err)
	}
	if got := parseFloat(c.Runs[0]["kernel_det_per_item"]); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("no kernel_logdet: kernel_det_per_item %v, want 0.5", got)
	}
	tab := TableOf(c)
	if last := tab.Columns[len(tab.Columns)-1]; last.Key != "kernel_det_per_item" {
		t.Errorf("last column %q, want kernel_det_per_item", last.Key)
	}
	if !strings.Contains(strings.Join(tab.Notes, "\n"), "definition is inferred") {
		t.Errorf("notes lack the inferred-definition note: %q", tab.Notes)
	}
}

// TestLoadCampaignReadsKind: the kind config.yaml records (kind:) is the
// campaign's kind; without it (folders written before kinds were recorded)
// it is inferred from the summary's columns, as before.
func TestLoadCampaignReadsKind(t *testing.T) {
	summary := "key,method,q,params,repeat,best_value,edc,seconds\nucb-r00,ucb,,,0,1,2,0.1\n"
	for _, tc := range []struct {
		config string
		want   Kind
	}{
		{"task: mof\n", KindDiscreteBO},                   // inferred from edc
		{"kind: bayesopt\ntask: mof\n", KindContinuousBO}, // recorded: wins
		{"kind: discrete-bayesopt\ntask: mof\n", KindDiscreteBO},
		{"kind: nonsense\ntask: mof\n", KindDiscreteBO}, // unknown: inferred
	} {
		dir := t.TempDir()
		for name, body := range map[string]string{"summary.csv": summary, "config.yaml": tc.config} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := LoadCampaign(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind != tc.want {
			t.Errorf("config %q: kind %v, want %v", tc.config, c.Kind, tc.want)
		}
	}
	for _, k := range []Kind{KindActiveSearch, KindDiscreteBO, KindContinuousBO} {
		if got := kindOf(map[string]any{"kind": k.Key()}); got != k {
			t.Errorf("kindOf(%q) = %v, want %v", k.Key(), got, k)
		}
	}
}
