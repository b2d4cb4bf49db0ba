package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

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
