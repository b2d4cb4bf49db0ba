package vendi

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

func BenchmarkScore(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{50, 200, 1000} {
		K := randomPSD(rng, n, 20)
		for _, q := range []Order{1, 2} {
			b.Run(fmt.Sprintf("n=%d/q=%v", n, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := Score(K, q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// syntheticKNN builds a random kNN-like sparse kernel over n items with k
// neighbours per row drawn from a local window (clustered structure), fast
// enough to create 100,000 items in a benchmark.
func syntheticKNN(rng *rand.Rand, n, k int) *Sparse {
	nbr := make([][]int32, n)
	w := make([][]float64, n)
	for i := 0; i < n; i++ {
		seen := map[int32]bool{}
		for len(nbr[i]) < k {
			j := int32((i + 1 + rng.IntN(4*k)) % n)
			if seen[j] || int(j) == i {
				continue
			}
			seen[j] = true
			nbr[i] = append(nbr[i], j)
			w[i] = append(w[i], 0.2+0.8*rng.Float64())
		}
	}
	s, err := SymmetrizeKNN(n, nbr, w)
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkGreedySparse: 10 picks from 100,000 items, kNN kernel k = 50,
// 150-item prefix (the active-search setting: a large pool, a kNN kernel
// and the observed positives as the prefix).
func BenchmarkGreedySparse(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 100000
	K := syntheticKNN(rng, n, 50)
	quality := make([]float64, n)
	for i := range quality {
		quality[i] = rng.Float64()
	}
	// Prefix: 150 positives clustered in 5 regions, as active search finds them.
	var prefix []int
	seen := map[int]bool{}
	for len(prefix) < 150 {
		c := (len(prefix) % 5) * 20000
		i := c + rng.IntN(400)
		if !seen[i] {
			seen[i] = true
			prefix = append(prefix, i)
			quality[i] = 1
		}
	}
	for _, q := range []Order{0.1, 1, OrderInf} {
		b.Run(fmt.Sprintf("q=%v", q), func(b *testing.B) {
			var stats PruneStats
			for b.Loop() {
				res, err := Greedy(GreedyProblem{Kernel: K, Quality: quality, Prefix: prefix, K: 10, Q: q, Workers: runtime.NumCPU()})
				if err != nil {
					b.Fatal(err)
				}
				stats = res.Stats
			}
			reportPruned(b, stats)
		})
	}
}

func embeddingKernel(rng *rand.Rand, n, d int) (FeatureMatrix, []float64) {
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		var ss float64
		for j := range row {
			row[j] = rng.NormFloat64()
			ss += row[j] * row[j]
		}
		for j := range row {
			row[j] /= math.Sqrt(ss)
		}
	}
	quality := make([]float64, n)
	for i := range quality {
		quality[i] = rng.Float64()
	}
	return FeatureMatrix{X}, quality
}

// BenchmarkGreedyEmbeddings: picks from 4,000 embeddings, d = 16, cosine
// kernel (the `qvs select` row of docs/performance.md). dual: the d x d rank-one form with
// bound-ordered pruning (FeatureMatrix); bordered: the same kernel behind
// FuncKernel, m x m bordered form; bruteforce: per-candidate
// eigendecomposition.
func BenchmarkGreedyEmbeddings(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	F, quality := embeddingKernel(rng, 4000, 16)
	for _, k := range []int{25, 100} {
		b.Run(fmt.Sprintf("dual/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := Greedy(GreedyProblem{Kernel: F, Quality: quality, K: k, Q: 1, Workers: runtime.NumCPU()}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("bordered/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := Greedy(GreedyProblem{Kernel: FuncKernel(F.Len(), F.At), Quality: quality, K: k, Q: 1, Workers: runtime.NumCPU()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("bruteforce/k=25", func(b *testing.B) {
		for b.Loop() {
			bruteForceGreedyBench(F, quality, 25, 1)
		}
	})
}

// bruteForceGreedyBench is the per-candidate eigendecomposition baseline
// (what the original Python does), for the speed-up figure.
func bruteForceGreedyBench(K Kernel, quality []float64, k int, q Order) []int {
	var chosen []int
	used := make([]bool, K.Len())
	for step := 0; step < k; step++ {
		best, bv := -1, math.Inf(-1)
		for c := 0; c < K.Len(); c++ {
			if used[c] {
				continue
			}
			set := append(append([]int(nil), chosen...), c)
			qual := make([]float64, len(set))
			for i, s := range set {
				qual[i] = quality[s]
			}
			v, _ := QualityWeighted(Submatrix(K, set), qual, q)
			if v > bv {
				best, bv = c, v
			}
		}
		used[best] = true
		chosen = append(chosen, best)
	}
	return chosen
}

// BenchmarkBruteForceCandidate times what the brute-force greedy pays for
// ONE candidate of the sparse benchmark (an eigendecomposition of the
// 151 x 151 kernel of the prefix plus the candidate); the fast greedy pays
// an arrowhead solve only for candidates near the chosen set and reuses
// roots across picks. Multiply by the candidates per pick for the
// brute-force cost of BenchmarkGreedySparse.
func BenchmarkBruteForceCandidate(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	K := randomPSD(rng, 151, 40)
	for b.Loop() {
		if _, err := Score(K, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbeddingSpectrum32: the first row of docs/performance.md's
// comparison with NumPy, the VS of 10,000
// float32 embeddings of dimension 2,048 (cosine; blocked float32 Gram and
// eigenvalues of the 2,048 x 2,048 dual), and a smaller size. Run with
// -tags openblas for the LAPACK backend.
func BenchmarkEmbeddingSpectrum32(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, sz := range [][2]int{{2000, 512}, {10000, 2048}} {
		n, d := sz[0], sz[1]
		x := make([]float32, n*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		b.Run(fmt.Sprintf("n=%d/d=%d", n, d), func(b *testing.B) {
			for b.Loop() {
				if _, err := embeddingSpectrum32(n, d, x, Cosine); err != nil {
					b.Fatal(err)
				}
			}
		})
		// qvs score's path. After the first call the rows are unit norm,
		// and scaling them again is the same work.
		y := slices.Clone(x)
		b.Run(fmt.Sprintf("inplace/n=%d/d=%d", n, d), func(b *testing.B) {
			for b.Loop() {
				if _, err := EmbeddingSpectrum32InPlace(n, d, y, Cosine); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// reportPruned reports the fraction of bounded candidates never solved.
func reportPruned(b *testing.B, s PruneStats) {
	if s.Bounded > 0 {
		b.ReportMetric(float64(s.Pruned)/float64(s.Bounded), "pruned/bounded")
	}
}

// clusteredEmbeddings is n x d float64 rows drawn around 64 random centres
// (unit-variance noise around centres of scale 3), the large-pool benchmark pool.
func clusteredEmbeddings(rng *rand.Rand, n, d int) FeatureMatrix {
	const centres = 64
	C := make([]float64, centres*d)
	for i := range C {
		C[i] = 3 * rng.NormFloat64()
	}
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		c := C[rng.IntN(centres)*d:]
		for j := range row {
			row[j] = c[j] + rng.NormFloat64()
		}
	}
	return FeatureMatrix{X}
}

// BenchmarkSelectEmbeddings: `qvs select --embeddings` without the file
// reading, k = 100 picks at q = 1 from n x 32 clustered embeddings with
// random qualities (linear kernel), with every pruning (stage=on: the lazy
// bounds of lazy.go and the first-stage bounds of dualprune.go), without
// the lazy bounds (lazy=off, the pass before them) and, as stage=off,
// without either (the unpruned dual pass before the first stage).
func BenchmarkSelectEmbeddings(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		rng := rand.New(rand.NewPCG(21, uint64(n)))
		F := clusteredEmbeddings(rng, n, 32)
		quality := make([]float64, n)
		for i := range quality {
			quality[i] = rng.Float64()
		}
		for _, mode := range []string{"stage=on", "lazy=off", "stage=off"} {
			if mode != "stage=on" && n > 100000 {
				continue // 100-700 s a run
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				defer func(v, l bool) { dualFirstStage, dualLazy = v, l }(dualFirstStage, dualLazy)
				dualFirstStage, dualLazy = mode != "stage=off", mode == "stage=on"
				for b.Loop() {
					if _, err := Greedy(GreedyProblem{Kernel: F, Quality: quality, K: 100, Q: 1, Workers: runtime.GOMAXPROCS(0), KnownPSD: true}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSelectSmallEmbeddings: the greedy of `qvs select --embeddings
// X.csv --k 100 --q 1` on scripts/perf-compare.sh's size, 4,000 x 16
// standard normal rows under the cosine kernel (unit rows) with uniform
// qualities, with the dual greedy's pruning as it is (prune=all), without
// the lazy bounds (prune=nolazy) and with the early stop of exact solves
// off (prune=noexit).
func BenchmarkSelectSmallEmbeddings(b *testing.B) {
	F, quality := embeddingKernel(rand.New(rand.NewPCG(15, 4000)), 4000, 16)
	for _, name := range []string{"prune=all", "prune=nolazy", "prune=noexit"} {
		b.Run(name, func(b *testing.B) {
			defer func(e, l bool) { dualEarlyExit, dualLazy = e, l }(dualEarlyExit, dualLazy)
			dualEarlyExit, dualLazy = name != "prune=noexit", name != "prune=nolazy"
			for b.Loop() {
				if _, err := Greedy(GreedyProblem{Kernel: F, Quality: quality, K: 100, Q: 1, Workers: runtime.GOMAXPROCS(0), KnownPSD: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFarBaseMixed: the far sums of a candidate's first bound (L = 1,
// the rows of the 70 largest of 110 poles) when it touches a block of 105
// eigenvalues with a Cauchy table and five singletons, the spread Fashion
// state's shape: from the block's table plus the singletons' terms
// (farBaseMixed) against one division per pair (farBase without a table).
func BenchmarkFarBaseMixed(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	const rb, extra = 105, 5
	eig := make([]float64, rb)
	for i := range eig {
		eig[i] = 7*rng.Float64() - 2
	}
	slices.Sort(eig)
	c, c2, _ := cauchyTables(eig)
	type pole struct {
		v     float64
		local int32
	}
	var poles []pole
	for l, v := range eig {
		poles = append(poles, pole{v, int32(l)})
	}
	for range extra {
		poles = append(poles, pole{0.5 + rng.Float64(), -1})
	}
	slices.SortFunc(poles, func(x, y pole) int { return cmp.Compare(x.v, y.v) })
	s := len(poles)
	p, w := make([]float64, s), make([]float64, s)
	tab := mixedCauchy{c: c, c2: c2, r: rb, own: make([]int32, s), cpos: make([]int32, rb), wloc: make([]float64, rb)}
	for k, pl := range poles {
		p[k], w[k], tab.own[k] = pl.v, rng.Float64()*0.05, pl.local
		if pl.local >= 0 {
			tab.cpos[pl.local] = int32(k)
		} else {
			tab.others = append(tab.others, k)
		}
	}
	f := farField{make([]float64, s), make([]float64, s), make([]float64, s), make([]float64, s), make([]float64, s)}
	from := s - 70
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			farBaseMixed(p, w, 1, from, tab, &f)
		}
	})
	b.Run("divisions", func(b *testing.B) {
		for b.Loop() {
			farBase(p, w, 1, from, nil, nil, &f)
		}
	})
}

// BenchmarkFarSumsBatch: the first bound's far sums (L = 1, rows of the 65
// positive of 130 poles, the run's large block) of 256 candidates touching
// that block, three ways: farBase per candidate (rows of the Cauchy tables
// times w, gonum's Ddot), one gonum Dgemm of the five masked tables
// stacked (left, right and their squares, and the full rows: 5 x 65 rows of
// 130) by the 130 x 256 matrix of the candidates' w, and farSingle from a
// member's table (candidates similar to one member alone). Reports ns per
// candidate.
func BenchmarkFarSumsBatch(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	const r, pos, m, L = 130, 65, 256, 1
	eig := make([]float64, r)
	for i := range eig {
		eig[i] = 4*rng.Float64() - 2
	}
	slices.Sort(eig)
	for i := r - pos; i < r; i++ {
		eig[i] = math.Abs(eig[i]) + 1e-3*float64(i)
	}
	slices.Sort(eig)
	c, c2, _ := cauchyTables(eig)
	from := r - pos - 1
	W := make([]float64, r*m) // column j: candidate j's w
	for i := range W {
		W[i] = 0.05 * rng.Float64()
	}
	f := farField{make([]float64, r), make([]float64, r), make([]float64, r), make([]float64, r), make([]float64, r)}
	perCand := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/candidate") }
	b.Run("ddot", func(b *testing.B) {
		w := make([]float64, r)
		for b.Loop() {
			for j := 0; j < m; j++ {
				for k := range w {
					w[k] = W[k*m+j]
				}
				farBase(eig, w, L, from, c, c2, &f)
			}
		}
		perCand(b)
	})
	b.Run("dgemm", func(b *testing.B) {
		rows := r - from
		A := make([]float64, 5*rows*r)
		for q := 0; q < 5; q++ {
			for i := from; i < r; i++ {
				a, e := max(0, i-1-L), min(r, i+2+L)
				for k := 0; k < r; k++ {
					var v float64
					switch {
					case q == 0 && k < a, q == 1 && k >= e, q == 4:
						v = c[i*r+k]
					case q == 2 && k < a, q == 3 && k >= e:
						v = c2[i*r+k]
					}
					A[(q*rows+i-from)*r+k] = v
				}
			}
		}
		C := make([]float64, 5*rows*m)
		impl := gonumblas.Implementation{}
		for b.Loop() {
			impl.Dgemm(blas.NoTrans, blas.NoTrans, 5*rows, m, r, 1, A, r, W, m, 0, C, m)
		}
		perCand(b)
	})
	b.Run("single", func(b *testing.B) {
		tab := make([]float64, 1+5*r)
		tab[0] = float64(from)
		for b.Loop() {
			for j := 0; j < m; j++ {
				farSingle(tab, W[j], from, &f)
			}
		}
		perCand(b)
	})
}
