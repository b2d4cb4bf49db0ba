package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/lunar"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/rover"
)

// Names returns the task names Lookup accepts, sorted. "synthetic" also
// accepts a dimension suffix, "synthetic-<d>".
func Names() []string { return []string{"lunar", "rover", "synthetic"} }

// Lookup returns a new instance of the named task: "rover" (60-d), "lunar"
// (12-d), "synthetic" (6-d) or "synthetic-<d>" (d >= 2). Names are case
// sensitive; an unknown name is an error listing the known ones.
func Lookup(name string) (bayesopt.Objective, error) {
	switch name {
	case "rover":
		return rover.New(), nil
	case "lunar":
		return lunar.New(), nil
	case "synthetic":
		return NewSynthetic(DefaultSyntheticDim)
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
