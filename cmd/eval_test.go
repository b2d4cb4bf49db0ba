package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// evalFixture is the results folder of internal/eval's golden tests: short
// real runs of qvs as and qvs bayesopt (see testdata/eval/README.md).
var evalFixture = filepath.Join("..", "testdata", "eval", "results")

// TestEvalUsageErrors: the folder argument and the --format list as parsed
// (the refusals of the options: TestEvalRefusals in internal/cli).
func TestEvalUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no folder", []string{"eval"}, ExitUsage, "accepts 1 arg"},
		{"two folders", []string{"eval", dir, dir}, ExitUsage, "accepts 1 arg"},
		{"no table format", []string{"eval", dir, "--format", ","}, ExitUsage, "at least one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runQVS(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestEvalConfig: out, format and figures come from --config; a flag the
// user sets overrides its key; unknown keys are errors naming the key.
func TestEvalConfig(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "from-config")
	cfg := testutil.WriteFile(t, dir, "eval.yaml", "out: "+out+"\nformat: [tex]\nfigures: [none]\n")
	code, _, stderr := runQVS(t, "eval", evalFixture, "--config", cfg, "--quiet")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "tables", "*")); len(m) != 4 || !strings.HasSuffix(m[0], ".tex") {
		t.Errorf("config format [tex]: wrote %v", m)
	}
	if _, err := os.Stat(filepath.Join(out, "figures")); err == nil {
		t.Error("config figures [none] but figures written")
	}
	code, _, stderr = runQVS(t, "eval", evalFixture, "--config", cfg, "--format", "csv", "--quiet")
	if m, _ := filepath.Glob(filepath.Join(out, "tables", "*.csv")); code != ExitOK || len(m) != 4 {
		t.Errorf("--format csv over the config: exit %d (%s), csv files %v", code, stderr, m)
	}
	// Decoding "format: [tex]" must not overwrite the package defaults
	// (it did: a later eval in the same process wrote only .tex tables).
	if !slices.Equal(eval.TableFormats, []string{"md", "tex", "csv"}) || !slices.Equal(eval.FigureFormats, []string{"png", "svg"}) {
		t.Errorf("config changed the defaults: %v %v", eval.TableFormats, eval.FigureFormats)
	}
	bad := testutil.WriteFile(t, dir, "bad.yaml", "outt: x\n")
	if code, _, stderr := runQVS(t, "eval", evalFixture, "--config", bad); code != ExitUsage || !strings.Contains(stderr, `bad.yaml:1: unknown key "outt" (did you mean "out"?)`) {
		t.Errorf("unknown key: exit %d, %q", code, stderr)
	}
}
