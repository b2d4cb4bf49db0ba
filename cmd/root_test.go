package cmd

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestCPUProfile: the hidden --cpuprofile flag writes a Go CPU profile (a
// gzip-compressed protocol buffer, which `go tool pprof` reads) for any
// command; an unwritable path is an error naming the flag.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	code, _, errs := runQVS(t, "version", "--cpuprofile", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("profile is not gzip data: %v", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || len(body) == 0 {
		t.Errorf("profile: %d bytes after decompression, err %v", len(body), err)
	}
	code, _, errs = runQVS(t, "version", "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"))
	if code == ExitOK || !strings.Contains(errs, "--cpuprofile") {
		t.Errorf("unwritable profile path: exit %d, stderr %q", code, errs)
	}
}

// TestVersionFlag: `qvs --version` prints what `qvs version` prints.
func TestVersionFlag(t *testing.T) {
	code, flag, errs := runQVS(t, "--version")
	_, sub, _ := runQVS(t, "version")
	if code != ExitOK || flag != sub || !strings.HasPrefix(flag, "qvs "+Version+" (go") || !strings.Contains(flag, "linear algebra: "+linalg.Backend+")") {
		t.Errorf("--version: exit %d, %q (stderr %q); version: %q", code, flag, errs, sub)
	}
}

// TestUnknownFlagSuggestion: a mistyped flag is a usage error that names the
// nearest flag of the command, global flags included; no guess when nothing
// is near.
func TestUnknownFlagSuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"as", "--budjet", "3"}, "unknown flag: --budjet (did you mean --budget?)"},
		{[]string{"as", "--bugdet=3"}, "unknown flag: --bugdet (did you mean --budget?)"},
		{[]string{"bayesopt", "--max-trian", "3"}, "(did you mean --max-train?)"},
		{[]string{"eval", "x", "--data-dri", "d"}, "(did you mean --data-dir?)"}, // a global flag
		{[]string{"score", "--kernal", "k.csv"}, "(did you mean --kernel?)"},
		{[]string{"as", "--zzzzzzzz"}, "unknown flag: --zzzzzzzz\n"},
	} {
		code, _, errs := runQVS(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestIgnoredGlobalFlags: a global flag the command does not use is a usage
// error there (it would silently do nothing); --workers and --quiet are
// accepted everywhere.
func TestIgnoredGlobalFlags(t *testing.T) {
	dir := t.TempDir()
	k := testutil.WriteFile(t, dir, "k.csv", "1,0\n0,1\n")
	for _, args := range [][]string{
		{"score", "--kernel", k, "--config", "x.yaml"},
		{"score", "--kernel", k, "--seed", "3"},
		{"select", "--kernel", k, "--k", "1", "--config", "x.yaml"},
		{"select", "--kernel", k, "--k", "1", "--data-dir", dir},
		{"as", "table", dir, "--config", "x.yaml"},
		{"bayesopt", "evaluate", "--task", "synthetic", "--points", k, "--cache-dir", dir},
		{"eval", dir, "--seed", "1"},
		{"toy", "--data-dir", dir},
		{"version", "--config", "x.yaml"},
		{"graph", "--pool", k, "--out", filepath.Join(dir, "W.npz"), "--config", "x.yaml"},
		{"graph", "--pool", k, "--out", filepath.Join(dir, "W.npz"), "--seed", "3"},
		{"graph", "--pool", k, "--out", filepath.Join(dir, "W.npz"), "--data-dir", dir},
	} {
		code, _, errs := runQVS(t, args...)
		flag := ""
		for _, a := range args {
			if strings.HasPrefix(a, "--") && a != "--kernel" && a != "--k" && a != "--task" && a != "--points" && a != "--pool" && a != "--out" {
				flag = a
			}
		}
		if code != ExitUsage || !strings.Contains(errs, flag+" has no effect on `qvs ") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", args, code, errs, flag)
		}
	}
	if code, out, errs := runQVS(t, "score", "--kernel", k, "--workers", "1", "--quiet", "--q", "1"); code != ExitOK || !strings.Contains(out, "2") {
		t.Errorf("score with --workers --quiet: exit %d, %q %q", code, out, errs)
	}
}
