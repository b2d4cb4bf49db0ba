package datasets

import (
	"math"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

// TestGraphCSR: the CSR arrays of a 3-item graph written out by hand
// (scipy's layout: indptr, then each row's columns and weights in order).
func TestGraphCSR(t *testing.T) {
	p := &Pool{
		Neighbors: [][]int32{{2, 1}, {0}, {1, 0}},
		Weights:   [][]float64{{0.9, 0.5}, {0.7}, {0.8, 0.25}},
	}
	p.Labels = make([]bool, 3)
	m := p.GraphCSR()
	if m.Rows != 3 || m.Cols != 3 || !slices.Equal(m.Indptr, []int{0, 2, 3, 5}) ||
		!slices.Equal(m.Indices, []int{2, 1, 0, 1, 0}) || !slices.Equal(m.Data, []float64{0.9, 0.5, 0.7, 0.8, 0.25}) {
		t.Errorf("CSR %+v", m)
	}
}

// TestCachedLoadSeconds: the load without the build and the cache write,
// plus 3x the hashing time per byte over the cache file: 100 items x 4
// features = 3,200 bytes hashed in 0.01 s, a 6,400-byte cache file read in
// 3 x 0.02 s.
func TestCachedLoadSeconds(t *testing.T) {
	p := &Pool{Dense: make([][]float64, 100), Labels: make([]bool, 100)}
	for i := range p.Dense {
		p.Dense[i] = make([]float64, 4)
	}
	p.Graph.Seconds, p.Graph.WriteSeconds, p.Graph.KeySeconds, p.Graph.CacheBytes = 5, 0.5, 0.01, 6400
	if got, want := p.CachedLoadSeconds(7), 7-5-0.5+0.06; math.Abs(got-want) > 1e-12 {
		t.Errorf("CachedLoadSeconds = %v, want %v", got, want)
	}
}

// TestRecordKNN: what config.yaml records for each graph method of a CSV
// pool, and the candidates before the build: auto may be either.
func TestRecordKNN(t *testing.T) {
	c := DefaultConfig(KindCSV)
	c.CSV.KNN = knn.KNNAuto
	if got := c.RecordedKNN(); !slices.Equal(got, []string{"", knn.KNNApprox}) {
		t.Errorf("auto: %q", got)
	}
	for knn, want := range map[string]string{knn.KNNApprox: knn.KNNApprox, knn.KNNExact: ""} {
		c.CSV.KNN = knn
		if got := c.RecordedKNN(); !slices.Equal(got, []string{want}) {
			t.Errorf("%s: %q", knn, got)
		}
	}
	c.RecordKNN(knn.KNNApprox)
	if c.CSV.KNN != knn.KNNApprox {
		t.Errorf("built approx: recorded %q", c.CSV.KNN)
	}
	c.RecordKNN(knn.KNNExact)
	if c.CSV.KNN != "" {
		t.Errorf("built exact: recorded %q", c.CSV.KNN)
	}
	f := DefaultConfig(KindFolder)
	f.CSV.KNN = "kept"
	f.RecordKNN(knn.KNNApprox)
	if f.CSV.KNN != "kept" || !slices.Equal(f.RecordedKNN(), []string{"kept"}) {
		t.Errorf("folder pool changed: %q", f.CSV.KNN)
	}
}
