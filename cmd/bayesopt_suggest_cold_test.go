package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBayesoptSuggestColdStart: without --observed, both suggest commands
// answer as they do for a file with the header alone (nothing evaluated
// yet): the first points of the initial design, byte for byte.
func TestBayesoptSuggestColdStart(t *testing.T) {
	dir := t.TempDir()
	space := writeFile(t, dir, "space.yaml", unitSpace6)
	header := writeFile(t, dir, "header.csv", "x0,x1,x2,x3,x4,x5,value\n")
	writeToyMOF(t, dir, 6)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	kheader := writeFile(t, dir, "kheader.csv", "index,value\n")
	for _, c := range []struct {
		name     string
		args     []string
		withFile []string
		rows     int
	}{
		{"space", []string{"bayesopt", "suggest", "--space", space, "--batch", "4", "--seed", "7"}, []string{"--observed", header}, 4},
		{"kernel", []string{"bayesopt", "suggest", "--kernel", kernel, "--batch", "2", "--seed", "7"}, []string{"--observed", kheader}, 2},
	} {
		code, cold, errs := runQVS(t, c.args...)
		if code != ExitOK {
			t.Fatalf("%s without --observed: exit %d: %s", c.name, code, errs)
		}
		code, want, errs2 := runQVS(t, append(c.args, c.withFile...)...)
		if code != ExitOK {
			t.Fatalf("%s with a header-only file: exit %d: %s", c.name, code, errs2)
		}
		if cold != want {
			t.Errorf("%s: without --observed\n%s\nwith the header alone\n%s", c.name, cold, want)
		}
		if lines := strings.Split(strings.TrimSpace(cold), "\n"); len(lines) != 1+c.rows {
			t.Errorf("%s: %d lines, want a header and %d suggestions: %q", c.name, len(lines), c.rows, cold)
		}
	}
}
