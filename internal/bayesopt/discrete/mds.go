package discrete

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/linalg"
)

// mdsFullMax is the largest n for which MDS uses a full eigendecomposition;
// above it, block subspace iteration finds the top pair (a full
// decomposition of a 1,919 x 1,919 matrix takes about 100 s in gonum).
const mdsFullMax = 400

// Subspace iteration settings.
const (
	mdsBlock    = 10   // block size: the 2 wanted + 8 guard vectors speed convergence
	mdsMaxIter  = 3000 // iterations before giving up
	mdsResidTol = 1e-9 // ‖B v - λ v‖ ≤ tol · λ_1 for both wanted vectors
)

// mds returns the classical (Torgerson) multidimensional-scaling embedding
// in 2-D of the items of the kernel K, as the paper's Figure 5 uses
// (Cox & Cox 2001). The squared distances are those of the kernel's feature
// space, d²_ij = K_ii + K_jj - 2 K_ij; the double-centred matrix
// B = -½ J D² J (J = I - 11ᵀ/n) equals J K J, so it is formed from K
// directly. The coordinates of item i are (√λ_1 v_1[i], √λ_2 v_2[i]) for the
// two largest eigenpairs of B (linalg.TopEigen up to mdsFullMax items, block
// subspace iteration above); each axis' sign is fixed so that its entry of
// largest magnitude is positive (lowest index on ties: linalg.SignOfLargest,
// the convention of the principal components), making the result
// deterministic. If K is the linear kernel of points in the plane, MDS gives
// back the points up to a rigid motion.
func mds(K mat.Symmetric) ([][2]float64, error) {
	n := K.SymmetricDim()
	if n == 0 {
		return nil, errors.New("discrete: MDS of an empty kernel")
	}
	B := centredKernel(K)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := B.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("discrete: MDS: kernel entry (%d, %d) is not finite", i, j)
			}
		}
	}
	var vals []float64
	var vecs *mat.Dense
	var err error
	if n <= mdsFullMax {
		var ok bool
		if vals, vecs, ok = linalg.TopEigen(B, 2); !ok {
			err = errors.New("discrete: MDS eigendecomposition did not converge")
		}
	} else {
		vals, vecs, err = topEigenSubspace(B, 2)
	}
	if err != nil {
		return nil, err
	}
	out := make([][2]float64, n)
	for k := 0; k < 2 && k < len(vals); k++ {
		if vals[k] <= 0 {
			continue // fewer than two positive directions: that axis is 0
		}
		s := math.Sqrt(vals[k])
		sign := linalg.SignOfLargest(mat.Col(nil, k, vecs))
		for i := 0; i < n; i++ {
			out[i][k] = sign * s * vecs.At(i, k)
		}
	}
	return out, nil
}

// centredKernel returns J K J: B_ij = K_ij - r_i - r_j + g with r the row
// means and g the grand mean of K.
func centredKernel(K mat.Symmetric) *mat.SymDense {
	n := K.SymmetricDim()
	r := make([]float64, n)
	var g float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r[i] += K.At(i, j)
		}
		g += r[i]
		r[i] /= float64(n)
	}
	g /= float64(n * n)
	B := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			B.SetSym(i, j, K.At(i, j)-r[i]-r[j]+g)
		}
	}
	return B
}

// topEigenSubspace finds the k algebraically largest eigenpairs of the
// (nearly) positive semidefinite B by block subspace iteration with
// Rayleigh-Ritz projection (Saad 2011, "Numerical methods for large
// eigenvalue problems", §5.2): V ← orth(B V), then rotate V by the
// eigenvectors of Vᵀ B V. The start block is drawn from a fixed seed, so the
// result is deterministic.
func topEigenSubspace(B *mat.SymDense, k int) ([]float64, *mat.Dense, error) {
	n := B.SymmetricDim()
	p := min(mdsBlock, n)
	rng := rand.New(rand.NewPCG(1, 2))
	V := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			V.Set(i, j, rng.NormFloat64())
		}
	}
	orthonormalise(V)
	var BV, H, R mat.Dense
	var es mat.EigenSym
	var W mat.Dense
	for it := 0; it < mdsMaxIter; it++ {
		BV.Mul(B, V)
		H.Mul(V.T(), &BV)
		Hs := mat.NewSymDense(p, nil)
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				Hs.SetSym(a, b, 0.5*(H.At(a, b)+H.At(b, a)))
			}
		}
		if !es.Factorize(Hs, true) {
			return nil, nil, errors.New("discrete: MDS Rayleigh-Ritz step did not converge")
		}
		theta := es.Values(nil) // ascending
		es.VectorsTo(&W)
		// Ritz vectors V W and B V W, reordered descending.
		var VW, BVW mat.Dense
		VW.Mul(V, &W)
		BVW.Mul(&BV, &W)
		top := theta[p-1]
		scale := math.Max(math.Abs(top), math.Abs(theta[0]))
		done := scale > 0
		for c := 0; c < k && done; c++ {
			src := p - 1 - c
			var res float64
			for i := 0; i < n; i++ {
				d := BVW.At(i, src) - theta[src]*VW.At(i, src)
				res += d * d
			}
			if math.Sqrt(res) > mdsResidTol*scale {
				done = false
			}
		}
		if done || scale == 0 {
			vals := make([]float64, k)
			vecs := mat.NewDense(n, k, nil)
			for c := 0; c < k; c++ {
				src := p - 1 - c
				vals[c] = theta[src]
				for i := 0; i < n; i++ {
					vecs.Set(i, c, VW.At(i, src))
				}
			}
			return vals, vecs, nil
		}
		// Next block: B times the Ritz vectors, orthonormalised.
		R.CloneFrom(&BVW)
		orthonormalise(&R)
		V.CloneFrom(&R)
	}
	return nil, nil, fmt.Errorf("discrete: MDS subspace iteration did not converge in %d iterations", mdsMaxIter)
}

// orthonormalise replaces the columns of V by an orthonormal basis of their
// span (modified Gram-Schmidt, twice for stability); a column that vanishes
// is replaced by a fresh unit vector orthogonal to the rest.
func orthonormalise(V *mat.Dense) {
	n, p := V.Dims()
	col := make([]float64, n)
	for j := 0; j < p; j++ {
		mat.Col(col, j, V)
		for pass := 0; pass < 2; pass++ {
			for k := 0; k < j; k++ {
				var d float64
				for i := 0; i < n; i++ {
					d += col[i] * V.At(i, k)
				}
				for i := 0; i < n; i++ {
					col[i] -= d * V.At(i, k)
				}
			}
		}
		var s float64
		for _, v := range col {
			s += v * v
		}
		if s < 1e-300 {
			for i := range col {
				col[i] = 0
			}
			col[(j*7919)%n] = 1 // deterministic replacement; re-orthogonalised next iteration
			s = 1
		}
		s = 1 / math.Sqrt(s)
		for i := range col {
			V.Set(i, j, col[i]*s)
		}
	}
}

// kernelHash is a 64-bit FNV-1a hash of the kernel's entries (upper
// triangle, row-major), naming cached results computed from it.
func kernelHash(K mat.Symmetric) uint64 {
	n := K.SymmetricDim()
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(n))
	h.Write(buf[:])
	row := make([]byte, 0, 8*n)
	for i := 0; i < n; i++ {
		row = row[:0]
		for j := i; j < n; j++ {
			row = binary.LittleEndian.AppendUint64(row, math.Float64bits(K.At(i, j)))
		}
		h.Write(row)
	}
	return h.Sum64()
}

// cachedMDS returns MDS(K), reading it from cacheDir/mds/<name>-<hash>.csv
// when present (hash = kernelHash(K), so a changed kernel is recomputed) and
// writing it there otherwise (a failed write is a warning:
// fileio.WriteCacheFunc). An unreadable or mismatched cache file is
// recomputed and replaced.
func cachedMDS(cacheDir, name string, K mat.Symmetric) ([][2]float64, error) {
	if err := fileio.CheckPlainName(name); err != nil {
		return nil, fmt.Errorf("mds cache: %w", err)
	}
	n := K.SymmetricDim()
	fileio.SweepOnce(filepath.Join(cacheDir, "mds"))
	path := filepath.Join(cacheDir, "mds", fmt.Sprintf("%s-%016x.csv", name, kernelHash(K)))
	if xy, err := readMDS(path, n); err == nil {
		return xy, nil
	}
	xy, err := mds(K)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, n)
	for i, p := range xy {
		rows[i] = []string{strconv.FormatFloat(p[0], 'g', -1, 64), strconv.FormatFloat(p[1], 'g', -1, 64)}
	}
	fileio.WriteCacheCSV(path, []string{"x", "y"}, rows)
	return xy, nil
}

func readMDS(path string, n int) ([][2]float64, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) != n+1 {
		return nil, fmt.Errorf("%s: damaged MDS cache", path)
	}
	out := make([][2]float64, n)
	for i, r := range recs[1:] {
		if len(r) != 2 {
			return nil, fmt.Errorf("%s: damaged MDS cache", path)
		}
		for k := 0; k < 2; k++ {
			v, err := strconv.ParseFloat(r[k], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: damaged MDS cache", path)
			}
			out[i][k] = v
		}
	}
	return out, nil
}

// writeMDSFile writes DIR/mds.csv for the eval figures: one row per item
// with its index, id, MDS coordinates and objective value.
func writeMDSFile(path string, ids []string, xy [][2]float64, objective []float64) error {
	if len(ids) != len(xy) || len(objective) != len(xy) {
		return fmt.Errorf("discrete: MDS file: %d ids, %d points, %d objective values", len(ids), len(xy), len(objective))
	}
	rows := make([][]string, len(xy))
	for i, p := range xy {
		rows[i] = []string{strconv.Itoa(i), ids[i], strconv.FormatFloat(p[0], 'g', -1, 64),
			strconv.FormatFloat(p[1], 'g', -1, 64), strconv.FormatFloat(objective[i], 'g', -1, 64)}
	}
	return fileio.WriteCSVAtomic(path, []string{"index", "id", "x", "y", "objective"}, rows)
}
