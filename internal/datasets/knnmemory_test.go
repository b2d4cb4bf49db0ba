package datasets

import (
	"runtime"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// approxBuildLiveBytes builds the approximate k = 20 graph of n items of
// testutil.BenchFeatures32 as a .npy pool's load does (Pool.buildGraph:
// the graph, its Gaussian weights, the pool's rows) on 2 workers, and
// returns the largest live heap seen at its phase boundaries and after it
// (the pool holding its features and graph), with where it was.
func approxBuildLiveBytes(tb testing.TB, n int) (uint64, string) {
	var s testutil.LiveHeap
	s.Sample("before")
	base := s.Peak // the test binary's own heap
	s.Peak = 0
	data, d := testutil.BenchFeatures32(n, 1)
	p := &Pool{Name: "bench", Dense32: knn.Rows32{Data: data, D: d}, Labels: make([]bool, n), Unlabeled: true}
	cfg := CSVConfig{K: 20, KNN: knn.KNNApprox, Metric: knn.MetricEuclidean, Similarity: knn.SimilarityGaussian}
	if err := p.buildGraph(cfg, "", knn.GraphOptions{Workers: 2, Progress: s.Progress}); err != nil {
		tb.Fatal(err)
	}
	s.Sample("pool loaded")
	runtime.KeepAlive(p)
	return s.Peak - min(base, s.Peak), s.Where
}

// BenchmarkApproxDenseKNNMemory: the largest live heap of the approximate
// build (B/item: bytes an item, the features' 128 included) on 250,000 x
// 32 float32 items, above the approximate build's threshold for releasing
// memory between phases, so that the build runs as at 10,000,000 (memory released between phases, reverse lists in chunks).
// docs/performance.md has the structures' bytes an item.
func BenchmarkApproxDenseKNNMemory(b *testing.B) {
	const n = 250_000
	for b.Loop() {
		peak, where := approxBuildLiveBytes(b, n)
		b.ReportMetric(float64(peak)/n, "live-B/item")
		b.Logf("peak live heap %.0f MB (%.0f B/item) at %s", float64(peak)/1e6, float64(peak)/n, where)
	}
}
