package linalg

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
			s := SignOfLargest(v)
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

// TestPCA2MatchesPCA: the two routes to the top two principal components
// (PCA's d x d eigendecomposition, PCA2's subspace iteration) give the
// same scores, signs included (one convention, SignOfLargest), to the
// iteration's tolerance.
func TestPCA2MatchesPCA(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n, d = 400, 12
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()/float64(1+j) + 0.3*float64(j) // variances 1, 1/4, 1/9, ...
		}
	}
	row := func(i int, dst []float64) { copy(dst, x[i]) }
	full, err := PCA(n, d, 2, row, 2)
	if err != nil {
		t.Fatal(err)
	}
	px, py, err := PCA2(n, d, row)
	if err != nil {
		t.Fatal(err)
	}
	for c, got := range [][]float64{px, py} {
		scale := math.Sqrt(full.Variance[c])
		for i := range n {
			if want := full.Scores[i][c]; math.Abs(got[i]-want) > 1e-7*scale {
				t.Fatalf("component %d item %d: PCA2 %v, PCA %v", c, i, got[i], want)
			}
		}
	}
}

// TestTopEigen: a 3 x 3 matrix with known eigenpairs (3, 1, 0 on the axes
// (1,1,0)/√2, (1,-1,0)/√2 and e3 scaled), in decreasing order; k beyond the
// order is cut to it.
func TestTopEigen(t *testing.T) {
	a := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 0, 0, 0, 0})
	vals, vecs, ok := TopEigen(a, 5)
	if !ok || len(vals) != 3 {
		t.Fatalf("ok %v, %d values", ok, len(vals))
	}
	s := 1 / math.Sqrt2
	want := [][]float64{{s, s, 0}, {s, -s, 0}, {0, 0, 1}}
	for c, wv := range []float64{3, 1, 0} {
		if math.Abs(vals[c]-wv) > 1e-14 {
			t.Errorf("eigenvalue %d = %v, want %v", c, vals[c], wv)
		}
		col := mat.Col(nil, c, vecs)
		sign := SignOfLargest(col)
		for i := range col {
			if math.Abs(sign*col[i]-want[c][i]) > 1e-14 {
				t.Errorf("eigenvector %d = %v, want ±%v", c, col, want[c])
				break
			}
		}
	}
	if got := SignOfLargest([]float64{0.5, -0.5, 0.2}); got != 1 {
		t.Errorf("SignOfLargest on a tie = %v, want the first's (+1)", got)
	}
	if got := SignOfLargest([]float64{0.1, -0.7}); got != -1 {
		t.Errorf("SignOfLargest = %v, want -1", got)
	}
}
