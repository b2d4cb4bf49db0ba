package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBlocksCoversOnce: every index is visited exactly once, in blocks of
// the given size starting at multiples of it, and no two goroutines use
// the same worker index at once.
func TestBlocksCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 16, 17, 1000} {
		for _, size := range []int{0, 1, 3, 16, 5000} {
			for _, workers := range []int{-1, 0, 1, 2, 5, 64} {
				seen := make([]atomic.Int32, n)
				busy := make([]atomic.Int32, max(workers, 1))
				Blocks(n, size, workers, func(w, lo, hi int) {
					if w < 0 || w >= max(workers, 1) {
						t.Errorf("worker %d of %d", w, workers)
						return
					}
					if busy[w].Add(1) != 1 {
						t.Errorf("worker %d runs two blocks at once", w)
					}
					defer busy[w].Add(-1)
					s := max(size, 1)
					if lo%s != 0 || hi != min(lo+s, n) {
						t.Errorf("n=%d size=%d: block [%d, %d)", n, size, lo, hi)
					}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				for i := range seen {
					if c := seen[i].Load(); c != 1 {
						t.Fatalf("n=%d size=%d workers=%d: index %d visited %d times", n, size, workers, i, c)
					}
				}
			}
		}
	}
}

// TestSplitChunks: Split gives contiguous chunks of ceil(n/workers) items,
// as many as there are workers, fewer when a chunk would be below
// minChunk, and one inline call with one worker.
func TestSplitChunks(t *testing.T) {
	for _, tc := range []struct {
		n, workers, minChunk int
		want                 []string
	}{
		{10, 3, 1, []string{"[0,4)", "[4,8)", "[8,10)"}},
		{10, 1, 1, []string{"[0,10)"}},
		{10, 4, 5, []string{"[0,5)", "[5,10)"}}, // 10/4 < 5: two workers
		{10, 4, 100, []string{"[0,10)"}},        // too small to split
		{9000, 2, 2048, []string{"[0,4500)", "[4500,9000)"}},
		{0, 4, 1, nil},
		{3, 8, 1, []string{"[0,1)", "[1,2)", "[2,3)"}},
	} {
		var mu sync.Mutex
		got := map[string]bool{}
		Split(tc.n, tc.workers, tc.minChunk, func(lo, hi int) {
			mu.Lock()
			got[fmt.Sprintf("[%d,%d)", lo, hi)] = true
			mu.Unlock()
		})
		if len(got) != len(tc.want) {
			t.Errorf("Split(%d, %d, %d) = %v, want %v", tc.n, tc.workers, tc.minChunk, got, tc.want)
			continue
		}
		for _, c := range tc.want {
			if !got[c] {
				t.Errorf("Split(%d, %d, %d) = %v, want %v", tc.n, tc.workers, tc.minChunk, got, tc.want)
			}
		}
	}
}

// TestEachFirstErrorByIndex: the error of the lowest failing index is
// returned whatever the order the goroutines finish in, and every f runs.
func TestEachFirstErrorByIndex(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		var ran atomic.Int32
		err := Each(context.Background(), 100, workers, func(i int) error {
			ran.Add(1)
			if i%7 == 5 {
				return fmt.Errorf("item %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "item 5" || ran.Load() != 100 {
			t.Errorf("workers=%d: err %v after %d calls; want item 5 after 100", workers, err, ran.Load())
		}
		if err := Each(context.Background(), 100, workers, func(int) error { return nil }); err != nil {
			t.Errorf("workers=%d: %v", workers, err)
		}
	}
}

// TestEachStopsOnCancel: once ctx is done no further f starts and Each
// returns ctx.Err().
func TestEachStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Each(ctx, 1000, 2, func(i int) error {
		if ran.Add(1) == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// At most the calls already started when cancel ran (one per worker)
	// follow the tenth.
	if n := ran.Load(); n > 12 {
		t.Errorf("%d calls after a cancel at the 10th", n)
	}
}
