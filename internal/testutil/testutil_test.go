package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records what DataDir does instead of stopping the test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skip(args ...any)                  { f.skipped = args[0].(string) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = format }

func TestDataDirMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "photoswitch"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "photoswitch", "a.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QVS_DATA_DIR", dir)
	// The fake skips below are not data missing for `make test`: keep them
	// out of its skip summary ($QVS_SKIP_LOG).
	t.Setenv(skipLogEnv, "")
	for _, c := range []struct {
		ci   string
		need []string
		skip string // "" = neither skipped nor failed
		fail bool
	}{
		{"", []string{"photoswitch/a.csv"}, "", false},
		{"", nil, "", false},
		{"", []string{"photoswitch/a.csv", "bmg/b.csv"}, "test data bmg/b.csv missing in " + dir + ": run `make data` or set QVS_DATA_DIR", false},
		{"true", []string{"bmg/b.csv"}, "", true},
	} {
		t.Setenv("CI", c.ci)
		f := &fakeTB{}
		if got := DataDir(f, c.need...); got != dir {
			t.Errorf("DataDir = %s, want %s", got, dir)
		}
		if f.skipped != c.skip || (f.failed != "") != c.fail {
			t.Errorf("CI=%q need %v: skipped %q failed %q", c.ci, c.need, f.skipped, f.failed)
		}
		if strings.Contains(f.skipped, "\n") {
			t.Errorf("skip message has several lines: %q", f.skipped)
		}
	}
	t.Setenv("QVS_DATA_DIR", filepath.Join(dir, "nope"))
	t.Setenv("CI", "")
	f := &fakeTB{}
	DataDir(f, "photoswitch/a.csv")
	if !strings.Contains(f.skipped, "test data directory "+filepath.Join(dir, "nope")+" is missing: run `make data`") {
		t.Errorf("missing directory: skipped %q", f.skipped)
	}
}

func (f *fakeTB) Name() string { return "TestFake" }

// TestSkipSummary: `make test` skipped data
// tests without a word unless -v. Each skip is logged to $QVS_SKIP_LOG and
// scripts/skipped-data.sh (run by the Makefile after go test) sums them up
// in one line: the count and the most frequent reason; nothing at all
// when no test was skipped.
func TestSkipSummary(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "skips")
	t.Setenv(skipLogEnv, log)
	t.Setenv("CI", "")
	summary := func() string {
		t.Helper()
		out, err := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "skipped-data.sh"), log).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if s := summary(); s != "" {
		t.Errorf("no skips: %q", s)
	}
	t.Setenv("QVS_DATA_DIR", filepath.Join(dir, "nope"))
	for range 3 {
		DataDir(&fakeTB{}, "bmg/x.csv")
	}
	t.Setenv("QVS_DATA_DIR", dir)
	DataDir(&fakeTB{}, "bmg/x.csv")
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "TestFake\t"); n != 4 {
		t.Errorf("log has %d lines, want 4:\n%s", n, b)
	}
	want := "make test: 4 test(s) skipped for missing data: test data directory " + filepath.Join(dir, "nope") +
		" is missing: run `make data` or set QVS_DATA_DIR (and 1 other reason(s)); go test -v ./... names them\n"
	if s := summary(); s != want {
		t.Errorf("summary %q, want %q", s, want)
	}
}
