package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// CheckConfig compares config with the config recorded in dir/config.yaml
// (none recorded: nil). They may differ only in the growable keys
// (dotted paths such as "repeats" or "eci.thresholds"), and only by
// growing: a number may increase and a list may gain elements (every
// recorded element kept), since such a config only adds runs to the
// campaign and leaves the recorded ones valid. Otherwise the error names
// every key that differs with both values. Commands call it before they
// print or load anything; Execute calls it again and records the grown
// config.
func CheckConfig(dir string, config any, growable []string) error {
	_, err := checkConfig(dir, config, growable)
	return err
}

// ErrNotFolder is wrapped by CheckConfig's error when the results folder
// is an existing file: a bad --out (or out:), a usage error.
var ErrNotFolder = errors.New("is a file, not a folder")

// checkConfig is CheckConfig that also says whether a recorded config
// exists and equals config exactly.
func checkConfig(dir string, config any, growable []string) (same bool, err error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return false, fmt.Errorf("results folder %s %w: give another --out (out:)", dir, ErrNotFolder)
	}
	path := filepath.Join(dir, "config.yaml")
	old, err := fileio.ReadInput(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	old, _ = splitInputs(old) // the input fingerprints are checked by checkInputs
	body, err := yaml.Marshal(config)
	if err != nil {
		return false, fmt.Errorf("campaign: cannot record config: %w", err)
	}
	var was, now map[string]any
	if err := yaml.Unmarshal(old, &was); err != nil {
		return false, fmt.Errorf("%s: %w; delete it or use another --out directory", path, err)
	}
	if err := yaml.Unmarshal(body, &now); err != nil {
		return false, fmt.Errorf("campaign: cannot record config: %w", err)
	}
	// kind: is recorded beside the config (Spec.Kind), not part of it.
	delete(was, "kind")
	a, b := map[string]any{}, map[string]any{}
	flatten("", was, a)
	flatten("", now, b)
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	grow := map[string]bool{}
	for _, k := range growable {
		grow[k] = true
	}
	var bad []string
	grown := false
	for _, k := range keys {
		va, inA := a[k]
		vb, inB := b[k]
		if inA && inB && reflect.DeepEqual(va, vb) {
			continue
		}
		if inA && inB && grow[k] && grows(va, vb) {
			grown = true
			continue
		}
		bad = append(bad, fmt.Sprintf("%s: %s recorded, %s now", k, show(va, inA), show(vb, inB)))
	}
	if len(bad) > 0 {
		hint := ""
		if len(growable) > 0 {
			hint = " (a config may only add runs: more " + strings.Join(growable, ", ") + ")"
		}
		return false, fmt.Errorf("%s holds a different config than this command resolves to%s; results would mix: "+
			"use another --out directory or delete %s. Differing keys:\n  %s", path, hint, dir, strings.Join(bad, "\n  "))
	}
	return !grown, nil
}

// flatten writes the leaves of a YAML mapping under dotted keys; lists are
// leaves.
func flatten(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok {
		out[prefix] = v
		return
	}
	for k, x := range m {
		if prefix != "" {
			k = prefix + "." + k
		}
		flatten(k, x, out)
	}
}

// grows reports whether now only adds to was: a larger number, or a list
// holding every element of was.
func grows(was, now any) bool {
	switch w := was.(type) {
	case int:
		n, ok := now.(int)
		return ok && n >= w
	case []any:
		n, ok := now.([]any)
		if !ok {
			return false
		}
		for _, x := range w {
			found := false
			for _, y := range n {
				if reflect.DeepEqual(x, y) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return false
}

// show writes a YAML value on one line for an error message.
func show(v any, present bool) string {
	if !present {
		return "(absent)"
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var s []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		s = append(s, strings.TrimSpace(l))
	}
	if _, ok := v.([]any); ok {
		for i := range s {
			s[i] = strings.TrimPrefix(s[i], "- ")
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return strings.Join(s, " ")
}
