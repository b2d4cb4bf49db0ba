package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobalEnv: QVS_WORKERS, QVS_QUIET, QVS_CACHE_DIR and QVS_DATA_DIR
// set the global flags the user did not type; a typed flag wins; a bad
// value is a usage error naming the variable.
func TestGlobalEnv(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(pool, []byte("a,b\n0,1\n1,0\n2,2\n3,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	graph := func(extra ...string) (int, string, string) {
		args := append([]string{"graph", "--pool", pool, "--k", "2", "--out", filepath.Join(dir, "w.npz")}, extra...)
		return runQVS(t, args...)
	}
	cache := filepath.Join(dir, "envcache")
	t.Setenv("QVS_CACHE_DIR", cache)
	if code, _, stderr := graph(); code != 0 || !strings.Contains(stderr, "kNN graph") {
		t.Fatalf("plain: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, "knn")); err != nil {
		t.Errorf("QVS_CACHE_DIR not used: %v", err)
	}
	t.Setenv("QVS_QUIET", "true")
	if code, _, stderr := graph(); code != 0 || stderr != "" {
		t.Errorf("QVS_QUIET=true: exit %d, stderr %q, want silence", code, stderr)
	}
	if code, _, stderr := graph("--quiet=false"); code != 0 || !strings.Contains(stderr, "kNN graph") {
		t.Errorf("--quiet=false over QVS_QUIET: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("QVS_WORKERS", "abc")
	if code, stdout, stderr := graph(); code != ExitUsage || stdout != "" || !strings.Contains(stderr, `$QVS_WORKERS = "abc": expected a whole number, as --workers takes`) {
		t.Errorf("QVS_WORKERS=abc: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	t.Setenv("QVS_WORKERS", "0")
	if code, _, stderr := graph(); code != ExitUsage || !strings.Contains(stderr, "got 0") {
		t.Errorf("QVS_WORKERS=0: exit %d, stderr %q; want the workers range error", code, stderr)
	}
	if code, _, stderr := graph("--workers", "1"); code != 0 {
		t.Errorf("--workers 1 over QVS_WORKERS=0: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("QVS_WORKERS", "")
	if code, _, stderr := graph(); code != 0 {
		t.Errorf("empty QVS_WORKERS counts as unset: exit %d, stderr %q", code, stderr)
	}
}

// TestMistypedQVSLockRefused: QVS_LOCK other than lease or flock is a
// usage error naming the variable (a typo silently meant flock).
func TestMistypedQVSLockRefused(t *testing.T) {
	for v, want := range map[string]int{"leases": ExitUsage, "Lease": ExitUsage, "lease": ExitOK, "flock": ExitOK, "": ExitOK} {
		t.Setenv("QVS_LOCK", v)
		code, _, stderr := runQVS(t, "toy", "--help")
		if v != "" && want == ExitUsage {
			code, _, stderr = runQVS(t, "toy", "--n", "3", "--starts", "1", "--out", t.TempDir())
		}
		if code != want || want == ExitUsage && !strings.Contains(stderr, "$QVS_LOCK = \""+v+"\": expected lease or flock") {
			t.Errorf("QVS_LOCK=%q: exit %d, stderr %q", v, code, stderr)
		}
	}
}
