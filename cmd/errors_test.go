package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// execQVS runs qvs with args as Main does and returns the command's error
// itself (not its message), the command that ran, and the message and exit
// code Main derives from them.
func execQVS(t *testing.T, args ...string) (err error, msg string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	root, g := NewRootCommand(&o, &e)
	root.SetArgs(args)
	ran, err := root.ExecuteC()
	if err == nil {
		return nil, "", ExitOK
	}
	if ran == root {
		err = cli.Usage(err)
	}
	return err, g.errorMessage(err), cli.ExitCode(err)
}

// TestExitCodes: the exit status comes from the error's type (exitCode),
// whatever its wording: usage errors of every origin (cobra's argument and
// lookup errors, flag parsing, refused settings) are 2, failures while
// running are 1.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"version"}, ExitOK},
		{[]string{"sccore"}, ExitUsage},                             // cobra's unknown command (root)
		{[]string{"as", "sugest"}, ExitUsage},                       // unknown subcommand
		{[]string{"as", "table", "a", "b"}, ExitUsage},              // cobra.MaximumNArgs
		{[]string{"eval"}, ExitUsage},                               // cobra.ExactArgs
		{[]string{"score", "extra"}, ExitUsage},                     // cobra.NoArgs
		{[]string{"score", "--kernell", "k.csv"}, ExitUsage},        // unknown flag
		{[]string{"score", "--q", "x", "--kernel", "k"}, ExitUsage}, // bad flag value
		{[]string{"bayesopt", "--task", "synthetic", "--max-train", "0", "--out", filepath.Join(dir, "o")}, ExitUsage},
		{[]string{"score", "--kernel", filepath.Join(dir, "missing.csv")}, ExitRuntime}, // an unreadable file
	} {
		err, msg, code := execQVS(t, tc.args...)
		if code != tc.want {
			t.Errorf("%q: exit %d (%v), want %d", tc.args, code, msg, tc.want)
		}
		if tc.want != ExitOK && (err == nil || msg == "") {
			t.Errorf("%q: no error message", tc.args)
		}
	}
	if got := cli.ExitCode(errors.New("x")); got != ExitRuntime {
		t.Errorf("untyped error: exit %d, want %d", got, ExitRuntime)
	}
	if got := cli.ExitCode(configkeys.Invalid("k", 1, "x")); got != ExitRuntime {
		t.Errorf("a SettingError from an input's contents: exit %d, want %d", got, ExitRuntime)
	}
}

// TestSettingErrorNamesFlag: a refused setting reaches Main as a
// configkeys.SettingError carrying its key and value, and the message names
// the flag only when the user typed it (the config file's key otherwise).
func TestSettingErrorNamesFlag(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := testutil.WriteFile(t, dir, "c.yaml", "task: synthetic\nmax_train: 0\n")
	for _, tc := range []struct {
		args             []string
		key, value, want string
	}{
		{[]string{"bayesopt", "--task", "synthetic", "--max-train", "0", "--out", out}, "max_train", "0", "--max-train (key max_train) = 0: must be at least 1"},
		{[]string{"bayesopt", "--config", cfg, "--out", out}, "max_train", "0", "config " + cfg + ": max_train = 0: must be at least 1"},
		{[]string{"bayesopt", "--task", "synthetic", "--regions", "1000", "--out", out}, "regions", "1000", "--regions (key regions) = 1000: at most 100"},
		{[]string{"bayesopt", "--task", "synthetic", "--methods", "qvs,random,qvs", "--out", out}, "methods", `"qvs"`, `--methods (key methods) = "qvs": listed twice`},
		{[]string{"as", "--methods", "random,random", "--out", out}, "methods", `"random"`, `--methods (key methods) = "random": listed twice`},
	} {
		err, msg, code := execQVS(t, tc.args...)
		var se *configkeys.SettingError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v is not a SettingError", tc.args, err)
			continue
		}
		if se.Key != tc.key || se.Value != tc.value || code != ExitUsage {
			t.Errorf("%q: key %q value %q exit %d, want %q %q %d", tc.args, se.Key, se.Value, code, tc.key, tc.value, ExitUsage)
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%q: message %q, want %q", tc.args, msg, tc.want)
		}
	}
}

// TestCampaignConfigRecordsKind: every campaign kind records kind: in its
// config.yaml, which reads back with --config (rerunning the folder's own
// config resumes it, nothing left to do). A config.yaml that records input
// fingerprints (inputs:, the discrete campaign here) is not a --config
// file, kind or not.
func TestCampaignConfigRecordsKind(t *testing.T) {
	dir := t.TempDir()
	kernelCfg := testutil.WriteFile(t, dir, "k.yaml", "task: kernel\nname: tiny\ngood_threshold: 0.5\nrepeats: 1\nbudget: 4\ninit: 2\nbatch: 2\nmethods: [random]\ndata:\n  kernel: "+
		testutil.WriteFile(t, dir, "k.csv", "1,0.5,0.2,0.1\n0.5,1,0.3,0.2\n0.2,0.3,1,0.4\n0.1,0.2,0.4,1\n")+"\n  table: "+
		testutil.WriteFile(t, dir, "t.csv", "id,value\na,0.1\nb,0.9\nc,0.4\nd,0.7\n")+"\n")
	for _, tc := range []struct {
		kind string
		args []string
	}{
		{"active-search", []string{"as", "--repeats", "1", "--budget", "5", "--methods", "random"}},
		{"bayesopt", []string{"bayesopt", "--task", "synthetic", "--repeats", "1", "--budget", "12", "--init", "4", "--batch", "4", "--methods", "random"}},
		{"discrete-bayesopt", []string{"bayesopt", "--config", kernelCfg}},
	} {
		out := filepath.Join(dir, tc.kind)
		if code, _, errs := runQVS(t, append(tc.args, "--out", out, "--quiet")...); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.kind, code, errs)
		}
		b, err := os.ReadFile(filepath.Join(out, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\nkind: "+tc.kind+"\n") {
			t.Errorf("%s: config.yaml has no kind: %s line:\n%s", tc.kind, tc.kind, b)
		}
		if strings.Contains(string(b), "\ninputs:") {
			continue
		}
		again := []string{tc.args[0], "--config", filepath.Join(out, "config.yaml"), "--out", out, "--quiet"}
		if code, _, errs := runQVS(t, again...); code != ExitOK {
			t.Errorf("%s: rerun with its own config.yaml: exit %d: %s", tc.kind, code, errs)
		}
	}
}
