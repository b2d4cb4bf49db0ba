// Package cmd wires the qvs command line: flags and configs only. Each
// command fills its options from its settings table and calls its run
// function in internal/cli; every algorithm lives under internal/.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/linalg"
)

// Version is the qvs version; overridden at build time with
// -ldflags "-X github.com/qvs-dev/qvs/cmd.Version=...".
var Version = "0.1.0-dev"

// GlobalOptions are the flags every subcommand shares.
type GlobalOptions struct {
	Config   string // YAML config file (loadConfig)
	DataDir  string // third-party data directory; env QVS_DATA_DIR
	Seed     uint64 // master seed
	Workers  int    // parallel workers; default runtime.NumCPU()
	Quiet    bool   // no progress bars, no chatter on stderr
	CacheDir string // computed caches (kNN graphs, embeddings); env QVS_CACHE_DIR; git-ignored
	Force    bool   // replace an existing output file qvs did not write
	// CPUProfile (hidden flag --cpuprofile) receives a Go CPU profile of the
	// whole command, stopped by Main after the command returns.
	CPUProfile  string
	seedSet     bool
	stopProfile func()
	// table is the settings table of the command that ran
	// (resolveSettings): errorMessage names flags through it.
	table *configkeys.Table
	// config is the --config file at configPath, parsed (configDoc).
	config     *yaml.Node
	configPath string
	// fromFlags are the flags whose default value a command took for a
	// config key (errorMessage names them in a SettingError's message).
	fromFlags map[string]bool
	// stdin is where a file flag given as "-" was copied (resolveStdin).
	stdin   fileio.Spool
	stdinIn io.Reader
}

// DefaultDataDir is used when neither --data-dir nor $QVS_DATA_DIR is set:
// the shared data folder beside a checkout of this repository.
const DefaultDataDir = "../shared/data"

// DefaultCacheDir is used when neither --cache-dir nor $QVS_CACHE_DIR is set.
const DefaultCacheDir = ".cache"

// commands are the commands under qvs (each builds its own subcommands,
// e.g. `qvs bayesopt suggest`): adding a command is adding its constructor
// here. `qvs version` is built by NewRootCommand.
var commands = []func(g *GlobalOptions) *cobra.Command{
	newASCmd, newBayesoptCmd, newEvalCmd, newGraphCmd, newScoreCmd, newSelectCmd, newToyCmd,
}

// NewRootCommand builds the qvs command tree writing to stdout and stderr.
func NewRootCommand(stdout, stderr io.Writer) (*cobra.Command, *GlobalOptions) {
	g := &GlobalOptions{fromFlags: map[string]bool{}}
	root := &cobra.Command{
		Use:   "qvs",
		Short: "Quality-weighted Vendi scores and diverse experimental design",
		Long: `qvs computes Vendi scores (VS) and quality-weighted Vendi scores (qVS) and
runs the diverse active-search and Bayesian-optimisation campaigns of
Nguyen & Dieng, "Quality-Weighted Vendi Scores and Their Application to
Diverse Experimental Design" (ICML 2024).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			g.seedSet = c.Flags().Changed("seed")
			if err := applyGlobalEnv(c.Flags()); err != nil {
				return err
			}
			if g.DataDir == "" {
				g.DataDir = DefaultDataDir
			}
			if g.CacheDir == "" {
				g.CacheDir = DefaultCacheDir
			}
			if err := checkIgnoredGlobals(c); err != nil {
				return err
			}
			in := g.stdinIn
			if in == nil {
				in = c.InOrStdin()
			}
			var err error
			if g.stdin, err = resolveStdin(c, in); err != nil {
				return err
			}
			if g.stdin.Path() != "" {
				c.Root().SetErr(renamingWriter{c.Root().ErrOrStderr(), g.stdin})
			}
			if g.Workers < 1 || g.Workers > cli.MaxWorkers {
				return cli.Usagef("--workers must be 1 to %d, got %d (each worker holds its own buffers)", cli.MaxWorkers, g.Workers)
			}
			if g.CPUProfile != "" {
				f, err := os.Create(g.CPUProfile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return fmt.Errorf("--cpuprofile %s: %w", g.CPUProfile, err)
				}
				g.stopProfile = func() {
					pprof.StopCPUProfile()
					f.Close()
				}
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	// qvs --version prints what `qvs version` prints.
	root.Version = Version
	// Rendered only for --version: versionLine opens the OpenBLAS build's
	// libraries, which no other command should pay for before it needs them.
	cobra.AddTemplateFunc("qvsVersionLine", versionLine)
	root.SetVersionTemplate("{{qvsVersionLine}}")
	pf := root.PersistentFlags()
	pf.StringVar(&g.Config, "config", "", "YAML config file")
	pf.StringVar(&g.DataDir, "data-dir", "", "directory of third-party data (default $QVS_DATA_DIR or "+DefaultDataDir+")")
	pf.Uint64Var(&g.Seed, "seed", 0, "master random seed")
	pf.IntVar(&g.Workers, "workers", runtime.NumCPU(), "parallel workers")
	pf.BoolVar(&g.Quiet, "quiet", false, "no progress bars, status messages or notes; warnings that a result may be wrong still print (a sharded campaign still names its shard in one line)")
	pf.StringVar(&g.CacheDir, "cache-dir", "", "directory for computed caches such as kNN graphs (default $QVS_CACHE_DIR or .cache)")
	pf.BoolVar(&g.Force, "force", false, "replace an existing output file that qvs did not write (never an input of the command, a pipe or a device)")
	pf.StringVar(&g.CPUProfile, "cpuprofile", "", "write a Go CPU profile of the command to this file (for `go tool pprof`)")
	_ = pf.MarkHidden("cpuprofile")

	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the qvs version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := io.WriteString(c.OutOrStdout(), versionLine())
			return err
		},
		Annotations: ignoresGlobals("config", "seed", "data-dir", "cache-dir"),
	})
	for _, f := range commands {
		root.AddCommand(f(g))
	}
	for _, sub := range root.Commands() {
		usageArgs(sub)
	}
	return root, g
}

func versionLine() string {
	return fmt.Sprintf("qvs %s (%s, %s/%s, linear algebra: %s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, linalg.InUse())
}

// flagError makes a flag parsing error a usage error (exit 2) and, for an
// unknown flag, names the nearest flag of the command: "unknown flag:
// --budjet (did you mean --budget?)".
func flagError(c *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) && len(invalid.GetValue()) > cli.MaxEchoedValue {
		// A value is quoted cut (fileio.Excerpt): a 100 KB --q made a
		// 200 KB message (pflag's quote, then the reason's).
		return cli.Usage(cli.LongValueError{Err: invalid})
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		name := unknown.GetSpecifiedName()
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if s := configkeys.Suggest(name, names); s != "" {
			return cli.Usage(fmt.Errorf("%w (did you mean --%s?)", err, s))
		}
	}
	return cli.Usage(err)
}

// ignoredGlobalsKey is the annotation listing the global flags a command
// does not use (see ignoresGlobals).
const ignoredGlobalsKey = "qvs:ignored-globals"

// ignoresGlobals is the Annotations of a command that does not use the
// given global flags: giving one of them is a usage error there rather than
// silently meaningless (`qvs score --config x.yaml` reads no config).
// --workers and --quiet are accepted everywhere (scripts pass them to every
// command and they never change a result).
func ignoresGlobals(flags ...string) map[string]string {
	return map[string]string{ignoredGlobalsKey: strings.Join(flags, ",")}
}

// checkIgnoredGlobals reports a global flag given to a command that ignores it.
func checkIgnoredGlobals(c *cobra.Command) error {
	list := c.Annotations[ignoredGlobalsKey]
	if list == "" {
		return nil
	}
	for _, name := range strings.Split(list, ",") {
		if c.Flags().Changed(name) {
			return cli.Usagef("--%s has no effect on `%s`: remove it", name, c.CommandPath())
		}
	}
	return nil
}

// Main runs qvs with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return MainIO(args, os.Stdin, stdout, stderr)
}

// MainIO is Main reading stdin from stdin (a file flag given as "-").
func MainIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, g := NewRootCommand(stdout, stderr)
	root.SetArgs(args)
	g.stdinIn = stdin
	ran, err := root.ExecuteC()
	defer g.stdin.Remove()
	if g.stopProfile != nil {
		g.stopProfile()
	}
	if err == nil {
		return ExitOK
	}
	if ran == root {
		// The root runs nothing itself: its error is cobra's lookup of an
		// unknown command (a subcommand's argument errors are usage errors
		// already, usageArgs).
		err = cli.Usage(err)
	}
	msg := g.errorMessage(err)
	var said *campaign.InterruptedError
	if errors.Is(err, context.Canceled) && !errors.As(err, &said) && ran != nil {
		// eval, toy: say what happened as campaigns do, not "context canceled".
		msg = fmt.Sprintf("%s interrupted: rerun the same command to start again", ran.CommandPath())
	}
	fmt.Fprintf(stderr, "qvs: %s\n", cli.CutLongValues(g.stdin.Rename(msg), args))
	return cli.ExitCode(err)
}

// loadConfig decodes the YAML file at path (if non-empty) onto out, a
// pointer to a struct with `yaml` tags holding the defaults
// (configkeys.Load): unknown keys and values of the wrong type are errors
// naming the file, the line and the key (with the nearest valid key).
// Every config error is a usage error (exit 2), as a bad flag is. Flags
// the user set are applied by the caller afterwards
// (configkeys.Table.Apply). A command loads its --config through
// GlobalOptions.configDoc, which reads the file once for peekConfig too.
func loadConfig(path string, out any) error {
	if path == "" {
		return nil
	}
	doc, err := readConfig(path)
	if err != nil {
		return err
	}
	return loadConfigDoc(path, doc, out)
}

// loadConfigDoc decodes doc, the parsed config file path (readConfig),
// onto out (configkeys.LoadNode), as loadConfig.
func loadConfigDoc(path string, doc *yaml.Node, out any) error {
	if err := configkeys.LoadNode(path, doc, out); err != nil {
		return cli.Usage(err)
	}
	return nil
}

// readConfig reads the config file path through fileio.ReadInput (a FIFO
// or a device is refused, not waited for) and parses it
// (configkeys.Parse); errors are usage errors naming the file.
func readConfig(path string) (*yaml.Node, error) {
	data, err := fileio.ReadInput(path)
	if err != nil {
		return nil, cli.Usagef("config %s: %w", path, err)
	}
	doc, err := configkeys.Parse(path, data)
	if err != nil {
		return nil, cli.Usage(err)
	}
	return doc, nil
}

// configDoc is the --config file read and parsed once (nil without one):
// peekConfig reads the key that chooses the defaults from it, then
// resolveSettings decodes it onto them.
func (g *GlobalOptions) configDoc() (*yaml.Node, error) {
	if g.Config == "" {
		return nil, nil
	}
	if g.config == nil || g.configPath != g.Config {
		doc, err := readConfig(g.Config)
		if err != nil {
			return nil, err
		}
		g.config, g.configPath = doc, g.Config
	}
	return g.config, nil
}

// interruptContext is the command's context (Background when it has none),
// cancelled on SIGINT, SIGTERM or SIGHUP (campaign.InterruptSignals) so
// campaigns stop cleanly and resume later.
func interruptContext(c *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return campaign.InterruptContext(ctx)
}

// env is the cli.Env a run function of package cli receives for command
// c: its streams, a context cancelled on SIGINT, SIGTERM or SIGHUP
// (interruptContext; call the returned stop when the run is over), and
// the global flags as resolved.
func (g *GlobalOptions) env(c *cobra.Command) (*cli.Env, context.CancelFunc) {
	ctx, stop := interruptContext(c)
	in := g.stdinIn
	if in == nil {
		in = c.InOrStdin()
	}
	return &cli.Env{
		Ctx: ctx, In: in, Out: c.OutOrStdout(), Err: c.ErrOrStderr(),
		DataDir: g.DataDir, CacheDir: g.CacheDir, Seed: g.Seed, SeedSet: g.seedSet,
		Workers: g.Workers, Quiet: g.Quiet, Force: g.Force, Config: g.Config, Version: Version,
		KeyName: g.keyName,
	}, stop
}
