package cmd

import (
	"os"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// envGlobals are the global flags an environment variable may set:
// QVS_ and the flag's name in capitals with underscores (QVS_DATA_DIR,
// QVS_CACHE_DIR, QVS_WORKERS, QVS_QUIET). A job script or a cluster's
// environment sets them once for every qvs command. --seed and --config
// are left out on purpose: a seed or a config that nothing on the command
// line shows would make a run hard to reproduce from its command.
var envGlobals = []string{"data-dir", "cache-dir", "workers", "quiet"}

// applyGlobalEnv layers the environment under the global flags of fs with
// viper: a flag the user typed wins, then its QVS_ variable, then the
// flag's default. A variable's value is parsed by the flag itself, so it
// is checked as the flag would be; a bad one is a usage error naming the
// variable. An empty variable counts as unset.
func applyGlobalEnv(fs *pflag.FlagSet) error {
	if err := fileio.CheckLockEnv(); err != nil {
		return cli.Usage(err)
	}
	v := viper.New()
	v.SetEnvPrefix("QVS")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	for _, name := range envGlobals {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if err := v.BindPFlag(name, f); err != nil {
			return err
		}
		if err := v.BindEnv(name); err != nil {
			return err
		}
		env := "QVS_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if f.Changed || os.Getenv(env) == "" {
			continue
		}
		s := v.GetString(name)
		if err := f.Value.Set(s); err != nil {
			want := map[string]string{"int": "a whole number", "bool": "true or false"}[f.Value.Type()]
			return cli.Usagef("$%s = %q: expected %s, as --%s takes", env, s, want, name)
		}
	}
	return nil
}
