package cmd

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestSettingsPrecedence: qvs bayesopt resolves every setting from its
// one table in one order: the protocol's default, then the config file,
// then the flags the user set (a flag equal to its own default included).
func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := testutil.WriteFile(t, dir, "c.yaml", "task: synthetic\nbudget: 30\ninit: 6\nmethods: qvs\nq: [2, inf]\n")
	for _, tc := range []struct {
		args []string
		edit func(p *bayesopt.Protocol)
	}{
		{nil, func(p *bayesopt.Protocol) {
			p.Budget, p.Init, p.Methods, p.Q = 30, 6, []string{"qvs"}, mustOrders(t, "2,inf")
		}},
		{[]string{"--budget", "20", "--q", "0.50", "--tau", "0", "--seed", "9", "--out", "o"}, func(p *bayesopt.Protocol) {
			p.Budget, p.Init, p.Methods, p.Q, p.Tau, p.Seed, p.Out = 20, 6, []string{"qvs"}, mustOrders(t, "0.50"), 0, 9, "o"
		}},
	} {
		root := &cobra.Command{}
		g := &GlobalOptions{Config: cfg}
		root.PersistentFlags().Uint64Var(&g.Seed, "seed", 0, "")
		c := &cobra.Command{Use: "bayesopt"}
		root.AddCommand(c)
		f := &bayesoptOptions{}
		f.register(c.Flags(), g)
		if err := c.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		f.cont = bayesopt.DefaultProtocol("synthetic")
		if err := resolveSettings(g, f.table, &f.cont, nil); err != nil {
			t.Fatal(err)
		}
		want := bayesopt.DefaultProtocol("synthetic")
		tc.edit(&want)
		if !reflect.DeepEqual(f.cont, want) {
			t.Errorf("%q: resolved %+v, want %+v", tc.args, f.cont, want)
		}
	}
}

// TestConfigTypeErrors: a value of the wrong type in a config is a usage
// error naming the file, the line, the key and what is expected; a key in
// the wrong case is refused with the right one.
func TestConfigTypeErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"task: synthetic\nbudget: [1, 2]\n", ":2: budget: expected a whole number, found a list"},
		{"task: synthetic\nqvs_floor: sometimes\n", `:2: qvs_floor: "sometimes" is not true or false`},
		{"task: synthetic\nBudget: 20\n", `:2: unknown key "Budget" (did you mean "budget"?)`},
		{"task: synthetic\ntau: high\n", `:2: tau: "high" is not a number`},
	} {
		cfg := testutil.WriteFile(t, dir, "c.yaml", tc.yaml)
		code, out, stderr := runQVS(t, "bayesopt", "--config", cfg, "--out", filepath.Join(dir, "o"))
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "config "+cfg+tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.yaml, code, stderr, ExitUsage, tc.want)
		}
	}
}

// TestASSuggestFeaturesOverConfigPrefix: a pool flag refines a config's
// CSV pool key by key, and --features replaces the config's
// feature_prefix (the two together are refused by the CSV reader).
func TestASSuggestFeaturesOverConfigPrefix(t *testing.T) {
	dir := t.TempDir()
	var rows strings.Builder
	rows.WriteString("name,x1,x2,x3\n")
	for i := range 12 {
		fmt.Fprintf(&rows, "i%d,%d,%d,%d\n", i, i%3, i%4, i)
	}
	pool := testutil.WriteFile(t, dir, "p.csv", rows.String())
	cfg := testutil.WriteFile(t, dir, "c.yaml", "task: mine\npool:\n  kind: csv\n  csv:\n    file: "+pool+"\n    feature_prefix: x\n    id_column: name\n    k: 3\n")
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\ni0,1\ni1,0\n")
	code, out, stderr := runQVS(t, "as", "suggest", "--config", cfg, "--features", "x1,x2", "--observed", obs, "--batch", "2", "--format", "csv", "--cache-dir", filepath.Join(dir, "cache"))
	if code != ExitOK || strings.Count(out, "\n") != 3 {
		t.Errorf("--features over a config's feature_prefix: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// mustOrders parses s, comma-separated orders kept as written.
func mustOrders(t *testing.T, s string) vendi.OrderList {
	t.Helper()
	l, err := vendi.ParseOrderList(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestConfigReadOnce: a command reads and parses its --config once: the
// key that chooses the defaults (peekConfig) and the settings loaded onto
// them come from the same read, so a file replaced between the two does
// not mix two configs (the second version is never read).
func TestConfigReadOnce(t *testing.T) {
	dir := t.TempDir()
	path := testutil.WriteFile(t, dir, "c.yaml", testutil.TinyASConfig)
	c, g := newTestASCommand(t, path)
	if kind, err := peekConfig(g, "pool", "kind"); err != nil || kind != "synthetic" {
		t.Fatalf("pool.kind %q, %v", kind, err)
	}
	testutil.WriteFile(t, dir, "c.yaml", "task: bmg\nbudget: 99\npool:\n  kind: bmg\n")
	cfg, err := resolveASConfig(c, g, &asOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Budget != 13 || cfg.Pool.Kind != "synthetic" || cfg.Task != "tiny" {
		t.Errorf("resolved task %s, pool.kind %s, budget %d: want the file as first read (tiny, synthetic, 13)", cfg.Task, cfg.Pool.Kind, cfg.Budget)
	}
}
