package eval

import (
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
