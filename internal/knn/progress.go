package knn

import "sync/atomic"

// ProgressFunc is told how a long computation advances, one phase after
// another: phase names the step (the same text until the next step starts),
// and done of its total units of work (unit: "distances", "pairs", "rows"
// or "items") are finished. The units count what costs time, so that the
// share done is the share of the phase's time spent (within a phase the
// units cost about the same; across phases they need not). Each phase is
// announced with done = 0, its total known in advance, and ends with
// done = total, both from the goroutine that runs the computation; calls
// in between may come from several goroutines at once, and out of order.
// A phase of total 0 is not counted: only its start and end are reported
// (both with done = 0).
type ProgressFunc func(phase, unit string, done, total int64)

// Phase counts one phase's work and reports it; a nil one (no
// ProgressFunc) does nothing.
type Phase struct {
	f           ProgressFunc
	phase, unit string
	total       int64
	done        atomic.Int64
}

// StartPhase announces a phase of total units to f (nil: returns nil).
func StartPhase(f ProgressFunc, phase, unit string, total int64) *Phase {
	if f == nil {
		return nil
	}
	f(phase, unit, 0, total)
	return &Phase{f: f, phase: phase, unit: unit, total: total}
}

// Add records n more units done.
func (c *Phase) Add(n int64) {
	if c == nil || n == 0 {
		return
	}
	c.f(c.phase, c.unit, c.done.Add(n), c.total)
}

// Finish reports the phase complete (done = total).
func (c *Phase) Finish() {
	if c != nil {
		c.f(c.phase, c.unit, c.total, c.total)
	}
}

// At reports done units when done is a multiple of 65,536 (a phase run on
// one goroutine, counting rows as it goes).
func (c *Phase) At(done int64) {
	if c != nil && done&0xffff == 0 && done > 0 {
		c.done.Store(done)
		c.f(c.phase, c.unit, done, c.total)
	}
}
