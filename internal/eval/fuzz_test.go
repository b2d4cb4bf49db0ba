package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureFile reads a file of the eval fixture (testdata/eval/results) as a
// fuzz seed.
func fixtureFile(f *testing.F, rel string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "results", rel))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func fuzzWrite(t *testing.T, path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadCampaign: a campaign folder with an arbitrary summary.csv,
// config.yaml and one late run summary never panics LoadCampaign or the
// table built from it; what it loads holds only finite averaged cells.
func FuzzLoadCampaign(f *testing.F) {
	for _, c := range []string{"synthetic", "mof", "rover"} {
		f.Add(fixtureFile(f, c+"/summary.csv"), fixtureFile(f, c+"/config.yaml"), []byte("key,method\nx-r00,x\n"))
	}
	f.Add([]byte("key,method,vs_q0\na,qvs,NaN\n"), []byte("task: [\n"), []byte(""))
	f.Fuzz(func(t *testing.T, summary, config, late []byte) {
		dir := t.TempDir()
		fuzzWrite(t, filepath.Join(dir, "summary.csv"), summary)
		fuzzWrite(t, filepath.Join(dir, "config.yaml"), config)
		fuzzWrite(t, filepath.Join(dir, "runs", "late-r00.summary.csv"), late)
		c, err := LoadCampaign(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the folder: %v", err)
			}
			return
		}
		for _, r := range c.Runs {
			for h, v := range r {
				if x := parseFloat(v); averagedColumn(h) && (math.IsNaN(x) || math.IsInf(x, 0)) && h != "kernel_det_per_item" {
					t.Fatalf("column %s holds %q", h, v)
				}
			}
		}
		_ = TableOf(c)
		_ = c.Partial()
	})
}

// FuzzReadCurve: a per-run curve CSV never panics the reader; an accepted
// curve has non-decreasing x and one y per x.
func FuzzReadCurve(f *testing.F) {
	f.Add(fixtureFile(f, "mof/runs/qvs-q1-r00.curve.csv"))
	f.Add([]byte("queries,vs_q1\n1,2\n1,3\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "k.curve.csv")
		fuzzWrite(t, p, data)
		for _, cols := range [][2]string{{"queries", "vs_q1"}, {"evaluations", "best"}} {
			c, err := readCurve(p, cols[0], cols[1])
			if err != nil {
				continue
			}
			for i := 1; i < len(c.X); i++ {
				if !(c.X[i] >= c.X[i-1]) || len(c.X) != len(c.Y) {
					t.Fatalf("x decreasing or x, y of different lengths: %v, %v", c.X, c.Y)
				}
			}
		}
	})
}

// FuzzReadSolutions: a rover solutions CSV never panics the reader; every
// accepted solution has one coordinate per x column.
func FuzzReadSolutions(f *testing.F) {
	f.Add(fixtureFile(f, "rover/runs/qvs-q1-r00.solutions.csv"))
	f.Add([]byte("rank,value,x0,x2\n1,2,3,4\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "k.solutions.csv")
		fuzzWrite(t, p, data)
		sols, err := readSolutions(p)
		if err != nil || len(sols) == 0 {
			return
		}
		for _, s := range sols {
			if len(s.X) != len(sols[0].X) {
				t.Fatalf("ragged solutions %+v", sols)
			}
		}
	})
}

// FuzzReadMDS: a discrete campaign's mds.csv never panics the reader; an
// accepted embedding has one x, y and value per item.
func FuzzReadMDS(f *testing.F) {
	f.Add(fixtureFile(f, "mof/mds.csv"))
	f.Add([]byte("index,id,x,y,objective\n1,a,0,0,1\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "mds.csv")
		fuzzWrite(t, p, data)
		e, err := readMDS(p)
		if err == nil && (len(e.X) != len(e.Y) || len(e.X) != len(e.Value)) {
			t.Fatalf("%d x, %d y, %d values", len(e.X), len(e.Y), len(e.Value))
		}
	})
}
