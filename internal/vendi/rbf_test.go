package vendi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMedianLengthScale(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64 // points on a line
		want float64
	}{
		{"odd count", []float64{0, 1, 3}, 2},             // distances 1, 2, 3
		{"even count", []float64{0, 1, 3, 7}, 3.5},       // 1, 2, 3, 4, 6, 7: (3 + 4)/2
		{"duplicates skipped", []float64{0, 0, 0, 1}, 1}, // nonzero: 1, 1, 1
		{"all identical", []float64{2, 2, 2}, 1},         // no nonzero distance
		{"one item", []float64{5}, 1},                    // no pair
		{"scale", []float64{0, 10, 30}, 20},              // 10 x the first case
		{"two", []float64{-1.5, 1.5}, 3},                 // one pair
		{"half duplicates", []float64{0, 0, 4, 4}, 4},    // nonzero: 4, 4, 4, 4
		{"middle pair", []float64{0, 1, 2, 100}, 50},     // 1, 1, 2, 98, 99, 100: (2 + 98)/2
	} {
		X := mat.NewDense(len(tc.xs), 1, append([]float64(nil), tc.xs...))
		if got := medianLengthScale(X); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", tc.name, got, tc.want)
		}
	}
	// 2-d: the unit square's corners: 4 sides of 1 and 2 diagonals of
	// sqrt 2: median (1 + 1)/2 = 1.
	if got := medianLengthScale(mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})); got != 1 {
		t.Errorf("square: %g, want 1", got)
	}
}

// TestMedianLengthScaleSampled: above 2^21 pairs the median comes from a
// fixed sample; on n points 0..n-1 of a line the exact median distance is
// known by counting (n - k pairs at distance k).
func TestMedianLengthScaleSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("2 million distances")
	}
	const n = 2100 // 2,203,950 pairs > 2^21
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	total := n * (n - 1) / 2
	exact, below := 0, 0
	for k := 1; k < n; k++ {
		if below += n - k; 2*below >= total {
			exact = k
			break
		}
	}
	X := mat.NewDense(n, 1, xs)
	got := medianLengthScale(X)
	// Sampling error of a median from 2^21 draws: sd about 0.04 % of n here.
	if math.Abs(got-float64(exact)) > 0.005*float64(exact) {
		t.Errorf("sampled median %g, exact %d", got, exact)
	}
	if again := medianLengthScale(X); again != got {
		t.Errorf("not reproducible: %g then %g", got, again)
	}
}

// TestRBFAgainstBruteForce compares the kernel and its Vendi scores with a
// kernel built entry by entry from the definition, and two points with the
// closed form: eigenvalues 1 ± c of [[1, c], [c, 1]].
func TestRBFAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, d, ell = 7, 3, 0.9
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	k, err := NewRBF(X, ell)
	if err != nil {
		t.Fatal(err)
	}
	brute := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			for c := 0; c < d; c++ {
				s += (X.At(i, c) - X.At(j, c)) * (X.At(i, c) - X.At(j, c))
			}
			brute.SetSym(i, j, math.Exp(-s/(2*ell*ell)))
		}
	}
	const tol = 1e-12 // exp of the same sums in another order
	K := k.Matrix()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if math.Abs(K.At(i, j)-brute.At(i, j)) > tol || math.Abs(k.At(i, j)-brute.At(i, j)) > tol {
				t.Fatalf("(%d, %d): %g, brute force %g", i, j, K.At(i, j), brute.At(i, j))
			}
		}
	}
	eig, _ := Eigenvalues(K)
	if eig[0] < -1e-12 {
		t.Errorf("RBF kernel not PSD: smallest eigenvalue %g", eig[0])
	}
	for _, q := range []Order{0, 0.5, 1, 2, OrderInf} {
		a, err1 := Score(K, q)
		b, err2 := Score(brute, q)
		if err1 != nil || err2 != nil || math.Abs(a-b) > 1e-9 {
			t.Errorf("q = %g: %g (%v), brute force %g (%v)", q, a, err1, b, err2)
		}
	}
	// Two points at distance 1 with ell = 1: c = exp(-1/2); normalised
	// eigenvalues (1 ± c)/2; VS_1 = exp(entropy), VS_inf = 2/(1 + c).
	two, _ := NewRBF(mat.NewDense(2, 1, []float64{0, 1}), 1)
	c := math.Exp(-0.5)
	p := (1 + c) / 2
	if v, _ := Score(two.Matrix(), 1); math.Abs(v-math.Exp(-p*math.Log(p)-(1-p)*math.Log(1-p))) > 1e-12 {
		t.Errorf("two points VS_1 = %g", v)
	}
	if v, _ := Score(two.Matrix(), OrderInf); math.Abs(v-2/(1+c)) > 1e-12 {
		t.Errorf("two points VS_inf = %g, want %g", v, 2/(1+c))
	}
	// Default: the median heuristic; duplicates score as one item.
	dup, _ := NewRBF(mat.NewDense(3, 1, []float64{4, 4, 4}), 0)
	if v, _ := Score(dup.Matrix(), 1); dup.LengthScale != 1 || math.Abs(v-1) > 1e-12 {
		t.Errorf("identical points: length scale %g, VS_1 %g; want 1, 1", dup.LengthScale, v)
	}
	if def, _ := NewRBF(mat.NewDense(3, 1, []float64{0, 1, 3}), 0); def.LengthScale != 2 {
		t.Errorf("default length scale %g, want the median distance 2", def.LengthScale)
	}
	if _, err := NewRBF(mat.NewDense(2, 1, []float64{0, math.NaN()}), 1); err == nil {
		t.Error("NaN embedding accepted")
	}
}
