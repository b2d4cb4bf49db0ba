package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randMat returns a k x n row-major matrix of standard normals.
func randMat(rng *rand.Rand, k, n int) []float64 {
	b := make([]float64, k*n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return b
}

func TestSyrkT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// The last size reaches OpenBLAS in the openblas build and the parallel
	// split (parSyrkT) in the pure-Go one.
	for _, sz := range [][2]int{{1, 1}, {3, 7}, {17, 5}, {64, 130}, {openblasMinOrder + 21, 40}} {
		n, k := sz[0], sz[1]
		b := randMat(rng, k, n)
		c := randMat(rng, n, n) // accumulated into
		want := slices.Clone(c)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				for r := 0; r < k; r++ {
					want[i*n+j] += b[r*n+i] * b[r*n+j]
				}
			}
		}
		lower := slices.Clone(c)
		SyrkT(n, k, b, c)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j < i {
					if c[i*n+j] != lower[i*n+j] {
						t.Fatalf("n=%d k=%d: lower triangle (%d, %d) written", n, k, i, j)
					}
					continue
				}
				// k products of normals: rounding ~ k eps max|term|
				if d := math.Abs(c[i*n+j] - want[i*n+j]); d > 1e-12*float64(k+1)*(1+math.Abs(want[i*n+j])) {
					t.Fatalf("n=%d k=%d: (%d, %d) = %v, want %v", n, k, i, j, c[i*n+j], want[i*n+j])
				}
			}
		}
		// float32: same product, single precision (relative 1e-5 for k <= 130)
		b32 := make([]float32, len(b))
		for i, v := range b {
			b32[i] = float32(v)
		}
		c32 := make([]float32, n*n)
		for i := range c32 {
			c32[i] = 99 // overwritten, not accumulated
		}
		SyrkT32(n, k, b32, c32)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				var exact float64
				for r := 0; r < k; r++ {
					exact += float64(b32[r*n+i]) * float64(b32[r*n+j])
				}
				if d := math.Abs(float64(c32[i*n+j]) - exact); d > 1e-5*float64(k) {
					t.Fatalf("float32 n=%d k=%d: (%d, %d) = %v, want %v", n, k, i, j, c32[i*n+j], exact)
				}
			}
		}
	}
}

// withSpectrum returns H diag(lam) H (upper triangle filled, lower too),
// H = I - 2 v vᵀ / vᵀv a Householder reflection: exactly orthogonal, so the
// eigenvalues are lam by construction.
func withSpectrum(rng *rand.Rand, lam []float64) []float64 {
	n := len(lam)
	v := randMat(rng, 1, n)
	var vv float64
	for _, x := range v {
		vv += x * x
	}
	H := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			H[i*n+j] = -2 * v[i] * v[j] / vv
		}
		H[i*n+i]++
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += H[i*n+k] * lam[k] * H[j*n+k]
			}
			a[i*n+j] = s
		}
	}
	return a
}

func TestSymEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{1, 2, 5, 40, 150, openblasMinOrder + 44} { // the last one reaches LAPACK in the openblas build
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = rng.NormFloat64() * 3
		}
		if n > 3 {
			lam[1] = lam[0] // a repeated eigenvalue
			lam[2] = 0      // and a zero one
		}
		a := withSpectrum(rng, lam)
		// the lower triangle must not matter: spoil it
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				a[i*n+j] = math.NaN()
			}
		}
		w := make([]float64, n)
		if !SymEigenvalues(n, a, w) {
			t.Fatalf("n=%d: no convergence", n)
		}
		slices.Sort(lam)
		for i := range lam {
			// backward stable: error ~ n eps max|λ|
			if math.Abs(w[i]-lam[i]) > 1e-13*float64(n)*10 {
				t.Fatalf("n=%d (%s): eigenvalues %v, want %v", n, Backend, w, lam)
			}
		}
	}
}

func TestPotrfPotri(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{1, 4, 33} {
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = 0.5 + rng.Float64()*4 // SPD, condition <= 9
		}
		a := withSpectrum(rng, lam)
		u := slices.Clone(a)
		if !Potrf(n, u) {
			t.Fatalf("n=%d: SPD matrix rejected", n)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				var s float64 // (Uᵀ U)_ij over the upper factor
				for k := 0; k <= i; k++ {
					s += u[k*n+i] * u[k*n+j]
				}
				if math.Abs(s-a[i*n+j]) > 1e-12*float64(n) {
					t.Fatalf("n=%d: (UᵀU)[%d,%d] = %v, want %v", n, i, j, s, a[i*n+j])
				}
			}
		}
		if !Potri(n, u) {
			t.Fatalf("n=%d: Potri failed", n)
		}
		inv := func(i, j int) float64 {
			if j < i {
				i, j = j, i
			}
			return u[i*n+j]
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += a[i*n+k] * inv(k, j)
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(s-want) > 1e-11*float64(n) {
					t.Fatalf("n=%d: (A A⁻¹)[%d,%d] = %v", n, i, j, s)
				}
			}
		}
	}
	// not positive definite
	a := withSpectrum(rng, []float64{1, -1, 2})
	if Potrf(3, a) {
		t.Error("indefinite matrix accepted")
	}
}

func BenchmarkSymEigenvalues(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{200, 1000} {
		x := randMat(rng, n, n)
		b.Run(fmt.Sprintf("%s/n=%d", Backend, n), func(b *testing.B) {
			a := make([]float64, n*n)
			w := make([]float64, n)
			for b.Loop() {
				copy(a, x)
				SymEigenvalues(n, a, w)
			}
		})
	}
}

// TestSgemmNT: c = a bᵀ against the float64 products of the same float32
// values, within the rounding bound k·u·|a_i||b_j| (u = 2^-24) that
// DenseKNN's filter assumes, in every build; strided operands (lda, ldb,
// ldc beyond the row) are read and written only where they should be.
func TestSgemmNT(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, sz := range []struct{ m, n, k int }{{1, 1, 1}, {3, 5, 2}, {64, 64, 10}, {17, 64, 33}, {64, 40, 0}} {
		lda, ldb, ldc := sz.k+2, sz.k+1, sz.n+3
		a := make([]float32, sz.m*lda)
		b := make([]float32, sz.n*ldb)
		for i := range a {
			a[i] = float32(rng.NormFloat64() * 10)
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		c := make([]float32, sz.m*ldc)
		for i := range c {
			c[i] = -7
		}
		SgemmNT(sz.m, sz.n, sz.k, a, lda, b, ldb, c, ldc)
		for i := 0; i < sz.m; i++ {
			for j := 0; j < ldc; j++ {
				if j >= sz.n {
					if c[i*ldc+j] != -7 {
						t.Fatalf("%v: c[%d][%d] (padding) written", sz, i, j)
					}
					continue
				}
				var dot, na, nb float64
				for l := 0; l < sz.k; l++ {
					x, y := float64(a[i*lda+l]), float64(b[j*ldb+l])
					dot += x * y
					na += x * x
					nb += y * y
				}
				bound := float64(sz.k) * 0x1p-24 * math.Sqrt(na*nb) * 1.01
				if d := math.Abs(float64(c[i*ldc+j]) - dot); d > bound {
					t.Fatalf("%v: c[%d][%d] = %v, float64 product %v (error %g > bound %g)", sz, i, j, c[i*ldc+j], dot, d, bound)
				}
			}
		}
	}
}
