package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

// loadBoth loads body as a CSV pool serially (one worker) and in parallel
// (2·workers byte ranges, whatever the file's size), and fails unless both
// give the same pool or the same error. It returns the serial error.
func loadBoth(t *testing.T, dir, body, prefix, idColumn string, workers int) error {
	t.Helper()
	path := filepath.Join(dir, "pool.csv")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := parallelCSVMinBytes
	defer func() { parallelCSVMinBytes = saved }()
	cfg := DefaultConfig(KindCSV).CSV
	cfg.File, cfg.K, cfg.FeaturePrefix, cfg.IDColumn = path, 1, prefix, idColumn
	parallelCSVMinBytes = math.MaxInt64
	serial, serr := Load(Config{Kind: KindCSV, CSV: cfg}, "", "", 1)
	parallelCSVMinBytes = 0
	par, perr := Load(Config{Kind: KindCSV, CSV: cfg}, "", "", workers)
	if fmt.Sprint(serr) != fmt.Sprint(perr) {
		t.Fatalf("%q: serial error %v, parallel %v", body, serr, perr)
	}
	if serr != nil {
		return serr
	}
	if !reflect.DeepEqual(serial.Dense, par.Dense) || !reflect.DeepEqual(serial.Bits, par.Bits) ||
		!reflect.DeepEqual(serial.IDs, par.IDs) || !reflect.DeepEqual(serial.Labels, par.Labels) ||
		!reflect.DeepEqual(serial.Notes, par.Notes) || !reflect.DeepEqual(serial.Neighbors, par.Neighbors) || !reflect.DeepEqual(serial.Weights, par.Weights) {
		t.Fatalf("%q: the parallel reader's pool differs from the serial one's", body)
	}
	return nil
}

// randomPoolCSV writes a labelled pool: an unnamed index column, quoted
// ids (some holding commas, newlines or escaped quotes), 3 features,
// LF or CRLF, blank lines, an optional byte-order mark and empty last line;
// with bad, two rows are broken (a word for a number, an empty or repeated
// id, a missing cell), so that the first error of the file must win.
func randomPoolCSV(rng *rand.Rand, bad bool) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteString("\ufeff")
	}
	eol := []string{"\n", "\r\n"}[rng.IntN(2)]
	b.WriteString(`,id,"x 1",x2,x3,label` + eol)
	n := 4 + rng.IntN(60)
	broken, broken2 := -1, -1 // two broken rows: the first error wins
	if bad {
		broken, broken2 = rng.IntN(n), rng.IntN(n)
	}
	for i := 0; i < n; i++ {
		if rng.IntN(10) == 0 {
			b.WriteString(eol)
		}
		id := []string{fmt.Sprintf("m%d", i), fmt.Sprintf(`"m,%d"`, i), fmt.Sprintf("\"m\n%d\"", i), fmt.Sprintf(`"m""%d"`, i)}[rng.IntN(4)]
		x := []string{fmt.Sprint(rng.NormFloat64()), fmt.Sprint(rng.IntN(5)), fmt.Sprintf(`" %g "`, rng.Float64())}
		cells := []string{fmt.Sprint(i), id, x[rng.IntN(3)], x[rng.IntN(3)], x[rng.IntN(3)], fmt.Sprint(i%3 == 0)}
		if i == broken || i == broken2 {
			switch rng.IntN(4) {
			case 0:
				cells[3] = "abc"
			case 1:
				cells[1] = `""`
			case 2:
				cells[1] = "m0"
				if i == 0 {
					cells[1] = "m1"
				}
			case 3:
				cells = cells[:5]
			}
		}
		b.WriteString(strings.Join(cells, ",") + eol)
	}
	if rng.IntN(3) == 0 {
		b.WriteString(eol)
	}
	return b.String()
}

// TestLoadCSVParallelMatchesSerial: CSV pools parsed in byte ranges on
// several workers equal the serial reader's (features, ids, labels, notes,
// graph), and a bad file fails with the serial reader's error (file and
// line), for 1 to 4 workers (2 to 8 ranges).
func TestLoadCSVParallelMatchesSerial(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(33, 1))
	failed := 0
	for trial := 0; trial < 150; trial++ {
		if loadBoth(t, dir, randomPoolCSV(rng, trial%2 == 1), "x", "id", 1+trial%4) != nil {
			failed++
		}
	}
	if failed < 60 { // the bad files fail (and a few good ones: ids that are
		// numbers of another row, say), so errors are compared too
		t.Errorf("only %d of 150 files failed to load", failed)
	}
}

// FuzzLoadCSVParallel: any CSV loads to the same pool, or fails with the
// same error, serially and in parallel byte ranges.
func FuzzLoadCSVParallel(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 6 {
		f.Add(randomPoolCSV(rng, i%2 == 1), "x")
	}
	f.Add("id,x1,x2\na,0,0\nb,1,0\nc,0,2\n", "x")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body, prefix string) {
		_ = loadBoth(t, dir, body, prefix, "", 3)
	})
}

// BenchmarkReadCSVPool: parsing a 200,000 x 32 CSV pool (id column,
// features printed with 6 significant digits, ~60 MB) row by row (the
// serial reader) and in byte ranges on 1 and 2 workers; no graph.
func BenchmarkReadCSVPool(b *testing.B) {
	const n, d = 200_000, 32
	path := filepath.Join(b.TempDir(), "pool.csv")
	rng := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	sb.WriteString("id")
	for j := range d {
		fmt.Fprintf(&sb, ",x%d", j)
	}
	sb.WriteString("\n")
	for i := range n {
		fmt.Fprintf(&sb, "c%d", i)
		for range d {
			fmt.Fprintf(&sb, ",%.6g", rng.NormFloat64())
		}
		sb.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig(KindCSV).CSV
	cfg.File, cfg.IDColumn, cfg.FeaturePrefix = path, "id", "x"
	saved := parallelCSVMinBytes
	defer func() { parallelCSVMinBytes = saved }()
	for _, c := range []struct {
		name     string
		minBytes int64
		workers  int
	}{{"rows", math.MaxInt64, 1}, {"ranges,workers=1", 0, 1}, {"ranges,workers=2", 0, 2}} {
		workers := c.workers
		b.Run(c.name, func(b *testing.B) {
			parallelCSVMinBytes = c.minBytes
			for b.Loop() {
				p, err := readCSVPool(cfg, knn.GraphOptions{Workers: workers})
				if err != nil || p.Len() != n {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadCSVPoolBlankLinesBounded: a 400-column header over 200,000 blank
// lines (200 kB) counts 200,000 possible records; the slots allocated for
// them stay within a few bytes per input byte (400 x 8 bytes each, 640 MB,
// without the bound), and the rows are the serial reader's.
func TestReadCSVPoolBlankLinesBounded(t *testing.T) {
	var sb strings.Builder
	for j := range 400 {
		if j > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "x%d", j)
	}
	sb.WriteString("\n")
	for i := range 3 {
		sb.WriteString(strings.Repeat(fmt.Sprintf("%d,", i), 399) + "1\n")
	}
	sb.WriteString(strings.Repeat("\n", 200_000))
	path := filepath.Join(t.TempDir(), "pool.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := parallelCSVMinBytes
	defer func() { parallelCSVMinBytes = saved }()
	parallelCSVMinBytes = 0
	cfg := DefaultConfig(KindCSV).CSV
	cfg.File, cfg.K, cfg.FeaturePrefix = path, 1, "x"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := readCSVPool(cfg, knn.GraphOptions{Workers: 2})
	runtime.ReadMemStats(&after)
	if err != nil || p.Len() != 3 || p.Dense[2][0] != 2 {
		t.Fatalf("pool %v, error %v", p, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("%d MB allocated for a 205 kB file", got>>20)
	}
}
