package cmd

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestASSuggestOwnCSVPool runs suggest end to end on files written here: a
// CSV pool without labels, given by flags or by a config, gives one batch;
// the pool's labels count only with --prior prevalence; cold-start ties
// fall in the seed's order; flag misuse exits 2 naming the flag.
func TestASSuggestOwnCSVPool(t *testing.T) {
	dir := t.TempDir()
	pool := asWriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	labelled := asWriteFile(t, dir, "labelled.csv", testutil.LinePoolCSV(true))
	obs := asWriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	cache := filepath.Join(dir, "cache")
	suggest := func(args ...string) (int, string, string) {
		t.Helper()
		return runQVS(t, append([]string{"as", "suggest", "--cache-dir", cache, "--observed", obs, "--batch", "3", "--method", "one-step", "--format", "csv"}, args...)...)
	}
	code, out, stderr := suggest("--pool", pool, "--id-column", "id", "--feature-prefix", "x", "--k", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The batch itself (probabilities against the kNN model's closed form,
	// the prior) is tested in internal/cli; here the flags and the config
	// that name the same pool give the same batch.
	if !strings.Contains(stderr, "pool pool: 40 items, no labels") || !strings.Contains(stderr, "loading pool "+pool+" ...") {
		t.Errorf("stderr %q does not name the pool", stderr)
	}
	if rows := testutil.SuggestRows(t, out); len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}

	// --features names the same columns; the YAML form (configs/README.md)
	// gives the same batch.
	if code, out2, stderr := suggest("--pool", pool, "--id-column", "id", "--features", "x1,x2", "--k", "2"); code != 0 || out2 != out {
		t.Errorf("--features: exit %d %s\n%s\nwant\n%s", code, stderr, out2, out)
	}
	cfg := asWriteFile(t, dir, "own.yaml", "pool:\n  kind: csv\n  csv:\n    file: "+pool+"\n    id_column: id\n    feature_columns: [x1, x2]\n    k: 2\n")
	if code, out2, stderr := suggest("--config", cfg); code != 0 || out2 != out {
		t.Errorf("config: exit %d %s\n%s\nwant\n%s", code, stderr, out2, out)
	}

	// Labels of items not in --observed change nothing (the issue's
	// regression: they used to set the prior).
	if code, out2, stderr := suggest("--pool", labelled, "--id-column", "id", "--feature-prefix", "x", "--k", "2"); code != 0 || out2 != out {
		t.Errorf("labelled pool: exit %d %s\n%s\nwant\n%s", code, stderr, out2, out)
	}
	// ... unless the authors' rule is asked for, by the flag.
	if code, _, stderr := suggest("--pool", labelled, "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--prior", "prevalence"); code != 0 || !strings.Contains(stderr, "prior a1 = 0.2: the pool's true prevalence") {
		t.Errorf("--prior prevalence: exit %d, stderr %q", code, stderr)
	}

	// Cold-start ties (item 4): the third pick is one of 36 tied items;
	// the seed chooses it reproducibly, ties: index takes the first row.
	thirds := map[string]bool{}
	for seed := 0; seed < 6; seed++ {
		s := strconv.Itoa(seed)
		_, a, _ := suggest("--pool", pool, "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--seed", s)
		_, b, _ := suggest("--pool", pool, "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--seed", s)
		if a != b {
			t.Fatalf("seed %d: two runs differ:\n%s\n%s", seed, a, b)
		}
		thirds[testutil.SuggestRows(t, a)[2][2]] = true
	}
	if len(thirds) < 3 { // 6 seeds over 36 ties: fewer than 3 distinct has probability < 1e-4
		t.Errorf("6 seeds broke the cold-start tie towards %v only", thirds)
	}
	byIndex := asWriteFile(t, dir, "index.yaml", "ties: index\npool:\n  kind: csv\n  csv: {file: "+pool+", id_column: id, feature_prefix: x, k: 2}\n")
	if code, out2, stderr := suggest("--config", byIndex); code != 0 || testutil.SuggestRows(t, out2)[2][2] != "m00" {
		t.Errorf("ties: index: exit %d %s\n%s", code, stderr, out2)
	}

	// Errors name what is wrong; flag misuse exits 2.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--pool", pool, "--features", "x1,x3"}, 1, `--features (key pool.csv.feature_columns) = "x3": no such column`},
		{[]string{"--pool", pool, "--feature-prefix", "z"}, 1, `--feature-prefix (key pool.csv.feature_prefix) = "z": no column name starts with it`},
		{[]string{"--pool", pool, "--id-column", "id"}, 1, `column "note": "n/a" is not a finite number`},
		{[]string{"--pool", pool, "--features", "x1", "--feature-prefix", "x"}, 2, "not both"},
		{[]string{"--pool", pool, "--pool-dir", dir}, 2, "not both"},
		{[]string{"--pool", pool, "--metric", "l1"}, 2, "--metric"},
		{[]string{"--pool", pool, "--k", "0"}, 2, "--k"},
		{[]string{"--pool", pool, "--prior", "1.5"}, 2, "--prior"},
		{[]string{"--config", cfg, "--prior", "prevalence"}, 1, "needs the pool's labels"},
		{[]string{"--pool-dir", dir, "--k", "5"}, 2, "--k describe a CSV pool"},
		{[]string{"--k", "5"}, 2, "--pool"},
	} {
		code, _, stderr := suggest(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	// A campaign needs labels.
	code, _, stderr = runQVS(t, "as", "--config", cfg, "--cache-dir", cache, "--out", filepath.Join(dir, "res"), "--quiet")
	if code != 1 || !strings.Contains(stderr, "has no labels") {
		t.Errorf("campaign on an unlabelled pool: exit %d, %q", code, stderr)
	}
}

// TestREADMEOwnData runs the `as suggest` commands of the README's "use qvs
// on your own problem" section from examples/ as written (plus a private cache folder): both
// give the same batch of 5, and examples/own-pool.csv is what its awk
// script writes.
func TestREADMEOwnData(t *testing.T) {
	root := testutil.RepoRoot()
	section := readmeSection(t, "## Use qvs on your own problem")
	var cmds [][]string
	for _, l := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(l, "../qvs "); ok && strings.HasPrefix(rest, "as suggest ") {
			rest, _, _ = strings.Cut(rest, "#")
			cmds = append(cmds, strings.Fields(rest))
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("README commands %v, want 2", cmds)
	}
	t.Chdir(filepath.Join(root, "examples"))
	cache := t.TempDir()
	var outs []string
	for _, args := range cmds {
		code, out, stderr := runQVS(t, append(args, "--cache-dir", cache)...)
		if code != 0 || strings.Count(out, "\n") != 6 || !strings.Contains(stderr, "prior a1 = ") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("flags and config disagree:\n%s\n%s", outs[0], outs[1])
	}
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk to regenerate own-pool.csv")
	}
	gen, err := exec.Command(awk, "-f", "make-own-pool.awk").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile("own-pool.csv"); string(gen) != string(want) {
		t.Errorf("make-own-pool.awk does not reproduce own-pool.csv")
	}
}

// TestASPriorFlag: a campaign records the prior it used; estimate sets the
// probability of an item far from the start to 2/3 in the first batch
// (search.FitPrior of one positive alone: Laplace's (1 + 1)/(1 + 2)).
func TestASPriorFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "tiny.yaml", testutil.TinyASConfig)
	out := filepath.Join(dir, "res")
	code, _, stderr := runQVS(t, "as", "--config", cfg, "--out", out, "--cache-dir", filepath.Join(dir, "cache"),
		"--methods", "random", "--repeats", "1", "--budget", "4", "--prior", "estimate")
	a1 := 2.0 / 3
	if code != 0 || !strings.Contains(stderr, "prior a1 = 0.6667 at the start (one positive): re-estimated before every batch") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "config.yaml")); !strings.Contains(string(b), "\nprior: estimate\n") {
		t.Errorf("config.yaml does not record the prior:\n%s", b)
	}
	// Random queries of the first batch far from the start have
	// probability a1.
	far := 0
	for _, rec := range testutil.ReadCSVFile(t, filepath.Join(out, "runs", "random-r00.csv"))[2:] {
		if p, _ := strconv.ParseFloat(rec[5], 64); rec[1] == "1" && math.Abs(p-a1) < 1e-15 {
			far++
		}
	}
	if far == 0 {
		t.Errorf("no random query at the prior probability %g", a1)
	}
	if code, _, stderr := runQVS(t, "as", "--config", cfg, "--out", filepath.Join(dir, "r2"), "--prior", "2"); code != 2 || !strings.Contains(stderr, "--prior") {
		t.Errorf("--prior 2: exit %d, %q", code, stderr)
	}
	bad := asWriteFile(t, dir, "bad.yaml", testutil.TinyASConfig+"prior: often\n")
	if code, _, stderr := runQVS(t, "as", "--config", bad, "--out", filepath.Join(dir, "r3")); code == 0 || !strings.Contains(stderr, `prior "often"`) {
		t.Errorf("prior: often: exit %d, %q", code, stderr)
	}
}

// TestASSuggestPoolErrorsNameFlags: a CSV pool given by flags (no config)
// has its errors name the flag as well as the pool.csv key; the QA report
// was "pool.csv.k: 20, expected less than the 4 rows" for a user who never
// wrote a config nor --k. A key a config sets is named as the key alone.
func TestASSuggestPoolErrorsNameFlags(t *testing.T) {
	dir := t.TempDir()
	p4 := asWriteFile(t, dir, "p4.csv", "id,x1,x2\na,0,0\nb,1,0\nc,0,1\nd,1,1\n")
	obs := asWriteFile(t, dir, "l0.csv", "id,label\na,1\n")
	cfg := asWriteFile(t, dir, "c.yaml", "pool:\n  kind: csv\n  csv: {file: "+p4+", id_column: id, k: 7}\n")
	base := []string{"as", "suggest", "--cache-dir", filepath.Join(dir, "cache"), "--observed", obs, "--batch", "1", "--quiet"}
	for _, tc := range []struct {
		args        []string
		want, avoid string
	}{
		{[]string{"--pool", p4, "--id-column", "id"}, "--k (key pool.csv.k) = 20: expected less than the 4 rows", ""},
		{[]string{"--pool", p4, "--id-column", "id", "--k", "9"}, "--k (key pool.csv.k) = 9", ""},
		{[]string{"--pool", p4, "--id-column", "id", "--features", "x1,x3"}, "--features (key pool.csv.feature_columns)", ""},
		{[]string{"--pool", p4, "--id-column", "idx"}, "--id-column (key pool.csv.id_column)", ""},
		// The config set k: 7; --k was not given, so the key alone is named.
		{[]string{"--config", cfg}, "pool.csv.k = 7", "--k"},
		{[]string{"--config", cfg, "--pool", p4}, "pool.csv.k = 7", "--k"},
	} {
		code, stdout, stderr := runQVS(t, append(base, tc.args...)...)
		if code != ExitRuntime || stdout != "" || !strings.Contains(stderr, tc.want) || (tc.avoid != "" && strings.Contains(stderr, tc.avoid)) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 naming %q and not %q", tc.args, code, stderr, tc.want, tc.avoid)
		}
	}
}

// TestASPoolFlagValues: the values of the pool flags --metric, --knn, --k
// and --fingerprint-format are checked when the flags are parsed, before
// anything is read: a bad one is a usage error naming the flag and what it
// takes (exit 2, stdout empty), even with a pool file that does not exist,
// in as suggest and in graph.
func TestASPoolFlagValues(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.csv")
	for _, c := range []struct {
		flag, value, want string
	}{
		{"metric", "hamming", "expected euclidean, cosine or tanimoto"},
		{"metric", "Euclidean", "expected euclidean, cosine or tanimoto"},
		{"knn", "fast", "expected auto, exact or approx"},
		{"k", "0", "expected at least 1"},
		{"k", "-2", "expected at least 1"},
		{"k", "twenty", "expected an integer of at least 1"},
		{"fingerprint-format", "oct", "expected bits or hex"},
	} {
		want := `invalid argument "` + c.value + `" for "--` + c.flag + `" flag: ` + c.want
		for _, cmd := range [][]string{{"as", "suggest"}, {"graph", "--out", "w.npz"}} {
			code, out, stderr := runQVS(t, append(cmd, "--pool", missing, "--"+c.flag, c.value)...)
			if code != ExitUsage || out != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "missing.csv") {
				t.Errorf("%v --%s %s: exit %d, stdout %q, stderr %q; want 2 and %q", cmd, c.flag, c.value, code, out, stderr, want)
			}
		}
	}
}
