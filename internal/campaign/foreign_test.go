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
