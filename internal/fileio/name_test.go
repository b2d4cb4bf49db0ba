package fileio

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckPlainName: names that would leave the folder they are joined to
// (or name it) are refused; plain names, including ones with dots, spaces
// and non-ASCII letters, pass. Each refused name is checked against what
// filepath.Join would do with it, so the test states the danger, not just
// the rule.
func TestCheckPlainName(t *testing.T) {
	for _, name := range []string{"rover", "mof", "my reactor", "a.b", "..x", "x..", "qvs-q0.1-r00", "Ünïcode", "-dash"} {
		if err := CheckPlainName(name); err != nil {
			t.Errorf("%q: %v, want accepted", name, err)
		}
		if filepath.Dir(filepath.Join("out", name)) != "out" {
			t.Errorf("%q: accepted name leaves its folder", name)
		}
	}
	for name, want := range map[string]string{
		"":                       "empty name",
		".":                      "names a folder",
		"..":                     "names a folder",
		"../../ESCAPED":          `such as "ESCAPED"`,
		"a/b":                    "path separator",
		"/etc":                   `such as "etc"`,
		`..\..\x`:                "path separator",
		"x\x00y":                 "U+0000",
		"x\ny":                   "U+000A",
		strings.Repeat("a", 256): "too long",
	} {
		err := CheckPlainName(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", name, err, want)
		}
	}
}
