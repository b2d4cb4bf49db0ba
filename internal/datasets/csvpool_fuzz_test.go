package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadCSV: any CSV is a valid pool or an error, never a panic; an
// unlabelled pool (no label column) is flagged and has no positive.
func FuzzLoadCSV(f *testing.F) {
	for _, s := range []string{
		"id,x1,x2\na,0,0\nb,1,0\nc,0,2\n",
		"x1,x2,label\n0,0,1\n1,0,0\n0,2,0\n",
		"id,x1,x2,label\na,0,0,1\nb,1,0,0\n",
		"x1\n1\n1\n1\n",
		"id,x1\na,nan\nb,1\n",
		"\ufeffid,x1,x2\na,1,2\nb,3,4\n",
		"x1,x1\n1,2\n",
	} {
		f.Add(s, "x")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body, prefix string) {
		path := filepath.Join(dir, "pool.csv")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig(KindCSV).CSV
		cfg.File, cfg.K, cfg.FeaturePrefix = path, 1, prefix
		p, err := Load(Config{Kind: KindCSV, CSV: cfg}, "", "", 1)
		if err != nil {
			return
		}
		if p.Unlabeled && p.PositiveCount() != 0 {
			t.Fatalf("%q: unlabelled pool with %d positives", body, p.PositiveCount())
		}
	})
}
