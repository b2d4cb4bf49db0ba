package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// asSuggestCmd is `qvs as suggest args...` without a config, run directly:
// the options and the pool of asSuggestArgs, and the globals --quiet,
// --force, --seed and --cache-dir in the Env. It returns the exit code qvs would
// give, stdout, and the error's message followed by stderr.
func asSuggestCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := testEnv(t)
	o := asSuggestArgs(t, env, args...)
	if err := RunASSuggest(env, o); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// asSuggestArgs is the ASSuggestOptions of `qvs as suggest args...`: a
// --config file decoded as the command decodes it (decodeASConfig), the flags of the suggestion fill the options (those
// given listed as the command lists them), the pool flags (--pool,
// --pool-dir, --graph, --kernel and the CSV pool's) fill the pool its
// Resolve returns, on the defaults of `qvs as` with the prior estimate
// unless --prior; the globals --quiet, --force, --seed and --cache-dir set env.
// Which flag fills which field is cmd's to test (TestFlagsFillOptions);
// this writes the tests here in the command's terms.
func asSuggestArgs(t *testing.T, env *Env, args ...string) *ASSuggestOptions {
	t.Helper()
	o := DefaultASSuggestOptions()
	cfg := SyntheticASConfig()
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--config" {
			cfg = decodeASConfig(t, string(readFileBytes(t, args[i+1])))
			env.Config = args[i+1]
		}
	}
	cfg.Prior = "" // the config's prior: key, else --prior, else estimate
	if env.Config != "" {
		cfg.Prior = priorKey(t, env.Config)
	}
	l, s := &o.Labels, &o.Scores
	given := map[string]bool{}
	setPool := func(kind string) {
		if cfg.Pool.Kind != kind {
			cfg.Pool = datasets.DefaultConfig(kind)
		}
	}
	cs, gc := &cfg.Pool.CSV, &cfg.Pool.Graph
	var poolFile, ids string
	for i := 0; i < len(args); i++ {
		f := strings.TrimPrefix(args[i], "--")
		switch f {
		case "quiet":
			env.Quiet = true
			continue
		case "force":
			env.Force = true
			continue
		case "raw-ids":
			o.RawIDs = true
			continue
		case "minimize":
			s.Minimize = true
			o.ScoreFlags = append(o.ScoreFlags, f)
			continue
		}
		if i+1 == len(args) {
			t.Fatalf("as suggest: %s needs a value", args[i])
		}
		i++
		v := args[i]
		given[f] = true
		num := func() float64 { return flagNumber(t, f, v) }
		integer := func() int { return flagInt(t, f, v) }
		var err error
		switch f {
		case "config":
			// Decoded above.
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			env.Seed, env.SeedSet, cfg.Seed = n, true, n
		case "cache-dir":
			env.CacheDir = v
		case "pool":
			poolFile = v
		case "pool-dir":
			cfg.Pool = datasets.DefaultConfig("folder")
			cfg.Pool.Dir, cfg.Task = v, filepath.Base(filepath.Clean(v))
		case "graph", "kernel":
			setPool(datasets.KindGraph)
			if f == "graph" {
				gc.File = v
			} else {
				gc.Kernel = v
			}
			base := filepath.Base(v)
			cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
		case "ids":
			ids = v
		case "id-column":
			cs.IDColumn = v
		case "features":
			cs.FeatureColumns, cs.FeaturePrefix = strings.Split(v, ","), ""
		case "feature-prefix":
			cs.FeaturePrefix, cs.FeatureColumns = v, nil
		case "metric":
			cs.Metric = v
		case "k":
			cs.K, gc.K = integer(), integer()
		case "fingerprint-column":
			cs.FingerprintColumn = v
		case "fingerprint-format":
			cs.FingerprintFormat = v
		case "exclude-columns":
			cs.ExcludeColumns = strings.Split(v, ",")
		case "knn":
			cs.KNN = v
		case "observed":
			o.Observed = v
		case "pending":
			o.Pending = v
		case "batch":
			o.Batch = integer()
		case "method":
			o.Method = v
		case "q":
			o.Q, err = vendi.ParseOrder(v)
			o.QGiven = true
		case "format":
			err = o.Format.Set(v)
		case "prior":
			l.Prior, l.PriorGiven, cfg.Prior = v, true, v
		case "threshold":
			l.Threshold = num()
		case "beta":
			l.Beta = num()
		case "lambda":
			l.Lambda = num()
		case "fantasy":
			l.Fantasy = v
		case "remaining":
			l.Remaining, l.RemainingGiven = integer(), true
		case "hit-threshold":
			s.HitThreshold, s.HitThresholdGiven = num(), true
		case "hit-top-fraction":
			s.HitTopFraction, s.HitTopFractionGiven = num(), true
		case "acquisition":
			s.Acquisition = v
		case "ucb-beta":
			s.UCBBeta = num()
		case "gp-kernel":
			s.GPKernel = v
		case "diversity":
			s.Diversity = v
		case "history":
			s.History = v
		case "hit-power":
			s.HitPower = num()
		case "candidates":
			s.Candidates, s.CandidatesGiven = integer(), true
		default:
			t.Fatalf("as suggest: flag --%s", f)
		}
		if err != nil {
			t.Fatal(err)
		}
		switch f {
		case "prior", "threshold", "beta", "lambda", "fantasy", "remaining":
			o.LabelFlags = append(o.LabelFlags, f)
		case "hit-threshold", "hit-top-fraction", "acquisition", "ucb-beta", "gp-kernel", "diversity", "history", "hit-power", "candidates":
			o.ScoreFlags = append(o.ScoreFlags, f)
		}
	}
	if poolFile != "" {
		if cfg.Pool.Kind != datasets.KindCSV {
			// Flags given before --pool land on the CSV pool's defaults.
			keep := *cs
			cfg.Pool = datasets.DefaultConfig(datasets.KindCSV)
			cs = &cfg.Pool.CSV
			for f, set := range map[string]func(){
				"id-column": func() { cs.IDColumn = keep.IDColumn }, "features": func() { cs.FeatureColumns = keep.FeatureColumns },
				"feature-prefix": func() { cs.FeaturePrefix = keep.FeaturePrefix }, "metric": func() { cs.Metric = keep.Metric },
				"k": func() { cs.K = keep.K }, "fingerprint-column": func() { cs.FingerprintColumn = keep.FingerprintColumn },
				"fingerprint-format": func() { cs.FingerprintFormat = keep.FingerprintFormat }, "exclude-columns": func() { cs.ExcludeColumns = keep.ExcludeColumns },
				"knn": func() { cs.KNN = keep.KNN },
			} {
				if given[f] {
					set()
				}
			}
		}
		cs.File = poolFile
		if ids != "" {
			cs.IDsFile = ids
		}
		base := filepath.Base(poolFile)
		cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
	} else if ids != "" {
		gc.IDs = ids
	}
	if given["metric"] && cs.Metric == knn.MetricTanimoto {
		cs.Similarity = knn.SimilarityNative
	}
	if cfg.Prior == "" {
		cfg.Prior = search.PriorEstimate
	}
	o.OwnGraph = given["graph"] || given["kernel"]
	o.PoolGiven = env.Config != "" || o.OwnGraph || given["pool-dir"] || given["pool"]
	o.Resolve = func() (datasets.Config, search.Protocol, error) {
		c := cfg
		err := CheckASConfig(env.Config, &c, true)
		return c.Pool, c.Protocol, err
	}
	return &o
}

// graphCmd is `qvs graph args...` run directly: --out and --similarity
// fill GraphOptions, the pool flags and globals fill its pool as for `as
// suggest` (asSuggestArgs). It returns the exit code qvs would give,
// stdout, and the error's message followed by stderr.
func graphCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	var o GraphOptions
	var rest []string
	similarity := ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--out", "--similarity":
			if i+1 == len(args) {
				t.Fatalf("graph: %s needs a value", args[i])
			}
			if args[i] == "--out" {
				o.Out = args[i+1]
			} else {
				similarity = args[i+1]
			}
			i++
		default:
			rest = append(rest, args[i])
		}
	}
	env, sout, serr := testEnv(t)
	pool, _, err := asSuggestArgs(t, env, rest...).Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if similarity != "" {
		pool.CSV.Similarity = similarity
	}
	o.Pool = pool
	if err := RunGraph(env, &o); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

func readFileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// priorKey is the prior: key of the YAML config at path ("" without one).
func priorKey(t *testing.T, path string) string {
	t.Helper()
	var c struct {
		Prior string `yaml:"prior"`
	}
	if err := yaml.Unmarshal(readFileBytes(t, path), &c); err != nil {
		t.Fatal(err)
	}
	return c.Prior
}
