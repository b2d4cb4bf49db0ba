package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
)

// progressDelay is how long a step runs before its progress bar or status
// line shows (tests set 0): shorter steps pass silently.
var progressDelay = time.Second

// phaseBars shows the phases a datasets.ProgressFunc reports on w, one
// progress bar per phase (done and total in the phase's unit, its rate and
// the time left at that rate, cleared when the phase ends), and after each
// phase that showed its bar, one line with its work and duration.
type phaseBars struct {
	w     io.Writer
	mu    sync.Mutex
	phase string
	unit  string
	total int64
	scale int64 // reported units per bar unit: 1, or 1000 from 10^7
	start time.Time
	gate  *gatedWriter
	bar   *progressbar.ProgressBar
	done  int64
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

// graphProgress returns the ProgressFunc of a pool load (phaseBars on w)
// and a stop function that ends the last phase. Quiet: no callback.
func graphProgress(w io.Writer, quiet bool) (datasets.ProgressFunc, func()) {
	if quiet {
		return nil, func() {}
	}
	b := &phaseBars{w: w}
	return b.report, b.stop
}

// report is the datasets.ProgressFunc.
func (b *phaseBars) report(phase, unit string, done, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if phase != b.phase || b.bar == nil {
		b.end()
		b.phase, b.unit, b.total, b.done, b.start = phase, unit, total, 0, time.Now()
		b.scale = 1
		if total >= 10_000_000 {
			b.scale, unit = 1000, "k "+unit
		}
		// The bar counts from the phase's start, so its rate (and the
		// time left) is the phase's own; its output shows after the delay.
		b.gate = &gatedWriter{w: b.w}
		b.bar = campaign.NewProgressBar(b.gate, phase, unit, int(max(1, (total+b.scale-1)/b.scale)))
	}
	if done <= b.done { // calls from several goroutines may cross
		return
	}
	b.done = done
	if !b.gate.open && time.Since(b.start) >= progressDelay {
		b.gate.open = true
	}
	if done < b.total {
		_ = b.bar.Set64(done / b.scale)
	}
}

// end closes the current phase: its bar is cleared and, if it showed, a
// line says the work done and how long it took.
func (b *phaseBars) end() {
	if b.bar == nil {
		return
	}
	_ = b.bar.Finish() // cleared
	if b.gate.open || time.Since(b.start) >= progressDelay {
		name, _, _ := strings.Cut(b.phase, " (")
		fmt.Fprintf(b.w, "%s: %s in %s\n", name, workAmount(b.done, b.unit), seconds(time.Since(b.start)))
	}
	b.bar = nil
}

func (b *phaseBars) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.end()
}

// workAmount writes n units, in millions from 10^7.
func workAmount(n int64, unit string) string {
	if n >= 10_000_000 {
		return fmt.Sprintf("%.1f M %s", float64(n)/1e6, unit)
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
