package cmd

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/spf13/cobra"
)

// TestHelpNamesTheRegistries: `qvs as --help` names every registered
// policy in its usage line and in --methods, and `qvs bayesopt --help`
// every registered task, continuous and discrete, in its text and in
// --task: the help reads the registries, so a new policy or task is there
// without an edit of cmd.
func TestHelpNamesTheRegistries(t *testing.T) {
	code, out, _ := runQVS(t, "as", "--help")
	usage, methods := "", ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  qvs as [--config") {
			usage = l
		}
		if strings.Contains(l, "--methods list") {
			methods = l
		}
	}
	if code != ExitOK || usage == "" || methods == "" {
		t.Fatalf("qvs as --help: exit %d, usage %q, --methods %q", code, usage, methods)
	}
	for _, m := range search.Methods {
		if !strings.Contains(usage, m) || !strings.Contains(methods, m) {
			t.Errorf("policy %s missing from the usage %q or --methods %q", m, usage, methods)
		}
	}
	code, out, _ = runQVS(t, "bayesopt", "--help")
	task := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--task string") {
			task = l
		}
	}
	if code != ExitOK || task == "" {
		t.Fatalf("qvs bayesopt --help: exit %d, --task %q", code, task)
	}
	for _, name := range append(tasks.Names(), discrete.TaskNames()...) {
		if !strings.Contains(task, name) || !strings.Contains(out, "Tasks: ") {
			t.Errorf("task %s missing from --task %q", name, task)
		}
	}
}

// TestEveryTaskResolves: every registered continuous task resolves to a
// planned campaign from its defaults alone (tasks.DefaultProtocol, its own
// folder), and every discrete task is dispatched to the discrete engine.
func TestEveryTaskResolves(t *testing.T) {
	for _, name := range tasks.Names() {
		f := &bayesoptOptions{}
		got, err := resolveBayesoptConfig(newCmdWithFlags(f), &GlobalOptions{}, f, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.Task != name || got.Out == "" || got.Budget < got.Init {
			t.Errorf("%s: resolved to task %q, out %q, budget %d, init %d", name, got.Task, got.Out, got.Budget, got.Init)
		}
	}
	for _, name := range discrete.TaskNames() {
		if !discrete.IsTask(name) || discrete.DefaultProtocol(name).Task != name {
			t.Errorf("discrete task %s not found by IsTask or DefaultProtocol", name)
		}
	}
}

// newCmdWithFlags is a command with the flags of qvs bayesopt registered
// into f.
func newCmdWithFlags(f *bayesoptOptions) *cobra.Command {
	c := &cobra.Command{}
	f.register(c.Flags(), &GlobalOptions{})
	return c
}
