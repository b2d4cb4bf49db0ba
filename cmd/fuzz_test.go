package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig: a YAML config file never panics the config reader
// (configkeys.Check, then viper) for any command's config; a rejected file
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
		for _, target := range []any{&asConfig{}, &bayesoptConfig{}, &toyOptions{}, &evalConfig{}} {
			if err := loadConfig(p, target); err != nil && !strings.Contains(err.Error(), p) {
				t.Fatalf("%T: error does not name the file: %v", target, err)
			}
		}
	})
}
