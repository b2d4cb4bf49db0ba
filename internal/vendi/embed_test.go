package vendi

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestEmbeddingSpectrum compares the blocked Gram spectrum (float64 and
// float32) with the eigenvalues of the explicit n x n kernel, for d < n
// (d x d dual, several row blocks), d >= n (n x n, several column blocks)
// and both kernels.
func TestEmbeddingSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	for _, sz := range [][2]int{{1, 3}, {7, 3}, {2*gramBlock + 37, 4}, {5, gramBlock + 9}} {
		n, d := sz[0], sz[1]
		x := make([]float64, n*d)
		x32 := make([]float32, n*d)
		for i := range x {
			x32[i] = float32(rng.NormFloat64() * (1 + float64(i%5)))
			x[i] = float64(x32[i])
		}
		for _, kernel := range []EmbeddingKernel{Cosine, Linear} {
			// independent: explicit n x n kernel, rows scaled by hand
			K := mat.NewSymDense(n, nil)
			norm := func(i int) float64 {
				if kernel == Linear {
					return 1
				}
				return math.Sqrt(mat.Dot(mat.NewVecDense(d, x[i*d:(i+1)*d]), mat.NewVecDense(d, x[i*d:(i+1)*d])))
			}
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					K.SetSym(i, j, mat.Dot(mat.NewVecDense(d, x[i*d:(i+1)*d]), mat.NewVecDense(d, x[j*d:(j+1)*d]))/(norm(i)*norm(j)))
				}
			}
			var es mat.EigenSym
			es.Factorize(K, false)
			want := es.Values(nil)
			want = want[len(want)-min(n, d):] // the nonzero part
			top := want[len(want)-1]
			got, err := EmbeddingSpectrum(n, d, x, kernel)
			if err != nil {
				t.Fatal(err)
			}
			got32, err := embeddingSpectrum32(n, d, x32, kernel)
			if err != nil {
				t.Fatal(err)
			}
			x32c := slices.Clone(x32)
			gotIn, err := EmbeddingSpectrum32InPlace(n, d, x32c, kernel)
			if err != nil {
				t.Fatal(err)
			}
			got64In, err := EmbeddingSpectrumInPlace(n, d, slices.Clone(x), kernel)
			if err != nil {
				t.Fatal(err)
			}
			for name, g := range map[string][]float64{"float64": got, "float64 in place": got64In, "float32": got32, "float32 in place": gotIn} {
				if len(g) != min(n, d) {
					t.Fatalf("n=%d d=%d %s: %d eigenvalues", n, d, name, len(g))
				}
				tol := 1e-10 * top // float64 blocks vs one eigendecomposition
				if strings.HasPrefix(name, "float32") {
					tol = 1e-5 * top // float32 products within blocks
				}
				for k := range g {
					if math.Abs(g[k]-want[k]) > tol {
						t.Fatalf("n=%d d=%d kernel %d %s: eigenvalue %d = %v, explicit kernel %v", n, d, kernel, name, k, g[k], want[k])
					}
				}
			}
			v1, _ := scoreEmbeddings(mat.NewDense(n, d, slices.Clone(x)), kernel, 1)
			if w := ScoreFromEigenvalues(want, 1); !near(v1, w, 1e-9) {
				t.Errorf("n=%d d=%d: ScoreEmbeddings %v, explicit %v", n, d, v1, w)
			}
		}
	}
}

// TestEmbeddingSpectrum32InPlace: several SYRK blocks of gramBlock32 rows
// straight from x (n = 2·gramBlock32 + 37) give the float64 spectrum of the
// same values to float32 accuracy, and leave x's rows scaled: unit norm
// under Cosine, untouched under Linear.
func TestEmbeddingSpectrum32InPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	n, d := 2*gramBlock32+37, 6
	x32 := make([]float32, n*d)
	x := make([]float64, n*d)
	for i := range x32 {
		x32[i] = float32(rng.NormFloat64() * (1 + float64(i%7)))
		x[i] = float64(x32[i])
	}
	for _, kernel := range []EmbeddingKernel{Cosine, Linear} {
		want, err := EmbeddingSpectrum(n, d, x, kernel)
		if err != nil {
			t.Fatal(err)
		}
		y := slices.Clone(x32)
		got, err := EmbeddingSpectrum32InPlace(n, d, y, kernel)
		if err != nil {
			t.Fatal(err)
		}
		top := want[d-1]
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-5*top {
				t.Fatalf("kernel %d: eigenvalue %d = %v, float64 %v", kernel, k, got[k], want[k])
			}
		}
		for i := 0; i < n; i += 997 {
			var ss float64
			for j := 0; j < d; j++ {
				ss += float64(y[i*d+j]) * float64(y[i*d+j])
			}
			if kernel == Cosine && math.Abs(ss-1) > 1e-6 {
				t.Fatalf("cosine: row %d has squared norm %v after scaling", i+1, ss)
			}
			if kernel == Linear && !slices.Equal(y[i*d:(i+1)*d], x32[i*d:(i+1)*d]) {
				t.Fatalf("linear: row %d changed", i+1)
			}
		}
	}
}

func TestEmbeddingSpectrumErrors(t *testing.T) {
	x := []float64{1, 2, 0, 0, 3, 4}
	if _, err := EmbeddingSpectrum(3, 2, x, Cosine); err == nil || !strings.Contains(err.Error(), "row 2 is all zeros") {
		t.Errorf("zero row under cosine: %v", err)
	}
	if _, err := EmbeddingSpectrum(3, 2, x, Linear); err != nil {
		t.Errorf("zero row under linear: %v", err)
	}
	x32 := []float32{1, 2, 3, float32(math.NaN())}
	if _, err := embeddingSpectrum32(2, 2, x32, Linear); err == nil || !strings.Contains(err.Error(), "row 2, column 2") {
		t.Errorf("NaN: %v", err)
	}
	// in place (n > d): the same messages
	y := []float32{1, 2, 0, 0, 3, 4}
	if _, err := EmbeddingSpectrum32InPlace(3, 2, y, Cosine); err == nil || !strings.Contains(err.Error(), "row 2 is all zeros") {
		t.Errorf("in place, zero row under cosine: %v", err)
	}
	if _, err := EmbeddingSpectrumInPlace(3, 2, []float64{1, 2, 0, 0, 3, 4}, Cosine); err == nil || !strings.Contains(err.Error(), "row 2 is all zeros") {
		t.Errorf("float64 in place, zero row under cosine: %v", err)
	}
	if _, err := EmbeddingSpectrumInPlace(3, 2, []float64{1, 2, 3, 4, 5, math.NaN()}, Linear); err == nil || !strings.Contains(err.Error(), "row 3, column 2") {
		t.Errorf("float64 in place, NaN: %v", err)
	}
	y = []float32{1, 2, 3, 4, float32(math.Inf(1)), 5}
	if _, err := EmbeddingSpectrum32InPlace(3, 2, y, Linear); err == nil || !strings.Contains(err.Error(), "row 3, column 1") {
		t.Errorf("in place, +Inf: %v", err)
	}
}

// TestScaleRowsFirstError: with rows split over workers, the error of the
// first bad row is reported whichever worker finds its own first.
func TestScaleRowsFirstError(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	n, d := 4000, 1100 // 4.4M values: four workers
	for trial := 0; trial < 3; trial++ {
		x := make([]float32, n*d)
		for i := range x {
			x[i] = 1
		}
		x[3900*d+5] = float32(math.NaN()) // last worker
		for j := 0; j < d; j++ {          // a zero row for the second worker
			x[1500*d+j] = 0
		}
		_, err := EmbeddingSpectrum32InPlace(n, d, x, Cosine)
		if err == nil || !strings.Contains(err.Error(), "row 1501 is all zeros") {
			t.Fatalf("%v, want the first bad row (1501)", err)
		}
	}
}
