package campaign

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptSignals are the signals every long-running command treats as a
// request to stop cleanly (runs in flight keep their records, the summary
// is written, the exit code is 1): SIGINT (Ctrl-C), SIGTERM (kill, Slurm's
// scancel) and SIGHUP (the terminal or ssh session that started the
// command closed). SIGHUP is left alone when the process started with it
// ignored (nohup): Go would otherwise install a handler and undo nohup.
func interruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// InterruptContext is parent cancelled on the first of interruptSignals;
// stop releases the signals.
func InterruptContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(parent, interruptSignals()...)
}

// InterruptedError is the error of work stopped by a signal (Err, the
// context's error): "WHAT interrupted: NEXT: context canceled", where What
// names the work and Next says how to carry on (either may be empty). It
// says so itself, so the command line prints it as it is.
type InterruptedError struct {
	What, Next string
	Err        error
}

func (e *InterruptedError) Error() string {
	s := "interrupted"
	if e.What != "" {
		s = e.What + " " + s
	}
	if e.Next != "" {
		s += ": " + e.Next
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Err }
