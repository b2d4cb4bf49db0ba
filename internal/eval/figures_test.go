package eval

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiguresOnFixture draws every figure the fixture supports and checks
// each is a non-trivial PNG (plus its SVG) and that nothing but the paper's
// absent campaigns is reported as not made.
func TestFiguresOnFixture(t *testing.T) {
	out := t.TempDir()
	rep, err := Evaluate(context.Background(), Options{
		Dir: fixtureResults, Out: out, Formats: []string{"md"}, FigureFormats: FigureFormats,
		CacheDir: t.TempDir(), Workers: 2, Paths: testPaths,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.NotMade {
		if !strings.Contains(s, "campaign named") {
			t.Errorf("not made: %s", s)
		}
	}
	for _, name := range []string{
		"synthetic-vs1-curve", "synthetic-pca-queries", "synthetic-2-best-so-far",
		"rover-best-so-far", "rover-trajectories", "mof-best-so-far", "mof-mds",
	} {
		base := filepath.Join(out, "figures", name)
		f, err := os.Open(base + ".png")
		if err != nil {
			t.Error(err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s.png: %v", name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 300 {
			t.Errorf("%s.png is %dx%d", name, b.Dx(), b.Dy())
		}
		svg, err := os.ReadFile(base + ".svg")
		if err != nil || !strings.Contains(string(svg), "<svg") {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	// The index links every PNG.
	idx, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(idx), ".png)"); n != 7 {
		t.Errorf("index links %d figures, want 7", n)
	}
}

// testPaths draws the fixture's rover campaigns on a stand-in map: one
// obstacle, and a path from the start through each point's first two
// coordinates to the goal (eval draws the map it is given; the rover's own
// is passed by cmd, whose tests draw it).
var testPaths = map[string]PathTask{"rover": {
	Dim: 60, Obstacles: [][2][2]float64{{{0.4, 0.4}, {0.5, 0.5}}}, Start: [2]float64{0.05, 0.05}, Goal: [2]float64{0.95, 0.95},
	Path: func(x []float64) [][2]float64 { return [][2]float64{{0.05, 0.05}, {x[0], x[1]}, {0.95, 0.95}} },
}}
