package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// growConfig is a campaign config with nested keys and lists, as the
// commands record them.
type growConfig struct {
	Seed    int      `yaml:"seed"`
	Methods []string `yaml:"methods"`
	Q       []string `yaml:"q"`
	Repeats int      `yaml:"repeats"`
	Budget  int      `yaml:"budget"`
	ECI     struct {
		Thresholds []float64 `yaml:"thresholds"`
		Fantasy    string    `yaml:"fantasy"`
	} `yaml:"eci"`
}

var growable = []string{"methods", "q", "repeats", "eci.thresholds"}

func baseGrowConfig() growConfig {
	c := growConfig{Seed: 1, Methods: []string{"random", "qvs"}, Q: []string{"0", "inf"}, Repeats: 2, Budget: 10}
	c.ECI.Thresholds, c.ECI.Fantasy = []float64{0.5}, "pessimistic"
	return c
}

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	if err := CheckConfig(dir, baseGrowConfig(), growable); err != nil {
		t.Fatalf("no recorded config: %v", err)
	}
	s := Spec{Dir: dir, Header: []string{"iteration", "value"}, Steps: 5, Workers: 1, Config: baseGrowConfig(), Growable: growable, Version: "test"}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		mod  func(c *growConfig)
		want []string // keys named in the error; nil: accepted
	}{
		"same":         {func(c *growConfig) {}, nil},
		"more repeats": {func(c *growConfig) { c.Repeats = 5 }, nil},
		"more methods": {func(c *growConfig) { c.Methods = []string{"eci", "random", "qvs"} }, nil},
		"more q":       {func(c *growConfig) { c.Q = append(c.Q, "1") }, nil},
		"more eci":     {func(c *growConfig) { c.ECI.Thresholds = []float64{0.25, 0.5} }, nil},
		"all growth": {func(c *growConfig) {
			c.Repeats, c.Q, c.Methods = 3, []string{"inf", "2", "0"}, append(c.Methods, "ens")
		}, nil},
		"fewer repeats":  {func(c *growConfig) { c.Repeats = 1 }, []string{"repeats: 2 recorded, 1 now"}},
		"method dropped": {func(c *growConfig) { c.Methods = []string{"qvs", "ens"} }, []string{"methods: [random, qvs] recorded, [qvs, ens] now"}},
		"budget":         {func(c *growConfig) { c.Budget = 20 }, []string{"budget: 10 recorded, 20 now"}},
		"seed and fantasy": {func(c *growConfig) { c.Seed, c.ECI.Fantasy = 2, "optimistic" },
			[]string{"seed: 1 recorded, 2 now", "eci.fantasy: pessimistic recorded, optimistic now"}},
		"growth and budget": {func(c *growConfig) { c.Repeats, c.Budget = 4, 11 }, []string{"budget: 10 recorded, 11 now"}},
	} {
		c := baseGrowConfig()
		tc.mod(&c)
		err := CheckConfig(dir, c, growable)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: refused: %v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", name, err, w)
			}
		}
		if name == "growth and budget" && strings.Contains(err.Error(), "repeats:") {
			t.Errorf("%s: error names the grown key: %v", name, err)
		}
	}
	// Without growable keys any difference is refused.
	c := baseGrowConfig()
	c.Repeats = 3
	if err := CheckConfig(dir, c, nil); err == nil || !strings.Contains(err.Error(), "repeats: 2 recorded, 3 now") {
		t.Errorf("growth without growable keys: %v", err)
	}
}

// TestExecuteGrowsCampaign adds repeats to a finished campaign: the old
// runs are skipped, the new ones run and the grown config is recorded, so a
// later rerun of the smaller config is refused.
func TestExecuteGrowsCampaign(t *testing.T) {
	dir := t.TempDir()
	runs := func(n int) []Run {
		var out []Run
		for r := 0; r < n; r++ {
			out = append(out, Run{Key: "m-r" + strconv.Itoa(r), Method: "m", Repeat: r})
		}
		return out
	}
	s := Spec{Dir: dir, Header: []string{"iteration", "value"}, Runs: runs(2), Steps: 5, Workers: 1, Config: baseGrowConfig(), Growable: growable, Version: "test"}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	grown := baseGrowConfig()
	grown.Repeats = 3
	s.Config, s.Runs = grown, runs(3)
	rep, err := Execute(context.Background(), s, toyRun(5, nil))
	if err != nil || rep.Skipped != 2 || rep.Ran != 1 {
		t.Fatalf("grown campaign: %+v, %v; want 2 skipped, 1 ran", rep, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if !strings.Contains(string(b), "repeats: 3") {
		t.Errorf("config.yaml not updated:\n%s", b)
	}
	s.Config, s.Runs = baseGrowConfig(), runs(2)
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil || !strings.Contains(err.Error(), "repeats: 3 recorded, 2 now") {
		t.Errorf("shrunk config after growth: %v", err)
	}
}
