package knn

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// trueRecall compares g with the exact graph ex: a neighbour of g counts as
// found if its distance is at most the exact k-th distance of its row.
func trueRecall(g, ex *KNNGraph) float64 {
	found := 0
	for i := 0; i < g.N; i++ {
		kth := ex.Distances(i)[ex.K-1]
		for _, v := range g.Distances(i) {
			if v <= kth {
				found++
			}
		}
	}
	return float64(found) / float64(g.N*g.K)
}

// checkApproxRows checks what an approximate graph promises regardless of
// recall: no self edge, no repeat, distances equal to exact(i, j), rows
// ordered by (distance, index).
func checkApproxRows(t *testing.T, g *KNNGraph, exact func(i, j int) float64) {
	t.Helper()
	for i := 0; i < g.N; i++ {
		nb, ds := g.Neighbors(i), g.Distances(i)
		seen := map[int32]bool{}
		for m, j := range nb {
			if int(j) == i || seen[j] {
				t.Fatalf("row %d: neighbour %d repeated or self (%v)", i, j, nb)
			}
			seen[j] = true
			if ds[m] != exact(i, int(j)) {
				t.Fatalf("row %d: distance to %d is %v, exact %v", i, j, ds[m], exact(i, int(j)))
			}
			if m > 0 && (ds[m] < ds[m-1] || ds[m] == ds[m-1] && j < nb[m-1]) {
				t.Fatalf("row %d not ordered by (distance, index): %v %v", i, nb, ds)
			}
		}
	}
}

func TestApproxDenseKNNRecall(t *testing.T) {
	for _, metric := range []string{MetricEuclidean, MetricCosine} {
		x := testutil.ClusteredGaussian(6000, 32, 20, 7)
		ex, err := DenseKNN(x, 20, metric, 0)
		if err != nil {
			t.Fatal(err)
		}
		// RecallRows >= n: the measured recall is over every row, so it
		// must equal the recall against the exact graph.
		g, st, err := ApproxDenseKNN(x, 20, metric, ApproxOptions{Seed: 1, RecallRows: 6000})
		if err != nil {
			t.Fatal(err)
		}
		sp, _ := newDenseSpace(x, metric)
		checkApproxRows(t, g, sp.exact)
		r := trueRecall(g, ex)
		if r < 0.99 || st.Recall != r || st.RecallRows != 6000 {
			t.Errorf("%s: recall %.4f (measured %.4f on %d rows), want >= 0.99 and equal", metric, r, st.Recall, st.RecallRows)
		}
		// A sample estimates it.
		_, st2, _ := ApproxDenseKNN(x, 20, metric, ApproxOptions{Seed: 1, RecallRows: 300})
		if st2.RecallRows != 300 || st2.Recall < r-0.02 || st2.Recall > min(1, r+0.02) {
			t.Errorf("%s: sampled recall %.4f on %d rows, full %.4f", metric, st2.Recall, st2.RecallRows, r)
		}
		t.Logf("%s: recall %.5f after %d rounds", metric, r, st.Rounds)
	}
}

func TestApproxKNNDeterministic(t *testing.T) {
	x := testutil.ClusteredGaussian(3000, 16, 10, 3)
	g1, _, err := ApproxDenseKNN(x, 10, MetricEuclidean, ApproxOptions{Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	g4, _, _ := ApproxDenseKNN(x, 10, MetricEuclidean, ApproxOptions{Seed: 5, Workers: 4})
	if !slices.Equal(g1.Index, g4.Index) || !slices.Equal(g1.Distance, g4.Distance) {
		t.Fatal("the graph depends on the number of workers")
	}
	// Reverse lists built a chunk of rows at a time (as from
	// releaseMemoryItems items): the same graph.
	for _, chunks := range []int{2, 7} {
		gc, _, _ := ApproxDenseKNN(x, 10, MetricEuclidean, ApproxOptions{Seed: 5, Workers: 3, revChunks: chunks})
		if !slices.Equal(g1.Index, gc.Index) || !slices.Equal(g1.Distance, gc.Distance) {
			t.Fatalf("the graph with the reverse lists in %d chunks differs", chunks)
		}
	}
}

// Small pools, k close to n, duplicates: the graph is complete and exact.
func TestApproxKNNSmallExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := randomPoints(rng, 40, 3, 0)
	g, st, err := ApproxDenseKNN(x, 39, MetricEuclidean, ApproxOptions{LeafSize: 8, Trees: 2})
	if err != nil {
		t.Fatal(err)
	}
	idx, ds := bruteKNN(40, 39, func(i, j int) float64 { return euclidean(x[i], x[j]) })
	checkGraph(t, "k = n-1", g, idx, ds)
	if st.Recall != 1 {
		t.Errorf("recall %v, want 1", st.Recall)
	}
	if _, _, err := ApproxDenseKNN(x, 40, MetricEuclidean, ApproxOptions{}); err == nil {
		t.Error("k = n accepted")
	}
}

func TestApproxBitsKNNRecall(t *testing.T) {
	b := testutil.ClusteredBits(4000, 512, 30, 9)
	ex, err := BitsKNN(b, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, st, err := ApproxBitsKNN(b, 20, ApproxOptions{Seed: 1, RecallRows: 4000})
	if err != nil {
		t.Fatal(err)
	}
	checkApproxRows(t, g, newBitsSpace(b).exact)
	for i := 0; i < 50; i++ { // distances are BitsKNN's, bit for bit
		if g.Distances(i)[0] != ex.Distances(i)[0] && g.Neighbors(i)[0] == ex.Neighbors(i)[0] {
			t.Fatalf("row %d: distance %v, BitsKNN %v", i, g.Distances(i)[0], ex.Distances(i)[0])
		}
	}
	if r := trueRecall(g, ex); r < 0.99 || r != st.Recall {
		t.Errorf("recall %.4f (measured %.4f), want >= 0.99 and equal", r, st.Recall)
	}
}

// benchPool is the pool of scripts/knn-bench.sh: n/1000 overlapping
// clusters (centres N(0, 2^2) per axis, unit noise) in 32 dimensions.
func benchPool(n int) [][]float64 {
	return testutil.ClusteredGaussianSpread(n, 32, max(n/1000, 10), 2, 1)
}

// BenchmarkApproxDenseKNN against BenchmarkDenseKNNClustered (the exact
// graph) on the same pools, k = 20: where ApproxMinItems comes from.
func BenchmarkApproxDenseKNN(b *testing.B) {
	for _, n := range []int{20000, 100000} {
		x := benchPool(n)
		b.Run("n="+itoa(n), func(b *testing.B) {
			for b.Loop() {
				_, st, err := ApproxDenseKNN(x, 20, MetricEuclidean, ApproxOptions{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(st.Recall, "recall")
				b.ReportMetric(float64(st.Rounds), "rounds")
			}
		})
	}
}

func BenchmarkDenseKNNClustered(b *testing.B) {
	for _, n := range []int{20000, 100000} {
		x := benchPool(n)
		b.Run("n="+itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := DenseKNN(x, 20, MetricEuclidean, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

// BenchmarkApproxBitsKNN: 2,048-bit fingerprints, k = 20, default options:
// CPU time, rounds and the sampled recall (against BenchmarkBitsKNN's brute
// force), on two pools: pool=clustered (clusteredBits: 30 centres, 10 % of
// bits set, 5 % flipped) and pool=fingerprints (fpLikeBits, the pool of
// scripts/fp_pool.py, whose 20 nearest neighbours lie close together).
func BenchmarkApproxBitsKNN(b *testing.B) {
	pools := []struct {
		name string
		make func(n int) [][]uint64
	}{
		{"clustered", func(n int) [][]uint64 { return testutil.ClusteredBits(n, 2048, max(n/1000, 30), 5) }},
		{"fingerprints", func(n int) [][]uint64 { return fpLikeBits(n, 1) }},
	}
	for _, p := range pools {
		for _, n := range []int{20000, 100000} {
			b.Run("pool="+p.name+"/n="+itoa(n), func(b *testing.B) {
				x := p.make(n)
				b.ResetTimer()
				for b.Loop() {
					_, st, err := ApproxBitsKNN(x, 20, ApproxOptions{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(st.Recall, "recall")
					b.ReportMetric(float64(st.Rounds), "rounds")
				}
			})
		}
	}
}

// TestAndCount: |a AND b| against a bit-by-bit count, for every length
// 0..9 words (the unrolled body and the tail) on random words.
func TestAndCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for words := 0; words <= 9; words++ {
		for trial := 0; trial < 50; trial++ {
			a, b := make([]uint64, words), make([]uint64, words)
			want := 0
			for w := range a {
				a[w], b[w] = rng.Uint64()&rng.Uint64(), rng.Uint64()|rng.Uint64()
				for bit := 0; bit < 64; bit++ {
					if a[w]>>bit&1 == 1 && b[w]>>bit&1 == 1 {
						want++
					}
				}
			}
			if got := AndCount(a, b); got != want {
				t.Fatalf("%d words: andCount %d, bit by bit %d", words, got, want)
			}
		}
	}
}

// BenchmarkAndCount: |a AND b| of 2,048-bit rows, the unrolled andCount
// against the plain loop it replaced (in cache: the kernel's own cost).
func BenchmarkAndCount(b *testing.B) {
	x := testutil.ClusteredBits(64, 2048, 4, 1)
	sink := 0
	b.Run("unrolled", func(b *testing.B) {
		for b.Loop() {
			for i := range x {
				for j := range x {
					sink += AndCount(x[i], x[j])
				}
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			for i := range x {
				for j := range x {
					and := 0
					for w, v := range x[i] {
						and += bits.OnesCount64(v & x[j][w])
					}
					sink += and
				}
			}
		}
	})
	_ = sink
}

// TestAndCount4: the four counts of andCount4 against andCount (itself
// checked bit by bit above), for every length 0..9 words.
func TestAndCount4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for words := 0; words <= 9; words++ {
		rows := make([][]uint64, 5)
		for r := range rows {
			rows[r] = make([]uint64, words+r%2) // b rows may be longer than a
			for w := range rows[r] {
				rows[r][w] = rng.Uint64() & rng.Uint64()
			}
		}
		a := rows[0][:words]
		got := andCount4(a, rows[1], rows[2], rows[3], rows[4])
		for q := range 4 {
			if want := AndCount(a, rows[q+1]); got[q] != want {
				t.Fatalf("%d words, row %d: andCount4 %d, andCount %d", words, q, got[q], want)
			}
		}
	}
}

// TestWorkMany: workMany equals work pair by pair, for 0..9 candidates (the
// groups of four and the tail), on fingerprints (input and renumbered
// layouts) and dense rows (both metrics).
func TestWorkMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	b := testutil.ClusteredBits(50, 300, 4, 2)
	bs := newBitsSpace(b)
	perm := make([]int32, 50)
	for i := range perm {
		perm[i] = int32(49 - i)
	}
	spaces := map[string]approxSpace{"bits": bs, "bits renumbered": bs.permuted(perm)}
	for _, metric := range []string{MetricEuclidean, MetricCosine} {
		ds, err := newDenseSpace(randomPoints(rng, 50, 7, 0), metric)
		if err != nil {
			t.Fatal(err)
		}
		spaces[metric] = ds
	}
	for name, sp := range spaces {
		for m := 0; m <= 9; m++ {
			i := int32(rng.IntN(50))
			js := make([]int32, m)
			for e := range js {
				js[e] = int32(rng.IntN(50))
			}
			out := make([]float32, m)
			sp.workMany(i, js, out)
			for e, j := range js {
				if want := sp.work(i, j); out[e] != want {
					t.Fatalf("%s, %d candidates: workMany(%d, %d) = %v, work %v", name, m, i, j, out[e], want)
				}
			}
		}
	}
}

func TestApproxBitsKNNDeterministic(t *testing.T) {
	b := testutil.ClusteredBits(3000, 512, 20, 4)
	g1, _, err := ApproxBitsKNN(b, 10, ApproxOptions{Seed: 5, Workers: 1, RecallRows: -1})
	if err != nil {
		t.Fatal(err)
	}
	g4, _, _ := ApproxBitsKNN(b, 10, ApproxOptions{Seed: 5, Workers: 4, RecallRows: -1})
	if !slices.Equal(g1.Index, g4.Index) || !slices.Equal(g1.Distance, g4.Distance) {
		t.Fatal("the graph depends on the number of workers")
	}
}

// BenchmarkAndCount4: the Tanimoto kernel on candidate rows drawn at random
// from 250,000 fingerprints of 2,048 bits (64 MB, past the cache as in an
// NN-descent round): one row at a time (andCount), four at a time
// (andCount4), and four at a time in index order (as the rounds measure).
func BenchmarkAndCount4(b *testing.B) {
	const n, words, batch = 250000, 32, 1 << 16
	rng := rand.New(rand.NewPCG(7, 7))
	flat := make([]uint64, n*words)
	for w := range flat {
		flat[w] = rng.Uint64() & rng.Uint64() & rng.Uint64()
	}
	row := func(i int32) []uint64 { return flat[int(i)*words : int(i+1)*words] }
	js := make([]int32, batch)
	for e := range js {
		js[e] = int32(rng.IntN(n))
	}
	sorted := slices.Sorted(slices.Values(js))
	sink := 0
	a := row(0)
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			for _, j := range js {
				sink += AndCount(a, row(j))
			}
		}
	})
	four := func(js []int32) {
		for m := 0; m+4 <= len(js); m += 4 {
			c := andCount4(a, row(js[m]), row(js[m+1]), row(js[m+2]), row(js[m+3]))
			sink += c[0] + c[1] + c[2] + c[3]
		}
	}
	b.Run("four", func(b *testing.B) {
		for b.Loop() {
			four(js)
		}
	})
	b.Run("four-sorted", func(b *testing.B) {
		for b.Loop() {
			four(sorted)
		}
	})
	_ = sink
}
