package cmd

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestBayesoptSuggestBadInput: a bad command line fails with exit 2 naming
// the flag (and the key a flag sets), a missing file with exit 1, nothing
// on stdout (the run's checks of the files are tested in internal/cli).
func TestBayesoptSuggestBadInput(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: n, lower: 1, upper: 9, type: int}\n")
	good := testutil.WriteFile(t, dir, "good.csv", "a,n,value\n0.5,3,1\n")
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		want  []string
	}{
		{"neither", nil, []string{"--observed", good}, ExitUsage, []string{"exactly one of --space"}},
		{"both", nil, []string{"--space", space, "--kernel", "K.npy", "--observed", good}, ExitUsage, []string{"exactly one"}},
		{"bad q", nil, []string{"--space", space, "--observed", good, "--q", "-1"}, ExitUsage, []string{"--q"}},
		{"bad format", nil, []string{"--space", space, "--observed", good, "--format", "xml"}, ExitUsage, []string{"--format"}},
		{"config ignored", nil, []string{"--space", space, "--observed", good, "--config", "c.yaml"}, ExitUsage, []string{"--config has no effect"}},
		// 0 used to be read as "the default" (candidates: the batch size).
		{"candidates 0", nil, []string{"--space", space, "--observed", good, "--candidates", "0"}, ExitUsage, []string{"--candidates (key candidates) = 0: must be at least 1"}},
		{"max-train 0", nil, []string{"--space", space, "--observed", good, "--max-train", "0"}, ExitUsage, []string{"--max-train (key max_train) = 0: must be at least 1"}},
		{"regions > init", nil, []string{"--space", space, "--observed", good, "--init", "2", "--regions", "3"}, ExitUsage, []string{"--init (key init) = 2: qvs needs at least regions = 3 initial points"}},
		{"missing space file", nil, []string{"--space", "nope.yaml", "--observed", good}, ExitRuntime, []string{"nope.yaml"}},
		// In the initial design, and while the design
		// is incomplete, a region beyond --regions was accepted.
		// Mixed spaces: the file, line and column or parameter, and what was expected.
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := t.TempDir()
			for name, body := range c.files {
				testutil.WriteFile(t, sub, name, body)
			}
			args := []string{"bayesopt", "suggest"}
			for _, a := range c.args {
				if _, ok := c.files[a]; ok {
					a = filepath.Join(sub, a)
				}
				args = append(args, a)
			}
			code, stdout, stderr := runQVS(t, args...)
			if code != c.code || stdout != "" {
				t.Errorf("exit %d (want %d), stdout %q (want empty); stderr %s", code, c.code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
		})
	}
}

func objectiveCampaign(dir, script string) []string {
	return []string{"bayesopt", "--space", filepath.Join(dir, "space.yaml"), "--objective-cmd", "sh " + script,
		"--methods", "turbo,qvs", "--q", "1", "--repeats", "1", "--budget", "25", "--init", "10", "--batch", "5",
		"--candidates", "60", "--workers", "1", "--seed", "2", "--quiet"}
}

// TestBayesoptObjectiveCmdKill9: qvs killed with SIGKILL while the
// objective command works on a batch resumes and ends exactly as an
// uninterrupted campaign.
func TestBayesoptObjectiveCmdKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the qvs binary")
	}
	dir := t.TempDir()
	bin := buildQVS(t, dir)
	testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	script := testutil.WriteFile(t, dir, "obj.sh", testutil.ObjectiveScript)
	args := append(objectiveCampaign(dir, script), "--methods", "turbo")
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls-full"))
	full := filepath.Join(dir, "full")
	if code, _, errs := runQVS(t, append(args, "--out", full)...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	killed := filepath.Join(dir, "killed")
	killAtSlowBatch(t, bin, args, killed, filepath.Join(dir, "calls-killed"), "turbo-r00")
	testutil.SameResults(t, full, killed)
}

// killAtSlowBatch runs the campaign args into killed with testutil.ObjectiveScript's
// third call slow (calls: its QVS_TEST_CALLS), kills qvs with SIGKILL
// during that call, checks that run key's records then hold the two
// finished batches, and reruns the campaign to its end.
func killAtSlowBatch(t *testing.T, bin string, args []string, killed, calls, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--out", killed)...)
	cmd.Env = append(os.Environ(), "QVS_TEST_CALLS="+calls, "QVS_TEST_SLOW=3") // the third batch sleeps
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Kill once the third batch is being evaluated (its call sleeps 60 s).
	// With the user's command the records of a batch are on disk before
	// the next batch's call starts (built-in tasks overlap that write with
	// the next batch): a kill then never makes the user's experiments of a
	// finished batch run again.
	records := filepath.Join(killed, "runs", key+".csv")
	for {
		if _, err := os.Stat(calls + ".slow"); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("qvs ended before the slow batch: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if b, _ := os.ReadFile(records); strings.Count(string(b), "\n") != 11 {
		t.Errorf("as the third batch's call started, the record file held %q: want the header and two batches (10 rows: the initial design)", b)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	if got := testutil.ReadCSVFile(t, records); len(got) != 11 {
		t.Fatalf("killed during batch 3: %d record rows, want the header and two batches (10)", len(got))
	}
	resume := exec.CommandContext(ctx, bin, append(args, "--out", killed)...)
	resume.Env = append(os.Environ(), "QVS_TEST_CALLS="+calls)
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
}

// TestREADMEOwnProblem runs the README's `qvs select` commands and its
// `bayesopt suggest` line (on examples/branin-evals.csv instead of the
// loop's growing file) from examples/ as written.
func TestREADMEOwnProblem(t *testing.T) {
	root := testutil.RepoRoot()
	section := readmeSection(t, "## Use qvs on your own problem")
	t.Chdir(filepath.Join(root, "examples"))
	ran := 0
	for _, l := range strings.Split(section, "\n") {
		l = strings.TrimSpace(l)
		rest, ok := strings.CutPrefix(l, "../qvs ")
		if !ok || !(strings.HasPrefix(rest, "select ") || strings.HasPrefix(rest, "bayesopt suggest ")) {
			continue
		}
		rest, _, _ = strings.Cut(rest, "|")
		args := strings.Fields(strings.ReplaceAll(rest, "my-evals.csv", "branin-evals.csv"))
		code, out, stderr := runQVS(t, args...)
		if code != 0 || strings.Count(out, "\n") < 3 {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, stderr)
		}
		if args[0] == "bayesopt" && !strings.HasPrefix(out, "rank,x1,x2,region\n") {
			t.Errorf("suggest output %q", out)
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d README commands, want 3 (two select, one suggest)", ran)
	}
}

// TestBayesoptSpaceCampaignName: a --space campaign is named after the
// space file's stem (folder, progress line, table caption, qvs eval's
// table file), --out overrides the folder, and config.yaml keeps task:
// space (run keys and the recorded config do not depend on the name, so a
// folder written before campaigns were named resumes).
func TestBayesoptSpaceCampaignName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	testutil.WriteFile(t, dir, "my reactor.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	script := testutil.WriteFile(t, dir, "obj.sh", testutil.ObjectiveScript)
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls"))
	args := []string{"bayesopt", "--space", "my reactor.yaml", "--objective-cmd", "sh " + script, "--methods", "turbo",
		"--repeats", "1", "--budget", "15", "--init", "10", "--batch", "5", "--candidates", "60", "--workers", "1", "--seed", "2"}
	code, out, errs := runQVS(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	folder := filepath.Join("results", "my-reactor")
	if !strings.Contains(errs, "qvs bayesopt: my-reactor, 1 run (") || !strings.Contains(errs, "into "+folder) {
		t.Errorf("progress line: %s", errs)
	}
	if !strings.Contains(out, "in the my-reactor BayesOpt campaign") {
		t.Errorf("table caption: %s", out)
	}
	if _, err := os.Stat(filepath.Join(folder, "runs", "turbo-r00.csv")); err != nil {
		t.Fatalf("records not in %s: %v", folder, err)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "config.yaml")); !strings.Contains(string(b), "\ntask: space\n") {
		t.Errorf("config.yaml:\n%s", b)
	}
	if code, _, errs := runQVS(t, "eval", "results", "--out", "ev"); code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join("ev", "tables", "my-reactor-bo-table.md")); err != nil {
		t.Errorf("eval table: %v", err)
	}

	// --out overrides; a folder as an earlier qvs wrote it (named results/space,
	// no inputs section in config.yaml) resumes and grows, and qvs eval names
	// it after its space file too.
	legacy := filepath.Join("old", "space")
	if code, _, errs := runQVS(t, append(args, "--out", legacy)...); code != ExitOK {
		t.Fatalf("--out: exit %d: %s", code, errs)
	}
	cfgPath := filepath.Join(legacy, "config.yaml")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "# size and CRC-32C")
	if i < 0 {
		t.Fatalf("no inputs section in %s:\n%s", cfgPath, b)
	}
	testutil.WriteFile(t, legacy, "config.yaml", string(b[:i]))
	if code, _, errs := runQVS(t, append(args, "--out", legacy, "--repeats", "2")...); code != ExitOK {
		t.Fatalf("resume of an old folder: exit %d: %s", code, errs)
	}
	if code, _, errs := runQVS(t, "eval", "old", "--out", "ev-old"); code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join("ev-old", "tables", "my-reactor-bo-table.md")); err != nil {
		t.Errorf("eval table of the old folder: %v", err)
	}
}

// TestBayesoptSpaceCampaignRefusesChanges: rerunning into a --space
// campaign's folder with an edited space file or another command is refused
// before anything is written, naming what changed (the space file through
// config.yaml's input fingerprints, the command through its objective_cmd
// key); the original space and command still resume.
func TestBayesoptSpaceCampaignRefusesChanges(t *testing.T) {
	dir := t.TempDir()
	spacePath := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	script := testutil.WriteFile(t, dir, "obj.sh", testutil.ObjectiveScript)
	t.Setenv("QVS_TEST_CALLS", filepath.Join(dir, "calls"))
	out := filepath.Join(dir, "bo")
	args := []string{"bayesopt", "--space", spacePath, "--objective-cmd", "sh " + script, "--methods", "turbo", "--out", out,
		"--repeats", "1", "--budget", "15", "--init", "10", "--batch", "5", "--candidates", "60", "--workers", "1", "--seed", "2", "--quiet"}
	if code, _, errs := runQVS(t, args...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	before := snapshot()
	grow := append(append([]string(nil), args...), "--repeats", "2")

	// The same name, other bounds.
	testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 2}\n  - {name: b, lower: 0, upper: 1}\n")
	code, stdout, errs := runQVS(t, grow...)
	if code == ExitOK || stdout != "" || !strings.Contains(errs, "input file "+spacePath+" differs from the one this campaign started with") {
		t.Errorf("edited space: exit %d, stdout %q, stderr %s", code, stdout, errs)
	}
	testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")

	other := append([]string(nil), grow...)
	for i, a := range other {
		if a == "--objective-cmd" {
			other[i+1] = "sh " + script + " --fast"
		}
	}
	code, stdout, errs = runQVS(t, other...)
	if code == ExitOK || stdout != "" || !strings.Contains(errs, "objective_cmd: sh "+script+" recorded, sh "+script+" --fast now") {
		t.Errorf("other command: exit %d, stdout %q, stderr %s", code, stdout, errs)
	}
	if after := snapshot(); !maps.Equal(before, after) {
		t.Errorf("a refused rerun changed the folder")
	}
	if code, _, errs := runQVS(t, grow...); code != ExitOK {
		t.Errorf("original space and command: exit %d: %s", code, errs)
	}
}

// TestBayesoptObjectiveCmdFlags: a --space campaign without
// --objective-cmd, with --task, or with an --objective-timeout that is no
// duration is a bad command line (exit 2, stdout empty); the command's
// failures are tested in internal/cli (TestBayesoptObjectiveCmd).
func TestBayesoptObjectiveCmdFlags(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	for _, args := range [][]string{
		{"bayesopt", "--space", filepath.Join(dir, "space.yaml"), "--out", filepath.Join(dir, "x")},
		{"bayesopt", "--space", filepath.Join(dir, "space.yaml"), "--task", "rover", "--objective-cmd", "true"},
		{"bayesopt", "--space", filepath.Join(dir, "space.yaml"), "--objective-cmd", "true", "--objective-timeout", "soon", "--out", filepath.Join(dir, "y")},
	} {
		if code, stdout, _ := runQVS(t, args...); code != ExitUsage || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
}
