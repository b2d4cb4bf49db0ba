package testutil

import (
	"math/rand/v2"
	"runtime"
	"sync"
)

// LiveHeap records the largest live heap (HeapAlloc right after a forced
// collection) seen at the phase boundaries a ProgressFunc is told of: each
// phase's start (done 0) and end (done = total), where a phase has
// allocated its arrays or is about to drop them.
type LiveHeap struct {
	mu    sync.Mutex
	Peak  uint64 // the largest live heap seen, in bytes
	Where string // where it was seen
}

// Sample collects the garbage and records the live heap at where.
func (s *LiveHeap) Sample(where string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > s.Peak {
		s.Peak, s.Where = ms.HeapAlloc, where
	}
}

// Progress is a ProgressFunc of the kNN builders and pool loaders that
// samples at each phase's start and end.
func (s *LiveHeap) Progress(phase, _ string, done, total int64) {
	switch done {
	case 0:
		s.Sample(phase + " (start)")
	case total:
		s.Sample(phase + " (end)")
	}
}

// BenchFeatures32 is scripts/knn-bench.sh's pool, n x 32 float32 (data
// row-major, d = 32): n/1000 cluster centres N(0, 2²) per axis (at least
// 10), unit Gaussian noise around them.
func BenchFeatures32(n int, seed uint64) (data []float32, d int) {
	d = 32
	rng := rand.New(rand.NewPCG(seed, 3))
	centres := make([]float64, max(n/1000, 10)*d)
	for c := range centres {
		centres[c] = 2 * rng.NormFloat64()
	}
	data = make([]float32, n*d)
	for i := range n {
		ctr := centres[rng.IntN(len(centres)/d)*d:][:d]
		for c, m := range ctr {
			data[i*d+c] = float32(m + rng.NormFloat64())
		}
	}
	return data, d
}
