package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// runSuggest runs `qvs bayesopt suggest ARGS` in process.
func runSuggest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runQVS(t, append([]string{"bayesopt", "suggest"}, args...)...)
}

// TestSuggestDiscreteBadInput: the binary's exit codes and messages for a
// bad command line (the run's checks of file contents are tested in
// internal/cli): exit 2 naming the flag, exit 1 naming the file, stdout
// empty.
func TestSuggestDiscreteBadInput(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 6)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	good := testutil.WriteFile(t, dir, "good.csv", "index,value\n1,2.5\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no pool", []string{"--observed", good}, 2, "exactly one of --space (continuous parameters) or --kernel"},
		{"both pools", []string{"--space", "s.yaml", "--kernel", kernel, "--observed", good}, 2, "exactly one of --space"},
		{"continuous flag", []string{"--kernel", kernel, "--observed", good, "--regions", "2"}, 2, "--regions applies only with --space"},
		{"discrete flag", []string{"--space", "s.yaml", "--observed", good, "--ids", "ids.txt"}, 2, "--ids applies only with --kernel"},
		{"q", []string{"--kernel", kernel, "--observed", good, "--q", "-1"}, 2, "--q"},
		{"format", []string{"--kernel", kernel, "--observed", good, "--format", "xml"}, 2, `"xml" for "--format" flag: expected csv, table or json`},
		{"ignored global", []string{"--kernel", kernel, "--observed", good, "--config", "x.yaml"}, 2, "--config has no effect"},
		{"unknown flag", []string{"--kernel", kernel, "--observed", good, "--bacth", "3"}, 2, "bacth"},
		{"kernel missing", []string{"--kernel", filepath.Join(dir, "nope.csv"), "--observed", good}, 1, "nope.csv"},
	} {
		code, stdout, stderr := runSuggest(t, append(c.args, "--quiet")...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d and a message containing %q", c.name, code, stderr, stdout, c.code, c.want)
		}
	}
}

// TestREADMEOwnKernel runs the commands of the README's "Discrete BayesOpt
// on your own kernel" section from examples/ (results and the history in a
// temporary folder), then follows the suggest loop it describes with the
// campaign's name and method qvs: measuring exactly the suggestions
// (values looked up in own-kernel-items.csv) reproduces the campaign's run
// qvs-q1-r00 evaluation for evaluation.
func TestREADMEOwnKernel(t *testing.T) {
	root := testutil.RepoRoot()
	section, cmds := readmeCommands(t, "## Discrete BayesOpt on your own kernel")
	if len(cmds) != 2 || !strings.Contains(section, "printf 'id,value\\n' > my-kernel-evals.csv") {
		t.Fatalf("README commands %v, want a campaign, the empty history and a suggest", cmds)
	}
	t.Chdir(filepath.Join(root, "examples"))
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runQVS(t, append(cmds[0], "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--quiet")...)
	if code != 0 || !strings.Contains(stdout, "| qVS-BayesOpt, q = 1 |") {
		t.Fatalf("%v: exit %d\n%s\n%s", cmds[0], code, stdout, stderr)
	}
	value := map[string]string{}
	for _, r := range testutil.ReadCSVFile(t, "own-kernel-items.csv")[1:] {
		value[r[0]] = r[1]
	}
	history := filepath.Join(dir, "my-kernel-evals.csv")
	rows := "id,value\n"
	var loop []string
	for round := 0; round < 4; round++ {
		if err := os.WriteFile(history, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		args := slices.Clone(cmds[1])
		args[slices.Index(args, "my-kernel-evals.csv")] = history
		code, stdout, stderr := runQVS(t, append(args, "--name", "own-kernel", "--method", "qvs", "--q", "1", "--quiet")...)
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, stderr)
		}
		for _, r := range testutil.ParseCSV(t, stdout)[1:] {
			rows += r[2] + "," + value[r[2]] + "\n"
			loop = append(loop, r[2])
		}
	}
	var campaign []string
	for _, r := range testutil.ReadCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r00.csv"))[1:] {
		campaign = append(campaign, r[3])
	}
	if !slices.Equal(loop, campaign) {
		t.Errorf("suggest loop measured %v, campaign %v", loop, campaign)
	}
	// The example files are what their awk script writes.
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk to regenerate the own-kernel files")
	}
	gen := filepath.Join(dir, "gen")
	os.Mkdir(gen, 0o755)
	cmd := exec.Command(awk, "-F,", "-f", filepath.Join(root, "examples", "make-own-kernel.awk"), filepath.Join(root, "examples", "own-pool.csv"))
	cmd.Dir = gen
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("awk: %v\n%s", err, b)
	}
	for _, f := range []string{"own-kernel.csv", "own-kernel-items.csv"} {
		if testutil.ReadFileString(t, filepath.Join(gen, f)) != testutil.ReadFileString(t, f) {
			t.Errorf("make-own-kernel.awk does not reproduce examples/%s", f)
		}
	}
}
