package rover

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

// Task is the rover objective as a bayesopt.Objective. It caches the
// trajectories (and their search indexes) of recently seen x so that the
// O(n^2) distance computations of a campaign do not refit splines (a fit
// costs about a tenth of a distance); the cache holds at most cacheSize
// entries of about 25 KB each. Safe for concurrent use.
type Task struct {
	mu    sync.Mutex
	cache map[string]*prepared
}

// cacheSize bounds the number of cached trajectories per Task.
const cacheSize = 2048

type prepared struct {
	traj  [][2]float64
	index *curveIndex
}

// New returns the rover task.
func New() *Task { return &Task{cache: make(map[string]*prepared)} }

// Name returns "rover".
func (*Task) Name() string { return "rover" }

// Dim returns 60.
func (*Task) Dim() int { return Dim }

// Bounds returns the box [-1/30, 1/15]^60.
func (*Task) Bounds() (lower, upper []float64) {
	lower, upper = make([]float64, Dim), make([]float64, Dim)
	for i := range lower {
		lower[i], upper[i] = Lower, Upper
	}
	return lower, upper
}

// Evaluate returns Reward(x); x must have Dim entries.
func (t *Task) Evaluate(_ context.Context, x []float64) (float64, error) {
	if len(x) != t.Dim() {
		return math.NaN(), fmt.Errorf("rover: x has %d entries, want %d", len(x), t.Dim())
	}
	return reward(x), nil
}

// Distance is the symmetric one-way distance between the trajectories of a
// and b (0 when a == b).
func (t *Task) Distance(a, b []float64) float64 {
	pa, pb := t.prepare(a), t.prepare(b)
	return oneWay(pa.index, pb.index)
}

// key is the bit pattern of x, so equal inputs share one cache entry.
func key(x []float64) string {
	b := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return string(b)
}

func (t *Task) prepare(x []float64) *prepared {
	if len(x) != Dim {
		panic("rover: x must have 60 entries")
	}
	k := key(x)
	t.mu.Lock()
	p, ok := t.cache[k]
	t.mu.Unlock()
	if ok {
		return p
	}
	traj := Trajectory(x)
	p = &prepared{traj: traj, index: newCurveIndex(traj)}
	t.mu.Lock()
	if len(t.cache) >= cacheSize {
		for old := range t.cache { // evict an arbitrary entry
			delete(t.cache, old)
			break
		}
	}
	t.cache[k] = p
	t.mu.Unlock()
	return p
}
