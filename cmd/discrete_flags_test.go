package cmd

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
)

// yamlKeys are the config keys of a struct type (inline structs
// flattened), read from its yaml tags.
func yamlKeys(t reflect.Type, into map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			yamlKeys(f.Type, into)
			continue
		}
		if name != "" && name != "-" {
			into[name] = true
		}
	}
}

// TestDiscreteTaskRefusesContinuousFlags: every flag of `qvs bayesopt`
// given with a discrete task either sets a key of the discrete protocol
// (its yaml tags) or is refused at once, exit 2, as applying to continuous
// tasks; none is accepted and then ignored, or refused only when the data
// are loaded (--qvs-mode authors with --task mof was, exit 1). The flags
// come from the command and the keys from discrete.Protocol's type, not
// from the list the command checks.
func TestDiscreteTaskRefusesContinuousFlags(t *testing.T) {
	keys := map[string]bool{}
	yamlKeys(reflect.TypeOf(discrete.Protocol{}), keys)
	root, _ := NewRootCommand(nil, nil)
	bo, _, err := root.Find([]string{"bayesopt"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	values := map[string]string{"qvs-mode": "authors", "objective-timeout": "1m", "methods": "random", "q": "1", "space": filepath.Join(dir, "space.yaml")}
	checked := 0
	bo.LocalFlags().VisitAll(func(f *pflag.Flag) {
		switch f.Name {
		case "task", "shard", "help":
			return
		}
		v, ok := values[f.Name]
		if !ok {
			v = map[string]string{"int": "3", "float64": "0.5", "bool": "true", "string": "x"}[f.Value.Type()]
		}
		code, _, stderr := runQVS(t, "bayesopt", "--task", "mof", "--data-dir", dir, "--out", filepath.Join(dir, "out"), "--quiet", "--"+f.Name+"="+v)
		// Refused naming the flag (--space: "--space replaces --task").
		refused := code == ExitUsage && (strings.Contains(stderr, "--"+f.Name+" applies to continuous tasks, not the discrete task mof") || strings.HasPrefix(stderr, "qvs: --"+f.Name+" "))
		key := strings.ReplaceAll(f.Name, "-", "_")
		switch {
		case keys[key] && refused:
			t.Errorf("--%s sets discrete key %s but is refused: %s", f.Name, key, stderr)
		case !keys[key] && !refused:
			t.Errorf("--%s: no discrete key %s, yet exit %d: %s", f.Name, key, code, stderr)
		}
		// The help says where a flag applies, as the refusal does.
		if helped := strings.HasSuffix(f.Usage, " only]"); helped != refused {
			t.Errorf("--%s: refused on task mof %v, but its help %q", f.Name, refused, f.Usage)
		}
		checked++
	})
	if checked < 15 {
		t.Errorf("only %d flags checked", checked)
	}
}

// TestNamedTaskRefusesOwnProblemFlags: every flag of `qvs bayesopt` whose
// config key is a setting of a user's own problem (bayesopt.Own's yaml
// tags, read from the type) is refused with a named task, exit 2, naming
// the flag; every other flag is not refused for that reason. The flags
// and keys come from the command's settings table, not from the list the
// message names.
func TestNamedTaskRefusesOwnProblemFlags(t *testing.T) {
	own := map[string]bool{}
	yamlKeys(reflect.TypeOf(bayesopt.Own{}), own)
	f := &bayesoptOptions{}
	f.register(pflag.NewFlagSet("bayesopt", pflag.ContinueOnError), &GlobalOptions{})
	dir := t.TempDir()
	values := map[string]string{"qvs-mode": "authors", "objective-timeout": "1m", "methods": "random", "q": "1", "space": filepath.Join(dir, "space.yaml"), "objective-cmd": "true"}
	refusedFlags := 0
	for _, b := range f.table.Bindings() {
		if b.Flag == "" || b.Flag == "seed" {
			continue
		}
		v, ok := values[b.Flag]
		if !ok {
			v = map[string]string{"int": "3", "float64": "0.5", "bool": "true", "string": "x"}[f.table.FlagSet().Lookup(b.Flag).Value.Type()]
		}
		code, _, stderr := runQVS(t, "bayesopt", "--task", "synthetic", "--out", filepath.Join(dir, "out"), "--quiet", "--repeats", "0", "--budget", "0", "--"+b.Flag+"="+v) // refused before any run (repeats or budget 0)
		// --space names its own conflict: "--space replaces --task".
		refused := code == ExitUsage && (strings.Contains(stderr, "are for your own problem, not task synthetic") && strings.Contains(stderr, "--"+b.Flag) ||
			strings.HasPrefix(stderr, "qvs: --"+b.Flag+" replaces --task"))
		switch {
		case own[b.Key] && !refused:
			t.Errorf("--%s sets %s, a setting of your own problem, yet exit %d: %s", b.Flag, b.Key, code, stderr)
		case !own[b.Key] && strings.Contains(stderr, "for your own problem"):
			t.Errorf("--%s (key %s) refused as a setting of your own problem: %s", b.Flag, b.Key, stderr)
		}
		if own[b.Key] {
			refusedFlags++
		}
	}
	if refusedFlags != len(own) {
		t.Errorf("%d flags set the %d keys of bayesopt.Own", refusedFlags, len(own))
	}
}
