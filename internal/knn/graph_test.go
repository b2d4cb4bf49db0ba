package knn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestEdgeWeights(t *testing.T) {
	// 3 items, k = 2; distances chosen so the median squared distance is 4.
	g := &KNNGraph{N: 3, K: 2, Metric: MetricCosine,
		Index:    []int32{1, 2, 0, 2, 0, 1},
		Distance: []float64{1, 2, 1, 3, 2, 3}}
	w, err := EdgeWeights(g, SimilarityGaussian)
	if err != nil {
		t.Fatal(err)
	}
	// squared distances sorted: 1 1 4 4 9 9 -> lower median 4.
	if h := gaussianBandwidth(g); h != 4 {
		t.Errorf("bandwidth %v, want 4", h)
	}
	for e, d := range g.Distance {
		if want := math.Exp(-d * d / 4); math.Abs(w[e]-want) > 1e-15 {
			t.Errorf("gaussian weight %d = %v, want %v", e, w[e], want)
		}
	}
	w, _ = EdgeWeights(g, SimilarityNative) // cosine distances >= 1: similarity clipped at 0
	if !slices.Equal(w, []float64{0, 0, 0, 0, 0, 0}) {
		t.Errorf("native weights %v", w)
	}
	w, _ = EdgeWeights(g, SimilarityUnweighted)
	if !slices.Equal(w, []float64{1, 1, 1, 1, 1, 1}) {
		t.Errorf("unweighted %v", w)
	}
	g.Metric = MetricEuclidean
	if _, err := EdgeWeights(g, SimilarityNative); err == nil {
		t.Error("native similarity accepted for euclidean")
	}
	if _, err := EdgeWeights(g, "rbf"); err == nil || !strings.Contains(err.Error(), "rbf") {
		t.Errorf("unknown similarity: %v", err)
	}
	// All duplicates: bandwidth falls back to 1.
	if h := gaussianBandwidth(&KNNGraph{Distance: []float64{0, 0, 0}}); h != 1 {
		t.Errorf("all-zero bandwidth %v, want 1", h)
	}
	if h := gaussianBandwidth(&KNNGraph{Distance: []float64{0, 0, 0, 3}}); h != 9 {
		t.Errorf("mostly-zero bandwidth %v, want 9", h)
	}
}

// TestKthSmallest: quickselect against the sorted slice, on random values,
// heavy ties, sorted and reversed input, and every k of small slices.
func TestKthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var cases [][]float64
	for _, n := range []int{1, 2, 3, 5, 8, 33, 1000} {
		r := make([]float64, n)
		ties := make([]float64, n)
		asc := make([]float64, n)
		for i := range r {
			r[i] = rng.NormFloat64()
			ties[i] = float64(rng.IntN(3))
			asc[i] = float64(i)
		}
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		cases = append(cases, r, ties, asc, desc)
	}
	for _, c := range cases {
		want := slices.Sorted(slices.Values(c))
		for k := range c {
			if got := kthSmallest(slices.Clone(c), k); got != want[k] {
				t.Fatalf("n=%d k=%d: %v, want %v", len(c), k, got, want[k])
			}
		}
	}
}

// EdgeWeights and edgeWeightsInPlace (over the distances) give the weights
// bit for bit as computed from the squared distances: random graphs with repeated, zero, negative (cosine rounding),
// tiny (squares underflowing to 0) and huge distances.
func TestEdgeWeightsInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	draws := map[string]func() float64{
		"uniform":    func() float64 { return rng.Float64() * 3 },
		"repeated":   func() float64 { return float64(rng.IntN(4)) / 2 },
		"mostly 0":   func() float64 { return float64(rng.IntN(8)/7) * rng.Float64() },
		"all 0":      func() float64 { return 0 },
		"signed":     func() float64 { return rng.Float64() - 0.02 },
		"underflow":  func() float64 { return float64(rng.IntN(3)) * 1e-170 * (1 + rng.Float64()) },
		"wide range": func() float64 { return math.Exp(rng.NormFloat64() * 40) },
	}
	for name, draw := range draws {
		for _, n := range []int{1, 2, 7, 500} {
			k := 3
			g := &KNNGraph{N: n, K: k, Metric: MetricCosine, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
			for e := range g.Distance {
				g.Distance[e] = draw()
			}
			// The weights as EdgeWeights computed them before it went
			// through edgeWeightsInPlace: the bandwidth from the squared
			// distances by quickselect.
			d2 := make([]float64, len(g.Distance))
			for e, d := range g.Distance {
				d2[e] = d * d
			}
			h2 := bandwidthOfSquares(d2)
			wants := map[string][]float64{SimilarityGaussian: {}, SimilarityNative: {}, SimilarityUnweighted: {}}
			for _, d := range g.Distance {
				wants[SimilarityGaussian] = append(wants[SimilarityGaussian], math.Exp(-d*d/h2))
				wants[SimilarityNative] = append(wants[SimilarityNative], min(max(1-d, 0), 1))
				wants[SimilarityUnweighted] = append(wants[SimilarityUnweighted], 1)
			}
			for _, sim := range []string{SimilarityGaussian, SimilarityNative, SimilarityUnweighted} {
				want := wants[sim]
				if got, err := EdgeWeights(g, sim); err != nil || !slices.Equal(got, want) {
					t.Fatalf("%s, n = %d: EdgeWeights(%s) %v, %v, want %v", name, n, sim, got, err, want)
				}
				h := *g
				h.Distance = slices.Clone(g.Distance)
				got, err := edgeWeightsInPlace(&h, sim)
				if err != nil {
					t.Fatal(err)
				}
				if h.Distance != nil {
					t.Fatalf("%s, n = %d, %s: the distances were kept", name, n, sim)
				}
				for e := range want {
					if math.Float64bits(got[e]) != math.Float64bits(want[e]) {
						t.Fatalf("%s, n = %d, %s: weight %d = %v, want %v (distance %v)", name, n, sim, e, got[e], want[e], g.Distance[e])
					}
				}
			}
		}
	}
	// Errors leave the distances alone.
	g := &KNNGraph{N: 2, K: 1, Metric: MetricEuclidean, Index: []int32{1, 0}, Distance: []float64{0.5, 0.5}}
	for _, sim := range []string{SimilarityNative, "rbf"} {
		if _, err := edgeWeightsInPlace(g, sim); err == nil || !slices.Equal(g.Distance, []float64{0.5, 0.5}) {
			t.Errorf("%s on a euclidean graph: error %v, distances %v", sim, err, g.Distance)
		}
	}
}

// kthMagnitude against sorting the magnitudes.
func TestKthMagnitude(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 2, 3, 10, 1000} {
		x := make([]float64, n)
		for e := range x {
			switch rng.IntN(4) {
			case 0:
				x[e] = 0
			case 1:
				x[e] = -rng.Float64()
			case 2:
				x[e] = float64(rng.IntN(3))
			default:
				x[e] = rng.ExpFloat64() * 1e-300
			}
		}
		orig := slices.Clone(x)
		abs := make([]float64, n)
		for e, v := range x {
			abs[e] = math.Abs(v)
		}
		slices.Sort(abs)
		for k := range n {
			if got := kthMagnitude(x, k); got != abs[k] {
				t.Fatalf("n = %d: magnitude %d is %v, want %v", n, k, got, abs[k])
			}
		}
		if !slices.Equal(x, orig) {
			t.Fatal("kthMagnitude reordered its input")
		}
	}
}

// bandwidthOfSquares is the Gaussian bandwidth as gaussianBandwidth
// defines it, computed directly: quickselect on the squared distances
// (reordered), then the smallest positive square if the median is 0: the
// reference for bandwidthOfDistances.
func bandwidthOfSquares(d2 []float64) float64 {
	if len(d2) == 0 {
		return 1
	}
	h2 := kthSmallest(d2, (len(d2)-1)/2)
	if h2 > 0 {
		return h2
	}
	least := math.Inf(1)
	for _, v := range d2 {
		if v > 0 && v < least {
			least = v
		}
	}
	if math.IsInf(least, 1) {
		return 1
	}
	return least
}
