package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// DefaultDiscreteConfig is the built-in protocol of a discrete task
// (discrete.DefaultProtocol) writing to its default folder (task kernel:
// results/NAME, set once the name is known).
func DefaultDiscreteConfig(task string) discrete.Protocol {
	c := discrete.DefaultProtocol(task)
	if task != discrete.TaskKernel {
		c.Out = BayesoptDefaultOut(task)
	}
	return c
}

// DiscreteCampaign is the campaign kind of `qvs bayesopt` on a discrete
// task (package discrete): a kernel over a finite candidate set.
type DiscreteCampaign struct {
	Env  *Env
	Task string
	// Config is the resolved protocol (defaults, config file, flags).
	Config discrete.Protocol
	// Refused are the flags the user set that set no field of the
	// discrete protocol (the continuous engine's: the settings table's
	// configkeys.Table.FlagsOutside), refused rather than ignored.
	Refused []string
	// OwnFlags are the flags of the settings of a user's own problem
	// (bayesopt.Own): among Refused, they are named as such.
	OwnFlags []string

	runs   []campaign.Run
	loaded *discrete.Loaded
}

// Plan implements campaign.Kind.
func (k *DiscreteCampaign) Plan() (*campaign.Plan, error) {
	cfg, configPath := k.Config, k.Env.Config
	if cfg.Task != k.Task {
		return nil, Usagef("--task %s but config %s has task: %s", k.Task, configPath, cfg.Task)
	}
	// The continuous engine's flags mean nothing here: refused rather than
	// silently ignored, like the global flags a command does not use.
	if len(k.Refused) > 0 {
		if slices.Contains(k.OwnFlags, k.Refused[0]) {
			return nil, Usagef("--%s is for your own problem (--space with --objective-cmd), not the discrete task %s", k.Refused[0], cfg.Task)
		}
		return nil, Usagef("--%s applies to continuous tasks, not the discrete task %s", k.Refused[0], cfg.Task)
	}
	if err := atMost(configPath, limit{"repeats", cfg.Repeats, maxRepeats}, limit{"batch", cfg.Batch, maxDiscreteBatch}); err != nil {
		return nil, err
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", cfg.SetName())
	}
	cfg, runs, err := discrete.Plan(cfg)
	if err != nil {
		return nil, ConfigError(configPath, err)
	}
	k.Config, k.runs = cfg, runs
	return &campaign.Plan{
		Dir: cfg.Out, Kind: eval.KindDiscreteBO.Key(), Name: cfg.SetName(), Runs: runs,
		Header: discrete.RecordHeader, Steps: cfg.Budget, Unit: "evaluations",
		Config: cfg, Growable: bayesopt.GrowableKeys,
	}, nil
}

// Open implements campaign.Kind: the candidate set and its kernel, the
// MDS embedding of Figure 5 (written beside the runs once config.yaml and
// the inputs are checked).
func (k *DiscreteCampaign) Open(context.Context) (*campaign.Opened, error) {
	env, cfg := k.Env, k.Config
	loaded, err := cfg.Open(env.DataDir)
	if err != nil {
		return nil, err
	}
	set := loaded.Set
	base, err := cfg.Settings(set.Len())
	if err != nil {
		return nil, ConfigError(env.Config, err)
	}
	if after := cfg.Budget - cfg.Init; cfg.Batch > after && after > 0 {
		fmt.Fprintf(env.Err, "qvs bayesopt: warning: batch %d is more than the %d evaluations after the initial design; each run makes one batch of %d\n", cfg.Batch, after, after)
	}
	base.Workers = campaign.InnerWorkers(env.Workers, len(k.runs))
	fmt.Fprintf(env.Chatter(), "%s: %d candidates, %d good (%s >= %g); %s into %s\n",
		cfg.SetName(), set.Len(), loaded.Good, set.ObjectiveName, cfg.GoodThreshold, fileio.Count(len(k.runs), "run"), cfg.Out)
	if err := loaded.ComputeMDS(env.CacheDir); err != nil {
		return nil, err
	}
	return &campaign.Opened{
		Run:     loaded.Problem.RunFunc(base, cfg.Q.Orders()),
		Inputs:  campaignInputs(env.DataDir, cfg.InputFiles(env.DataDir)...),
		Prepare: func() error { return loaded.WriteMDS(cfg.Out) },
	}, nil
}
