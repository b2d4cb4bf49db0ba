package knn

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bruteKNN is the definition: sort every other item by (distance, index).
func bruteKNN(n, k int, dist func(i, j int) float64) ([]int32, []float64) {
	idx := make([]int32, 0, n*k)
	ds := make([]float64, 0, n*k)
	for i := range n {
		var c []candidate
		for j := range n {
			if j != i {
				c = append(c, candidate{dist(i, j), int32(j)})
			}
		}
		slices.SortFunc(c, func(a, b candidate) int {
			if s := cmp.Compare(a.v, b.v); s != 0 {
				return s
			}
			return cmp.Compare(a.j, b.j)
		})
		for _, e := range c[:k] {
			idx = append(idx, e.j)
			ds = append(ds, e.v)
		}
	}
	return idx, ds
}

func checkGraph(t *testing.T, name string, g *KNNGraph, idx []int32, ds []float64) {
	t.Helper()
	for m := range idx {
		if g.Index[m] != idx[m] || g.Distance[m] != ds[m] {
			i := m / g.K
			t.Fatalf("%s: row %d differs:\n got %v %v\nwant %v %v", name, i,
				g.Neighbors(i), g.Distances(i), idx[i*g.K:(i+1)*g.K], ds[i*g.K:(i+1)*g.K])
		}
	}
}

// randomPoints draws n points in d dims from a few clusters, then copies
// some rows exactly (duplicates make ties that must go to the lower index).
func randomPoints(rng *rand.Rand, n, d int, offset float64) [][]float64 {
	x := make([][]float64, n)
	centres := make([][]float64, 5)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range centres[c] {
			centres[c][j] = offset + 10*rng.NormFloat64()
		}
	}
	for i := range x {
		x[i] = make([]float64, d)
		c := centres[rng.IntN(len(centres))]
		for j := range x[i] {
			x[i][j] = c[j] + rng.NormFloat64()
		}
	}
	for range n / 10 {
		copy(x[rng.IntN(n)], x[rng.IntN(n)])
	}
	return x
}

func TestDenseKNNMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		n, d, k int
		metric  string
		offset  float64 // far from the origin: centring must keep it exact
		workers int
	}{
		{2, 1, 1, MetricEuclidean, 0, 1},
		{10, 3, 9, MetricEuclidean, 0, 2},
		{300, 4, 5, MetricEuclidean, 0, 2},
		{300, 4, 5, MetricEuclidean, 1e4, 3},
		{500, 7, 70, MetricEuclidean, 0, 2}, // k larger than a leaf
		{400, 1, 3, MetricEuclidean, 0, 1},  // one dimension: many ties
		{300, 5, 8, MetricCosine, 0, 2},
		{300, 5, 8, MetricCosine, 3, 2},
		{600, 30, 10, MetricEuclidean, 0, 2},  // prefix filter: 10 of 30 axes
		{400, 60, 25, MetricEuclidean, 50, 2}, // 20 of 60 axes, off-centre
		{400, 24, 6, MetricCosine, 1, 2},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("n=%d,d=%d,k=%d,%s,offset=%g", tc.n, tc.d, tc.k, tc.metric, tc.offset)
		x := randomPoints(rng, tc.n, tc.d, tc.offset)
		if tc.d == 1 {
			for i := range x { // integers: exact ties everywhere
				x[i][0] = float64(rng.IntN(20))
			}
		}
		g, err := DenseKNN(x, tc.k, tc.metric, tc.workers)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dist := func(i, j int) float64 { return euclidean(x[i], x[j]) }
		if tc.metric == MetricCosine {
			dist = func(i, j int) float64 { return cosineDistance(x[i], x[j]) }
		}
		idx, ds := bruteKNN(tc.n, tc.k, dist)
		checkGraph(t, name, g, idx, ds)
	}
}

func TestDenseKNNErrors(t *testing.T) {
	tests := []struct {
		name   string
		x      [][]float64
		k      int
		metric string
	}{
		{"one item", [][]float64{{1}}, 1, MetricEuclidean},
		{"k too large", [][]float64{{1}, {2}}, 2, MetricEuclidean},
		{"k zero", [][]float64{{1}, {2}}, 0, MetricEuclidean},
		{"ragged", [][]float64{{1}, {2, 3}}, 1, MetricEuclidean},
		{"nan", [][]float64{{1}, {nan()}}, 1, MetricEuclidean},
		{"zero vector cosine", [][]float64{{1, 0}, {0, 0}}, 1, MetricCosine},
		{"bad metric", [][]float64{{1}, {2}}, 1, "manhattan"},
		{"empty vectors", [][]float64{{}, {}}, 1, MetricEuclidean},
	}
	for _, tc := range tests {
		if _, err := DenseKNN(tc.x, tc.k, tc.metric, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestBitsKNNMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct{ n, words, k int }{{2, 1, 1}, {50, 1, 5}, {300, 3, 20}, {300, 3, 299}} {
		b := make([][]uint64, tc.n)
		for i := range b {
			b[i] = make([]uint64, tc.words)
			for w := range b[i] {
				// Sparse random bits (AND of three draws): many equal ratios.
				b[i][w] = rng.Uint64() & rng.Uint64() & rng.Uint64()
			}
			if i%17 == 3 {
				copy(b[i], b[rng.IntN(tc.n)])
			}
		}
		g, err := BitsKNN(b, tc.k, 2)
		if err != nil {
			t.Fatal(err)
		}
		idx, ds := bruteKNN(tc.n, tc.k, func(i, j int) float64 { return 1 - bruteTanimoto(b[i], b[j]) })
		checkGraph(t, fmt.Sprintf("n=%d,k=%d", tc.n, tc.k), g, idx, ds)
	}
}

// bruteTanimoto is |a AND b| / |a OR b| counted bit by bit (1 for two
// empty vectors), the definition the graph's distances must match.
func bruteTanimoto(a, b []uint64) float64 {
	and, or := 0, 0
	for w := range a {
		for bit := range 64 {
			x, y := a[w]>>bit&1, b[w]>>bit&1
			and += int(x & y)
			or += int(x | y)
		}
	}
	if or == 0 {
		return 1
	}
	return float64(and) / float64(or)
}

func BenchmarkDenseKNN(b *testing.B) {
	for _, sz := range []struct{ n, d, k int }{{10000, 50, 50}, {70000, 20, 50}, {70000, 50, 50}} {
		rng := rand.New(rand.NewPCG(1, 1))
		x := randomPoints(rng, sz.n, sz.d, 0)
		b.Run(fmt.Sprintf("n=%d,d=%d,k=%d", sz.n, sz.d, sz.k), func(b *testing.B) {
			for b.Loop() {
				if _, err := DenseKNN(x, sz.k, MetricEuclidean, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }

// BenchmarkBitsKNN: Tanimoto graphs of random sparse 2048-bit fingerprints
// (the photoswitch size, and larger).
func BenchmarkBitsKNN(b *testing.B) {
	for _, n := range []int{1919, 10000} {
		rng := rand.New(rand.NewPCG(1, 1))
		bits := make([][]uint64, n)
		for i := range bits {
			bits[i] = make([]uint64, 32)
			for w := range bits[i] {
				bits[i][w] = rng.Uint64() & rng.Uint64() & rng.Uint64() & rng.Uint64()
			}
		}
		b.Run(fmt.Sprintf("n=%d,k=20", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := BitsKNN(bits, 20, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDenseKNNRefusesHugeFeatures: a feature beyond maxFeature (1e155,
// whose square overflows) is an error naming the item and feature, for
// both metrics and both builds, never a panic or a graph of NaN distances.
func TestDenseKNNRefusesHugeFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := randomPoints(rng, 60, 3, 0)
	x[7][1] = -1e155
	for _, m := range []string{MetricEuclidean, MetricCosine} {
		for _, method := range []string{KNNExact, KNNApprox} {
			_, _, err := BuildGraph("", Dense{F64: x}, nil, 4, m, method, GraphOptions{Workers: 1})
			if err == nil || !strings.Contains(err.Error(), "item 7, feature 1") {
				t.Errorf("%s %s: %v, want an error naming item 7, feature 1", m, method, err)
			}
		}
	}
	x[7][1] = maxFeature
	if _, _, err := BuildGraph("", Dense{F64: x}, nil, 4, MetricEuclidean, KNNExact, GraphOptions{Workers: 1}); err != nil {
		t.Errorf("a feature of %g: %v", maxFeature, err)
	}
}
