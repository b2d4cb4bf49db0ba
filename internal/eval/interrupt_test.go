package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
)

// TestEvaluateInterruptedMidFigures: an interrupt that arrives while a
// campaign's figures are drawn (here during the pool reload of Figure 2's
// PCA scatter, which takes seconds on a paper pool) ends Evaluate with the
// context's error once that step returns: no later figure, no README.md.
// The context was checked only between campaigns, so `qvs eval` on one
// campaign swallowed SIGINT/SIGTERM/SIGHUP and exited 0.
func TestEvaluateInterruptedMidFigures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := t.TempDir()
	loads := 0
	rep, err := Evaluate(ctx, Options{
		Dir: filepath.Join(fixtureResults, "synthetic"), Out: out, Formats: []string{"md"}, FigureFormats: []string{"svg"},
		Workers: 1,
		Pool: func(c *Campaign, opts Options) (*datasets.Pool, error) {
			loads++
			cancel() // the signal, while the pool loads
			return loadPool(c, opts)
		},
	})
	if loads != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("%d pool load(s), err %v; want one and context.Canceled", loads, err)
	}
	if _, err := os.Stat(filepath.Join(out, "figures", "synthetic-pca-queries.svg")); err == nil {
		t.Error("the scatter was drawn after the interrupt")
	}
	if _, err := os.Stat(filepath.Join(out, "README.md")); err == nil {
		t.Error("README.md written after the interrupt")
	}
	if rep == nil {
		t.Error("no report: the files written before the interrupt are not listed")
	}
}
