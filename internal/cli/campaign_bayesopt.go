package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// BayesoptDefaultOut is the default results folder of a BayesOpt task:
// results/TASK, or results/TASK-bo when TASK also names an active-search
// pool (synthetic), so that `qvs as` and `qvs bayesopt` never share one.
func BayesoptDefaultOut(task string) string {
	if slices.Contains(datasets.Kinds, task) {
		return filepath.Join("results", task+"-bo")
	}
	return filepath.Join("results", task)
}

// BayesoptCampaign is the campaign kind of `qvs bayesopt` on a continuous
// task (package bayesopt): a named task (tasks.Lookup) or, for task
// campaign.SpaceTask, the user's space and objective command.
type BayesoptCampaign struct {
	Env  *Env
	Task string
	// Config is the resolved protocol (defaults, config file, flags).
	Config bayesopt.Protocol
	// OwnFlags are the flags of the settings of a user's own problem
	// (bayesopt.Own: the settings table's flags inside it), which a named
	// task refuses, named in the message.
	OwnFlags []string

	obj  bayesopt.Objective
	user *space.Command // the user's objective command (--space)
	camp *bayesopt.Campaign
}

// NewBayesoptCampaign returns the kind of task (its protocol still to be
// resolved into Config): an unknown task is a usage error naming --task.
func NewBayesoptCampaign(env *Env, task string) (*BayesoptCampaign, error) {
	k := &BayesoptCampaign{Env: env, Task: task}
	if task != campaign.SpaceTask {
		obj, err := tasks.Lookup(task)
		if err != nil {
			return nil, Usagef("--task: %w", err)
		}
		k.obj = obj
	}
	return k, nil
}

// Campaign is the planned campaign (after Plan).
func (k *BayesoptCampaign) Campaign() *bayesopt.Campaign { return k.camp }

// Plan implements campaign.Kind: the task and its settings checked (a
// space campaign's space file read, its command parsed), the runs listed.
func (k *BayesoptCampaign) Plan() (*campaign.Plan, error) {
	cfg, task, configPath := k.Config, k.Task, k.Env.Config
	if cfg.Task == "" && cfg.Space != "" {
		cfg.Task = campaign.SpaceTask
	}
	if cfg.Task != task {
		return nil, Usagef("--task %s but config %s has task: %s", task, configPath, cfg.Task)
	}
	if task == campaign.SpaceTask {
		if cfg.Space == "" || cfg.ObjectiveCmd == "" {
			return nil, Usagef("a campaign on your own problem needs both --space (space:) and --objective-cmd (objective_cmd:)")
		}
		if cfg.Out == "" {
			cfg.Out = BayesoptDefaultOut(campaign.SpaceName(cfg.Space))
		}
		sp, err := space.Load(cfg.Space)
		if err != nil {
			return nil, err
		}
		if cfg.Init == 0 {
			cfg.Init = space.DefaultInit(sp.Dim(), cfg.Batch, cfg.Regions)
		}
		// direction: minimize in the space file is --minimize, recorded
		// as such (tables and figures read minimize: from config.yaml).
		if cfg.Minimize, err = sp.ResolveMinimize(cfg.Minimize); err != nil {
			return nil, Usagef("%v", err)
		}
	} else if cfg.Own != (bayesopt.Own{}) {
		return nil, Usagef("%s are for your own problem, not task %s", flagList(k.OwnFlags), task)
	}
	if err := atMost(configPath, limit{"repeats", cfg.Repeats, maxRepeats}, limit{"candidates", cfg.Candidates, maxCandidates}, limit{"regions", cfg.Regions, maxRegions}); err != nil {
		return nil, err
	}
	if cfg.Out == "" {
		return nil, ConfigErrorf(configPath, "no output directory: set --out or out: in the config")
	}
	camp, err := bayesopt.Plan(cfg)
	if err != nil {
		return nil, ConfigError(configPath, err)
	}
	k.camp = camp
	cfg = camp.Protocol
	if task == campaign.SpaceTask {
		command, err := space.NewCommand(cfg.Space, cfg.ObjectiveCmd, cfg.ObjectiveTimeout, cfg.Minimize)
		var se *configkeys.SettingError
		if errors.As(err, &se) {
			return nil, ConfigError(configPath, err)
		}
		if err != nil {
			return nil, err
		}
		command.PerPoint = cfg.ObjectivePerPoint
		k.obj, k.user = command.Objective(), command
	}
	return &campaign.Plan{
		Dir: cfg.Out, Kind: eval.KindContinuousBO.Key(), Name: "qvs bayesopt", Runs: camp.Runs,
		Header: bayesopt.RecordHeader(k.obj.Dim()), Steps: cfg.Budget, Unit: "evaluations",
		Config: cfg, Growable: bayesopt.GrowableKeys,
	}, nil
}

// Open implements campaign.Kind: the objective is the task's (or the
// user's command); parallel runs first, spare workers go to each run's
// regions and batch.
func (k *BayesoptCampaign) Open(context.Context) (*campaign.Opened, error) {
	env, cfg, runs := k.Env, k.camp.Protocol, k.camp.Runs
	inner := campaign.InnerWorkers(env.Workers, len(runs))
	var warn io.Writer // failed evaluations, said on stderr unless quiet
	if !env.Quiet {
		warn = env.Err
	}
	if k.user != nil {
		k.user.Workers, k.user.Warn = inner, warn
	}
	name := k.Task
	if k.Task == campaign.SpaceTask {
		name = campaign.SpaceName(cfg.Space)
	}
	fmt.Fprintf(env.Chatter(), "qvs bayesopt: %s, %s (budget %d, batch %d, M = %d) into %s\n", name, fileio.Count(len(runs), "run"), cfg.Budget, cfg.Batch, cfg.Regions, cfg.Out)
	return &campaign.Opened{
		Run: k.camp.RunFunc(k.obj, inner, warn),
		// A space campaign's results depend on the space file's contents,
		// not only its name: an edited file is refused like changed data.
		Inputs: campaignInputs(env.DataDir, cfg.Space),
	}, nil
}

// flagList names flags in a sentence: "--a", "--a and --b", "--a, --b and
// --c".
func flagList(flags []string) string {
	named := make([]string, len(flags))
	for i, f := range flags {
		named[i] = "--" + f
	}
	if len(named) < 2 {
		return strings.Join(named, "")
	}
	return strings.Join(named[:len(named)-1], ", ") + " and " + named[len(named)-1]
}

// BayesoptTask is the task `qvs bayesopt` runs: --task (flagTask), else
// the config's (configTask reads its task: key, campaign.SpaceTask for a
// config with a space: key); --space (spaceGiven) makes it a campaign on
// the user's own problem, and cannot name another task.
func BayesoptTask(flagTask string, configTask func() (string, error), spaceGiven bool) (string, error) {
	task := flagTask
	if task == "" {
		t, err := configTask()
		if err != nil {
			return "", err
		}
		task = t
	}
	if spaceGiven {
		if task != "" && task != campaign.SpaceTask {
			return "", Usagef("--space replaces --task: give one of them (task %s)", task)
		}
		task = campaign.SpaceTask
	}
	if task == "" {
		return "", Usagef("--task is required (or a config with a task: key, or --space with --objective-cmd); tasks: %s", strings.Join(tasks.Names(), ", "))
	}
	return task, nil
}
