package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// TestForeignSummaryRefused: a folder holding a summary.csv but no
// config.yaml (the user's, not a campaign's) is refused and left as it
// was; with Force the campaign runs.
func TestForeignSummaryRefused(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.csv")
	os.WriteFile(summary, []byte("my,own\n1,2\n"), 0o644)
	_, err := Execute(context.Background(), spec(dir), toyRun(5, nil))
	if err == nil || !errors.Is(err, fileio.ErrNotOurs) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error %v, want a refusal naming --force", err)
	}
	if b, _ := os.ReadFile(summary); string(b) != "my,own\n1,2\n" {
		t.Errorf("summary.csv became %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
		t.Error("config.yaml written by a refused campaign")
	}
	s := spec(dir)
	s.Force = true
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	// Now a campaign folder: a rerun needs no --force.
	if _, err := Execute(context.Background(), spec(dir), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
}

// TestFailedRunsNamedWhenSummaryFails: when summary.csv cannot be written
// either (a full disk fails both), the error still lists every failed
// run with its reason (it said "3 failed" with the summary's error only).
func TestFailedRunsNamedWhenSummaryFails(t *testing.T) {
	dir := t.TempDir()
	fail := func(ctx context.Context, run Run, rec *Recorder) ([]Field, error) {
		return nil, errors.New("write runs/" + run.Key + ".csv: no space left on device")
	}
	if err := os.MkdirAll(filepath.Join(dir, "summary.csv"), 0o755); err != nil { // unwritable
		t.Fatal(err)
	}
	s := spec(dir)
	s.Force = true
	rep, err := Execute(context.Background(), s, fail)
	if err == nil || len(rep.Failed) == 0 {
		t.Fatalf("err %v, failed %v", err, rep.Failed)
	}
	for _, f := range rep.Failed {
		key, _, _ := strings.Cut(f, ":")
		if !strings.Contains(err.Error(), key+": write runs/"+key+".csv: no space left on device") {
			t.Errorf("error %q does not give %s's reason", err, key)
		}
	}
	if !strings.Contains(err.Error(), "summary.csv") {
		t.Errorf("error %q does not say summary.csv was not written", err)
	}
}
