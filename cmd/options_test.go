package cmd

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// parseOptions parses args as qvs does and returns the options the
// command filled, without running it (optionsHook).
func parseOptions(t *testing.T, args ...string) any {
	t.Helper()
	var got any
	optionsHook = func(o any) { got = o }
	defer func() { optionsHook = nil }()
	var stderr strings.Builder
	if code := MainIO(args, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
	}
	if got == nil {
		t.Fatalf("%q: the command did not reach its run function", args)
	}
	return got
}

// TestFlagsFillOptions: each command's flags land in the fields of its
// options (the settings table's rows), defaults stay where no flag was
// given, and the flags that apply to one kind of input only are listed as
// given, in the table's order.
func TestFlagsFillOptions(t *testing.T) {
	score := cli.DefaultScoreOptions()
	score.Items.Embeddings, score.Items.Emb.Kernel, score.Items.Emb.LengthScale, score.Items.Emb.GroupColumn = "e.csv", "rbf", 2, "g"
	score.Items.EmbFlags = []string{"embedding-kernel", "length-scale"}
	score.Orders, score.Format.Value = vendi.Orders{1, vendi.OrderInf}, cli.FormatJSON
	score.Items.EmbFlags = append(score.Items.EmbFlags, "group-column")

	sel := cli.DefaultSelectOptions()
	sel.Items.Kernel, sel.Items.Normalize, sel.K, sel.Q, sel.Prefix, sel.RawIDs, sel.Format.Value = "k.csv", true, 3, 2, "1,2", true, cli.FormatCSV

	disc := cli.DefaultBOSuggestOptions()
	disc.OnKernel, disc.Discrete.Kernel, disc.Discrete.Beta, disc.Batch, disc.Init, disc.InitGiven, disc.Format.Value = true, "K.npy", 0.5, 7, 3, true, cli.FormatTable
	disc.DiscreteFlags = []string{"kernel", "beta"}

	cont := cli.DefaultBOSuggestOptions()
	cont.Continuous.Space, cont.Continuous.MaxTrain, cont.Continuous.QVSFloor, cont.Method, cont.Q = "s.yaml", 50, true, "turbo", vendi.OrderInf
	cont.ContinuousFlags = []string{"space", "max-train", "qvs-floor"}

	sol := cli.DefaultSolutionsOptions()
	sol.Space.File, sol.Observed, sol.M, sol.Space.LengthScale, sol.Space.LengthScaleGiven = "s.yaml", "o.csv", 4, 0.3, true
	sol.SpaceFlags = []string{"space", "length-scale"}

	toy := cli.DefaultToyOptions()
	toy.N, toy.Format = 4, "svg"

	eval := cli.DefaultEvalOptions()
	eval.Dir, eval.Format = "results", []string{"md"}

	for _, c := range []struct {
		args []string
		want any
	}{
		{[]string{"score", "--embeddings", "e.csv", "--embedding-kernel", "rbf", "--length-scale", "2", "--q", "1,inf", "--format", "json", "--group-column", "g"}, &score},
		{[]string{"select", "--kernel", "k.csv", "--normalize", "--k", "3", "--q", "2", "--prefix", "1,2", "--raw-ids", "--format", "csv"}, &sel},
		{[]string{"bayesopt", "suggest", "--kernel", "K.npy", "--beta", "0.5", "--batch", "7", "--init", "3", "--format", "table"}, &disc},
		{[]string{"bayesopt", "suggest", "--space", "s.yaml", "--max-train", "50", "--qvs-floor", "--method", "turbo", "--q", "inf"}, &cont},
		{[]string{"bayesopt", "solutions", "--space", "s.yaml", "--observed", "o.csv", "--m", "4", "--length-scale", "0.3"}, &sol},
		{[]string{"bayesopt", "evaluate", "--task", "rover", "--points", "x.csv"}, &cli.EvaluateOptions{Task: "rover", Points: "x.csv"}},
		{[]string{"toy", "--n", "4", "--format", "svg"}, &toy},
		{[]string{"eval", "results", "--format", "md"}, &eval},
	} {
		if got := parseOptions(t, c.args...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", strings.Join(c.args, " "), got, c.want)
		}
	}
}

// TestASSuggestFlagsFillOptions: as suggest's flags fill its options; the
// label-only and score-only flags given are listed apart, and which flags
// were given decides the defaults the run applies.
func TestASSuggestFlagsFillOptions(t *testing.T) {
	o := parseOptions(t, "as", "suggest", "--pool", "p.csv", "--batch", "9", "--fantasy", "optimistic", "--minimize", "--hit-threshold", "3", "--acquisition", "ei", "--format", "json").(*cli.ASSuggestOptions)
	switch {
	case o.Batch != 9 || o.Method != "qvs" || o.Q != 1 || o.QGiven || o.Format.Value != cli.FormatJSON:
		t.Errorf("shared settings: %+v", o)
	case o.Labels.Fantasy != "optimistic" || o.Labels.Threshold != 0.5 || o.Labels.RemainingGiven || o.Labels.PriorGiven:
		t.Errorf("label settings: %+v", o.Labels)
	case !o.Scores.Minimize || o.Scores.HitThreshold == nil || *o.Scores.HitThreshold != 3 || o.Scores.Acquisition != "ei" || o.Scores.HitTopFraction != 0 || o.Scores.HitPower != nil:
		t.Errorf("score settings: %+v", o.Scores)
	case !slices.Equal(o.LabelFlags, []string{"fantasy"}) || !slices.Equal(o.ScoreFlags, []string{"minimize", "hit-threshold", "acquisition"}):
		t.Errorf("one-kind flags: labels %q, scores %q", o.LabelFlags, o.ScoreFlags)
	case !o.PoolGiven || o.OwnGraph || o.Resolve == nil:
		t.Errorf("pool: given %v, own graph %v", o.PoolGiven, o.OwnGraph)
	}
	if o := parseOptions(t, "as", "suggest", "--graph", "w.npz", "--prior", "0.2").(*cli.ASSuggestOptions); !o.OwnGraph || !o.PoolGiven || !o.Labels.PriorGiven || o.Labels.Prior != "0.2" || !slices.Equal(o.LabelFlags, []string{"prior"}) {
		t.Errorf("--graph --prior: %+v", o)
	}
}

// TestBadValuesAreFlagErrors: a --format outside a command's list, and a
// value a settings-table row checks (as suggest's policy settings, its
// scored choices), are refused when the flags are parsed (exit 2, stdout
// empty, the run never reached), naming the flag and what it expects.
func TestBadValuesAreFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"score", "--kernel", "k.csv", "--format", "xml"}, `invalid argument "xml" for "--format" flag: expected table, csv or json`},
		{[]string{"select", "--kernel", "k.csv", "--k", "1", "--format", "xml"}, `invalid argument "xml" for "--format" flag: expected table, csv or json`},
		{[]string{"as", "suggest", "--pool", "p.csv", "--format", "xml"}, `invalid argument "xml" for "--format" flag: expected table, csv or json`},
		{[]string{"bayesopt", "suggest", "--space", "s.yaml", "--format", "xml"}, `invalid argument "xml" for "--format" flag: expected csv, table or json`},
		{[]string{"bayesopt", "solutions", "--space", "s.yaml", "--format", "xml"}, `invalid argument "xml" for "--format" flag: expected csv, table or json`},
		{[]string{"as", "suggest", "--pool", "p.csv", "--threshold", "2"}, `invalid argument "2" for "--threshold" flag: 2 is outside [0, 1]`},
		{[]string{"as", "suggest", "--pool", "p.csv", "--beta", "-1"}, `invalid argument "-1" for "--beta" flag: -1 must be a finite number >= 0`},
		{[]string{"as", "suggest", "--pool", "p.csv", "--lambda", "x"}, `invalid argument "x" for "--lambda" flag: expected a number`},
		{[]string{"as", "suggest", "--pool", "p.csv", "--acquisition", "best"}, `invalid argument "best" for "--acquisition" flag: expected ucb`},
	} {
		args := c.args
		optionsHook = func(any) { t.Errorf("%q reached its run function", args) }
		code, out, stderr := runQVS(t, args...)
		optionsHook = nil
		if code != ExitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}

// TestScoredFlagsFillSettings: the scored settings' flags, bound once
// (bindScoreSettings), fill the same cli.ScoreSettings on as suggest and
// as replay; a replay's config keys fill it too, and with none given it
// stays zero (surrogate's defaults, recorded as absent).
func TestScoredFlagsFillSettings(t *testing.T) {
	flags := []string{"--acquisition", "ei", "--ucb-beta", "4", "--gp-kernel", "minmax", "--diversity", "knn", "--history", "none",
		"--hit-power", "0", "--candidates", "300", "--hit-threshold", "-7"}
	zero, threshold := 0.0, -7.0
	want := cli.ScoreSettings{Acquisition: "ei", UCBBeta: 4, GPKernel: "minmax", Diversity: "knn", History: "none",
		HitPower: &zero, Candidates: 300, HitThreshold: &threshold}
	sug := parseOptions(t, append([]string{"as", "suggest", "--pool", "p.csv"}, flags...)...).(*cli.ASSuggestOptions)
	if !reflect.DeepEqual(sug.Scores, want) {
		t.Errorf("as suggest: %+v, want %+v", sug.Scores, want)
	}
	if wantFlags := []string{"hit-threshold", "acquisition", "ucb-beta", "gp-kernel", "diversity", "history", "hit-power", "candidates"}; !slices.Equal(sug.ScoreFlags, wantFlags) {
		t.Errorf("as suggest's score-only flags %q, want %q", sug.ScoreFlags, wantFlags)
	}
	replay := []string{"as", "replay", "--pool", "p.csv", "--scores", "s.csv"}
	rep := parseOptions(t, append(replay, flags...)...).(*cli.ReplayConfig)
	if !reflect.DeepEqual(rep.Scored, want) {
		t.Errorf("as replay: %+v, want %+v", rep.Scored, want)
	}
	if rep := parseOptions(t, replay...).(*cli.ReplayConfig); !reflect.DeepEqual(rep.Scored, cli.ScoreSettings{}) {
		t.Errorf("as replay without the flags: %+v, want the zero settings", rep.Scored)
	}
	cfg := filepath.Join(t.TempDir(), "replay.yaml")
	if err := os.WriteFile(cfg, []byte("acquisition: ei\nucb_beta: 4\ngp_kernel: minmax\ndiversity: knn\nhistory: none\nhit_power: 0\ncandidates: 300\nhit_threshold: -7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := parseOptions(t, append(replay, "--config", cfg)...).(*cli.ReplayConfig); !reflect.DeepEqual(rep.Scored, want) {
		t.Errorf("as replay --config: %+v, want %+v", rep.Scored, want)
	}
	// A config's 0 for ucb_beta, hit_top_fraction or candidates is refused
	// (the fields' zero is the default: it was taken for the key left out).
	for _, c := range []struct{ key, want string }{
		{"ucb_beta: 0", "--ucb-beta (key ucb_beta) 0: expected a finite number > 0"},
		{"hit_top_fraction: 0.0", "--hit-top-fraction (key hit_top_fraction) 0.0: expected a fraction in (0, 1]"},
		{"candidates: 0", "--candidates (key candidates) 0: expected at least 1"},
	} {
		if err := os.WriteFile(cfg, []byte(c.key+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runQVS(t, append(replay, "--config", cfg)...)
		if code != 2 || out != "" || !strings.Contains(stderr, "config "+cfg+": "+c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.key, code, out, stderr, c.want)
		}
	}
	// --hit-top-fraction lands in its field (not given with --hit-threshold).
	if rep := parseOptions(t, append(replay, "--hit-top-fraction", "0.2")...).(*cli.ReplayConfig); rep.Scored.HitTopFraction != 0.2 {
		t.Errorf("--hit-top-fraction 0.2: %+v", rep.Scored)
	}
}
