package campaign

import "testing"

func TestSpaceName(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"branin-space.yaml", "branin-space"},
		{"examples/branin-space.yaml", "branin-space"},
		{"/abs/dir.v1/Hartmann6.yml", "Hartmann6"},
		{"my space (v2).yaml", "my-space-v2"},
		{"a//b/../c.d.yaml", "c.d"},
		{"reaction", "reaction"},
		{".hidden.yaml", "hidden"},
		{"été.yaml", "t"},
		{"(((.yaml", "space"},
		{"", "space"},
	} {
		if got := SpaceName(c.path); got != c.want {
			t.Errorf("SpaceName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
