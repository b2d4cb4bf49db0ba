package cmd

import (
	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/configkeys"
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
	if doc, err := g.configDoc(); err != nil {
		return err
	} else if doc != nil {
		if err := loadConfigDoc(g.Config, doc, cfg); err != nil {
			return err
		}
	}
	if choose != nil {
		if err := choose(); err != nil {
			return err
		}
	}
	t.Apply()
	return nil
}

// peekConfig reads the value at the key path (path[0].path[1]...) of the
// --config file (""; no file, or no such key): the key that decides which
// defaults the file is then loaded onto (task:, pool.kind:). The file is
// read and parsed once (GlobalOptions.configDoc), for resolveSettings
// too. Errors are usage errors naming the file.
func peekConfig(g *GlobalOptions, path ...string) (string, error) {
	doc, err := g.configDoc()
	if err != nil || doc == nil {
		return "", err
	}
	n := doc
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
