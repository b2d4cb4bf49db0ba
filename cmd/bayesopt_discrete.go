package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
)

// defaultDiscreteConfig is the built-in protocol of a discrete task
// (cli.DefaultDiscreteConfig).
var defaultDiscreteConfig = cli.DefaultDiscreteConfig

// discreteCampaign is the campaign of a discrete task for `qvs bayesopt`
// (task from --task or the config's task: key): the shared flags
// (--methods, --q, --repeats, --budget, --init, --batch, --out) override
// the config when set; the continuous engine's flags, those of the
// settings table that set no field of the discrete protocol
// (configkeys.Table.FlagsOutside), are refused.
func discreteCampaign(env *cli.Env, c *cobra.Command, g *GlobalOptions, f *bayesoptOptions, task string) (*cli.DiscreteCampaign, error) {
	f.disc = defaultDiscreteConfig(task)
	if err := resolveSettings(g, f.table, &f.disc, nil); err != nil {
		return nil, err
	}
	k := &cli.DiscreteCampaign{Env: env, Task: task, Config: f.disc, OwnFlags: f.table.FlagsInside(&f.cont.Own)}
	for _, name := range f.table.FlagsOutside(&f.disc) {
		if c.Flags().Changed(name) {
			k.Refused = append(k.Refused, name)
		}
	}
	return k, nil
}
