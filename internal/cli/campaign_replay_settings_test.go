package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/replay"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// replayLibrary is a library of 150 items, ids m000..m149, of 24 bit
// columns (fingerprints under --metric tanimoto), and every item's score:
// a weighted count of its bits among the first eight, plus noise.
func replayLibrary() (pool, scores string, score []float64) {
	r := rand.New(rand.NewPCG(11, 4))
	var b, s strings.Builder
	b.WriteString("id")
	for j := range 24 {
		fmt.Fprintf(&b, ",b%d", j)
	}
	b.WriteString("\n")
	s.WriteString("id,value\n")
	for i := range 150 {
		fmt.Fprintf(&b, "m%03d", i)
		v := r.NormFloat64()
		for j := range 24 {
			bit := r.IntN(3) == 0
			b.WriteString(map[bool]string{true: ",1", false: ",0"}[bit])
			if bit && j < 8 {
				v += float64(j%3 + 1)
			}
		}
		b.WriteString("\n")
		score = append(score, v)
		fmt.Fprintf(&s, "m%03d,%s\n", i, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String(), s.String(), score
}

// replaySettingsConfig is a one-round replay of qvs at q = 2 on
// replayLibrary (initial batch 20, one batch of 6, seed 7) into out.
func replaySettingsConfig(t *testing.T, dir, out string) ReplayConfig {
	t.Helper()
	cfg := DefaultReplayConfig()
	cfg.Pool.CSV.File = filepath.Join(dir, "pool.csv")
	if _, err := os.Stat(cfg.Pool.CSV.File); err != nil {
		body, scores, _ := replayLibrary()
		testutil.WriteFile(t, dir, "pool.csv", body)
		testutil.WriteFile(t, dir, "scores.csv", scores)
	}
	cfg.Pool.CSV.IDColumn, cfg.Scores, cfg.Out = "id", filepath.Join(dir, "scores.csv"), out
	p := &cfg.Protocol
	p.Methods, p.Q, p.Repeats, p.Seed = []string{surrogate.MethodQVS}, vendi.NewOrderList(2), 1, 7
	for a, v := range map[*replay.Amount]string{&p.Init: "20", &p.Batch: "6", &p.Budget: "6", &p.Top: "10"} {
		if err := a.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// runReplay runs the replay of cfg (quiet) and returns its exit code and
// the error's message.
func runReplay(t *testing.T, cfg ReplayConfig) (int, string) {
	t.Helper()
	env, out, _ := testEnv(t)
	env.Quiet = true
	err := RunCampaign(env, &ReplayCampaign{Env: env, Config: cfg}, campaign.Shard{})
	if err != nil {
		if out.Len() != 0 {
			t.Errorf("stdout %q on an error", out.String())
		}
		return ExitCode(err), err.Error()
	}
	return 0, ""
}

// replayRounds reads runs/qvs-q2-r00.csv of out: the items of round 0
// and of round 1.
func replayRounds(t *testing.T, out string) (init, picks []int) {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "runs", "qvs-q2-r00.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("records: %v %q", err, recs)
	}
	for _, r := range recs[1:] {
		i, _ := strconv.Atoi(r[1])
		if r[0] == "0" {
			init = append(init, i)
		} else {
			picks = append(picks, i)
		}
	}
	return init, picks
}

// A replay with a scored setting picks, in its first round, the batch
// surrogate.Suggest picks with that setting (the request written out by
// hand here, not by ScoreSettings.Request) on the same scores, seed and
// pool; each setting changes the batch of the defaults, so a replay that
// dropped or mistranslated it fails. The defaults' replay is the
// zero request's batch, and its config.yaml records none of the keys.
func TestReplayScoredSettingsPickAsSuggest(t *testing.T) {
	dir := t.TempDir()
	cfg := replaySettingsConfig(t, dir, filepath.Join(dir, "def"))
	if code, msg := runReplay(t, cfg); code != 0 {
		t.Fatal(msg)
	}
	init, defPicks := replayRounds(t, cfg.Out)
	_, _, score := replayLibrary()
	pool, err := datasets.LoadWith(cfg.Pool, "", filepath.Join(dir, "cache"), knn.GraphOptions{Workers: 1, FeaturesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	direct := func(req surrogate.Request) []int {
		req.Observed, req.Batch, req.Method, req.Q, req.Workers = init, 6, surrogate.MethodQVS, 2, 1
		req.Seed = rng.Seed(7, "qvs-q2-r00", 1)
		for _, i := range init {
			req.Values = append(req.Values, score[i])
		}
		res, err := surrogate.Suggest(context.Background(), pool, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Picks
	}
	if want := direct(surrogate.Request{}); !slices.Equal(defPicks, want) {
		t.Fatalf("default replay picks %v, surrogate.Suggest %v", defPicks, want)
	}
	recorded := string(mustReadFile(t, filepath.Join(cfg.Out, "config.yaml")))
	for _, key := range []string{"acquisition", "ucb_beta", "gp_kernel", "diversity", "history", "hit_power", "hit_threshold", "hit_top_fraction", "candidates"} {
		if strings.Contains(recorded, "\n"+key+":") {
			t.Errorf("default config.yaml records %s:\n%s", key, recorded)
		}
	}
	for _, c := range []struct {
		name string
		set  ScoreSettings
		req  surrogate.Request
		key  string            // recorded in config.yaml
		bare surrogate.Request // req without the setting: another batch
	}{
		{"acquisition ei", ScoreSettings{Acquisition: "ei", History: "none"}, surrogate.Request{Acquisition: "ei", History: "none"}, "acquisition: ei", surrogate.Request{History: "none"}},
		{"ucb-beta 9", ScoreSettings{UCBBeta: 9, History: "none"}, surrogate.Request{Beta: 9, History: "none"}, "ucb_beta: 9", surrogate.Request{History: "none"}},
		{"history none", ScoreSettings{History: "none"}, surrogate.Request{History: "none"}, "history: none", surrogate.Request{}},
		{"hit-power 0", ScoreSettings{HitPower: ptr(0.0)}, surrogate.Request{HitPower: surrogate.NoHitPower}, "hit_power: 0", surrogate.Request{}},
		{"hit-threshold 3", ScoreSettings{HitThreshold: ptr(3.0)}, surrogate.Request{HitThreshold: 3, HasHitThreshold: true}, "hit_threshold: 3", surrogate.Request{}},
		{"candidates 6", ScoreSettings{Candidates: 6}, surrogate.Request{Candidates: 6}, "candidates: 6", surrogate.Request{}},
		{"diversity knn", ScoreSettings{Diversity: "knn"}, surrogate.Request{Diversity: "knn"}, "diversity: knn", surrogate.Request{}},
	} {
		want := direct(c.req)
		if slices.Equal(want, direct(c.bare)) {
			t.Errorf("%s: surrogate.Suggest picks %v with and without the setting: the case cannot fail", c.name, want)
			continue
		}
		cs := replaySettingsConfig(t, dir, filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")))
		cs.Scored = c.set
		if code, msg := runReplay(t, cs); code != 0 {
			t.Fatalf("%s: %s", c.name, msg)
		}
		if got, picks := replayRounds(t, cs.Out); !slices.Equal(got, init) || !slices.Equal(picks, want) {
			t.Errorf("%s: replay picks %v (initial %v), surrogate.Suggest %v (initial %v)", c.name, picks, got, want, init)
		}
		if rec := string(mustReadFile(t, filepath.Join(cs.Out, "config.yaml"))); !strings.Contains(rec, "\n"+c.key+"\n") {
			t.Errorf("%s: config.yaml lacks %q:\n%s", c.name, c.key, rec)
		}
	}
}

// A bad scored setting is a usage error naming the flag (with a config
// file, the key too), with nothing written; a rerun into a campaign with
// another setting is refused naming the key, the campaign left as it was.
func TestReplayScoredSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, config string
		set          func(*ReplayConfig)
		want         string
	}{
		{"ucb-beta", "", func(c *ReplayConfig) { c.Scored.UCBBeta = -1 }, "--ucb-beta -1: expected a finite number > 0"},
		{"hit-power", "", func(c *ReplayConfig) { c.Scored.HitPower = ptr(-2.0) }, "--hit-power -2: expected a finite number >= 0"},
		{"both hits", "", func(c *ReplayConfig) { c.Scored.HitThreshold, c.Scored.HitTopFraction = ptr(1.0), 0.1 }, "give --hit-threshold or --hit-top-fraction, not both"},
		{"history at q 1", "", func(c *ReplayConfig) { c.Scored.History, c.Q = "gain", vendi.NewOrderList(2, 1) }, "--history gain: needs --q 2 and --diversity dense"},
		{"history random only", "", func(c *ReplayConfig) { c.Scored.History, c.Methods = "nope", []string{"random"} }, `--history "nope": expected one of`},
		{"candidates below batch", "", func(c *ReplayConfig) { c.Scored.Candidates = 5 }, "--candidates 5: expected at least --batch 6"},
		{"negative candidates", "c.yaml", func(c *ReplayConfig) { c.Scored.Candidates = -5 }, "--candidates (key candidates) -5: expected at least 1"},
		{"kernel of dense features", "", func(c *ReplayConfig) { c.Scored.GPKernel = "rbf" }, "--gp-kernel rbf: surrogate: kernel rbf needs dense features; pool pool has packed fingerprints"},
		// settings no run uses (with qvs in the methods, or a q = 2 run, they apply)
		{"history without qvs", "", func(c *ReplayConfig) { c.Scored.History, c.Methods = "expected", []string{"greedy", "random"} }, "--history expected applies only to the method qvs"},
		{"hit power without qvs", "", func(c *ReplayConfig) { c.Scored.HitPower, c.Methods = ptr(2.0), []string{"top"} }, "--hit-power 2 applies only with --history expected or gain"},
		{"candidates without qvs or top", "", func(c *ReplayConfig) { c.Scored.Candidates, c.Methods = 40, []string{"greedy", "random"} }, "--candidates 40 applies only to the methods qvs and top"},
		{"ucb-beta with mean", "c.yaml", func(c *ReplayConfig) { c.Scored.UCBBeta, c.Scored.Acquisition = 2, "mean" }, "--ucb-beta (key ucb_beta) 2 applies only with --acquisition (key acquisition) ucb or thompson"},
		{"hit power at q 1", "", func(c *ReplayConfig) { c.Scored.HitPower, c.Q = ptr(2.0), vendi.NewOrderList(1) }, "--hit-power 2 applies only with"},
		{"hit power, history none", "c.yaml", func(c *ReplayConfig) { c.Scored.HitPower, c.Scored.History = ptr(0.0), "none" }, "config c.yaml: --hit-power (key hit_power) 0 applies only with --history (key history) expected or gain"},
		{"config key", "c.yaml", func(c *ReplayConfig) { c.Scored.Acquisition = "pi" }, `config c.yaml: --acquisition (key acquisition) "pi": expected one of ucb, ei`},
	} {
		cfg := replaySettingsConfig(t, dir, filepath.Join(dir, "bad"))
		c.set(&cfg)
		env, out, _ := testEnv(t)
		env.Quiet, env.Config = true, c.config
		err := RunCampaign(env, &ReplayCampaign{Env: env, Config: cfg}, campaign.Shard{})
		if err == nil || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%s: error %v (exit %d), stdout %q; want exit 2 and %q", c.name, err, ExitCode(err), out.String(), c.want)
		}
		if _, err := os.Stat(cfg.Out); err == nil {
			t.Errorf("%s: %s written", c.name, cfg.Out)
		}
	}

	cfg := replaySettingsConfig(t, dir, filepath.Join(dir, "res"))
	cfg.Scored.HitPower = ptr(2.0)
	if code, msg := runReplay(t, cfg); code != 0 {
		t.Fatal(msg)
	}
	before := mustReadFile(t, filepath.Join(cfg.Out, "runs", "qvs-q2-r00.csv"))
	for _, c := range []struct {
		name string
		set  ScoreSettings
		want string
	}{
		{"another value", ScoreSettings{HitPower: ptr(3.0)}, "hit_power: 2 recorded, 3 now"},
		{"the default", ScoreSettings{}, "hit_power: 2 recorded, (absent) now"},
		{"another key", ScoreSettings{HitPower: ptr(2.0), Acquisition: "ei"}, "acquisition: (absent) recorded, ei now"},
	} {
		again := replaySettingsConfig(t, dir, cfg.Out)
		again.Scored = c.set
		if code, msg := runReplay(t, again); code == 0 || !strings.Contains(msg, c.want) {
			t.Errorf("resume with %s: exit %d %q, want refused naming %q", c.name, code, msg, c.want)
		}
	}
	if after := mustReadFile(t, filepath.Join(cfg.Out, "runs", "qvs-q2-r00.csv")); string(after) != string(before) {
		t.Errorf("the refused reruns changed the records")
	}
	// The same settings resume (nothing new to run), given defaults
	// included: they are recorded as absent.
	same := cfg
	same.Scored.Acquisition, same.Scored.UCBBeta, same.Scored.GPKernel, same.Scored.Diversity = surrogate.DefaultAcquisition, surrogate.DefaultBeta, "auto", surrogate.DefaultDiversity
	if code, msg := runReplay(t, same); code != 0 {
		t.Errorf("resume with the same settings: %s", msg)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
