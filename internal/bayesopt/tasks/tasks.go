package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/lunar"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/rover"
)

// A Task is a continuous BayesOpt task as `qvs bayesopt --task NAME`
// knows it: its objective and the protocol defaults it sets.
type task struct {
	Name string
	// New returns a new instance of the objective.
	New func() (bayesopt.Objective, error)
	// Defaults, if not nil, sets the task's own defaults on a protocol
	// holding bayesopt.DefaultProtocol's (the paper's M, tau and budgets).
	Defaults func(p *bayesopt.Protocol)
}

// registry is every named continuous task, sorted by name. Adding a task
// is its objective (a package or file of its own) and one line here.
var registry = []task{
	// Lunar: the paper's M = 20 and tau = 0.6 (ROBOT's settings, from its
	// README) with configs/lunar.yaml's budget.
	{Name: "lunar", New: func() (bayesopt.Objective, error) { return lunar.New(), nil }, Defaults: func(p *bayesopt.Protocol) {
		p.Regions, p.Tau = 20, 0.6
		p.Budget, p.Init, p.Batch = 150, 30, 20
	}},
	// Rover: the paper's M = 3 and tau = 0.15 with configs/rover.yaml's budget.
	{Name: "rover", New: func() (bayesopt.Objective, error) { return rover.New(), nil }, Defaults: func(p *bayesopt.Protocol) {
		p.Regions, p.Tau = 3, 0.15
		p.Budget, p.Init, p.Batch = 800, 50, 30
	}},
	{Name: "synthetic", New: func() (bayesopt.Objective, error) { return NewSynthetic(defaultSyntheticDim) }},
}

// Names returns the task names Lookup accepts, sorted. "synthetic" also
// accepts a dimension suffix, "synthetic-<d>".
func Names() []string {
	out := make([]string, len(registry))
	for i, t := range registry {
		out[i] = t.Name
	}
	return out
}

// find is the registered task of name (nil: none).
func find(name string) *task {
	for i := range registry {
		if registry[i].Name == name {
			return &registry[i]
		}
	}
	return nil
}

// Lookup returns a new instance of the named task: "rover" (60-d), "lunar"
// (12-d), "synthetic" (6-d) or "synthetic-<d>" (d >= 2). Names are case
// sensitive; an unknown name is an error listing the known ones.
func Lookup(name string) (bayesopt.Objective, error) {
	if t := find(name); t != nil {
		return t.New()
	}
	if rest, ok := strings.CutPrefix(name, "synthetic-"); ok {
		d, err := strconv.Atoi(rest)
		if err != nil {
			return nil, fmt.Errorf("task %q: expected synthetic-<d> with an integer dimension d", name)
		}
		return NewSynthetic(d)
	}
	return nil, fmt.Errorf("unknown task %q (known: %s, or synthetic-<d>)", name, strings.Join(Names(), ", "))
}

// DefaultProtocol is the built-in protocol of task name:
// bayesopt.DefaultProtocol with the task's own defaults (Task.Defaults).
func DefaultProtocol(name string) bayesopt.Protocol {
	p := bayesopt.DefaultProtocol(name)
	if t := find(name); t != nil && t.Defaults != nil {
		t.Defaults(&p)
	}
	return p
}
