package cmd

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
)

// optionsHook, when set (tests), receives the options a command filled
// from its flags instead of running it: the flags-fill-the-options tests.
var optionsHook func(opts any)

// run calls f, a run function of package cli, with the options o and the
// Env of command c (GlobalOptions.env).
func run[O any](g *GlobalOptions, c *cobra.Command, o *O, f func(*cli.Env, *O) error) error {
	if optionsHook != nil {
		optionsHook(o)
		return nil
	}
	e, stop := g.env(c)
	defer stop()
	return f(e, o)
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
