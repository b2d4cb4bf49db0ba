package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// orders is the order list of a flag value ("1,inf").
func orders(t *testing.T, s string) vendi.OrderList {
	t.Helper()
	q, err := vendi.ParseOrderList(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestASCampaignGrows: a finished campaign accepts a
// config that only adds runs (repeats, methods, q) and runs just the new
// ones; another difference is refused naming the keys, with nothing
// printed before the error.
func TestASCampaignGrows(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res")
	cache := filepath.Join(dir, "cache")
	set := func(methods []string, q string, repeats int) func(*ASConfig) {
		return func(c *ASConfig) { c.Methods, c.Q, c.Repeats = methods, orders(t, q), repeats }
	}
	if code, _, stderr := tinyASRun(t, out, cache, true, set([]string{"one-step", "qvs"}, "1", 1)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summary := func() int { return len(testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))) - 1 }
	if n := summary(); n != 2 {
		t.Fatalf("%d runs, want 2", n)
	}
	before, _ := os.ReadFile(filepath.Join(out, "runs", "qvs-q1-r00.csv"))
	grown := set([]string{"one-step", "qvs", "random"}, "1,inf", 2)
	code, _, stderr := tinyASRun(t, out, cache, false, grown)
	if code != 0 || !strings.Contains(stderr, "8 of 8 run(s) finished (6 new, 2 already done)") {
		t.Fatalf("grown campaign: exit %d, %s", code, stderr)
	}
	if n := summary(); n != 8 {
		t.Errorf("%d runs after growth, want (random, one-step, qvs q = 1, inf) x 2 repeats = 8", n)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "runs", "qvs-q1-r00.csv")); string(after) != string(before) {
		t.Errorf("growth rewrote a finished run")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "config.yaml")); !strings.Contains(string(b), "repeats: 2") || !strings.Contains(string(b), "- random") {
		t.Errorf("config.yaml does not record the grown config:\n%s", b)
	}
	// Changing the budget or shrinking is refused, naming the keys, and
	// nothing (not even "loading pool") is printed first.
	for _, tc := range []struct {
		name  string
		edits []func(*ASConfig)
		want  []string
	}{
		{"budget 20", []func(*ASConfig){grown, func(c *ASConfig) { c.Budget = 20 }}, []string{"budget: 13 recorded, 20 now"}},
		{"qvs, 1 repeat, seed 4", []func(*ASConfig){set([]string{"qvs"}, "1,inf", 1), func(c *ASConfig) { c.Seed = 4 }},
			[]string{"methods: [one-step, qvs, random] recorded, [qvs] now", "repeats: 2 recorded, 1 now", "seed: 3 recorded, 4 now"}},
	} {
		code, stdout, stderr := tinyASRun(t, out, cache, false, tc.edits...)
		if code != 1 || stdout != "" || !strings.Contains(strings.SplitN(stderr, "\n", 2)[0], "config.yaml holds a different config") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, stdout, stderr)
		}
		if strings.Contains(stderr, "loading pool") {
			t.Errorf("%s: printed before the refusal: %q", tc.name, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q does not name %q", tc.name, stderr, w)
			}
		}
	}
}

// TestBayesoptCampaignGrows: the same growth rule for `qvs bayesopt`; the
// refusal comes before anything is printed.
func TestBayesoptCampaignGrows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bo")
	one := func(k *BayesoptCampaign) { k.Config.Methods, k.Config.Repeats = []string{"random"}, 1 }
	if code, _, errs := smallBO(t, dir, campaign.Shard{}, one); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	grown := func(k *BayesoptCampaign) { k.Config.Methods, k.Config.Repeats = []string{"random", "turbo"}, 2 }
	if code, _, errs := smallBO(t, dir, campaign.Shard{}, grown); code != ExitOK {
		t.Fatalf("grown: exit %d: %s", code, errs)
	}
	if n := len(testutil.ReadCSVFile(t, filepath.Join(dir, "summary.csv"))) - 1; n != 4 {
		t.Errorf("%d runs after growth, want 4", n)
	}
	loud := func(k *BayesoptCampaign) { k.Config.Budget, k.Env.Quiet = 35, false }
	code, out, errs := smallBO(t, dir, campaign.Shard{}, grown, loud)
	if code != ExitRuntime || out != "" || !strings.Contains(errs, "holds a different config") || !strings.Contains(errs, "budget: ") || strings.Contains(errs, "qvs bayesopt:") {
		t.Errorf("changed budget: exit %d, stdout %q, message %q", code, out, errs)
	}
}
