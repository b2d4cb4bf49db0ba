package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// tinyASRun is `qvs as --config tiny.yaml --out out --cache-dir cache
// --workers 2 [--quiet]` of testutil.TinyASConfig (asConfigRun).
func tinyASRun(t *testing.T, out, cache string, quiet bool, edits ...func(*ASConfig)) (code int, stdout, msg string) {
	t.Helper()
	return asConfigRun(t, testutil.TinyASConfig, out, cache, quiet, edits...)
}

// asConfigRun is `qvs as --config CONFIG --out out --cache-dir cache
// --workers 2 [--quiet]` of the YAML config, decoded as the command
// decodes a config (onto the defaults of its pool.kind, unknown keys
// refused), with the edits applied (the other flags): the exit code qvs
// would give, stdout, and the error's message followed by stderr.
func asConfigRun(t *testing.T, config, out, cache string, quiet bool, edits ...func(*ASConfig)) (code int, stdout, msg string) {
	t.Helper()
	cfg := decodeASConfig(t, config)
	if err := CheckASConfig("config.yaml", &cfg, false); err != nil {
		t.Fatal(err)
	}
	cfg.Out = out
	for _, edit := range edits {
		edit(&cfg)
	}
	env, sout, serr := testEnv(t)
	env.Workers, env.Quiet, env.CacheDir, env.Version, env.Config = 2, quiet, cache, "test", "config.yaml"
	if err := RunCampaign(env, &ASCampaign{Env: env, Config: cfg}, campaign.Shard{}); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// TestASResumeAfterSimulatedKill reproduces what a kill leaves (finished
// runs, run files cut at a batch boundary, no summary for unfinished runs,
// a stale summary.csv) and checks that rerunning gives the files of an
// uninterrupted campaign.
func TestASResumeAfterSimulatedKill(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	full, part := filepath.Join(dir, "full"), filepath.Join(dir, "part")
	if code, _, stderr := tinyASRun(t, full, cache, true); code != 0 {
		t.Fatal(stderr)
	}
	if err := os.CopyFS(part, os.DirFS(full)); err != nil {
		t.Fatal(err)
	}
	for i, key := range []string{"random-r00", "eci-t0.5-pessimistic-r01", "ens-pessimistic-r00", "qvs-q1-r00", "qvs-qinf-r01", "select-b1-l0.5-optimistic-r00"} {
		os.Remove(filepath.Join(part, "runs", key+".summary.csv"))
		os.Remove(filepath.Join(part, "runs", key+".curve.csv"))
		testutil.CutRecords(t, filepath.Join(part, "runs", key+".csv"), 1+1+4*(i%3), nil) // header, start, 0-2 whole batches
	}
	os.Remove(filepath.Join(part, "runs", "one-step-r01.csv")) // killed before its first record
	os.Remove(filepath.Join(part, "runs", "one-step-r01.summary.csv"))
	os.Remove(filepath.Join(part, "runs", "one-step-r01.curve.csv"))
	code, _, stderr := tinyASRun(t, part, cache, false)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "16 of 16 run(s) finished (1 new, 6 resumed, 9 already done)") {
		t.Errorf("resume report: %s", stderr)
	}
	testutil.SameResults(t, full, part)
}

// TestASResumeMidBatch: record files cut inside a batch
// (qvs writes whole batches; a hand edit or a copy does not) resumed with
// exit 0 into a different run: the next batches were shorter, and from
// there records and curve differed. Now the cut batch is recomputed and
// every file equals the uninterrupted run's. A record whose index was
// edited (its id no longer names that item), a batch grown by a line, and
// a short batch followed by another are refused naming file, line and
// value.
func TestASResumeMidBatch(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	full, part := filepath.Join(dir, "full"), filepath.Join(dir, "part")
	if code, _, stderr := tinyASRun(t, full, cache, true); code != 0 {
		t.Fatal(stderr)
	}
	cut := func(key string, keep int, edit func([][]string)) {
		for _, ext := range []string{".summary.csv", ".curve.csv"} {
			os.Remove(filepath.Join(part, "runs", key+ext))
		}
		testutil.CutRecords(t, filepath.Join(part, "runs", key+".csv"), keep, edit)
	}
	if err := os.CopyFS(part, os.DirFS(full)); err != nil {
		t.Fatal(err)
	}
	// testutil.TinyASConfig: batch 4, budget 13: batches of 1 (start), 4, 4, 4, 1.
	for i, key := range []string{"random-r00", "qvs-q1-r00", "ens-pessimistic-r00", "one-step-r01"} {
		cut(key, 1+1+4*(i%3)+1+i%3, nil) // 1-3 queries into batch 1-3
	}
	os.Remove(filepath.Join(part, "summary.csv"))
	if code, _, stderr := tinyASRun(t, part, cache, true); code != 0 {
		t.Fatal(stderr)
	}
	testutil.SameResults(t, full, part)

	for _, tc := range []struct {
		name string
		keep int
		edit func([][]string)
		want string
	}{
		{"edited index", 8, func(r [][]string) { r[6][2] = unusedIndex(r) }, `qvs-q1-r00.csv: line 7: index %s is item`},
		{"batch of 5", 8, func(r [][]string) { r[6][1] = "1" }, `qvs-q1-r00.csv: line 7: batch 1 has 5 queries, expected 4`},
		{"short batch not last", 8, func(r [][]string) { r[5][1] = "2"; r[6][1] = "2" }, `qvs-q1-r00.csv: line 6: batch 2 starts after 3 queries of batch 1, expected 4`},
	} {
		if err := os.RemoveAll(part); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(part, os.DirFS(full)); err != nil {
			t.Fatal(err)
		}
		var index string
		cut("qvs-q1-r00", tc.keep, func(r [][]string) { tc.edit(r); index = r[6][2] })
		want := tc.want
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, index)
		}
		code, out, stderr := tinyASRun(t, part, cache, true)
		if code != 1 || !strings.Contains(stderr, want) || out != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", tc.name, code, stderr, want)
		}
	}
}

// unusedIndex is the smallest item index no record of r names.
func unusedIndex(r [][]string) string {
	for i := 0; ; i++ {
		if !slices.ContainsFunc(r, func(row []string) bool { return row[2] == strconv.Itoa(i) }) {
			return strconv.Itoa(i)
		}
	}
}

// decodeASConfig is the YAML config of `qvs as` decoded as the command
// decodes it: onto the defaults of its pool.kind (the synthetic pool's
// without one), unknown keys refused.
func decodeASConfig(t *testing.T, config string) ASConfig {
	t.Helper()
	var head struct {
		Pool struct {
			Kind string `yaml:"kind"`
		} `yaml:"pool"`
	}
	if err := yaml.Unmarshal([]byte(config), &head); err != nil {
		t.Fatal(err)
	}
	cfg := SyntheticASConfig()
	if head.Pool.Kind != "" {
		cfg = DefaultASConfig(head.Pool.Kind)
	}
	dec := yaml.NewDecoder(strings.NewReader(config))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}
