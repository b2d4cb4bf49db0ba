package datasets

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/testutil"
)

func writeNPYPool(t testing.TB, dir, name, descr string, shape []int, data any) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, rawNPY(descr, false, shape, leBytes(data)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func npyPoolConfig(file string) Config {
	cfg := DefaultConfig(KindCSV)
	cfg.CSV.File, cfg.CSV.K = file, 2
	return cfg
}

// The float32 and float64 files of the same values give the same pool and
// graph as the CSV of those values (float32 widened exactly).
func TestNPYPoolMatchesCSV(t *testing.T) {
	dir := t.TempDir()
	x := testutil.ClusteredGaussian(60, 3, 4, 11)
	f32 := make([]float32, 0, 180)
	var csv strings.Builder
	csv.WriteString("x1,x2,x3\n")
	for _, row := range x {
		for c, v := range row {
			f32 = append(f32, float32(v))
			row[c] = float64(float32(v))
		}
		cells := make([]string, len(row))
		for c, v := range row {
			cells[c] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		csv.WriteString(strings.Join(cells, ",") + "\n")
	}
	f64 := make([]float64, 0, 180)
	for _, row := range x {
		f64 = append(f64, row...)
	}
	csvPath := filepath.Join(dir, "pool.csv")
	if err := os.WriteFile(csvPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(npyPoolConfig(csvPath), "", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		writeNPYPool(t, dir, "p32.npy", "<f4", []int{60, 3}, f32),
		writeNPYPool(t, dir, "p64.npy", "<f8", []int{60, 3}, f64),
	} {
		got, err := Load(npyPoolConfig(p), "", "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Unlabeled || got.IDs != nil || got.Graph.Method != knn.KNNExact {
			t.Errorf("%s: unlabelled %v, ids %v, method %q", p, got.Unlabeled, got.IDs, got.Graph.Method)
		}
		// float32 features stay float32 (one copy, 4 bytes a value).
		if strings.HasSuffix(p, "p32.npy") != (got.Dense32.Data != nil && got.Dense == nil) {
			t.Fatalf("%s: Dense32 %d values, Dense %d rows", p, len(got.Dense32.Data), len(got.Dense))
		}
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if !slices.Equal(got.Neighbors[i], want.Neighbors[i]) || !slices.Equal(got.Weights[i], want.Weights[i]) {
				t.Fatalf("%s: row %d differs from the CSV pool", p, i)
			}
			for j := range x {
				if got.Distance(i, j) != want.Distance(i, j) {
					t.Fatalf("%s: Distance(%d, %d) = %v, CSV pool %v", p, i, j, got.Distance(i, j), want.Distance(i, j))
				}
			}
		}
	}
}

// A float32 .npy pool (kept as Dense32) and the float64 .npy of the same
// values give the same approximate graph, weights, distances and cache
// key under both metrics; with standardize the float32 values are widened.
func TestNPYPoolFloat32MatchesFloat64(t *testing.T) {
	dir := t.TempDir()
	x := testutil.ClusteredGaussian(400, 6, 5, 12)
	f32 := make([]float32, 0, 400*6)
	f64 := make([]float64, 0, 400*6)
	for _, row := range x {
		for _, v := range row {
			f32 = append(f32, float32(v))
			f64 = append(f64, float64(float32(v)))
		}
	}
	p32 := writeNPYPool(t, dir, "a32.npy", "<f4", []int{400, 6}, f32)
	p64 := writeNPYPool(t, dir, "a64.npy", "<f8", []int{400, 6}, f64)
	for _, metric := range []string{knn.MetricEuclidean, knn.MetricCosine} {
		var pools [2]*Pool
		for a, p := range []string{p32, p64} {
			cfg := npyPoolConfig(p)
			cfg.CSV.Metric, cfg.CSV.K, cfg.CSV.KNN = metric, 8, knn.KNNApprox
			var err error
			if pools[a], err = Load(cfg, "", filepath.Join(dir, "cache-"+metric), 1); err != nil {
				t.Fatal(err)
			}
		}
		a, b := pools[0], pools[1]
		if a.Dense32.Data == nil || a.Dense != nil || b.Dense == nil {
			t.Fatalf("%s: float32 pool not kept as Dense32", metric)
		}
		// The second load found the first's cache file: same key.
		if a.Graph.Status != knn.CacheMiss || b.Graph.Status != knn.CacheHit || a.Graph.CacheFile != b.Graph.CacheFile {
			t.Errorf("%s: cache %v %v, files %s %s", metric, a.Graph.Status, b.Graph.Status, a.Graph.CacheFile, b.Graph.CacheFile)
		}
		for i := range 400 {
			if !slices.Equal(a.Neighbors[i], b.Neighbors[i]) || !slices.Equal(a.Weights[i], b.Weights[i]) {
				t.Fatalf("%s: row %d differs", metric, i)
			}
			for j := 0; j < 400; j += 7 {
				if a.Distance(i, j) != b.Distance(i, j) {
					t.Fatalf("%s: Distance(%d, %d) = %v, float64 %v", metric, i, j, a.Distance(i, j), b.Distance(i, j))
				}
			}
		}
		// Built without the cache, the float32 pool's graph is the float64 one's.
		g, _, err := knn.ApproxDenseKNN32(a.Dense32, 8, metric, knn.ApproxOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		g64, _, _ := knn.ApproxDenseKNN(b.Dense, 8, metric, knn.ApproxOptions{Seed: 1})
		if !slices.Equal(g.Index, g64.Index) || !slices.Equal(g.Distance, g64.Distance) {
			t.Fatalf("%s: knn.ApproxDenseKNN32 differs from knn.ApproxDenseKNN", metric)
		}
	}
	cfg := npyPoolConfig(p32)
	cfg.CSV.Standardize = true
	p, err := Load(cfg, "", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dense == nil || p.Dense32.Data != nil {
		t.Error("standardize: float32 features not widened")
	}
}

// Packed fingerprints (numpy.packbits, MSB first) and bool columns give
// the Tanimoto graph of knn.BitsKNN on the same bits.
func TestNPYPoolFingerprints(t *testing.T) {
	dir := t.TempDir()
	const n, nbits = 30, 150 // 19 bytes in 3 words, the last byte 6 bits used
	fp := testutil.ClusteredBits(n, nbits, 3, 4)
	packed := make([]uint8, 0, n*19)
	bools := make([]uint8, 0, n*nbits)
	for _, w := range fp {
		var row [19]uint8
		for b := 0; b < nbits; b++ {
			bit := w[b/64] >> (b % 64) & 1
			bools = append(bools, uint8(bit))
			if bit == 1 {
				row[b/8] |= 0x80 >> (b % 8)
			}
		}
		packed = append(packed, row[:]...)
	}
	want, err := knn.BitsKNN(fp, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		writeNPYPool(t, dir, "packed.npy", "|u1", []int{n, 19}, packed),
		writeNPYPool(t, dir, "bools.npy", "|b1", []int{n, nbits}, bools),
	} {
		cfg := npyPoolConfig(p)
		cfg.CSV.Metric, cfg.CSV.Similarity = knn.MetricTanimoto, knn.SimilarityNative
		got, err := Load(cfg, "", "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Notes) != 0 {
			t.Errorf("%s with metric tanimoto: notes %q", p, got.Notes)
		}
		// Without --metric tanimoto the same file is numbers, and the
		// loader says so and how to read it as fingerprints.
		numeric, err := Load(npyPoolConfig(p), "", "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if numeric.Bits != nil || len(numeric.Notes) != 1 || !strings.Contains(numeric.Notes[0], "read as numeric features") || !strings.Contains(numeric.Notes[0], "--metric tanimoto") {
			t.Errorf("%s as numbers: notes %q", p, numeric.Notes)
		}
		for i := 0; i < n; i++ {
			// Bit b of the fingerprint is bit b of the pool's words
			// (a permutation within bytes would keep every distance).
			if !slices.Equal(got.Bits[i], fp[i]) {
				t.Fatalf("%s: fingerprint %d is %b, want %b", p, i, got.Bits[i], fp[i])
			}
			nb := want.Neighbors(i)
			var kept []int32
			for m, j := range nb {
				if want.Distances(i)[m] < 1 {
					kept = append(kept, j)
				}
			}
			if !slices.Equal(got.Neighbors[i], kept) {
				t.Fatalf("%s: row %d neighbours %v, knn.BitsKNN %v", p, i, got.Neighbors[i], nb)
			}
		}
	}
}

func TestNPYPoolIDsAndErrors(t *testing.T) {
	dir := t.TempDir()
	f64 := []float64{0, 0, 1, 0, 0, 2, 3, 3}
	p := writeNPYPool(t, dir, "p.npy", "<f8", []int{4, 2}, f64)
	ids := filepath.Join(dir, "ids.txt")
	os.WriteFile(ids, []byte("id\na\nb\nc\nd\n"), 0o644)
	cfg := npyPoolConfig(p)
	cfg.CSV.IDsFile = ids
	pool, err := Load(cfg, "", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pool.IDs, []string{"a", "b", "c", "d"}) {
		t.Errorf("ids %v", pool.IDs)
	}
	bad := func(name string, mutate func(c *Config), want string) {
		t.Helper()
		c := npyPoolConfig(p)
		mutate(&c)
		if _, err := Load(c, "", "", 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, want)
		}
	}
	write := func(name, body string) string {
		q := filepath.Join(dir, name)
		os.WriteFile(q, []byte(body), 0o644)
		return q
	}
	bad("few ids", func(c *Config) { c.CSV.IDsFile = write("few.txt", "a\nb\n") }, "2 ids for the 4 rows")
	bad("repeated id", func(c *Config) { c.CSV.IDsFile = write("rep.txt", "a\nb\na\nc\n") }, `id "a" repeats id 1`)
	bad("nan", func(c *Config) {
		c.CSV.File = writeNPYPool(t, dir, "nan.npy", "<f8", []int{2, 2}, []float64{0, 1, math.NaN(), 2})
	}, "row 2, column 1")
	bad("short", func(c *Config) {
		raw := rawNPY("<f4", false, []int{3, 2}, leBytes([]float32{1, 2, 3}))
		c.CSV.File = write("short.npy", string(raw))
	}, "short.npy")
	bad("3-D", func(c *Config) {
		c.CSV.File = writeNPYPool(t, dir, "3d.npy", "<f8", []int{2, 2, 2}, make([]float64, 8))
	}, "2-D")
	bad("int64", func(c *Config) { c.CSV.File = writeNPYPool(t, dir, "i8.npy", "<i8", []int{4, 2}, make([]int64, 8)) }, "dtype <i8")
	bad("tanimoto floats", func(c *Config) { c.CSV.Metric = knn.MetricTanimoto }, "expected uint8")
	bad("label column", func(c *Config) { c.CSV.LabelColumn = "y" }, "features only")
	bad("k", func(c *Config) { c.CSV.K = 4 }, "pool.csv.k")
	bad("knn", func(c *Config) { c.CSV.KNN = "fast" }, "pool.csv.knn")
	bad("ids for csv", func(c *Config) { c.CSV.File, c.CSV.IDsFile = write("p.csv", "x\n1\n2\n3\n"), ids }, "pool.csv.ids_file")
}

// An approximate graph is cached with its recall; a damaged file is
// recomputed; exact and approximate graphs of the same features have
// different keys.
func TestBuildGraphCache(t *testing.T) {
	dir := t.TempDir()
	x := testutil.ClusteredGaussian(500, 8, 5, 2)
	g1, info1, err := knn.BuildGraph(dir, knn.Dense{F64: x}, nil, 5, knn.MetricEuclidean, knn.KNNApprox, knn.GraphOptions{})
	if err != nil || info1.Status != knn.CacheMiss || info1.Method != knn.KNNApprox || info1.Stats.Recall < 0.99 {
		t.Fatalf("first build: %+v, %v", info1, err)
	}
	g2, info2, err := knn.BuildGraph(dir, knn.Dense{F64: x}, nil, 5, knn.MetricEuclidean, knn.KNNApprox, knn.GraphOptions{})
	if err != nil || info2.Status != knn.CacheHit || info2.Stats != info1.Stats || info2.CacheFile != info1.CacheFile {
		t.Fatalf("second build: %+v, %v", info2, err)
	}
	if !slices.Equal(g1.Index, g2.Index) || !slices.Equal(g1.Distance, g2.Distance) {
		t.Fatal("cached graph differs")
	}
	_, info3, _ := knn.BuildGraph(dir, knn.Dense{F64: x}, nil, 5, knn.MetricEuclidean, knn.KNNExact, knn.GraphOptions{})
	if info3.Status != knn.CacheMiss || info3.CacheFile == info1.CacheFile {
		t.Fatalf("exact graph: %+v", info3)
	}
	data, _ := os.ReadFile(info1.CacheFile)
	data[100] ^= 1
	os.WriteFile(info1.CacheFile, data, 0o644)
	g4, info4, err := knn.BuildGraph(dir, knn.Dense{F64: x}, nil, 5, knn.MetricEuclidean, knn.KNNApprox, knn.GraphOptions{})
	if err != nil || info4.Status != knn.CacheRecovered || !slices.Equal(g4.Index, g1.Index) {
		t.Fatalf("damaged file: %+v, %v", info4, err)
	}
	// auto: exact below the metric's threshold, approximate from it
	for _, c := range []struct {
		metric string
		at     int
	}{{knn.MetricEuclidean, knn.ApproxMinItems}, {knn.MetricCosine, knn.ApproxMinItems}, {knn.MetricTanimoto, knn.ApproxMinItemsTanimoto}} {
		if m, _ := knn.ResolveKNNMethod("", c.at-1, c.metric); m != knn.KNNExact {
			t.Errorf("%s: auto below the threshold %d: %s", c.metric, c.at, m)
		}
		if m, _ := knn.ResolveKNNMethod(knn.KNNAuto, c.at, c.metric); m != knn.KNNApprox {
			t.Errorf("%s: auto at the threshold %d: %s", c.metric, c.at, m)
		}
	}
}

// FuzzLoadNPYPool: any bytes as a .npy pool are a pool or an error, never
// a panic or an allocation beyond what the file holds.
func FuzzLoadNPYPool(f *testing.F) {
	f.Add(rawNPY("<f4", false, []int{3, 2}, leBytes([]float32{0, 0, 1, 0, 0, 2})), false)
	f.Add(rawNPY("|u1", false, []int{3, 1}, []byte{0x80, 0xc0, 0x01}), true)
	f.Add(rawNPY("|b1", false, []int{3, 2}, []byte{0, 1, 1, 1, 1, 0}), true)
	f.Add(rawNPY("<f8", false, []int{1 << 40, 2}, nil), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte, tanimoto bool) {
		path := filepath.Join(dir, "pool.npy")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := npyPoolConfig(path)
		cfg.CSV.K = 1
		if tanimoto {
			cfg.CSV.Metric, cfg.CSV.Similarity = knn.MetricTanimoto, knn.SimilarityNative
		}
		p, err := Load(cfg, "", "", 1)
		if err == nil && (!p.Unlabeled || p.Len() < 2) {
			t.Fatalf("pool of %d items, unlabelled %v", p.Len(), p.Unlabeled)
		}
	})
}
