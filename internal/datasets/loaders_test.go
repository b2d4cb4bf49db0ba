package datasets

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/testutil"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyntheticDefault(t *testing.T) {
	cfg := DefaultConfig("").Synthetic
	p, err := Load(DefaultConfig(""), "/nonexistent", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != KindSynthetic || p.Len() != cfg.N || len(p.Dense[0]) != cfg.Dim || p.Metric != knn.MetricEuclidean {
		t.Fatalf("pool %q with %d items of dim %d, metric %q", p.Name, p.Len(), len(p.Dense[0]), p.Metric)
	}
	// Expected prevalence: 5 of 40 clusters at 0.4, the rest at 0.002:
	// 0.125*0.4 + 0.875*0.002 = 0.0518. Binomial sd at n = 4000 is 0.0035
	// and cluster sizes vary, so allow 0.03 to 0.08.
	if pr := p.Prevalence(); pr < 0.03 || pr > 0.08 {
		t.Errorf("prevalence %v, want about 0.05", pr)
	}
	for i, nb := range p.Neighbors {
		if len(nb) != cfg.K {
			t.Fatalf("item %d has %d neighbours, want %d", i, len(nb), cfg.K)
		}
	}
	// Same config: the same pool; another seed: another pool.
	q, _ := loadSynthetic(cfg, t.TempDir(), 1)
	if !reflect.DeepEqual(p.Dense, q.Dense) || !reflect.DeepEqual(p.Labels, q.Labels) || !reflect.DeepEqual(p.Neighbors, q.Neighbors) || !reflect.DeepEqual(p.Weights, q.Weights) {
		t.Error("same config and seed gave a different pool")
	}
	cfg.Seed = 2
	r, _ := loadSynthetic(cfg, "", 1)
	if reflect.DeepEqual(p.Dense, r.Dense) {
		t.Error("seed 2 gave the same features as seed 1")
	}
}

func TestSyntheticValidation(t *testing.T) {
	mods := map[string]func(c *SyntheticConfig){
		"pool.synthetic.n":                 func(c *SyntheticConfig) { c.N = 1 },
		"pool.synthetic.dim":               func(c *SyntheticConfig) { c.Dim = 0 },
		"pool.synthetic.clusters":          func(c *SyntheticConfig) { c.Clusters = 0 },
		"pool.synthetic.positive_clusters": func(c *SyntheticConfig) { c.PositiveClusters = 41 },
		"pool.synthetic.positive_rate":     func(c *SyntheticConfig) { c.PositiveRate = math.NaN() },
		"pool.synthetic.background_rate":   func(c *SyntheticConfig) { c.BackgroundRate = 2 },
		"pool.synthetic.spread":            func(c *SyntheticConfig) { c.Spread = 0 },
		"pool.synthetic.k":                 func(c *SyntheticConfig) { c.K = 4000 },
		"no positive item":                 func(c *SyntheticConfig) { c.PositiveRate, c.BackgroundRate = 0, 0 },
		"pool.synthetic.similarity":        func(c *SyntheticConfig) { c.Similarity = "native" },
	}
	for want, mod := range mods {
		cfg := DefaultConfig("").Synthetic
		cfg.N = 400
		mod(&cfg)
		if _, err := loadSynthetic(cfg, "", 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v", want, err)
		}
	}
}

func TestDefaultConfigYAMLRoundTrip(t *testing.T) {
	for _, kind := range Kinds {
		cfg := DefaultConfig(kind)
		if cfg.Kind != kind {
			t.Errorf("DefaultConfig(%q).Kind = %q", kind, cfg.Kind)
		}
		b, err := yaml.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := yaml.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, cfg) {
			t.Errorf("%s: YAML round trip changed the config:\n%s", kind, b)
		}
	}
	if DefaultConfig("").Kind != KindSynthetic {
		t.Error("default kind is not synthetic")
	}
	if _, err := Load(Config{Kind: "mnist"}, "", "", 1); err == nil || !strings.Contains(err.Error(), "pool.kind") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := Load(Config{Kind: KindFolder}, "", "", 1); err == nil || !strings.Contains(err.Error(), "pool.dir") {
		t.Errorf("folder without dir: %v", err)
	}
}

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "toy.csv", "name,x,y,class\n"+
		"a,0,0,yes\n"+
		"b,1,0,no\n"+
		"c,0,2,yes\n"+
		"d,5,5,no\n"+
		"e,5,6,maybe\n")
	cfg := DefaultConfig(KindCSV).CSV
	cfg.File, cfg.LabelColumn, cfg.IDColumn, cfg.Positive, cfg.K = path, "class", "name", []string{"yes", "maybe"}, 2
	p, err := Load(Config{Kind: KindCSV, CSV: cfg}, "", t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "toy" || fmt.Sprint(p.IDs) != "[a b c d e]" || fmt.Sprint(p.Labels) != "[true false true false true]" || fmt.Sprint(p.Dense[2]) != "[0 2]" {
		t.Errorf("pool %q %v %v %v", p.Name, p.IDs, p.Labels, p.Dense)
	}
	// Nearest of a=(0,0): b (1), c (2). Of e=(5,6): d (1), c (sqrt 41).
	if fmt.Sprint(p.Neighbors[0]) != "[1 2]" || fmt.Sprint(p.Neighbors[4]) != "[3 2]" {
		t.Errorf("neighbours %v", p.Neighbors)
	}
	// Numeric labels (> 0) and booleans without a positive list; selected
	// feature columns; cosine.
	path2 := writeFile(t, dir, "num.csv", "x,y,z,label\n1,0,9,1\n0,1,9,0\n1,1,9,-2\n2,1,9,true\n")
	cfg2 := DefaultConfig(KindCSV).CSV
	cfg2.File, cfg2.FeatureColumns, cfg2.Metric, cfg2.K, cfg2.Similarity = path2, []string{"x", "y"}, knn.MetricCosine, 1, knn.SimilarityNative
	p2, err := LoadCSV(cfg2, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p2.Labels) != "[true false false true]" || len(p2.Dense[0]) != 2 {
		t.Errorf("labels %v features %v", p2.Labels, p2.Dense)
	}
	// (1,1) is nearest to (2,1) by angle; weight = cosine similarity 3/sqrt(10).
	if p2.Neighbors[3][0] != 2 || math.Abs(p2.Weights[3][0]-3/math.Sqrt(10)) > 1e-12 {
		t.Errorf("cosine neighbour %v %v", p2.Neighbors[3], p2.Weights[3])
	}
	// Standardize: a constant column becomes 0, others mean 0 sd 1.
	cfg2.FeatureColumns, cfg2.Metric, cfg2.Similarity, cfg2.Standardize = []string{"x", "z"}, knn.MetricEuclidean, knn.SimilarityGaussian, true
	p3, err := LoadCSV(cfg2, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	var s, ss float64
	for _, row := range p3.Dense {
		s += row[0]
		ss += row[0] * row[0]
		if row[1] != 0 {
			t.Errorf("constant column standardised to %v", row[1])
		}
	}
	if math.Abs(s) > 1e-12 || math.Abs(ss/4-1) > 1e-12 {
		t.Errorf("standardised column sum %v, mean square %v", s, ss/4)
	}
	errs := []struct {
		content, want string
		mod           func(c *CSVConfig)
	}{
		{"x,label\n1,1\n2,0\n", `pool.csv.label_column = "class": no such column`, func(c *CSVConfig) { c.LabelColumn = "class" }},
		{"x,label\n1,1\n2,zz\n", "line 3", nil},
		{"x,label\n1,1\nfoo,0\n", `line 3, column "x": "foo"`, nil},
		{"x,label\n1,1\n2\n", "line 3: 1 cells", nil},
		{"x,label\n1,0\n2,0\n", "no positive row", nil},
		{"x,label\n1,1\n", "1 data rows", nil},
		{"x,x,label\n1,1,1\n2,2,0\n", "twice", nil},
		{"x,label\n1,1\n2,0\n", "pool.csv.metric", func(c *CSVConfig) { c.Metric = "l1" }},
		{"x,label\n1,1\n2,0\n", "pool.csv.k", func(c *CSVConfig) { c.K = 2 }},
		{"x,label\n1,1\nNaN,0\n", "not a finite number", nil},
		{"", "empty file", nil},
		{"id,x,label\na,1,1\nb,2,0\na,3,0\n", `line 4, column "id": id "a" repeats line 2`, func(c *CSVConfig) { c.IDColumn = "id" }},
		{"id,x,label\na,1,1\n ,2,0\n", `line 3, column "id": empty id`, func(c *CSVConfig) { c.IDColumn = "id" }},
	}
	for _, tc := range errs {
		c := DefaultConfig(KindCSV).CSV
		c.File, c.K = writeFile(t, t.TempDir(), "e.csv", tc.content), 1
		if tc.mod != nil {
			tc.mod(&c)
		}
		if _, err := LoadCSV(c, "", 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.content, err, tc.want)
		}
	}
}

// writeIDX writes a gzipped IDX file: magic, big-endian dims, bytes.
func writeIDX(t *testing.T, path string, magic uint32, dims []uint32, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	binary.Write(z, binary.BigEndian, magic)
	binary.Write(z, binary.BigEndian, dims)
	z.Write(data)
	z.Close()
	f.Close()
}

// tinyFashion writes 6 training and 3 test images of 2x3 pixels whose
// pixels encode (part, index) so the train-then-test order is visible.
func tinyFashion(t *testing.T) (string, [][]uint8, []uint8) {
	dir := t.TempDir()
	var imgs [][]uint8
	var labels []uint8
	for part, n := range []int{6, 3} {
		var pix, lab []byte
		for i := 0; i < n; i++ {
			img := []uint8{uint8(40 * i), uint8(part * 100), uint8(i * i), 7, uint8(250 - 30*i), uint8((i * 37) % 256)}
			pix = append(pix, img...)
			lab = append(lab, uint8((i+part)%3))
			imgs = append(imgs, img)
			labels = append(labels, uint8((i+part)%3))
		}
		writeIDX(t, filepath.Join(dir, fashionFiles[2*part]), idxImagesMagic, []uint32{uint32(n), 2, 3}, pix)
		writeIDX(t, filepath.Join(dir, fashionFiles[2*part+1]), idxLabelsMagic, []uint32{uint32(n)}, lab)
	}
	return dir, imgs, labels
}

func TestLoadFashionTiny(t *testing.T) {
	dir, imgs, labels := tinyFashion(t)
	im, lab, err := readFashionMNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	if im.N != 9 || im.Rows != 2 || im.Cols != 3 || !slices.Equal(lab, labels) || !slices.Equal(im.Pixels[6*8:6*9], imgs[8]) {
		t.Fatalf("read %d images %dx%d, labels %v", im.N, im.Rows, im.Cols, lab)
	}
	cfg := DefaultConfig(KindFashion).Fashion
	cfg.Dir, cfg.Components, cfg.K, cfg.Classes = dir, 6, 3, []int{1, 2}
	cache := t.TempDir()
	p, err := Load(Config{Kind: KindFashion, Fashion: cfg}, "/unused", cache, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range labels {
		if p.Labels[i] != (l == 1 || l == 2) {
			t.Errorf("item %d label %v for class %d", i, p.Labels[i], l)
		}
	}
	// With all 6 components, PCA is a rotation of the centred pixels/255:
	// pairwise distances are preserved.
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			var s float64
			for c := range imgs[i] {
				e := (float64(imgs[i][c]) - float64(imgs[j][c])) / 255
				s += e * e
			}
			if math.Abs(p.Distance(i, j)-math.Sqrt(s)) > 1e-12 {
				t.Fatalf("distance(%d,%d) = %v, pixel distance %v", i, j, p.Distance(i, j), math.Sqrt(s))
			}
		}
	}
	// Second load hits the PCA and kNN caches and gives the same pool.
	q, err := loadFashion(cfg, "", cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Error("cached reload differs")
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "pca"))
	if len(entries) != 1 {
		t.Errorf("%d PCA cache files, want 1", len(entries))
	}
	// bandwidth_scale 2: weights exp(-d²/(2 h²)), h² the lower median of
	// the squared edge distances (recomputed here from the distances).
	var d2 []float64
	for i, row := range p.Neighbors {
		for _, j := range row {
			d := p.Distance(i, int(j))
			d2 = append(d2, d*d)
		}
	}
	slices.Sort(d2)
	h2 := d2[(len(d2)-1)/2]
	cfg.BandwidthScale = 2
	r, err := loadFashion(cfg, "", cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range r.Neighbors {
		for k, j := range row {
			d := p.Distance(i, int(j))
			if want := math.Exp(-d * d / (2 * h2)); math.Abs(r.Weights[i][k]-want) > 1e-12 {
				t.Fatalf("bandwidth_scale 2: weight (%d, %d) = %v, want %v", i, j, r.Weights[i][k], want)
			}
		}
	}
}

func TestFashionErrors(t *testing.T) {
	dir, _, _ := tinyFashion(t)
	// Label count mismatch.
	writeIDX(t, filepath.Join(dir, fashionFiles[3]), idxLabelsMagic, []uint32{2}, []byte{0, 1})
	if _, _, err := readFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "2 labels but") {
		t.Errorf("mismatch: %v", err)
	}
	// Wrong magic.
	writeIDX(t, filepath.Join(dir, fashionFiles[3]), idxImagesMagic, []uint32{3, 1, 1}, []byte{0, 1, 2})
	if _, _, err := readFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("magic: %v", err)
	}
	// Truncated data.
	writeIDX(t, filepath.Join(dir, fashionFiles[3]), idxLabelsMagic, []uint32{3}, []byte{0})
	if _, _, err := readFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "shorter") {
		t.Errorf("truncated: %v", err)
	}
	// Not gzip.
	os.WriteFile(filepath.Join(dir, fashionFiles[0]), []byte("plain"), 0o644)
	if _, _, err := readFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("not gzip: %v", err)
	}
	d2, _, _ := tinyFashion(t)
	cfg := DefaultConfig(KindFashion).Fashion
	cfg.Dir, cfg.K = d2, 3
	for key, mod := range map[string]func(c *FashionConfig){
		"pool.fashion.components":      func(c *FashionConfig) { c.Components = 7 },
		"pool.fashion.classes":         func(c *FashionConfig) { c.Classes = []int{9} },
		"pool.fashion.k":               func(c *FashionConfig) { c.K = 9 },
		"pool.fashion.bandwidth_scale": func(c *FashionConfig) { c.BandwidthScale = 0 },
		"applies only to similarity":   func(c *FashionConfig) { c.BandwidthScale, c.Similarity = 2, knn.SimilarityUnweighted },
	} {
		c := cfg
		c.Components = 3
		mod(&c)
		if _, err := loadFashion(c, "", "", 1); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", key, err)
		}
	}
}

func TestReadFashionMNISTReal(t *testing.T) {
	im, labels, err := readFashionMNIST(filepath.Join(testutil.DataDir(t, "fashion-mnist"), "fashion-mnist"))
	if err != nil {
		t.Fatal(err)
	}
	// fashion-mnist/PROVENANCE.md: 60,000 + 10,000 images of 28x28, 7,000
	// per class; the test labels follow the training labels.
	if im.N != 70000 || im.Rows != 28 || im.Cols != 28 || len(labels) != 70000 {
		t.Fatalf("%d images of %dx%d, %d labels", im.N, im.Rows, im.Cols, len(labels))
	}
	count := make([]int, 10)
	for _, l := range labels {
		count[l]++
	}
	for c, n := range count {
		if n != 7000 {
			t.Errorf("class %d has %d images, want 7000", c, n)
		}
	}
}

// TestConfigTags checks that every field of Config and its sections has a
// yaml key (the one tag set: read from a config, written to config.yaml),
// in snake case.
func TestConfigTags(t *testing.T) {
	var check func(rt reflect.Type, path string)
	check = func(rt reflect.Type, path string) {
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			ym, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if ym == "" || ym == "-" || strings.ToLower(ym) != ym || f.Tag.Get("mapstructure") != "" {
				t.Errorf("%s.%s: yaml %q (want a snake-case key and no other tag)", path, f.Name, ym)
			}
			if f.Type.Kind() == reflect.Struct {
				check(f.Type, path+"."+ym)
			}
		}
	}
	check(reflect.TypeOf(Config{}), "pool")
}

// BenchmarkFashion times the real Fashion-MNIST pipeline without caches:
// reading the IDX files, PCA of the 70,000 x 784 pixels to 50 components,
// and the exact kNN graph (k = 50) on the scores.
func BenchmarkFashion(b *testing.B) {
	dir := filepath.Join(testutil.DataDir(b, "fashion-mnist"), "fashion-mnist")
	im, _, err := readFashionMNIST(dir)
	if err != nil {
		b.Fatal(err)
	}
	size := im.Size()
	row := func(i int, dst []float64) {
		for c, v := range im.Pixels[i*size : (i+1)*size] {
			dst[c] = float64(v) / 255
		}
	}
	var res *linalg.PCAResult
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := readFashionMNIST(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pca=50", func(b *testing.B) {
		for b.Loop() {
			if res, err = linalg.PCA(im.N, size, 50, row, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(res.Explained, "explained")
	})
	if res == nil {
		res, _ = linalg.PCA(im.N, size, 50, row, 0)
	}
	b.Run("knn,d=50,k=50", func(b *testing.B) {
		for b.Loop() {
			if _, err := knn.DenseKNN(res.Scores, 50, knn.MetricEuclidean, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoadSynthetic: the default pool of `qvs as` with no config,
// without a cache.
func BenchmarkLoadSynthetic(b *testing.B) {
	for b.Loop() {
		if _, err := Load(DefaultConfig(""), "", "", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSyntheticSizeBounds: every count of pool.synthetic that sizes an
// allocation is bounded before anything is allocated (n = 10^11
// ended in a Go out-of-memory stack trace; dim and clusters likewise),
// and so is a kNN graph's n x k (fashion, csv and synthetic pools).
func TestSyntheticSizeBounds(t *testing.T) {
	const huge = 100_000_000_000
	for _, c := range []struct {
		want string
		mod  func(c *SyntheticConfig)
	}{
		{"pool.synthetic.n: 100000000000, expected 2 to 1000000", func(c *SyntheticConfig) { c.N = huge }},
		{"pool.synthetic.dim: 100000000000, expected 1 to 25000 (n x dim = 4000 x dim", func(c *SyntheticConfig) { c.Dim = huge }},
		{"pool.synthetic.clusters: 100000000000, expected 1 to n = 4000", func(c *SyntheticConfig) { c.Clusters = huge }},
		{"pool.synthetic.k = 21: expected at most 20 for 1000000 items", func(c *SyntheticConfig) { c.N, c.K = maxSyntheticN, 21 }},
	} {
		cfg := DefaultConfig("").Synthetic
		c.mod(&cfg)
		if _, err := loadSynthetic(cfg, "", 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if err := checkGraphSize("pool.csv.k", 200, 100_000, "rows of x.csv"); err != nil {
		t.Errorf("100,000 x 200 edges = the bound, refused: %v", err)
	}
	if err := checkGraphSize("pool.csv.k", 201, 100_000, "rows of x.csv"); err == nil || !strings.Contains(err.Error(), "pool.csv.k = 201: expected at most 200 for 100000 rows of x.csv") {
		t.Errorf("one edge per row over the bound: %v", err)
	}
}
