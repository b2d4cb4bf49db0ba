package datasets

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

// phaseCounter counts one phase's work and reports it; a nil one (no
// ProgressFunc) does nothing.
type phaseCounter struct {
	f           ProgressFunc
	phase, unit string
	total       int64
	done        atomic.Int64
}

// startPhase announces a phase of total units to f (nil: returns nil).
func startPhase(f ProgressFunc, phase, unit string, total int64) *phaseCounter {
	if f == nil {
		return nil
	}
	f(phase, unit, 0, total)
	return &phaseCounter{f: f, phase: phase, unit: unit, total: total}
}

// add records n more units done.
func (c *phaseCounter) add(n int64) {
	if c == nil || n == 0 {
		return
	}
	c.f(c.phase, c.unit, c.done.Add(n), c.total)
}

// finish reports the phase complete (done = total).
func (c *phaseCounter) finish() {
	if c != nil {
		c.f(c.phase, c.unit, c.total, c.total)
	}
}

// at reports done units when done is a multiple of 65,536 (a phase run on
// one goroutine, counting rows as it goes).
func (c *phaseCounter) at(done int64) {
	if c != nil && done&0xffff == 0 && done > 0 {
		c.done.Store(done)
		c.f(c.phase, c.unit, done, c.total)
	}
}
