package eval

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDiscoverFollowsSymlinks: a campaign reached through a symbolic link is
// found (under the link's path); a cycle back to the root and a second link
// to the same campaign neither hang nor duplicate it; dangling and hidden
// links are ignored.
func TestDiscoverFollowsSymlinks(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join(fixtureResults, "rover"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	res := filepath.Join(root, "results")
	if err := os.MkdirAll(filepath.Join(res, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ target, link string }{
		{fixture, filepath.Join(res, "rover")},                    // campaign kept elsewhere
		{fixture, filepath.Join(res, "nested", "rover-again")},    // second path to it
		{res, filepath.Join(res, "nested", "loop")},               // cycle
		{filepath.Join(root, "gone"), filepath.Join(res, "dead")}, // dangling
		{fixture, filepath.Join(res, ".hidden")},                  // hidden: skipped like a hidden folder
	} {
		if err := os.Symlink(l.target, l.link); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	camps, skipped, err := discover(res)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, c := range camps {
		dirs = append(dirs, c.Dir)
	}
	if want := []string{filepath.Join(res, "nested", "rover-again")}; !slices.Equal(dirs, want) && !slices.Equal(dirs, []string{filepath.Join(res, "rover")}) {
		t.Errorf("campaigns %v, want the fixture once (%v or %s)", dirs, want, filepath.Join(res, "rover"))
	}
	if len(camps) == 1 && (camps[0].Name != "rover" || len(camps[0].Runs) == 0) {
		t.Errorf("campaign %q with %d runs, want rover's fixture runs", camps[0].Name, len(camps[0].Runs))
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
}

// TestSameTaskCampaignsKeepTheirOutputs: two rover campaigns (results/rover
// and results/rover-floor, as --qvs-floor runs are kept) get distinct names,
// so Evaluate writes one table and one trajectory figure for each instead of
// one overwriting the other; both still count as rover for the paper's
// coverage.
func TestSameTaskCampaignsKeepTheirOutputs(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join(fixtureResults, "rover"))
	if err != nil {
		t.Fatal(err)
	}
	res := t.TempDir()
	for _, name := range []string{"rover", "rover-floor", "budget2000"} {
		if err := os.CopyFS(filepath.Join(res, name), os.DirFS(fixture)); err != nil {
			t.Fatal(err)
		}
	}
	camps, _, err := discover(res)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range camps {
		names = append(names, c.Name)
		if c.Task != "rover" {
			t.Errorf("%s: task %q, want rover", c.Dir, c.Task)
		}
	}
	if want := []string{"rover-budget2000", "rover", "rover-floor"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	out := t.TempDir()
	rep, err := Evaluate(context.Background(), Options{Dir: res, Out: out, Formats: []string{"md"}, FigureFormats: []string{"png"}, CacheDir: t.TempDir(), Workers: 1, Paths: testPaths})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		for _, f := range []string{"tables/" + n + "-bo-table.md", "figures/" + n + "-trajectories.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("missing %s: %v", f, err)
			}
		}
	}
	for _, m := range rep.NotMade {
		if strings.Contains(m, "rover") {
			t.Errorf("reported as not made: %s", m)
		}
	}
}

// TestSpaceCampaignsNamedAfterTheirFile: a `qvs bayesopt --space` campaign
// (config task: space) is labelled by its space file's stem, campaigns
// sharing a stem get distinct names by the same rule as tasks, and their
// Task stays "space": a space file called rover.yaml never stands in for
// the paper's rover campaign (no trajectory figure, no coverage).
func TestSpaceCampaignsNamedAfterTheirFile(t *testing.T) {
	fixture, cfg := roverFixture(t)
	res := t.TempDir()
	for folder, spaceFile := range map[string]string{"a": "spaces/rover.yaml", "my-reactor": "my reactor.yml", "old": "x/my reactor.yml"} {
		dir := filepath.Join(res, folder)
		if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(cfg), "\ntask: rover\n", "\ntask: space\nspace: "+spaceFile+"\n", 1)
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	camps, _, err := discover(res)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range camps {
		got[filepath.Base(c.Dir)] = c.Name
		if c.Task != "space" {
			t.Errorf("%s: task %q, want space", c.Dir, c.Task)
		}
	}
	want := map[string]string{"a": "rover", "my-reactor": "my-reactor", "old": "my-reactor-old"}
	if !maps.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	rep, err := Evaluate(context.Background(), Options{Dir: res, Out: filepath.Join(t.TempDir(), "eval"), Formats: []string{"md"}, FigureFormats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(rep.Files, rep.NotMade...) {
		if strings.Contains(f, "trajectories") {
			t.Errorf("a space campaign was drawn as rover: %s", f)
		}
	}
	if !slices.ContainsFunc(rep.NotMade, func(m string) bool { return strings.HasPrefix(m, "Figures 3 and 4 (rover BayesOpt)") }) {
		t.Errorf("a space campaign named rover counts as the paper's rover campaign; not made: %q", rep.NotMade)
	}
}

// TestHostileNameRefused: a campaign whose config.yaml
// says `task: ../../../ESCAPED` (or `name:`) made eval write its tables and
// figures above --out. The name is refused naming the file and key, and
// nothing is written anywhere.
func TestHostileNameRefused(t *testing.T) {
	fixture, cfg := roverFixture(t)
	for _, edit := range []string{"\ntask: ../../../ESCAPED\n", "\ntask: rover\nname: ../../x\n"} {
		root := t.TempDir()
		res := filepath.Join(root, "a", "b", "results")
		dir := filepath.Join(res, "rover")
		if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(cfg), "\ntask: rover\n", edit, 1)
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(res, "eval")
		_, err := Evaluate(context.Background(), Options{Dir: res, Out: out, Formats: []string{"md", "csv"}, FigureFormats: []string{"svg"}})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "config.yaml")) || !strings.Contains(err.Error(), "is not a plain name") {
			t.Errorf("%q: error %v, want one naming config.yaml and the name", edit, err)
		}
		var written []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, _ error) error {
			if !d.IsDir() && !strings.HasPrefix(p, dir) {
				written = append(written, p)
			}
			return nil
		})
		if len(written) > 0 {
			t.Errorf("%q: wrote %v", edit, written)
		}
	}
}

// roverFixture is the absolute path of the rover fixture campaign and its
// config.yaml.
func roverFixture(t *testing.T) (string, []byte) {
	t.Helper()
	fixture, err := filepath.Abs(filepath.Join(fixtureResults, "rover"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(fixture, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return fixture, cfg
}
