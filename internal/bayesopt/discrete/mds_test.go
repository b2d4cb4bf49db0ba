package discrete

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/linalg"
)

// planeKernel is the linear kernel of points in the plane plus a constant
// (which leaves the feature-space distances unchanged).
func planeKernel(pts [][2]float64, c float64) *mat.SymDense {
	n := len(pts)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, pts[i][0]*pts[j][0]+pts[i][1]*pts[j][1]+c)
		}
	}
	return K
}

func dist(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// TestMDSRecoversPlanarConfiguration: for points in 2-D, classical MDS gives
// back their pairwise distances exactly (Torgerson 1952), on both the full
// and the subspace-iteration path.
func TestMDSRecoversPlanarConfiguration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{2, 3, 25, mdsFullMax + 100} {
		pts := make([][2]float64, n)
		for i := range pts {
			pts[i] = [2]float64{3 * rng.NormFloat64(), rng.NormFloat64()}
		}
		xy, err := mds(planeKernel(pts, 2.5))
		if err != nil {
			t.Fatal(err)
		}
		const tol = 1e-7 // eigenvector accuracy (residual 1e-9 relative) times the spread of the points
		worst := 0.0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				worst = math.Max(worst, math.Abs(dist(xy[i], xy[j])-dist(pts[i], pts[j])))
			}
		}
		if worst > tol {
			t.Errorf("n=%d: distances off by up to %g", n, worst)
		}
		// Centred: coordinates sum to zero.
		var sx, sy float64
		for _, p := range xy {
			sx += p[0]
			sy += p[1]
		}
		if math.Abs(sx) > 1e-8*float64(n) || math.Abs(sy) > 1e-8*float64(n) {
			t.Errorf("n=%d: embedding not centred: sums %g %g", n, sx, sy)
		}
	}
}

func TestMDSSmallCases(t *testing.T) {
	xy, err := mds(mat.NewSymDense(1, []float64{1}))
	if err != nil || len(xy) != 1 || xy[0] != [2]float64{} {
		t.Errorf("one item: %v, %v; want the origin", xy, err)
	}
	// Two unit-diagonal items with similarity 0.5: d² = 2 - 1 = 1, so they sit
	// at ±0.5 on the first axis (sign: largest entry positive, lowest index).
	xy, err = mds(mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	if math.Abs(xy[0][0]-0.5) > tol || math.Abs(xy[1][0]+0.5) > tol || xy[0][1] != 0 || xy[1][1] != 0 {
		t.Errorf("two items: %v, want [[0.5 0] [-0.5 0]]", xy)
	}
	if _, err := mds(mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})); err == nil {
		t.Error("NaN kernel: no error")
	}
}

// TestSubspaceMatchesFull compares the two eigen-solvers on a full-rank
// kernel with a decaying spectrum.
func TestSubspaceMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	B := centredKernel(gaussKernel(rng, 150, 3, 0.3))
	fv, fV, ok := linalg.TopEigen(B, 2)
	if !ok {
		t.Fatal("full eigendecomposition did not converge")
	}
	sv, sV, err := topEigenSubspace(B, 2)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-8 // residual tolerance 1e-9 relative, divided by the eigengap
	for k := 0; k < 2; k++ {
		if math.Abs(fv[k]-sv[k]) > tol*fv[0] {
			t.Errorf("eigenvalue %d: full %v subspace %v", k, fv[k], sv[k])
		}
		var dot float64
		for i := 0; i < 150; i++ {
			dot += fV.At(i, k) * sV.At(i, k)
		}
		if math.Abs(math.Abs(dot)-1) > tol {
			t.Errorf("eigenvector %d: |cos| = %v, want 1", k, math.Abs(dot))
		}
	}
}

func TestCachedMDS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	K := gaussKernel(rng, 40, 2, 0.5)
	dir := t.TempDir()
	first, err := cachedMDS(dir, "toy", K)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "mds", "toy-*.csv"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	// The second call reads the file: plant a recognisable value in it.
	b, _ := os.ReadFile(files[0])
	lines := strings.Split(string(b), "\n")
	lines[1] = "123,456"
	if err := os.WriteFile(files[0], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := cachedMDS(dir, "toy", K)
	if err != nil {
		t.Fatal(err)
	}
	if second[0] != [2]float64{123, 456} || second[1] != first[1] {
		t.Errorf("cache not read: %v %v", second[0], second[1])
	}
	// A damaged cache is recomputed.
	if err := os.WriteFile(files[0], []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := cachedMDS(dir, "toy", K)
	if err != nil {
		t.Fatal(err)
	}
	if third[0] != first[0] {
		t.Errorf("damaged cache not recomputed: %v, want %v", third[0], first[0])
	}
	// A different kernel has a different cache file.
	K2 := mat.NewSymDense(40, nil)
	K2.CopySym(K)
	K2.SetSym(0, 1, K.At(0, 1)*0.5)
	if kernelHash(K2) == kernelHash(K) {
		t.Error("hash ignores a changed entry")
	}
}

func TestWriteMDSFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mds.csv")
	if err := writeMDSFile(path, []string{"a", "b,c"}, [][2]float64{{1, 2}, {-0.5, 0}}, []float64{10, 20}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "index,id,x,y,objective\n0,a,1,2,10\n1,\"b,c\",-0.5,0,20\n"
	if string(b) != want {
		t.Errorf("mds.csv =\n%s\nwant\n%s", b, want)
	}
	if err := writeMDSFile(path, []string{"a"}, [][2]float64{{1, 2}, {3, 4}}, []float64{1, 2}); err == nil {
		t.Error("length mismatch: no error")
	}
}

func BenchmarkMDS(b *testing.B) {
	for _, n := range []int{300, 1000} {
		rng := rand.New(rand.NewPCG(1, 1))
		K := gaussKernel(rng, n, 5, 0.5)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := mds(K); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCachedMDSRefusesPathNames: a set name such as
// "../../x" put the MDS cache file outside --cache-dir; it is refused
// before anything is written.
func TestCachedMDSRefusesPathNames(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(root, "a", "cache")
	K := mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1})
	if _, err := cachedMDS(cache, "../../x", K); err == nil || !strings.Contains(err.Error(), "not a plain name") {
		t.Errorf("error %v, want a refused name", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("wrote %v", entries)
	}
}
