package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestOrdersAsWritten: an AS campaign's config.yaml records q as the user
// wrote it, from the config (q: [0.50, Inf]) or from --q 0.50,Inf, as it
// did when q was a []string, while its runs are keyed canonically
// (qvs-q0.5-r00); BayesOpt records q canonically.
func TestOrdersAsWritten(t *testing.T) {
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "c.yaml", strings.Replace(strings.Replace(testutil.TinyASConfig, "q: [0, 1, inf]", "q: [0.50, Inf]", 1), "repeats: 2", "repeats: 1", 1))
	const asWritten = "q:\n    - \"0.50\"\n    - Inf\n"
	for name, args := range map[string][]string{
		"config": {"--config", cfg},
		"flag":   {"--config", cfg, "--q", "0.50, Inf"},
	} {
		out := filepath.Join(dir, "as-"+name)
		code, stdout, stderr := runQVS(t, append(args, "as", "--methods", "qvs", "--budget", "4", "--cache-dir", filepath.Join(dir, "cache"), "--out", out, "--quiet")...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d, stderr %q, stdout %q", name, code, stderr, stdout)
		}
		rec, err := os.ReadFile(filepath.Join(out, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(rec), asWritten) {
			t.Errorf("%s: config.yaml records\n%s\nwant q as written:\n%s", name, rec, asWritten)
		}
		for _, key := range []string{"qvs-q0.5-r00", "qvs-qinf-r00"} {
			if _, err := os.Stat(filepath.Join(out, "runs", key+".csv")); err != nil {
				t.Errorf("%s: run %s: %v", name, key, err)
			}
		}
	}
	out := filepath.Join(dir, "bo")
	code, _, stderr := runQVS(t, "bayesopt", "--task", "synthetic", "--methods", "qvs", "--q", "0.50,Inf", "--repeats", "1",
		"--budget", "8", "--init", "4", "--batch", "4", "--candidates", "20", "--max-train", "20", "--out", out, "--quiet")
	if code != ExitOK {
		t.Fatalf("bayesopt: exit %d, stderr %q", code, stderr)
	}
	if rec, _ := os.ReadFile(filepath.Join(out, "config.yaml")); !strings.Contains(string(rec), "q:\n    - \"0.5\"\n    - inf\n") {
		t.Errorf("bayesopt config.yaml records\n%s\nwant q canonical", rec)
	}
}

// TestBadOrderInConfig: a bad order in a config file is a usage error
// (exit 2, stdout empty) naming the file, the line and the key, said once,
// in every command whose config has q.
func TestBadOrderInConfig(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	for _, tc := range []struct{ name, cmd, body, line string }{
		{"as", "as", strings.Replace(testutil.TinyASConfig, "q: [0, 1, inf]", "q: [0, x]", 1), ":4: q: "},
		{"bayesopt", "bayesopt", "task: synthetic\nq: [0.5, x]\n", ":2: q: "},
		{"discrete", "bayesopt", strings.Replace(testutil.ToyMOFConfig, "q: [1, inf]", "q: [1, x]", 1), ":4: q: "},
		{"toy", "toy", "q: 0.5,x\n", ":1: q: "},
	} {
		cfg := asWriteFile(t, dir, tc.name+".yaml", tc.body)
		args := []string{tc.cmd, "--config", cfg, "--out", filepath.Join(dir, "out-"+tc.name)}
		if tc.cmd != "toy" {
			args = append(args, "--data-dir", dir)
		}
		code, stdout, stderr := runQVS(t, args...)
		want := "config " + cfg + tc.line + `order "x": expected a number >= 0 or inf`
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, want) || strings.Count(stderr, `"x"`) != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with %q once", tc.name, code, stdout, stderr, want)
		}
	}
}

// TestBadOrderFlag: a bad --q of score, select and bayesopt solutions is a
// flag error at parse time (exit 2, stdout empty, the flag named with the
// value), before the command checks its other flags: select lacks --k and
// solutions lacks --space and --observed, which the command would report
// first if it parsed --q itself.
func TestBadOrderFlag(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		q    string
		want string
	}{
		{[]string{"score"}, "x", `order "x": expected a number >= 0 or inf`},
		{[]string{"score"}, "1,-2", "order q = -2: must be >= 0 or inf"},
		{[]string{"score"}, "", `no orders in ""`},
		{[]string{"score"}, " , ", "no orders in"},
		{[]string{"select"}, "nan", "order q = NaN: must be >= 0 or inf"},
		{[]string{"select"}, "0,1", `order "0,1": expected a number >= 0 or inf`},
		{[]string{"select"}, "-inf", `order "-inf": expected a number >= 0 or inf`},
		{[]string{"bayesopt", "solutions"}, "-1", "order q = -1: must be >= 0 or inf"},
		{[]string{"bayesopt", "solutions"}, "", `order "": expected a number >= 0 or inf`},
	} {
		code, out, errs := runQVS(t, append(tc.cmd, "--q", tc.q)...)
		flag := `invalid argument "` + tc.q + `" for "--q" flag: `
		if code != ExitUsage || out != "" || !strings.Contains(errs, flag+tc.want) {
			t.Errorf("%v --q %q: exit %d, stdout %q, stderr %q; want exit %d, stdout empty, stderr with %q",
				tc.cmd, tc.q, code, out, errs, ExitUsage, flag+tc.want)
		}
	}
}

// TestOrderFlagHelp: the three commands' --help names --q's type (orders,
// order) and its default as before the flag was typed.
func TestOrderFlagHelp(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"score"}, `--q orders .* \(default 0,0.1,0.5,1,2,inf\)`},
		{[]string{"select"}, `--q order .* \(default 1\)`},
		{[]string{"bayesopt", "solutions"}, `--q order .* \(default 1\)`},
	} {
		code, out, errs := runQVS(t, append(tc.cmd, "--help")...)
		if code != ExitOK || !regexp.MustCompile(tc.want).MatchString(out) {
			t.Errorf("%v --help: exit %d, stderr %q; want a line matching %q in\n%s", tc.cmd, code, errs, tc.want, out)
		}
	}
}
