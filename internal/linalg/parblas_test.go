package linalg

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// withProcs runs f with GOMAXPROCS = p, so that the split path runs
// whatever the machine.
func withProcs(p int, f func()) {
	old := runtime.GOMAXPROCS(p)
	defer runtime.GOMAXPROCS(old)
	f()
}

// sameBits reports the first index where a and b differ in their bits.
func sameBits(a, b []float64) (int, bool) {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i, false
		}
	}
	return -1, len(a) == len(b)
}

// TestParDsymvBits: the split Dsymv gives gonum's result bit for bit, with
// strided x and y (as Dlatrd passes them), lda > n, and every beta case.
func TestParDsymvBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	var ref gonum.Implementation
	for _, n := range []int{parMinOrder, 300, 517} {
		for _, tc := range []struct {
			incX, incY  int
			alpha, beta float64
		}{{1, 1, 1, 0}, {3, 2, -0.7, 1}, {1, 5, 2.5, 0.3}, {7, 1, 1, 1}} {
			lda := n + 3
			a := randMat(rng, n, lda)
			x := randMat(rng, 1, (n-1)*tc.incX+1)
			y := randMat(rng, 1, (n-1)*tc.incY+1)
			want := slices.Clone(y)
			ref.Dsymv(blas.Upper, n, tc.alpha, a, lda, x, tc.incX, tc.beta, want, tc.incY)
			for _, procs := range []int{2, 3, 8} {
				got := slices.Clone(y)
				withProcs(procs, func() {
					parBLAS{}.Dsymv(blas.Upper, n, tc.alpha, a, lda, x, tc.incX, tc.beta, got, tc.incY)
				})
				if i, ok := sameBits(got, want); !ok {
					t.Fatalf("n=%d %+v procs=%d: y[%d] = %v, gonum %v", n, tc, procs, i, got[i], want[i])
				}
			}
		}
	}
}

// TestParDsyr2kBits: the split Dsyr2k gives gonum's result bit for bit, on
// the upper triangle, leaving the lower one alone.
func TestParDsyr2kBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	var ref gonum.Implementation
	for _, n := range []int{parMinOrder, 301} {
		for _, k := range []int{1, 32, 33} {
			for _, beta := range []float64{0, 1, 0.3} {
				lda, ldb, ldc := k+2, k+1, n+4
				a := randMat(rng, n, lda)
				b := randMat(rng, n, ldb)
				c := randMat(rng, n, ldc)
				want := slices.Clone(c)
				ref.Dsyr2k(blas.Upper, blas.NoTrans, n, k, -1, a, lda, b, ldb, beta, want, ldc)
				for _, procs := range []int{2, 5} {
					got := slices.Clone(c)
					withProcs(procs, func() {
						parBLAS{}.Dsyr2k(blas.Upper, blas.NoTrans, n, k, -1, a, lda, b, ldb, beta, got, ldc)
					})
					if i, ok := sameBits(got, want); !ok {
						t.Fatalf("n=%d k=%d beta=%v procs=%d: c[%d] = %v, gonum %v", n, k, beta, procs, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestParBLASEigenBits: a whole eigendecomposition (eigenvalues only, and
// mat.EigenSym with vectors) through parBLAS equals plain gonum's bit for
// bit: switching it in moves no published number.
func TestParBLASEigenBits(t *testing.T) {
	if _, ok := blas64.Implementation().(parBLAS); !ok {
		t.Fatalf("blas64 uses %T, not parBLAS", blas64.Implementation())
	}
	rng := rand.New(rand.NewPCG(3, 3))
	n := 400
	g := randMat(rng, n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			g[i*n+j] = g[j*n+i]
		}
	}
	run := func(impl blas.Float64) ([]float64, []float64) {
		blas64.Use(impl)
		defer blas64.Use(parBLAS{})
		w := make([]float64, n)
		if !gonumSymEigenvalues(n, slices.Clone(g), w) {
			t.Fatal("no convergence")
		}
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(n, slices.Clone(g)), true) {
			t.Fatal("EigenSym: no convergence")
		}
		var v mat.Dense
		es.VectorsTo(&v)
		return w, append(es.Values(nil), v.RawMatrix().Data...)
	}
	var w1, v1, w2, v2 []float64
	withProcs(4, func() {
		w1, v1 = run(parBLAS{})
		w2, v2 = run(gonum.Implementation{})
	})
	if i, ok := sameBits(w1, w2); !ok {
		t.Fatalf("eigenvalue %d: %v, gonum %v", i, w1[i], w2[i])
	}
	if i, ok := sameBits(v1, v2); !ok {
		t.Fatalf("EigenSym value/vector entry %d: %v, gonum %v", i, v1[i], v2[i])
	}
}

func TestTriangleSplit(t *testing.T) {
	for _, n := range []int{256, 1000, 2048} {
		for _, w := range []int{2, 3, 8} {
			prev := 0
			for p := 1; p < w; p++ {
				i := triangleSplit(n, p, w)
				if i < prev || i > n {
					t.Fatalf("n=%d w=%d: split %d at row %d after %d", n, w, p, i, prev)
				}
				// the area of rows prev..i-1 is within a row of n/w of the total
				area := func(lo, hi int) float64 {
					return float64(n-lo)*float64(n-lo+1)/2 - float64(n-hi)*float64(n-hi+1)/2
				}
				if d := math.Abs(area(prev, i) - float64(n)*float64(n+1)/2/float64(w)); d > float64(n) {
					t.Fatalf("n=%d w=%d part %d: area %v, want %v", n, w, p, area(prev, i), float64(n)*float64(n+1)/2/float64(w))
				}
				prev = i
			}
		}
	}
}

// TestParSyrkTBits: the blocked parallel SYRK gives gonum's Dsyrk (beta =
// 1) and Ssyrk (beta = 0) bit for bit, with zeros in b (skipped terms),
// and leaves the lower triangle alone.
func TestParSyrkTBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var ref gonum.Implementation
	for _, n := range []int{parMinOrder, 301} {
		for _, k := range []int{1, 7, 40} {
			b := randMat(rng, k, n)
			for i := 0; i < len(b); i += 5 {
				b[i] = 0
			}
			c := randMat(rng, n, n)
			want := slices.Clone(c)
			ref.Dsyrk(blas.Upper, blas.Trans, n, k, 1, b, n, 1, want, n)
			b32 := make([]float32, len(b))
			for i, v := range b {
				b32[i] = float32(v)
			}
			c32 := make([]float32, len(c))
			for i, v := range c {
				c32[i] = float32(v)
			}
			want32 := slices.Clone(c32)
			ref.Ssyrk(blas.Upper, blas.Trans, n, k, 1, b32, n, 0, want32, n)
			for _, procs := range []int{2, 3} {
				got := slices.Clone(c)
				got32 := slices.Clone(c32)
				withProcs(procs, func() {
					if !parSyrkT(n, k, b, got, false, func(m int, a float64, x, y []float64) { ref.Daxpy(m, a, x, 1, y, 1) }) ||
						!parSyrkT(n, k, b32, got32, true, func(m int, a float32, x, y []float32) { ref.Saxpy(m, a, x, 1, y, 1) }) {
						t.Fatal("parSyrkT declined")
					}
				})
				if i, ok := sameBits(got, want); !ok {
					t.Fatalf("Dsyrk n=%d k=%d procs=%d: c[%d] = %v, gonum %v", n, k, procs, i, got[i], want[i])
				}
				for i := range got32 {
					if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
						t.Fatalf("Ssyrk n=%d k=%d procs=%d: c[%d] = %v, gonum %v", n, k, procs, i, got32[i], want32[i])
					}
				}
			}
		}
	}
}
