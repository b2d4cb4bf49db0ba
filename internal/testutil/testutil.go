// Package testutil holds helpers shared by tests: locating the third-party
// data directory (../shared/data beside the repository, or $QVS_DATA_DIR).
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot is the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// DataRoot is where tests look for the third-party data: $QVS_DATA_DIR if
// set, else ../shared/data beside the repository (where `make data` puts it).
func DataRoot() string {
	if d := os.Getenv("QVS_DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), "..", "shared", "data")
}

// DataDir returns the data directory for a test that reads the files need
// (paths relative to it, e.g. "photoswitch/UMAP-AllHits.csv"; none: the
// directory itself). When any is missing the test is skipped with one line
// saying what is missing and how to get it, except when the environment
// variable CI is set (CI always has the data): then the test fails.
func DataDir(t testing.TB, need ...string) string {
	t.Helper()
	d := DataRoot()
	if msg := missingData(d, need); msg != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set, so missing data is a failure)", msg)
		} else {
			logSkip(t.Name(), msg)
			t.Skip(msg)
		}
	}
	return d
}

// skipLogEnv names the file `make test` gives the test binaries: each
// test skipped for missing data appends "TEST\tREASON" to it, and the
// Makefile prints one line summing them up after go test's own output
// (skips are otherwise silent without -v).
const skipLogEnv = "QVS_SKIP_LOG"

// logSkip appends one line to $QVS_SKIP_LOG, if set (one write with
// O_APPEND: lines of parallel test binaries do not interleave).
func logSkip(test, reason string) {
	p := os.Getenv(skipLogEnv)
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(test + "\t" + strings.ReplaceAll(reason, "\n", " ") + "\n")
}

// missingData describes what of need is absent from dir ("" if nothing).
func missingData(dir string, need []string) string {
	if _, err := os.Stat(dir); err != nil {
		return "test data directory " + dir + " is missing: run `make data` or set QVS_DATA_DIR"
	}
	var missing []string
	for _, p := range need {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "test data " + strings.Join(missing, ", ") + " missing in " + dir + ": run `make data` or set QVS_DATA_DIR"
}

// DeadPID returns the pid of a process that has exited (a run of the test
// binary that runs no test), for tests of stale locks and orphaned files.
func DeadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
