package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// readmeSection returns the text of README.md under heading ("## ..."),
// up to the next "## " heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// readmeCommands returns the README.md section under heading and the
// arguments of its `../qvs ARGS` lines (comments dropped), the commands the
// section tells a user to run from examples/.
func readmeCommands(t *testing.T, heading string) (section string, cmds [][]string) {
	t.Helper()
	section = readmeSection(t, heading)
	for _, l := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(l, "../qvs "); ok {
			rest, _, _ = strings.Cut(rest, "#")
			cmds = append(cmds, strings.Fields(rest))
		}
	}
	return section, cmds
}
