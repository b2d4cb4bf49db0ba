package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestPCA2AgainstEigen compares PCA2 with the projections on the top two
// eigenvectors of the covariance from gonum's dense eigendecomposition.
func TestPCA2AgainstEigen(t *testing.T) {
	// pcaTol: subspace iteration stops when the axes move by < 1e-9 (with
	// an eigengap ratio of 0.9 the remaining error is ~10x that), so
	// projections agree to ~1e-7 of their scale.
	const pcaTol = 1e-7
	rng := rand.New(rand.NewPCG(1, 1))
	for _, d := range []int{2, 6, 20} {
		n := 300
		X := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				X.Set(i, j, rng.NormFloat64()*float64(d-j)+float64(j)) // distinct column variances
			}
		}
		// Mix the columns so the components are not the axes.
		Q := mat.NewDense(d, d, nil)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				Q.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(Q)
		var O mat.Dense
		qr.QTo(&O)
		var Y mat.Dense
		Y.Mul(X, &O)
		x, y, err := PCA2(n, d, func(i int, dst []float64) { copy(dst, Y.RawRowView(i)) })
		if err != nil {
			t.Fatal(err)
		}
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, &Y, nil)
		var eig mat.EigenSym
		if !eig.Factorize(&cov, true) {
			t.Fatal("eigendecomposition failed")
		}
		var V mat.Dense
		eig.VectorsTo(&V)
		mean := make([]float64, d)
		for j := range mean {
			mean[j] = stat.Mean(mat.Col(nil, j, &Y), nil)
		}
		for k, got := range [][]float64{x, y} {
			v := mat.Col(nil, d-1-k, &V) // EigenSym sorts ascending
			s := signOfLargest(v)
			scale := math.Sqrt(eig.Values(nil)[d-1-k])
			for i := 0; i < n; i++ {
				want := 0.0
				for j := 0; j < d; j++ {
					want += (Y.At(i, j) - mean[j]) * v[j] * s
				}
				if math.Abs(got[i]-want) > pcaTol*scale {
					t.Fatalf("d=%d component %d item %d: %v, want %v", d, k, i, got[i], want)
				}
			}
		}
	}
	if _, _, err := PCA2(1, 3, func(int, []float64) {}); err == nil {
		t.Error("PCA2 of one item: no error")
	}
	if _, _, err := PCA2(3, 2, func(i int, dst []float64) { dst[0], dst[1] = math.NaN(), 0 }); err == nil {
		t.Error("PCA2 with NaN features: no error")
	}
}

func TestBitRow(t *testing.T) {
	b := [][]uint64{{1 | 1<<63, 0}, {0, 1 << 2}}
	row, d := bitRow(b)
	if d != 128 {
		t.Fatalf("d = %d, want 128", d)
	}
	dst := make([]float64, d)
	row(1, dst)
	row(0, dst) // must clear row 1's bits
	for j, v := range dst {
		want := 0.0
		if j == 0 || j == 63 {
			want = 1
		}
		if v != want {
			t.Fatalf("row 0 feature %d = %v, want %v", j, v, want)
		}
	}
}
