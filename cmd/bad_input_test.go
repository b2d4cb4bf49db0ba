package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// badInputCase is one hostile command line (testutil.CheckBadInput with
// runArgs).
type badInputCase = testutil.BadInput[[]string]

// runArgs runs a command line as runQVS does.
func runArgs(t *testing.T) func([]string) (code int, stdout, stderr string) {
	return func(args []string) (int, string, string) {
		t.Helper()
		return runQVS(t, args...)
	}
}

// TestASSuggestPoolOverridesConfigFile: with a config whose pool is a CSV,
// --pool overrides pool.csv.file only (flags override keys); it used to
// drop the config's id_column and feature keys, so the id column was read
// as a feature ("m00" is not a finite number).
func TestASSuggestPoolOverridesConfigFile(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	other := testutil.WriteFile(t, dir, "other.csv", "placeholder\n")
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	cfg := testutil.WriteFile(t, dir, "own.yaml", "pool:\n  kind: csv\n  csv:\n    file: "+other+"\n    id_column: id\n    feature_prefix: x\n    k: 2\n")
	args := []string{"as", "suggest", "--cache-dir", filepath.Join(dir, "cache"), "--observed", obs, "--batch", "3", "--format", "csv"}
	code, want, stderr := runQVS(t, append(args, "--pool", pool, "--id-column", "id", "--feature-prefix", "x", "--k", "2")...)
	if code != 0 {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	code, got, stderr := runQVS(t, append(args, "--config", cfg, "--pool", pool)...)
	if code != 0 || got != want {
		t.Errorf("--config with --pool: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	// A flag still overrides its key (--k 40 is refused on 40 rows, the
	// config's k: 2 is not).
	if code, got, stderr := runQVS(t, append(args, "--config", cfg, "--pool", pool, "--k", "40")...); code != 1 || got != "" || !strings.Contains(stderr, "--k (key pool.csv.k) = 40") {
		t.Errorf("--k 40 over the config's k: exit %d, stdout %q, stderr %q", code, got, stderr)
	}
}

// TestBayesoptDiscreteRefusesContinuousFlags: the flags only the continuous
// engine reads are usage errors on a discrete task (they used to be
// silently ignored, e.g. --regions 3 on task: kernel).
func TestBayesoptDiscreteRefusesContinuousFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(testutil.RepoRoot(), "examples", "own-kernel.yaml")
	var cases []badInputCase
	for _, f := range [][]string{{"--regions", "3"}, {"--tau", "0.1"}, {"--candidates", "10"}, {"--max-train", "10"},
		{"--qvs-floor"}, {"--minimize"}, {"--objective-cmd", "true"}, {"--objective-timeout", "1m"}} {
		want := f[0] + " applies to continuous tasks, not the discrete task kernel"
		if f[0] == "--minimize" || strings.HasPrefix(f[0], "--objective") {
			// The settings of a user's own problem are named as such.
			want = f[0] + " is for your own problem (--space with --objective-cmd), not the discrete task kernel"
		}
		cases = append(cases, badInputCase{Name: f[0], In: append([]string{"bayesopt", "--config", cfg, "--out", filepath.Join(dir, "out")}, f...), Code: 2, Want: want})
	}
	testutil.CheckBadInput(t, runArgs(t), cases)
}

// TestUnknownSubcommandSuggestion: a mistyped subcommand of qvs as or qvs
// bayesopt names the nearest one (cobra only does so for the root).
func TestUnknownSubcommandSuggestion(t *testing.T) {
	testutil.CheckBadInput(t, runArgs(t), []badInputCase{
		{Name: "as", In: []string{"as", "sugest"}, Code: 2, Want: `unknown command "sugest" for "qvs as" (did you mean suggest?)`},
		{Name: "bayesopt", In: []string{"bayesopt", "evalute"}, Code: 2, Want: `unknown command "evalute" for "qvs bayesopt" (did you mean evaluate?)`},
		{Name: "nothing near", In: []string{"bayesopt", "xyzzy"}, Code: 2, Want: `unknown command "xyzzy" for "qvs bayesopt"`},
	})
}

// TestCountLimits: counts that would allocate far beyond the input before
// any work (each took gigabytes, or was killed for memory, in the audit)
// are usage errors naming the flag or key and the bound.
func TestCountLimits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	kernelCfg := filepath.Join(testutil.RepoRoot(), "examples", "own-kernel.yaml")
	space := filepath.Join(testutil.RepoRoot(), "examples", "branin-space.yaml")
	evals := filepath.Join(testutil.RepoRoot(), "examples", "branin-evals.csv")
	suggest := []string{"bayesopt", "suggest", "--space", space, "--observed", evals}
	testutil.CheckBadInput(t, runArgs(t), []badInputCase{
		{Name: "as repeats", In: []string{"as", "--repeats", "100000000", "--out", out}, Code: 2, Want: "--repeats (key repeats) = 100000000: at most 10000"},
		{Name: "bayesopt repeats", In: []string{"bayesopt", "--task", "synthetic", "--repeats", "100000000", "--out", out}, Code: 2, Want: "--repeats (key repeats) = 100000000: at most 10000"},
		{Name: "bayesopt regions", In: []string{"bayesopt", "--task", "synthetic", "--regions", "100000000", "--methods", "random", "--out", out}, Code: 2, Want: "--regions (key regions) = 100000000: at most 100"},
		{Name: "bayesopt candidates", In: []string{"bayesopt", "--task", "synthetic", "--candidates", "1000000000", "--out", out}, Code: 2, Want: "--candidates (key candidates) = 1000000000: at most 5000"},
		{Name: "discrete repeats", In: []string{"bayesopt", "--config", kernelCfg, "--repeats", "100000000", "--out", out}, Code: 2, Want: "--repeats (key repeats) = 100000000: at most 10000"},
		{Name: "suggest candidates", In: append(suggest, "--candidates", "1000000000"), Code: 2, Want: "--candidates (key candidates) = 1000000000: at most 5000"},
		{Name: "suggest regions", In: append(suggest, "--regions", "1000", "--init", "5"), Code: 2, Want: "--regions (key regions) = 1000: at most 100"},
		{Name: "suggest batch", In: append(suggest, "--batch", "100000", "--init", "5"), Code: 2, Want: "--batch 100000: expected 1 to 500"},
		{Name: "suggest --kernel batch", In: []string{"bayesopt", "suggest", "--kernel", filepath.Join(testutil.RepoRoot(), "examples", "own-kernel.csv"), "--observed", evals, "--batch", "301"},
			Code: 2, Want: "--batch 301: expected 1 to 300"},
		{Name: "discrete batch", In: []string{"bayesopt", "--config", kernelCfg, "--batch", "301", "--out", out}, Code: 2, Want: "--batch (key batch) = 301: at most 300"},
	})
}

// TestObjectiveMagnitude: objective values beyond bayesopt.MaxAbsObjective
// are refused where they are read, naming file, line and column; 1e308 used
// to overflow the GP's standardisation into a panic of the qVS greedy
// (continuous: suggest and --objective-cmd runs) or NaN suggestions
// (discrete).
func TestObjectiveMagnitude(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(testutil.RepoRoot(), "examples")
	space := filepath.Join(ex, "branin-space.yaml")
	huge := testutil.WriteFile(t, dir, "huge.csv", "x1,x2,value\n1,1,1e308\n2,2,-1e308\n3,3,0\n4,4,1\n5,5,2\n6,6,3\n")
	khuge := testutil.WriteFile(t, dir, "khuge.csv", "index,value\n0,1e308\n1,-1e308\n")
	testutil.CheckBadInput(t, runArgs(t), []badInputCase{
		{Name: "suggest --space", In: []string{"bayesopt", "suggest", "--space", space, "--observed", huge, "--init", "6", "--batch", "3"},
			Code: 1, Want: "huge.csv: line 2, column \"value\": 1e+308 exceeds 1e+150 in magnitude"},
		{Name: "suggest --kernel", In: []string{"bayesopt", "suggest", "--kernel", testutil.WriteFile(t, dir, "k3.csv", testutil.Kernel3), "--observed", khuge, "--batch", "1"},
			Code: 1, Want: `khuge.csv: line 2, column "value": 1e+308 exceeds 1e+150`},
	})
	// A campaign's kernel table.
	items := testutil.WriteFile(t, dir, "items.csv", "id,value\na,1\nb,1e300\nc,2\n")
	testutil.WriteFile(t, dir, "k.csv", testutil.Kernel3)
	cfg := testutil.WriteFile(t, dir, "k.yaml", "task: kernel\ngood_threshold: 1\nrepeats: 1\ninit: 1\nbudget: 2\nbatch: 1\ndata: {kernel: k.csv, table: items.csv}\n")
	code, out, stderr := runQVS(t, "bayesopt", "--config", cfg, "--data-dir", dir, "--out", filepath.Join(dir, "out"))
	if code != 1 || out != "" || !strings.Contains(stderr, items+`: item "b" (data row 2), column "value": 1e+300 exceeds`) {
		t.Errorf("kernel table: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// An objective program's output: the run fails naming the line.
	prog := testutil.WriteFile(t, dir, "huge.sh", "awk 'NR > 1 { print (NR % 2 ? 1e308 : -1e308) }'\n")
	code, _, stderr = runQVS(t, "bayesopt", "--space", space, "--objective-cmd", "sh "+prog, "--repeats", "1", "--budget", "10",
		"--init", "5", "--batch", "5", "--methods", "qvs", "--q", "1", "--out", filepath.Join(dir, "cmd"), "--quiet")
	if code != 1 || !strings.Contains(stderr, "stdout line 1: -1e+308 exceeds 1e+150") || strings.Contains(stderr, "panic") {
		t.Errorf("objective program: exit %d, stderr %q", code, stderr)
	}
}

// TestHostileNamesRefused: a config's task: or a
// discrete name: that is a path (../../ESCAPED) became the default results
// folder and the MDS cache file name, above --out and --cache-dir. Each is
// refused naming the config and key, before anything is written.
func TestHostileNamesRefused(t *testing.T) {
	dir, _, out, args := toyMOFCampaign(t)
	discrete := testutil.WriteFile(t, dir, "name.yaml", strings.Replace(testutil.ToyMOFConfig, "task: mof\n", "task: kernel\nname: ../../x\n", 1))
	discreteArgs := append([]string{"bayesopt"}, args...)
	discreteArgs[2] = discrete
	as := testutil.WriteFile(t, dir, "as.yaml", "task: ../../../ESCAPED\nrepeats: 1\n")
	testutil.CheckBadInput(t, runArgs(t), []badInputCase{
		{Name: "discrete name:", In: discreteArgs, Code: 2, Want: "config " + discrete + `: name: "../../x" is not a plain name`},
		{Name: "as task:", In: []string{"as", "--config", as, "--cache-dir", filepath.Join(dir, "cache")}, Code: 2,
			Want: "config " + as + `: task: "../../../ESCAPED" is not a plain name`},
	})
	escaped, _ := filepath.Glob(filepath.Join(dir, "x-*"))
	for _, p := range append(escaped, out, filepath.Join(dir, "cache")) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestSyntheticPoolKeysNameTheConfig: a bad
// pool.synthetic.dim or k ended in exit 1 without the config's name; it is
// a config error (exit 2) naming the file and key, with or without
// pool.kind, before anything is written.
func TestSyntheticPoolKeysNameTheConfig(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var cases []badInputCase
	for _, c := range []struct{ body, want string }{
		{"pool:\n  kind: synthetic\n  synthetic: {dim: 0}\n", "pool.synthetic.dim: 0, expected 1 to 25000"},
		{"pool:\n  synthetic: {k: 0}\n", "pool.synthetic.k: 0, expected 1 to n-1 = 3999"},
		{"pool:\n  synthetic: {n: 50, k: 50}\n", "pool.synthetic.k: 50, expected 1 to n-1 = 49"},
	} {
		cfg := testutil.WriteFile(t, dir, fmt.Sprintf("s%d.yaml", len(cases)), "task: synthetic\nmethods: [random]\nrepeats: 1\n"+c.body)
		cases = append(cases, badInputCase{Name: c.want, In: []string{"as", "--config", cfg, "--out", out, "--cache-dir", filepath.Join(dir, "cache")}, Code: 2, Want: "config " + cfg + ": " + c.want})
	}
	testutil.CheckBadInput(t, runArgs(t), cases)
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}

// TestMissingPaperDataNamesMakeData: a
// campaign on a paper data set whose files are not in the data folder said
// "open ../shared/data/bmg/...: no such file or directory", naming neither
// `make data` nor --data-dir. Each missing file is listed (at most 5 lines)
// with both, and nothing is written.
func TestMissingPaperDataNamesMakeData(t *testing.T) {
	dir := t.TempDir()
	configs := filepath.Join(testutil.RepoRoot(), "configs")
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"as", "--config", filepath.Join(configs, "bmg.yaml")},
			[]string{filepath.Join(dir, "bmg", "glassdata_ward2016_landolt.csv"), "... and ", " more"}},
		{[]string{"as", "--config", filepath.Join(configs, "photoswitch.yaml")}, []string{filepath.Join(dir, "photoswitch", "UMAP-AllHits.csv")}},
		{[]string{"bayesopt", "--config", filepath.Join(configs, "photoswitch-bo.yaml")}, []string{filepath.Join(dir, "photoswitch", "UMAP-AllHits.csv")}},
	} {
		code, stdout, stderr := runQVS(t, append(c.args, "--data-dir", dir, "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--quiet")...)
		for _, w := range append(c.want, "needs data files that are missing", "`make data`", "--data-dir DIR") {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
		if code != 1 || stdout != "" || strings.Count(stderr, "\n  - ") > 5 {
			t.Errorf("%v: exit %d, stdout %q, %d lines of files", c.args, code, stdout, strings.Count(stderr, "\n  - "))
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", c.args, out)
		}
	}
}
