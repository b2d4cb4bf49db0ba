package discrete

import (
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
	"go.yaml.in/yaml/v3"
)

// TestProtocolYAML: config.yaml of both BayesOpt kinds, whose shared keys
// come from the embedded bayesopt.Common, is byte for byte what it was
// when each Protocol listed them itself (golden strings from the code
// before Common, e.g. results/photoswitch-bo/config.yaml's keys): task and
// name first, out and kind never.
func TestProtocolYAML(t *testing.T) {
	d := DefaultProtocol(TaskPhotoswitch)
	d.Seed, d.Out, d.Kind, d.Name = 9, "y", "k", "nm"
	c := tasks.DefaultProtocol("rover")
	c.Seed, c.Out, c.Kind, c.Space, c.Minimize = 7, "x", "k", "s.yaml", true
	for _, tc := range []struct {
		p    any
		want string
	}{
		{d, `task: photoswitch-bo
name: nm
seed: 9
methods:
    - random
    - ucb
    - qvs
q:
    - "0.1"
    - "0.5"
    - "1"
    - "2"
    - inf
repeats: 10
budget: 102
init: 2
batch: 5
beta: 2
good_threshold: 450
data:
    format: photoswitch
    photoswitch: photoswitch/UMAP-AllHits.csv
`},
		{c, `task: rover
seed: 7
methods:
    - random
    - turbo
    - robot
    - qvs
q:
    - "0.5"
    - "1"
    - "1.5"
repeats: 10
budget: 800
init: 50
batch: 30
regions: 3
tau: 0.15
candidates: 1000
max_train: 300
fit_iterations: 30
space: s.yaml
minimize: true
`},
	} {
		b, err := yaml.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got\n%s\nwant\n%s", b, tc.want)
		}
	}
}
