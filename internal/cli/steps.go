package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/knn"
)

// progressDelay is how long a step runs before its progress bar or status
// line shows (tests set 0): shorter steps pass silently.
var progressDelay = time.Second

// stepFrames reports whether a stepLog on w draws progress bars (tests
// replace it): on a terminal only. Elsewhere (stderr redirected to a file
// or a pipe) a bar's redrawn frames, each ended by a carriage return,
// would pile up in the file (160 KB for one graph build).
var stepFrames = campaign.IsTerminal

// stepLog shows the steps of a long command on stderr, one after another.
// On a terminal, a counted step (knn.ProgressFunc: done of total
// units) gets a progress bar: done and total in its unit, the rate and the
// time left at that rate, counted from the step's start, so the time left
// is the step's own; the bar is cleared when the step ends. Elsewhere, and
// for an uncounted step (step), a step gets one line when it shows,
// "<step> ..." (a counted one: "<step>, <total> <unit> ..."). Either shows
// only once the step has run for progressDelay, and a step that showed
// ends with one line: its work and duration. A nil *stepLog (--quiet)
// shows nothing.
type stepLog struct {
	w      io.Writer
	frames bool // progress bars (stepFrames)
	mu     sync.Mutex
	phase  string
	ended  string // the phase that ended last, until another starts
	unit   string
	total  int64 // 0: uncounted
	scale  int64 // reported units per bar unit: 1, or 1000 from 10^7
	done   int64
	start  time.Time
	gen    int // which step the timer belongs to
	timer  *time.Timer
	gate   *gatedWriter
	bar    *progressbar.ProgressBar
}

// gatedWriter passes writes to w once open; before, it drops them.
type gatedWriter struct {
	w    io.Writer
	open bool
}

func (g *gatedWriter) Write(b []byte) (int, error) {
	if !g.open {
		return len(b), nil
	}
	return g.w.Write(b)
}

// newStepLog returns the stepLog of w (nil if quiet).
func newStepLog(w io.Writer, quiet bool) *stepLog {
	if quiet {
		return nil
	}
	return &stepLog{w: w, frames: stepFrames(w)}
}

// Progress is the knn.ProgressFunc of l (nil for a nil l).
func (l *stepLog) Progress() knn.ProgressFunc {
	if l == nil {
		return nil
	}
	return l.report
}

// report is the knn.ProgressFunc: a new phase name starts a step.
func (l *stepLog) report(phase, unit string, done, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case phase == l.ended:
		return // a late call of the phase that just ended
	case phase != l.phase || l.gate == nil:
		l.begin(phase, unit, total)
		return
	case total == 0:
		l.finish() // an uncounted phase's second call ends it
		return
	case done <= l.done:
		return // calls from several goroutines may cross
	}
	l.done = done
	if done >= l.total {
		l.finish()
		return
	}
	if l.bar != nil {
		_ = l.bar.Set64(done / l.scale)
	}
}

// Step starts an uncounted step (nothing for a nil l); End or the next
// Step ends it.
func (l *stepLog) Step(name string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.begin(name, "", 0)
}

// begin ends the current step and starts one of total units (0:
// uncounted); the caller holds l.mu.
func (l *stepLog) begin(phase, unit string, total int64) {
	l.finish()
	l.phase, l.unit, l.total, l.done, l.start, l.ended = phase, unit, total, 0, time.Now(), ""
	l.gate = &gatedWriter{w: l.w}
	l.bar = nil
	if total > 0 && l.frames {
		l.scale = 1
		if total >= 10_000_000 {
			l.scale, unit = 1000, "k "+unit
		}
		l.bar = campaign.NewProgressBar(l.gate, phase, unit, int(max(1, (total+l.scale-1)/l.scale)))
	}
	l.gen++
	if progressDelay <= 0 {
		l.show()
		return
	}
	gen := l.gen
	l.timer = time.AfterFunc(progressDelay, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.gen == gen && l.gate != nil {
			l.show()
		}
	})
}

// show makes the current step visible; the caller holds l.mu.
func (l *stepLog) show() {
	l.gate.open = true
	switch {
	case l.bar != nil:
		_ = l.bar.RenderBlank()
	case l.total > 0:
		fmt.Fprintf(l.w, "%s, %s ...\n", l.phase, workAmount(l.total, l.unit))
	default:
		fmt.Fprintf(l.w, "%s ...\n", l.phase)
	}
}

// finish ends the current step: its bar is cleared and, if it showed, one
// line says its work and how long it took; the caller holds l.mu.
func (l *stepLog) finish() {
	if l.gate == nil {
		return
	}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.bar != nil {
		_ = l.bar.Finish() // cleared
	}
	if l.gate.open {
		name, _, _ := strings.Cut(l.phase, " (")
		took := time.Since(l.start)
		if l.total > 0 {
			fmt.Fprintf(l.w, "%s: %s in %s\n", name, workAmount(l.done, l.unit), seconds(took))
		} else {
			fmt.Fprintf(l.w, "%s: done in %s\n", name, seconds(took))
		}
	}
	l.gate, l.bar, l.ended = nil, nil, l.phase
}

// End ends the current step (nothing for a nil l).
func (l *stepLog) End() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finish()
}

// workAmount writes n units, in millions from 10^7.
func workAmount(n int64, unit string) string {
	if n >= 10_000_000 {
		return fmt.Sprintf("%.1f M %s", float64(n)/1e6, unit)
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
