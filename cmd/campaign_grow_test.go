package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestDefaultFoldersDistinct: no two campaigns of
// different commands or tasks default to one results folder; the README
// walk-through ran `qvs as` and configs/synthetic-bo.yaml into
// results/synthetic.
func TestDefaultFoldersDistinct(t *testing.T) {
	root := testutil.RepoRoot()
	owner := map[string]string{} // folder -> "command task"
	claim := func(out, who string) {
		t.Helper()
		if prev, ok := owner[out]; ok && prev != who {
			t.Errorf("%s and %s both default to %s", prev, who, out)
		}
		owner[out] = who
	}
	c, g := newTestASCommand(t, "")
	def, err := resolveASConfig(c, g, &asOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	claim(def.Out, "as "+def.Task)
	files, _ := filepath.Glob(filepath.Join(root, "configs", "*.yaml"))
	if len(files) < 8 {
		t.Fatalf("configs: %v", files)
	}
	for _, path := range files {
		task, err := boPeekTask(&GlobalOptions{Config: path})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		switch {
		case strings.Contains(string(b), "\npool:"):
			c, g := newTestASCommand(t, path)
			cfg, err := resolveASConfig(c, g, &asOptions{}, "")
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			claim(cfg.Out, "as "+cfg.Task)
		case discrete.IsTask(task):
			cfg := defaultDiscreteConfig(task)
			if err := loadConfig(path, &cfg); err != nil {
				t.Fatal(err)
			}
			claim(cfg.Out, "bayesopt "+task)
			claim(defaultDiscreteConfig(task).Out, "bayesopt "+task)
		default:
			cfg, err := resolveBayesoptConfig(&cobra.Command{}, &GlobalOptions{Config: path}, &bayesoptOptions{}, task)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			claim(cfg.Out, "bayesopt "+task)
			claim(defaultBayesoptConfig(task).Out, "bayesopt "+task) // --task TASK without a config
		}
	}
	if owner[filepath.Join("results", "synthetic-bo")] != "bayesopt synthetic" {
		t.Errorf("folders %v: want results/synthetic-bo for bayesopt synthetic", owner)
	}
}
