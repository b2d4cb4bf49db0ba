package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/cli"
)

// FuzzLoadConfig: a YAML config file never panics the config reader
// (configkeys.Load: its checks, then the YAML decoder) for any command's
// config, nor peekConfig (the key that picks the defaults); a rejected file
// is an error naming it.
func FuzzLoadConfig(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("budget: 20.5\nseed: -1\nq: [0, inf]\n"))
	f.Add([]byte("pool:\n  kind: [\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, path := range [][]string{{"task"}, {"pool", "kind"}} {
			if _, err := peekConfig(&GlobalOptions{Config: p}, path...); err != nil && !strings.Contains(err.Error(), p) {
				t.Fatalf("peekConfig %v: error does not name the file: %v", path, err)
			}
		}
		for _, target := range []any{&asConfig{}, &bayesopt.Protocol{}, &cli.ToyOptions{}, &cli.EvalOptions{}} {
			if err := loadConfig(p, target); err != nil && !strings.Contains(err.Error(), p) {
				t.Fatalf("%T: error does not name the file: %v", target, err)
			}
		}
	})
}
