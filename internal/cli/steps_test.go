package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestStepLog: a counted phase ends at its total (a late call of it starts
// nothing), an uncounted one at its second call, each with one line; the
// bar counts in thousands from 10^7 units; a nil log (--quiet) writes
// nothing.
func TestStepLog(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	var b bytes.Buffer
	l := newStepLog(&b, false)
	l.frames = true // a terminal
	f := l.Progress()
	f("a (first)", "pairs", 0, 10)
	f("a (first)", "pairs", 7, 10)
	f("a (first)", "pairs", 5, 10) // crossed: ignored
	f("a (first)", "pairs", 10, 10)
	f("a (first)", "pairs", 10, 10) // late: ignored
	f("b", "", 0, 0)
	f("b", "", 0, 0)
	f("c", "distances", 0, 25_000_000)
	f("c", "distances", 12_000_000, 25_000_000)
	l.Step("d")
	l.End()
	got := strings.ReplaceAll(b.String(), "\r", "\n")
	var lines []string
	for _, s := range strings.Split(got, "\n") {
		if s = strings.TrimSpace(s); s != "" && !strings.Contains(s, "%") {
			lines = append(lines, regexp.MustCompile(`\d+\.\d s$`).ReplaceAllString(s, "T"))
		}
	}
	want := []string{"a: 10 pairs in T", "b ...", "b: done in T", "c: 12.0 M distances in T", "d ...", "d: done in T"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines\n%q\nwant\n%q\n(all: %q)", lines, want, got)
	}
	if !strings.Contains(got, "/25000, ") || !strings.Contains(got, "k distances/") {
		t.Errorf("the bar of c does not count thousands: %q", got)
	}
	var quiet *stepLog
	if quiet.Progress() != nil {
		t.Error("a quiet log has a ProgressFunc")
	}
	quiet.Step("x")
	quiet.End()
}

// TestStepLogNotTerminal: on a writer that is not a terminal (a file, a
// pipe: here a buffer, as StepFrames decides) no bar is drawn: no
// carriage return, one line when a step starts (a counted one with its
// total work) and one when it ends with its work and duration, whatever
// the number of progress calls.
func TestStepLogNotTerminal(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	var b bytes.Buffer
	l := newStepLog(&b, false)
	if l.frames {
		t.Fatal("a buffer is taken for a terminal")
	}
	f := l.Progress()
	f("a (first)", "pairs", 0, 1000)
	for done := int64(1); done <= 1000; done++ {
		f("a (first)", "pairs", done, 1000)
	}
	f("c", "distances", 0, 25_000_000)
	f("c", "distances", 12_000_000, 25_000_000)
	l.Step("d")
	l.End()
	got := regexp.MustCompile(`\d+\.\d s\n`).ReplaceAllString(b.String(), "T\n")
	want := "a (first), 1000 pairs ...\na: 1000 pairs in T\nc, 25.0 M distances ...\nc: 12.0 M distances in T\nd ...\nd: done in T\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}

}
