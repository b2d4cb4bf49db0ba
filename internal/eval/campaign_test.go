package eval

import (
	"os"
	"path/filepath"
	"reflect"
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
