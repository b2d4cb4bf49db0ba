// Package testutil holds helpers shared by tests: locating the third-party
// data directory (../shared/data beside the repository, or $QVS_DATA_DIR).
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// DataDir returns the shared data directory: $QVS_DATA_DIR if set, else
// ../shared/data beside the repository. If the directory does not exist the
// test is failed (CI always has it), unless QVS_SKIP_DATA=1, which skips.
func DataDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("QVS_DATA_DIR")
	if d == "" {
		d = filepath.Join(RepoRoot(), "..", "shared", "data")
	}
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("QVS_SKIP_DATA") == "1" {
			t.Skipf("data directory %s missing (QVS_SKIP_DATA=1)", d)
		}
		t.Fatalf("data directory %s missing: set QVS_DATA_DIR or place shared/data beside the repository", d)
	}
	return d
}
