package datasets

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// liveHeap records the largest live heap (HeapAlloc right after a forced
// collection) seen at the phase boundaries a ProgressFunc is told of: each
// phase's start (done 0) and end (done = total), where a phase has
// allocated its arrays or is about to drop them.
type liveHeap struct {
	mu    sync.Mutex
	peak  uint64
	where string
}

func (s *liveHeap) sample(where string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > s.peak {
		s.peak, s.where = ms.HeapAlloc, where
	}
}

func (s *liveHeap) progress(phase, _ string, done, total int64) {
	switch done {
	case 0:
		s.sample(phase + " (start)")
	case total:
		s.sample(phase + " (end)")
	}
}

// knnBenchPool32 is scripts/knn-bench.sh's pool, n x 32 float32: n/1000
// cluster centres N(0, 2²) per axis (at least 10), unit Gaussian noise
// around them.
func knnBenchPool32(n int, seed uint64) Rows32 {
	const d = 32
	rng := rand.New(rand.NewPCG(seed, 3))
	centres := make([]float64, max(n/1000, 10)*d)
	for c := range centres {
		centres[c] = 2 * rng.NormFloat64()
	}
	x := Rows32{Data: make([]float32, n*d), D: d}
	for i := range n {
		ctr := centres[rng.IntN(len(centres)/d)*d:][:d]
		for c, m := range ctr {
			x.Data[i*d+c] = float32(m + rng.NormFloat64())
		}
	}
	return x
}

// approxBuildLiveBytes builds the approximate k = 20 graph of n items of
// knnBenchPool32 as a .npy pool's load does (Pool.buildGraph: the graph,
// its Gaussian weights, the pool's rows) on 2 workers, and returns the
// largest live heap seen at its phase boundaries and after it (the pool
// holding its features and graph), with where it was.
func approxBuildLiveBytes(tb testing.TB, n int) (uint64, string) {
	var s liveHeap
	s.sample("before")
	base := s.peak // the test binary's own heap
	s.peak = 0
	p := &Pool{Name: "bench", Dense32: knnBenchPool32(n, 1), Labels: make([]bool, n), Unlabeled: true}
	cfg := CSVConfig{K: 20, KNN: KNNApprox, Metric: MetricEuclidean, Similarity: SimilarityGaussian}
	if err := p.buildGraph(cfg, "", GraphOptions{Workers: 2, Progress: s.progress}); err != nil {
		tb.Fatal(err)
	}
	s.sample("pool loaded")
	runtime.KeepAlive(p)
	return s.peak - min(base, s.peak), s.where
}

// BenchmarkApproxDenseKNNMemory: the largest live heap of the approximate
// build (B/item: bytes an item, the features' 128 included) on 250,000 x
// 32 float32 items, above releaseMemoryItems so that the build runs as at
// 10,000,000 (memory released between phases, reverse lists in chunks).
// docs/performance.md has the structures' bytes an item.
func BenchmarkApproxDenseKNNMemory(b *testing.B) {
	const n = 250_000
	for b.Loop() {
		peak, where := approxBuildLiveBytes(b, n)
		b.ReportMetric(float64(peak)/n, "live-B/item")
		b.Logf("peak live heap %.0f MB (%.0f B/item) at %s", float64(peak)/1e6, float64(peak)/n, where)
	}
}

// TestApproxKNNLiveBytesPerItem caps the approximate build's live heap at
// its phase boundaries, in bytes an item beyond the features, on 40,000 x
// 8 float32 items with the reverse lists in chunks as from
// releaseMemoryItems items: the candidate rows (4 + 4 bytes an entry, kc =
// 30: 240), the round's forward lists (120), a quarter of the reverse
// lists (at most 32), the per-row worst distance, list lengths, squared
// norms, renumbering and two workers' join marks (22): at most 414
// (measured: 392). The state byte back beside each index (30 more) or the
// reverse lists of every row at once (about 90 more) fail it.
func TestApproxKNNLiveBytesPerItem(t *testing.T) {
	const n, d = 40_000, 8
	x := knnBenchPool32(n, 2)
	x.D = d
	x.Data = x.Data[:n*d]
	var s liveHeap
	s.sample("before")
	base := s.peak
	s.peak = 0
	opt := ApproxOptions{Seed: 1, Workers: 2, Trees: 3, MaxIter: 2, RecallRows: 20, revChunks: revChunksLarge, Progress: s.progress}
	g, _, err := ApproxDenseKNN32(x, 20, MetricEuclidean, opt)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(x)
	perItem := (float64(s.peak) - float64(base) - 4*n*d) / n
	t.Logf("peak live heap %.1f MB: %.0f bytes an item beyond the features, at %s", float64(s.peak)/1e6, perItem, s.where)
	if perItem > 415 {
		t.Errorf("the build's live heap peaked at %.0f bytes an item beyond the features (at %s), want at most 415", perItem, s.where)
	}
	if g.N != n {
		t.Fatalf("graph of %d items, want %d", g.N, n)
	}
}
