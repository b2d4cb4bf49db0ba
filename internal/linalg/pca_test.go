package linalg

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPCAClosedForm(t *testing.T) {
	// Points (a, b) with a, b = +-1 in all four combinations, plus 2x copies
	// along the diagonal: the sample covariance is known exactly.
	pts := [][]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {2, 2}, {-2, -2}}
	// Mean 0. Sum of x x^T: [[12, 8], [8, 12]]; / (n-1) = 5: [[2.4, 1.6],
	// [1.6, 2.4]], eigenvalues 4 (axis (1,1)/sqrt2) and 0.8 (axis (1,-1)/sqrt2).
	res, err := PCA(len(pts), 2, 2, func(i int, dst []float64) { copy(dst, pts[i]) }, 3)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12 // a 2 x 2 eigenproblem in float64
	if math.Abs(res.Variance[0]-4) > tol || math.Abs(res.Variance[1]-0.8) > tol || math.Abs(res.Explained-1) > tol {
		t.Errorf("variances %v explained %v, want [4 0.8] and 1", res.Variance, res.Explained)
	}
	s := 1 / math.Sqrt2
	// Sign convention: largest-magnitude entry positive, the first on ties.
	want := [][2]float64{{s, s}, {s, -s}}
	for c := 0; c < 2; c++ {
		for a := 0; a < 2; a++ {
			if math.Abs(res.Components.At(a, c)-want[c][a]) > tol {
				t.Errorf("component %d = (%v, %v), want %v", c, res.Components.At(0, c), res.Components.At(1, c), want[c])
			}
		}
	}
	// Scores of (2, 2): (2*sqrt2, 0).
	if math.Abs(res.Scores[4][0]-2*math.Sqrt2) > tol || math.Abs(res.Scores[4][1]) > tol {
		t.Errorf("scores of (2,2) = %v", res.Scores[4])
	}
}

func TestPCAReconstructs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n, d := 700, 9 // several chunks of pcaChunk rows
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for c := range x[i] {
			x[i][c] = float64(c+1)*rng.NormFloat64() + 3
		}
	}
	row := func(i int, dst []float64) { copy(dst, x[i]) }
	res, err := PCA(n, d, d, row, 2)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-10 // orthogonal transform of values of order 10
	for i := range x {
		for a := 0; a < d; a++ {
			v := res.Mean[a]
			for c := 0; c < d; c++ {
				v += res.Scores[i][c] * res.Components.At(a, c)
			}
			if math.Abs(v-x[i][a]) > tol {
				t.Fatalf("row %d col %d: reconstruction %v, data %v", i, a, v, x[i][a])
			}
		}
	}
	for c := 1; c < d; c++ {
		if res.Variance[c] > res.Variance[c-1] {
			t.Errorf("variances not decreasing: %v", res.Variance)
		}
	}
	// The result does not depend on the number of workers, to the bit.
	one, _ := PCA(n, d, 3, row, 1)
	three, _ := PCA(n, d, 3, row, 3)
	for i := range one.Scores {
		for c := range one.Scores[i] {
			if one.Scores[i][c] != three.Scores[i][c] {
				t.Fatalf("scores differ between 1 and 3 workers at %d,%d", i, c)
			}
		}
	}
	if _, err := PCA(n, d, 0, row, 1); err == nil {
		t.Error("0 components accepted")
	}
	if _, err := PCA(n, d, d+1, row, 1); err == nil {
		t.Error("too many components accepted")
	}
	x[300][4] = math.NaN()
	if _, err := PCA(n, d, 2, row, 2); err == nil || !strings.Contains(err.Error(), "row 300, column 4") {
		t.Errorf("NaN input: %v", err)
	}
}
