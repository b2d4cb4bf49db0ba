package cmd

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestASSuggestPending on a CSV pool: with the first two
// items of a batch of 5 pending, `as suggest` prints the batch's other
// three items with the same index, id, probability and qvs, for every
// method; bad pending files exit 1 with stdout empty and a message naming
// the file and line.
func TestASSuggestPending(t *testing.T) {
	dir := t.TempDir()
	pool := asWriteFile(t, dir, "pool.csv", linePoolCSV(false))
	obs := asWriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\nm20,1\n")
	cache := filepath.Join(dir, "cache")
	suggest := func(args ...string) (int, string, string) {
		t.Helper()
		return runQVS(t, append([]string{"as", "suggest", "--cache-dir", cache, "--pool", pool, "--id-column", "id",
			"--feature-prefix", "x", "--k", "3", "--observed", obs, "--format", "csv", "--prior", "0.1", "--quiet"}, args...)...)
	}
	for _, method := range []string{"qvs", "one-step", "eci", "select", "ens", "random"} {
		code, out, stderr := suggest("--method", method, "--batch", "5", "--remaining", "20")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		full := suggestRows(t, out)
		pending := asWriteFile(t, dir, "pending.csv", "id,note\n"+full[0][2]+",sent\n"+full[1][2]+",sent\n")
		code, out, stderr = suggest("--method", method, "--batch", "3", "--remaining", "18", "--pending", pending)
		if code != 0 {
			t.Fatalf("%s --pending: exit %d: %s", method, code, stderr)
		}
		rest := suggestRows(t, out)
		for r, row := range rest {
			// rank restarts at 1; index, id, probability and qvs are the
			// batch's (here to the last printed digit).
			if !slices.Equal(row[1:], full[r+2][1:]) || row[0] != full[r][0] {
				t.Errorf("%s --pending: row %v, want the batch's row %v", method, row, full[r+2])
			}
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"unknown id": {"id\nm99\n", `pending.csv: line 2: id "m99" is not in pool pool`},
		"twice":      {"id\nm01\nm01\n", "pending.csv: line 3: item 1 (m01) is listed twice"},
		"observed":   {"index\n5\n30\n", "pending.csv: line 3: item 30 (30) is also labelled in " + obs},
		"header":     {"item\nm01\n", `pending.csv: header "item": expected columns index or id`},
	} {
		pending := asWriteFile(t, dir, "pending.csv", tc.body)
		code, out, stderr := suggest("--pending", pending)
		if code != 1 || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, no output, %q", name, code, out, stderr, tc.want)
		}
	}
}

// TestASSuggestRefusesConfigPrevalence: a config's prior:
// prevalence reads the pool's true labels, a leak for a real user: suggest
// refuses it (exit 2, stdout empty, naming the config and the key) unless
// --prior prevalence is passed explicitly on a pool labelled throughout.
func TestASSuggestRefusesConfigPrevalence(t *testing.T) {
	dir := t.TempDir()
	labelled := asWriteFile(t, dir, "labelled.csv", linePoolCSV(true))
	obs := asWriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	cfg := asWriteFile(t, dir, "prev.yaml", "prior: prevalence\npool:\n  kind: csv\n  csv: {file: "+labelled+", id_column: id, feature_prefix: x, k: 2}\n")
	args := []string{"as", "suggest", "--cache-dir", filepath.Join(dir, "cache"), "--config", cfg, "--observed", obs, "--batch", "2", "--format", "csv"}
	code, out, stderr := runQVS(t, args...)
	if code != 2 || out != "" || !strings.Contains(stderr, "config "+cfg+": prior: prevalence reads every label of the pool") || !strings.Contains(stderr, "--prior prevalence") {
		t.Errorf("config prior: prevalence: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = runQVS(t, append(args, "--prior", "prevalence")...)
	if code != 0 || !strings.Contains(stderr, "prior a1 = 0.2: the pool's true prevalence") || len(suggestRows(t, out)) != 2 {
		t.Errorf("--prior prevalence: exit %d, stderr %q", code, stderr)
	}
	// A config with a number or estimate is taken as it is.
	for _, p := range []string{"0.05", "estimate"} {
		c := asWriteFile(t, dir, "p.yaml", "prior: "+p+"\npool:\n  kind: csv\n  csv: {file: "+labelled+", id_column: id, feature_prefix: x, k: 2}\n")
		if code, _, stderr := runQVS(t, "as", "suggest", "--cache-dir", filepath.Join(dir, "cache"), "--config", c, "--observed", obs, "--batch", "2"); code != 0 {
			t.Errorf("prior: %s: exit %d, %s", p, code, stderr)
		}
	}
}
