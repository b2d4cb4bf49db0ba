package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

func TestSetGraphDropsZeroWeights(t *testing.T) {
	p := &Pool{Labels: make([]bool, 3), Dense: [][]float64{{0}, {1}, {5}}, Metric: knn.MetricEuclidean}
	g := &knn.KNNGraph{N: 3, K: 2, Index: []int32{1, 2, 0, 2, 1, 0}, Distance: []float64{1, 5, 1, 4, 4, 5}}
	p.SetGraph(g, []float64{0.5, 0, 0.5, 0.1, 0.1, 0})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(p.Neighbors[0]) != 1 || p.Neighbors[0][0] != 1 || len(p.Neighbors[2]) != 1 || p.Weights[1][1] != 0.1 {
		t.Errorf("graph %v %v", p.Neighbors, p.Weights)
	}
}

func TestPoolMethods(t *testing.T) {
	p := &Pool{Name: "t", Labels: []bool{true, false, false, true}, Dense: [][]float64{{0, 0}, {3, 4}, {1, 0}, {0, 2}}, Metric: knn.MetricEuclidean,
		Neighbors: [][]int32{{2}, {3}, {0}, {0}}, Weights: [][]float64{{1}, {0.5}, {0.5}, {0.25}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.PositiveCount() != 2 || p.Prevalence() != 0.5 {
		t.Errorf("positives %d prevalence %v", p.PositiveCount(), p.Prevalence())
	}
	if d := p.Distance(0, 1); d != 5 {
		t.Errorf("euclidean %v", d)
	}
	p.Metric = knn.MetricCosine
	// (3,4) vs (1,0): cos = 3/5.
	if d := p.Distance(1, 2); math.Abs(d-0.4) > 1e-15 {
		t.Errorf("cosine %v, want 0.4", d)
	}
	if d := p.Distance(2, 3); d != 1 {
		t.Errorf("orthogonal cosine %v, want 1", d)
	}
	if (&Pool{}).Prevalence() != 0 {
		t.Error("empty prevalence")
	}
	bad := []struct {
		name   string
		modify func(q *Pool)
		want   string
	}{
		{"self loop", func(q *Pool) { q.Neighbors[1] = []int32{1} }, "other than itself"},
		{"out of range", func(q *Pool) { q.Neighbors[1] = []int32{4} }, "0..3"},
		{"repeat", func(q *Pool) { q.Neighbors[1] = []int32{0, 0}; q.Weights[1] = []float64{1, 1} }, "distinct"},
		{"zero weight", func(q *Pool) { q.Weights[1] = []float64{0} }, "(0, 1]"},
		{"big weight", func(q *Pool) { q.Weights[1] = []float64{1.5} }, "(0, 1]"},
		{"nan weight", func(q *Pool) { q.Weights[1] = []float64{math.NaN()} }, "(0, 1]"},
		{"tanimoto on dense", func(q *Pool) { q.Metric = knn.MetricTanimoto }, "does not apply"},
		{"both features", func(q *Pool) { q.Bits = make([][]uint64, 4) }, "both"},
		{"ids", func(q *Pool) { q.IDs = []string{"a"} }, "IDs"},
		{"nan feature", func(q *Pool) { q.Dense[2] = []float64{math.NaN(), 0} }, "NaN"},
		{"ragged", func(q *Pool) { q.Dense[2] = []float64{1} }, "features"},
		{"missing rows", func(q *Pool) { q.Weights = q.Weights[:3] }, "weight rows"},
	}
	for _, tc := range bad {
		q := *p
		q.Metric = knn.MetricEuclidean
		q.Neighbors = slices.Clone(p.Neighbors)
		q.Weights = slices.Clone(p.Weights)
		q.Dense = slices.Clone(p.Dense)
		tc.modify(&q)
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// setGraphRows is SetGraph's layout before it took the graph over: a fresh
// pair of slices per row (the reference of TestSetGraphLayout).
func setGraphRows(g *knn.KNNGraph, weights []float64) ([][]int32, [][]float64) {
	nbr, ws := make([][]int32, g.N), make([][]float64, g.N)
	for i := range g.N {
		nbr[i], ws[i] = []int32{}, []float64{}
		for m := i * g.K; m < (i+1)*g.K; m++ {
			if weights[m] > 0 {
				nbr[i] = append(nbr[i], g.Index[m])
				ws[i] = append(ws[i], weights[m])
			}
		}
	}
	return nbr, ws
}

// TestSetGraphLayout: the rows SetGraph makes as views of the graph's
// arrays equal the per-row copies on random graphs (weights 0 dropped,
// repeated neighbours kept in order), rows of n = 1 (k = 0) and k = n - 1,
// and appending to one row never overwrites the next.
func TestSetGraphLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for _, c := range []struct{ n, k int }{{1, 0}, {2, 1}, {5, 4}, {50, 7}, {300, 20}} {
		g := &knn.KNNGraph{N: c.n, K: c.k, Index: make([]int32, c.n*c.k), Distance: make([]float64, c.n*c.k)}
		w := make([]float64, c.n*c.k)
		for m := range g.Index {
			g.Index[m] = int32((m/max(c.k, 1) + 1 + rng.IntN(max(c.n-1, 1))) % c.n)
			if rng.IntN(4) > 0 { // a quarter of the edges weigh 0
				w[m] = rng.Float64() + 0.01
			}
			if m%5 == 0 && m > 0 && m%c.k != 0 {
				g.Index[m] = g.Index[m-1] // repeated neighbours
			}
		}
		wantN, wantW := setGraphRows(g, w)
		p := &Pool{Labels: make([]bool, c.n)}
		p.SetGraph(g, w)
		for i := range c.n {
			if !slices.Equal(p.Neighbors[i], wantN[i]) || !slices.Equal(p.Weights[i], wantW[i]) {
				t.Fatalf("n %d k %d row %d: %v %v, want %v %v", c.n, c.k, i, p.Neighbors[i], p.Weights[i], wantN[i], wantW[i])
			}
		}
		for i := 0; i+1 < c.n; i++ {
			next := slices.Clone(p.Neighbors[i+1])
			_ = append(p.Neighbors[i], -7)
			_ = append(p.Weights[i], -7)
			if !slices.Equal(p.Neighbors[i+1], next) || slices.Contains(p.Weights[i+1], -7) {
				t.Fatalf("n %d k %d: appending to row %d changed row %d", c.n, c.k, i, i+1)
			}
		}
	}
}
