package cmd

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
)

// optionsHook, when set (tests), receives the options a command filled
// from its flags instead of running it: the flags-fill-the-options tests.
var optionsHook func(opts any)

// interruptGrace bounds how long run waits, after a signal, for its run
// function to return.
var interruptGrace = 500 * time.Millisecond

// run calls f, a run function of package cli, with the options o and the
// Env of command c (GlobalOptions.env). f runs in its own goroutine and a
// signal (SIGINT, SIGTERM, SIGHUP: e.Ctx) ends the command within
// interruptGrace with the context's error ("qvs X interrupted", exit 1),
// whether or not f checks its context: a kNN build or an
// eigendecomposition checks none, and the handler would otherwise hold the
// signal until f ends. A run function that checks its context has
// returned when run does (nothing it started outlives a command called
// in-process, as the tests do); one that does not is left to the process's
// exit. What f writes to stdout is printed when it returns without error,
// so stdout stays empty on an error and on an interrupt. (The campaigns do
// not come here: they stop their runs and write summary.csv before they
// return.)
func run[O any](g *GlobalOptions, c *cobra.Command, o *O, f func(*cli.Env, *O) error) error {
	if optionsHook != nil {
		optionsHook(o)
		return nil
	}
	e, stop := g.env(c)
	defer stop()
	stdout := e.Out
	var out bytes.Buffer
	e.Out = &out
	done := make(chan error, 1)
	go func() { done <- f(e, o) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		_, err = out.WriteTo(stdout)
		return err
	case <-e.Ctx.Done():
		select {
		case <-done:
		case <-time.After(interruptGrace):
		}
		return e.Ctx.Err()
	}
}

// checkedFloat is a float64 flag value that check accepts, refused when
// the flag is parsed (exit 2, naming the flag and why).
type checkedFloat struct {
	p     *float64
	check func(float64) error
}

func (c checkedFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return errors.New("expected a number")
	}
	if err := c.check(v); err != nil {
		return err
	}
	*c.p = v
	return nil
}

func (c checkedFloat) String() string { return cli.Float(*c.p) }
func (c checkedFloat) Type() string   { return "float64" }

// floatVar defines a float64 flag that check accepts (checkedFloat), for
// configkeys.Bind: a settings-table row whose value is checked at parse
// time.
func floatVar(fs *pflag.FlagSet, check func(float64) error) func(p *float64, name string, def float64, usage string) {
	return func(p *float64, name string, def float64, usage string) {
		*p = def
		fs.Var(checkedFloat{p, check}, name, usage)
	}
}
