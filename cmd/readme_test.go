package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// TestDocsNameExistingTests: every test, fuzz target or benchmark that
// README.md, docs/*.md, configs/README.md or examples/README.md names (as
// the proof of a claim, or the way to reproduce a number) is a function of
// some _test.go file of the repository. docs/reliability.md once listed a
// fuzz target that had been removed.
func TestDocsNameExistingTests(t *testing.T) {
	root := testutil.RepoRoot()
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w*)\(`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range funcRE.FindAllStringSubmatch(string(src), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "configs", "README.md"), filepath.Join(root, "examples", "README.md"))
	// A capital after the prefix, as in Go's test names; FuzzXxx is the
	// README's placeholder for any target.
	nameRE := regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z]\w*`)
	checked := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range nameRE.FindAllString(string(text), -1) {
			if name == "FuzzXxx" {
				continue
			}
			checked++
			if !defined[name] {
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s names %s, which no _test.go file defines", rel, name)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d names in the docs; expected the dozens docs/reliability.md alone names", checked)
	}
}
