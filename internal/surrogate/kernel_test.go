package surrogate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
)

// randomPool is a pool of n packed fingerprints of 128 bits, each bit set
// with probability density, with no kNN graph.
func randomPool(rng *rand.Rand, n int, density float64) *datasets.Pool {
	p := &datasets.Pool{Name: "random", Labels: make([]bool, n), Unlabeled: true, Metric: knn.MetricTanimoto, Bits: make([][]uint64, n)}
	for i := range p.Bits {
		w := make([]uint64, 2)
		for b := 0; b < 128; b++ {
			if rng.Float64() < density {
				w[b/64] |= 1 << (b % 64)
			}
		}
		p.Bits[i] = w
	}
	return p
}

func TestTanimotoByHand(t *testing.T) {
	// a = bits {0,1,2,3}, b = bits {2,3,4}: |a∧b| = 2, |a∨b| = 5.
	a, b := []uint64{0b1111}, []uint64{0b11100}
	if got := Tanimoto(a, b); got != 0.4 {
		t.Errorf("Tanimoto = %v, want 2/5", got)
	}
	if got := Tanimoto([]uint64{0}, []uint64{0}); got != 1 {
		t.Errorf("Tanimoto of two empty fingerprints = %v, want 1 (the pool convention)", got)
	}
	if got := Tanimoto([]uint64{0}, []uint64{1}); got != 0 {
		t.Errorf("Tanimoto of empty and non-empty = %v, want 0", got)
	}
	k := newTanimotoKernel([][]uint64{{0b1111, 1}, {0b11100, 1}, {0, 0}})
	dst := make([]float64, 3)
	k.Fill(0, []int{0, 1, 2}, dst)
	// word 2 adds one shared bit: 3/6.
	if dst[0] != 1 || dst[1] != 0.5 || dst[2] != 0 {
		t.Errorf("Fill = %v, want [1 0.5 0]", dst)
	}
}

func TestMinMaxByHand(t *testing.T) {
	// Σ min(1,2)+min(3,1)+min(0,4) = 1+1+0 = 2; Σ max = 2+3+4 = 9.
	if got := minMax([]float64{1, 3, 0}, []float64{2, 1, 4}); math.Abs(got-2.0/9) > 1e-15 {
		t.Errorf("MinMax = %v, want 2/9", got)
	}
	// On 0/1 vectors minMax is Tanimoto: {0,1} vs {1,2} = 1/3.
	if got := minMax([]float64{1, 1, 0}, []float64{0, 1, 1}); math.Abs(got-1.0/3) > 1e-15 {
		t.Errorf("MinMax on bits = %v, want 1/3", got)
	}
	if got := minMax([]float64{0, 0}, []float64{0, 0}); got != 1 {
		t.Errorf("MinMax of zeros = %v, want 1", got)
	}
}

func TestStationaryByHand(t *testing.T) {
	// d = 1, ℓ = 2: RBF exp(-1/8); Matern-5/2 with s = √5/2:
	// (1 + s + s²/3) e^{-s}.
	s := math.Sqrt(5) / 2
	for _, c := range []struct {
		matern bool
		want   float64
	}{{false, math.Exp(-0.125)}, {true, (1 + s + s*s/3) * math.Exp(-s)}} {
		if got := stationary(c.matern, 1, 2); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("stationary(matern=%v) = %v, want %v", c.matern, got, c.want)
		}
	}
	k := stationaryKernel{rowsKernel: rowsKernel{dense: [][]float64{{0, 0}, {3, 4}}}, ell: 5}
	dst := make([]float64, 2)
	k.Fill(0, []int{0, 1}, dst)
	if dst[0] != 1 || math.Abs(dst[1]-math.Exp(-0.5)) > 1e-15 {
		t.Errorf("RBF Fill = %v, want [1 e^-1/2] (distance 5 = ℓ)", dst)
	}
}

func TestChooseKernel(t *testing.T) {
	bits := randomPool(rand.New(rand.NewPCG(1, 1)), 4, 0.3)
	if k, err := chooseKernel(bits, ""); err != nil || k.Name() != kernelTanimoto {
		t.Errorf("auto on bits = %v, %v", k, err)
	}
	counts := &datasets.Pool{Dense: [][]float64{{1, 2}, {0, 3}}, Metric: knn.MetricTanimoto, Labels: make([]bool, 2)}
	if k, err := chooseKernel(counts, "auto"); err != nil || k.Name() != kernelMinMax {
		t.Errorf("auto on counts = %v, %v", k, err)
	}
	real := &datasets.Pool{Dense: [][]float64{{1, -2}, {0, 3}}, Metric: knn.MetricEuclidean, Labels: make([]bool, 2)}
	if k, err := chooseKernel(real, ""); err != nil || k.Name() != kernelMatern52 {
		t.Errorf("auto on real features = %v, %v", k, err)
	}
	if _, err := chooseKernel(real, kernelMinMax); err == nil {
		t.Error("minmax accepted negative features")
	}
	if _, err := chooseKernel(real, kernelTanimoto); err == nil {
		t.Error("tanimoto accepted dense features")
	}
	if _, err := chooseKernel(bits, "cosine"); err == nil {
		t.Error("unknown kernel accepted")
	}
}

// fillBlock's tiles give Fill's values exactly, over more columns than a
// tile and items that are also columns.
func TestFillBlockIsFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	pool := randomPool(rng, 400, 0.2)
	pool.Bits[5] = make([]uint64, 2) // an empty fingerprint: k = 1 with itself, 0 with the rest
	k := newTanimotoKernel(pool.Bits)
	cols := rng.Perm(400)[:2*fillTile+13]
	cols[0] = 5
	items := []int{5, 0, 1, 2, 3, 399, 250, cols[7]}
	got := make([]float64, len(items)*len(cols))
	k.fillBlock(items, k.gather(cols), got)
	want := make([]float64, len(cols))
	for r, i := range items {
		k.Fill(i, cols, want)
		for a := range cols {
			if got[r*len(cols)+a] != want[a] {
				t.Fatalf("item %d column %d: fillBlock %v, Fill %v", i, cols[a], got[r*len(cols)+a], want[a])
			}
		}
	}
}
