package cmd

import (
	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// resolveSettings is the one configuration pipeline of every command that
// reads a config: cfg (a pointer to the command's settings, a Protocol or
// an options struct with `yaml` tags) holds the defaults of its kind; the
// config file (--config) is decoded onto it (loadConfig), then every flag
// of t that the user set is copied into its field (t.Apply). t is the
// command's settings table, the one place that ties a flag to its config
// key and its field; Main names flags in setting errors through it.
// choose, if not nil, runs between the file and the flags: flags that
// replace a whole section (`as suggest --pool FILE` a config's pool of
// another kind) do so there, so the table's flags then refine the new
// section.
func resolveSettings(g *GlobalOptions, t *configkeys.Table, cfg any, choose func() error) error {
	g.table = t
	if err := loadConfig(g.Config, cfg); err != nil {
		return err
	}
	if choose != nil {
		if err := choose(); err != nil {
			return err
		}
	}
	t.Apply()
	return nil
}

// checkOrder checks one item of a --q list (vendi.ParseOrder) when the
// flag is parsed; the list keeps the orders as typed, as a config's q:
// list is recorded.
func checkOrder(item string) error {
	_, err := vendi.ParseOrder(item)
	return err
}

// peekConfig reads the value at the key path (path[0].path[1]...) of the
// config file (""; no file, or no such key): the key that decides which
// defaults the file is then loaded onto (task:, pool.kind:). Errors are
// usage errors naming the file.
func peekConfig(file string, path ...string) (string, error) {
	if file == "" {
		return "", nil
	}
	data, err := fileio.ReadInput(file)
	if err != nil {
		return "", usageErrorf("config %s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", usageErrorf("config %s: %w", file, err)
	}
	n := &doc
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, key := range path {
		var next *yaml.Node
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					next = n.Content[i+1]
				}
			}
		}
		if next == nil {
			return "", nil
		}
		n = next
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}
