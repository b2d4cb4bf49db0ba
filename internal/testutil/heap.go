package testutil

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// WatchHeap samples the Go heap every 10 ms until the test ends and
// returns a context cancelled once the heap exceeds limit bytes, and a
// function giving the peak seen so far. A test of a runaway reader passes
// the context to the code under test (or checks the peak afterwards), so
// it fails with a number instead of taking the machine's memory. The heap
// is collected first, so the peak counts what the test allocates.
func WatchHeap(t testing.TB, limit uint64) (ctx context.Context, peak func() uint64) {
	t.Helper()
	runtime.GC()
	ctx, cancel := context.WithCancel(context.Background())
	var max atomic.Uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > max.Load() {
			max.Store(ms.HeapAlloc)
		}
		if ms.HeapAlloc > limit {
			cancel()
		}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
				sample()
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped; cancel() })
	return ctx, func() uint64 { sample(); return max.Load() }
}

// Allocated returns the bytes f allocates: the growth of
// runtime.MemStats.TotalAlloc across the call, garbage included. Unlike
// the peak heap (WatchHeap), which depends on when the collector runs and
// so on the machine's load, it is the same on every run, and a memory
// bound in a test is a bound on it. Other goroutines' allocations during
// the call count too: the test must not run in parallel with others.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
