package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
)

// Scratch (never committed): a small discrete campaign to look at figures.
func TestZZScratchDiscrete(t *testing.T) {
	out := os.Getenv("QVS_SCRATCH")
	if out == "" {
		t.Skip()
	}
	set, err := datasets.PhotoswitchKernelSet("/work/shared/data/photoswitch/UMAP-AllHits.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := discrete.NewProblem(set, 450)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := discrete.Runs([]string{"random", "ucb", "qvs"}, []float64{0.5, 1}, 3)
	base := discrete.DefaultSettings()
	base.Budget = 30
	base.Method = "ucb"
	xy, err := discrete.CachedMDS(filepath.Join(out, "cache"), "pbo", set.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "photoswitch-bo")
	os.MkdirAll(dir, 0o755)
	discrete.WriteMDSFile(filepath.Join(dir, "mds.csv"), set.IDs, xy, set.Objective)
	_, err = campaign.Execute(context.Background(), campaign.Spec{Dir: dir, Header: discrete.RecordHeader, Runs: runs, Steps: 32, Workers: 2, Quiet: true,
		Config: map[string]any{"task": "photoswitch-bo", "repeats": 3}}, p.RunFunc(base))
	if err != nil {
		t.Fatal(err)
	}
}
