package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

func TestToyConfigAndSVG(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res")
	cfg := testutil.WriteFile(t, dir, "toy.yaml", "n: 3\nq: \"inf\"\nstarts: 1\nformat: svg\nout: "+out+"\n")
	code, stdout, errs := runQVS(t, "--config", cfg, "toy", "--quiet")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(stdout, "\n"); n != 2 {
		t.Errorf("want 2 panel lines for q = inf only, got %d:\n%s", n, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(out, "toy.svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("toy.svg: err %v", err)
	}
	// A flag overrides the config key.
	code, _, errs = runQVS(t, "--config", cfg, "toy", "--quiet", "--format", "png")
	if _, err := os.Stat(filepath.Join(out, "toy.png")); code != ExitOK || err != nil {
		t.Errorf("--format png over config svg: exit %d (%s), %v", code, errs, err)
	}
	// Unknown keys are errors naming the key.
	bad := testutil.WriteFile(t, dir, "bad.yaml", "n: 3\nstart: 2\n")
	if code, _, errs := runQVS(t, "--config", bad, "toy"); code == ExitOK || !strings.Contains(errs, "start") {
		t.Errorf("unknown key: exit %d, %q", code, errs)
	}
}

func TestToyUsageErrors(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "0"}, "--n"},
		{[]string{"--n", "100000"}, "must be 1 to 100"}, // once ran out of memory
		{[]string{"--starts", "0"}, "--starts"},
		{[]string{"--format", "pdf"}, "png or svg"},
		{[]string{"--q", "1,-2"}, "--q"},
		{[]string{"--q", "abc"}, "--q"},
		{[]string{"extra"}, "unknown command"},
	} {
		args := append([]string{"toy", "--out", out, "--quiet"}, tc.args...)
		code, _, errs := runQVS(t, args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tc.args, code, errs, ExitUsage, tc.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("usage errors wrote files: %v", entries)
	}
}
