package cmd

import (
	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
)

// campaignEnv is the Env of a campaign command (cli.RunCampaign): that of
// GlobalOptions.env without its signal handling, which cli.RunCampaign
// installs itself when the runs start (a signal while the data loads
// still ends the process at once).
func (g *GlobalOptions) campaignEnv(c *cobra.Command) *cli.Env {
	env, stop := g.env(c)
	stop()
	env.Ctx = c.Context()
	return env
}
