package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
)

// defaultDiscreteConfig is the built-in protocol of a discrete task
// (discrete.DefaultProtocol) writing to its default folder (task kernel:
// results/NAME, set once the name is known).
func defaultDiscreteConfig(task string) discrete.Protocol {
	c := discrete.DefaultProtocol(task)
	if task != discrete.TaskKernel {
		c.Out = bayesoptDefaultOut(task)
	}
	return c
}

// runDiscreteBayesOpt runs a discrete task for `qvs bayesopt` (task from
// --task or the config's task: key): the shared flags (--methods, --q,
// --repeats, --budget, --init, --batch, --out) override the config when
// set; the continuous engine's flags are refused.
func runDiscreteBayesOpt(c *cobra.Command, g *GlobalOptions, f *bayesoptOptions, task string) error {
	f.disc = defaultDiscreteConfig(task)
	if err := resolveSettings(g, f.table, &f.disc, nil); err != nil {
		return err
	}
	cfg := f.disc
	if cfg.Task != task {
		return usageErrorf("--task %s but config %s has task: %s", task, g.Config, cfg.Task)
	}
	// The continuous engine's flags mean nothing here: refused rather than
	// silently ignored, like the global flags a command does not use. They
	// are the flags of the settings table that set no field of the
	// discrete protocol (configkeys.Table.FlagsOutside), not a hand list.
	for _, name := range f.table.FlagsOutside(&f.disc) {
		if c.Flags().Changed(name) {
			return usageErrorf("--%s applies to continuous tasks, not the discrete task %s", name, cfg.Task)
		}
	}
	shard, err := campaign.ParseShard(f.shard)
	if err != nil {
		return usageErrorf("%w", err)
	}
	return executeDiscrete(c, g, cfg, shard)
}

func executeDiscrete(c *cobra.Command, g *GlobalOptions, cfg discrete.Protocol, shard campaign.Shard) error {
	for _, k := range []struct {
		key      string
		v, limit int
	}{{"repeats", cfg.Repeats, maxRepeats}, {"batch", cfg.Batch, maxDiscreteBatch}} {
		if err := checkAtMost(g.Config, k.key, k.v, k.limit); err != nil {
			return err
		}
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.SetName())
	}
	cfg, runs, err := discrete.Plan(cfg)
	if err != nil {
		return configError(g.Config, err)
	}
	if err := campaign.CheckConfig(cfg.Out, cfg, bayesopt.GrowableKeys); err != nil {
		return err
	}
	loaded, err := cfg.Open(g.DataDir)
	if err != nil {
		return err
	}
	set := loaded.Set
	base, err := cfg.Settings(set.Len())
	if err != nil {
		return configError(g.Config, err)
	}
	if after := cfg.Budget - cfg.Init; cfg.Batch > after && after > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "qvs bayesopt: warning: batch %d is more than the %d evaluations after the initial design; each run makes one batch of %d\n", cfg.Batch, after, after)
	}
	base.Workers = campaign.InnerWorkers(g.Workers, len(runs))
	chatter := func(format string, args ...any) {
		if !g.Quiet {
			fmt.Fprintf(c.ErrOrStderr(), format, args...)
		}
	}
	chatter("%s: %d candidates, %d good (%s >= %g); %d runs into %s\n",
		cfg.SetName(), set.Len(), loaded.Good, set.ObjectiveName, cfg.GoodThreshold, len(runs), cfg.Out)
	if err := loaded.ComputeMDS(g.CacheDir); err != nil {
		return err
	}
	ctx, stop := interruptContext(c)
	defer stop()
	rep, err := campaign.Execute(ctx, campaign.Spec{
		Dir: cfg.Out, Header: discrete.RecordHeader, Runs: runs, Steps: cfg.Budget, Unit: "evaluations",
		Workers: g.Workers, Shard: shard, Quiet: g.Quiet, Force: g.Force, Progress: c.ErrOrStderr(),
		Config: cfg, Growable: bayesopt.GrowableKeys, Version: Version, Kind: eval.KindDiscreteBO.Key(), Inputs: campaignInputs(g.DataDir, cfg.InputFiles(g.DataDir)...),
		// The MDS embedding of Figure 5 beside the runs, once config.yaml
		// and the inputs are checked.
		Prepare: func() error { return loaded.WriteMDS(cfg.Out) },
	}, loaded.Problem.RunFunc(base, cfg.Q.Orders()))
	if rep.Started() {
		chatter("%s: %s\n", cfg.SetName(), rep)
	}
	if err != nil {
		return err
	}
	return printCampaignTable(c.OutOrStdout(), cfg.Out, eval.KindDiscreteBO, shard, len(runs))
}
