package knn

import (
	"runtime"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

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
	data, _ := testutil.BenchFeatures32(n, 2)
	x := Rows32{Data: data[:n*d], D: d}
	var s testutil.LiveHeap
	s.Sample("before")
	base := s.Peak
	s.Peak = 0
	opt := ApproxOptions{Seed: 1, Workers: 2, Trees: 3, MaxIter: 2, RecallRows: 20, revChunks: revChunksLarge, Progress: s.Progress}
	g, _, err := ApproxDenseKNN32(x, 20, MetricEuclidean, opt)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(x)
	perItem := (float64(s.Peak) - float64(base) - 4*n*d) / n
	t.Logf("peak live heap %.1f MB: %.0f bytes an item beyond the features, at %s", float64(s.Peak)/1e6, perItem, s.Where)
	if perItem > 415 {
		t.Errorf("the build's live heap peaked at %.0f bytes an item beyond the features (at %s), want at most 415", perItem, s.Where)
	}
	if g.N != n {
		t.Fatalf("graph of %d items, want %d", g.N, n)
	}
}
