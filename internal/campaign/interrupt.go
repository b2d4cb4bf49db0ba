package campaign

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// InterruptSignals are the signals every long-running command treats as a
// request to stop cleanly (runs in flight keep their records, the summary
// is written, the exit code is 1): SIGINT (Ctrl-C), SIGTERM (kill, Slurm's
// scancel) and SIGHUP (the terminal or ssh session that started the
// command closed). SIGHUP is left alone when the process started with it
// ignored (nohup): Go would otherwise install a handler and undo nohup.
func InterruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// InterruptContext is parent cancelled on the first of InterruptSignals;
// stop releases the signals.
func InterruptContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(parent, InterruptSignals()...)
}
