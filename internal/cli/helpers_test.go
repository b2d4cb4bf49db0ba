package cli

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// exitOf calls run with o and an Env of buffers (testEnv) that each of
// env edits (the global flags: Quiet, CacheDir, Seed, ...), and returns
// what qvs would: the exit code (ExitCode of the error, 0 without one),
// stdout, and the error's message followed by stderr.
func exitOf[O any](t *testing.T, run func(*Env, *O) error, o *O, env ...func(*Env)) (code int, stdout, msg string) {
	t.Helper()
	e, out, errb := testEnv(t)
	for _, set := range env {
		set(e)
	}
	if err := run(e, o); err != nil {
		return ExitCode(err), out.String(), err.Error() + "\n" + errb.String()
	}
	return 0, out.String(), errb.String()
}

// beQuiet is --quiet (an Env edit for exitOf).
func beQuiet(e *Env) { e.Quiet = true }

// The options of each command are its flags' defaults (the Default*Options
// cmd starts from) with set applied; a test sets the fields its flags
// would, and lists the flags given where the run function reads that
// (EmbFlags, LabelFlags, ScoreFlags, ContinuousFlags, DiscreteFlags).
// Which flag fills which field is cmd's to test (TestFlagsFillOptions).

// scoreOpts is DefaultScoreOptions with set applied.
func scoreOpts(set func(*ScoreOptions)) *ScoreOptions {
	o := DefaultScoreOptions()
	set(&o)
	return &o
}

// selectOpts is DefaultSelectOptions with set applied.
func selectOpts(set func(*SelectOptions)) *SelectOptions {
	o := DefaultSelectOptions()
	set(&o)
	return &o
}

// boSuggestOpts is DefaultBOSuggestOptions with set applied.
func boSuggestOpts(set func(*BOSuggestOptions)) *BOSuggestOptions {
	o := DefaultBOSuggestOptions()
	set(&o)
	return &o
}

// csvPool is the pool of --pool file (a CSV or .npy pool on the CSV
// pool's defaults, datasets.DefaultConfig) with set, if any, applied to
// its keys.
func csvPool(file string, set ...func(*datasets.CSVConfig)) datasets.Config {
	c := datasets.DefaultConfig(datasets.KindCSV)
	c.CSV.File = file
	for _, f := range set {
		f(&c.CSV)
	}
	return c
}

// graphPool is the pool of --graph file or --kernel kernel (one of them
// "") with set, if any, applied to its keys.
func graphPool(file, kernel string, set ...func(*datasets.GraphConfig)) datasets.Config {
	c := datasets.DefaultConfig(datasets.KindGraph)
	c.Graph.File, c.Graph.Kernel = file, kernel
	for _, f := range set {
		f(&c.Graph)
	}
	return c
}

// folderPool is the pool of --pool-dir dir.
func folderPool(dir string) datasets.Config {
	c := datasets.DefaultConfig("folder")
	c.Dir = dir
	return c
}

// suggestOn is the ASSuggestOptions of `qvs as suggest` without a config
// on pool (the zero Config: no pool given, the synthetic one), with set,
// if not nil, applied to the options and to the protocol Resolve returns:
// SyntheticASConfig's with the estimated prior, whose keys --prior and
// --seed set.
func suggestOn(pool datasets.Config, set func(*ASSuggestOptions, *search.Protocol)) *ASSuggestOptions {
	cfg := SyntheticASConfig()
	cfg.Prior = search.PriorEstimate
	o := DefaultASSuggestOptions()
	if pool.Kind != "" {
		cfg.Pool, o.PoolGiven, o.OwnGraph = pool, true, pool.Kind == datasets.KindGraph
	}
	return resolveTo(&o, cfg, "", set)
}

// suggestConfig is suggestOn with --config path: the pool and protocol of
// the file decoded onto its pool kind's defaults (decodeASConfig), the
// prior its key's, else the estimate. The Env's Config must name path
// (messages name it).
func suggestConfig(t *testing.T, path string, set func(*ASSuggestOptions, *search.Protocol)) *ASSuggestOptions {
	t.Helper()
	cfg := decodeASConfig(t, testutil.ReadFileString(t, path))
	if cfg.Prior = priorKey(t, path); cfg.Prior == "" {
		cfg.Prior = search.PriorEstimate
	}
	o := DefaultASSuggestOptions()
	o.PoolGiven = true
	return resolveTo(&o, cfg, path, set)
}

// resolveTo applies set to o and cfg's protocol and makes o resolve to
// cfg, checked (CheckASConfig).
func resolveTo(o *ASSuggestOptions, cfg ASConfig, path string, set func(*ASSuggestOptions, *search.Protocol)) *ASSuggestOptions {
	if set != nil {
		set(o, &cfg.Protocol)
	}
	o.Resolve = func() (datasets.Config, search.Protocol, error) {
		c := cfg
		err := CheckASConfig(path, &c, true)
		return c.Pool, c.Protocol, err
	}
	return o
}

// priorKey is the prior: key of the YAML config at path ("" without one).
func priorKey(t *testing.T, path string) string {
	t.Helper()
	var c struct {
		Prior string `yaml:"prior"`
	}
	if err := yaml.Unmarshal([]byte(testutil.ReadFileString(t, path)), &c); err != nil {
		t.Fatal(err)
	}
	return c.Prior
}

// writeNPY32 writes rows x cols float32 values as a .npy file.
func writeNPY32(t *testing.T, dir, name string, rows, cols int, data []float32) string {
	t.Helper()
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, rows, cols, data); err != nil {
		t.Fatal(err)
	}
	return testutil.WriteFile(t, dir, name, b.String())
}

// ptr is a pointer to v (a setting given: ScoreSettings.HitThreshold,
// HitPower).
func ptr[T any](v T) *T { return &v }
