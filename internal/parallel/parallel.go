// Package parallel runs the iterations of a loop on several goroutines: the
// one way the module splits work over cores, so that each parallel loop
// states only its body and its split.
//
// Results never depend on the split or on which goroutine runs what: every
// body writes only its own indices (or per-goroutine scratch, named by the
// worker index w), and errors are reported by index, not by arrival. A loop
// with one worker, or one piece of work, runs on the calling goroutine.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// Workers runs f(0), ..., f(workers-1) on workers goroutines (inline when
// workers <= 1) and waits for them: for a loop that hands out its own work
// (a queue with a cut-off, say). Prefer Blocks, Split or Each.
func Workers(workers int, f func(w int)) {
	if workers <= 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	wg.Wait()
}

// Blocks calls body(w, lo, hi) on the blocks [lo, hi) = [b·size,
// min((b+1)·size, n)) of [0, n), on min(workers, #blocks) goroutines that
// each take the next block when done with one (an atomic counter): blocks
// of unequal cost balance. w ∈ [0, workers) names the goroutine running the
// block, so body may keep per-goroutine scratch in a slice indexed by w
// without locking. size < 1 counts as 1.
func Blocks(n, size, workers int, body func(w, lo, hi int)) {
	size = max(size, 1)
	blocks := (n + size - 1) / size
	if blocks <= 0 {
		return
	}
	var next atomic.Int64
	Workers(min(workers, blocks), func(w int) {
		for {
			b := int(next.Add(1)) - 1
			if b >= blocks {
				return
			}
			lo := b * size
			body(w, lo, min(lo+size, n))
		}
	})
}

// Split calls body(lo, hi) on at most workers contiguous chunks of [0, n)
// of equal size (the last shorter), each of at least minChunk items: fewer
// workers when n/workers < minChunk, where starting a goroutine would cost
// more than its share of the work. For work of uniform cost per item.
func Split(n, workers, minChunk int, body func(lo, hi int)) {
	workers = max(workers, 1)
	if workers > 1 && n/workers < minChunk {
		workers = max(1, n/max(minChunk, 1))
	}
	if workers == 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	Blocks(n, chunk, workers, func(_, lo, hi int) { body(lo, hi) })
}

// Each calls f(i) for i ∈ [0, n) on up to workers goroutines, each taking
// the next i when done with one, and returns the error of the lowest i that
// failed, as a sequential loop that stopped at the first error would (every
// f runs, though). Once ctx is done no further f starts and Each returns
// ctx.Err().
func Each(ctx context.Context, n, workers int, f func(i int) error) error {
	errs := make([]error, max(n, 0))
	Blocks(n, 1, workers, func(_, i, _ int) {
		if ctx.Err() == nil {
			errs[i] = f(i)
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
