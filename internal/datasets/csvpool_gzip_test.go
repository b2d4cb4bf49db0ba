package datasets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

// loadPlainAndGzip loads body as pool.csv (byte ranges in parallel when
// parallel) and as its gzip-compressed copy pool.csv.gz (row by row), and
// fails unless both give the same pool or the same error (with the file
// name changed). It returns the plain file's error.
func loadPlainAndGzip(t *testing.T, dir, body string, parallel bool, metric, fpColumn string) error {
	t.Helper()
	plain := filepath.Join(dir, "pool.csv")
	gz := filepath.Join(dir, "pool.csv.gz")
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(body))
	z.Close()
	if err := os.WriteFile(plain, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := parallelCSVMinBytes
	defer func() { parallelCSVMinBytes = saved }()
	if parallel {
		parallelCSVMinBytes = 0
	}
	load := func(path string) (*Pool, error) {
		cfg := DefaultConfig(KindCSV).CSV
		cfg.File, cfg.K, cfg.Metric, cfg.FingerprintColumn = path, 2, metric, fpColumn
		if fpColumn == "" {
			cfg.FeaturePrefix, cfg.IDColumn = "x", "id"
		}
		return Load(Config{Kind: KindCSV, CSV: cfg}, "", "", 2)
	}
	pp, perr := load(plain)
	gp, gerr := load(gz)
	if perr != nil || gerr != nil {
		if gerr == nil || perr == nil || strings.ReplaceAll(gerr.Error(), gz, plain) != perr.Error() {
			t.Fatalf("plain error %v, gzip error %v", perr, gerr)
		}
		return perr
	}
	if pp.Name != gp.Name || !reflect.DeepEqual(pp.Dense, gp.Dense) || !reflect.DeepEqual(pp.Bits, gp.Bits) ||
		!reflect.DeepEqual(pp.IDs, gp.IDs) || !reflect.DeepEqual(pp.Labels, gp.Labels) ||
		!reflect.DeepEqual(pp.Neighbors, gp.Neighbors) || !reflect.DeepEqual(pp.Weights, gp.Weights) {
		t.Fatalf("the gzip pool differs from the plain one")
	}
	if len(pp.Labels) == 0 {
		t.Fatalf("empty pool")
	}
	return nil
}

// A pool.csv.gz loads as the pool.csv it holds: features, ids, labels,
// fingerprints and graph, read serially against the plain file's parallel
// and serial reads; a broken row fails on the same line.
func TestLoadCSVGzip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 1))
	failed := 0
	for trial := range 12 {
		if loadPlainAndGzip(t, dir, randomPoolCSV(rng, trial%2 == 1), trial%3 != 0, knn.MetricEuclidean, "") != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("no broken pool failed")
	}
	var fp strings.Builder
	fp.WriteString("id,fp,label\n")
	for i := range 40 {
		bits := make([]byte, 64)
		for j := range bits {
			bits[j] = '0' + byte(rng.IntN(2))
		}
		fmt.Fprintf(&fp, "m%d,%s,%d\n", i, bits, i%3/2)
	}
	if err := loadPlainAndGzip(t, dir, fp.String(), false, knn.MetricTanimoto, "fp"); err != nil {
		t.Fatal(err)
	}
}
