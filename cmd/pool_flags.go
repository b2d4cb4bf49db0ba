package cmd

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
)

// asCSVPoolOptions are the pool flags of `qvs as suggest` and `qvs graph`:
// a CSV or .npy pool (--pool and the pool.csv keys) or the user's own
// graph or kernel (pool.graph keys) without writing a config. The flags
// that name the pool's file choose its kind (choose, before the settings
// table applies the flags); the others are rows of the table.
type asCSVPoolOptions struct {
	file, graph, kernel, ids string
	// fromFlags are the flags whose value (given or default) went into the
	// pool's keys: a SettingError on one of their keys names the flag
	// (errorMessage). Shared with GlobalOptions.fromFlags.
	fromFlags map[string]bool
}

// register defines the pool flags on t's flag set: the file flags, which
// choose the pool (choose), and a row of t for every other, bound to its
// pool.csv (and pool.graph) key and field of cfg.
func (o *asCSVPoolOptions) register(t *configkeys.Table, cfg *asConfig) {
	f := t.FlagSet()
	cs, gc := &cfg.Pool.CSV, &cfg.Pool.Graph
	f.StringVar(&o.file, "pool", "", "pool CSV with a header: one row per item, feature columns, optional id column, no label needed (config: pool.kind csv; with such a config, overrides pool.csv.file only)")
	f.StringVar(&o.graph, "graph", "", "your own similarity graph instead of a pool CSV: W.npz (scipy.sparse.save_npz of a CSR matrix; row i = i's neighbours) or an edge list CSV with header i,j,w or id_i,id_j,w; weights in [0, 1], self loops ignored (pool.graph.file)")
	f.StringVar(&o.kernel, "kernel", "", "your own dense similarity K.npy or K.csv (n x n, entries in [0, 1]): the kNN graph keeps the --k largest entries of each row, the diagonal excluded, ties to the lower index (pool.graph.kernel)")
	f.StringVar(&o.ids, "ids", "", "--graph, --kernel, --pool X.npy: item ids, one per line in item order (optional header id) (pool.graph.ids, pool.csv.ids_file)")
	for _, k := range [][2]string{{"pool", "pool.csv.file"}, {"graph", "pool.graph.file"}, {"kernel", "pool.graph.kernel"}, {"ids", "pool.csv.ids_file"}, {"ids", "pool.graph.ids"}} {
		t.Key(k[0], k[1])
	}
	configkeys.Bind(t, f.StringVar, "id-column", "pool.csv.id_column", "", "--pool: column of item ids (pool.csv.id_column)", &cs.IDColumn)
	configkeys.BindList(t, "features", "pool.csv.feature_columns", nil, "--pool: comma-separated feature columns (default: every column but the id and label)", &cs.FeatureColumns)
	configkeys.Bind(t, f.StringVar, "feature-prefix", "pool.csv.feature_prefix", "", "--pool: the feature columns are those named PREFIX... (e.g. x for x1,x2,...)", &cs.FeaturePrefix)
	configkeys.BindChoice(t, "metric", "pool.csv.metric", knn.MetricEuclidean, knn.Metrics, "--pool: kNN metric, euclidean, cosine or tanimoto (fingerprints: --fingerprint-column, or 0/1 or count feature columns; edge weight = Tanimoto similarity)", &cs.Metric)
	configkeys.BindMinInt(t, "k", "pool.csv.k", datasets.DefaultConfig(datasets.KindCSV).CSV.K, 1, "--pool: neighbours per item in the kNN graph", &cs.K, &gc.K)
	t.Key("k", "pool.graph.k")
	configkeys.Bind(t, f.StringVar, "fingerprint-column", "pool.csv.fingerprint_column", "", "--pool: column of fingerprints as text (with --metric tanimoto), see --fingerprint-format", &cs.FingerprintColumn)
	configkeys.BindChoice(t, "fingerprint-format", "pool.csv.fingerprint_format", datasets.FingerprintBits, datasets.FingerprintFormats, "--pool: bits ('0'/'1' characters, bit 0 first) or hex (chemfp's FPS convention: two digits per byte, bytes in order, bit i = 1<<(i%8) of byte i/8; '04' = '00100000')", &cs.FingerprintFormat)
	configkeys.BindList(t, "exclude-columns", "pool.csv.exclude_columns", nil, "--pool: comma-separated columns that are never features", &cs.ExcludeColumns)
	configkeys.BindChoice(t, "knn", "pool.csv.knn", knn.KNNAuto, knn.KNNMethods, "--pool: kNN graph exact, approx (its recall@k measured and printed) or auto: approx from "+strconv.Itoa(knn.ApproxMinItems)+" items, "+strconv.Itoa(knn.ApproxMinItemsTanimoto)+" with --metric tanimoto (pool.csv.knn)", &cs.KNN)
}

// asCSVPoolFlags are the flags that set pool.csv keys.
var asCSVPoolFlags = []string{"pool", "id-column", "features", "feature-prefix", "metric", "k", "fingerprint-column", "fingerprint-format", "exclude-columns", "knn"}

// asGraphPoolFlags are the flags that set pool.graph keys.
var asGraphPoolFlags = []string{"graph", "kernel", "ids", "k"}

// choose sets the pool's kind and file from the flags, before the
// settings table applies the other pool flags: --graph or --kernel make a
// pool.graph pool; --pool replaces a config's pool of another kind by a
// CSV pool (whose defaults are the flags' defaults) and overrides only the
// file of a config's CSV pool; the other pool flags without --pool on a
// pool of another kind, and flags that contradict each other, are usage
// errors.
func (o *asCSVPoolOptions) choose(fl *pflag.FlagSet, cfg *asConfig) error {
	if fl.Changed("graph") || fl.Changed("kernel") {
		switch {
		case fl.Changed("graph") && fl.Changed("kernel"):
			return cli.Usagef("give --graph or --kernel, not both")
		case fl.Changed("pool") || fl.Changed("pool-dir"):
			return cli.Usagef("give one pool: --pool FILE.csv, --pool-dir DIR, --graph FILE or --kernel FILE")
		case fl.Changed("graph") && fl.Changed("k"):
			return cli.Usagef("--k applies to --kernel and --pool: --graph is used as given")
		}
		for _, name := range asCSVPoolFlags {
			if name != "k" && fl.Changed(name) {
				return cli.Usagef("--%s describes a CSV pool; --graph and --kernel give the similarity itself", name)
			}
		}
		cfg.Pool = datasets.DefaultConfig(datasets.KindGraph)
		cfg.Pool.Graph.File, cfg.Pool.Graph.Kernel, cfg.Pool.Graph.IDs = o.graph, o.kernel, o.ids
		base := filepath.Base(o.graph + o.kernel)
		cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
		for _, name := range asGraphPoolFlags {
			o.fromFlags[name] = true
		}
		return nil
	}
	if fl.Changed("ids") && !strings.EqualFold(filepath.Ext(o.file), ".npy") {
		return cli.Usagef("--ids applies to --graph and --kernel, and to --pool X.npy (a CSV pool takes --id-column)")
	}
	var set []string
	for _, name := range asCSVPoolFlags {
		if fl.Lookup(name) != nil && fl.Changed(name) {
			set = append(set, "--"+name)
		}
	}
	switch {
	case len(set) == 0:
		return nil
	case fl.Changed("pool") && fl.Changed("pool-dir"):
		return cli.Usagef("give --pool FILE.csv or --pool-dir DIR, not both")
	case !fl.Changed("pool") && cfg.Pool.Kind != datasets.KindCSV:
		return cli.Usagef("%s describe a CSV pool: give --pool FILE.csv (the pool is of kind %s)", strings.Join(set, ", "), cfg.Pool.Kind)
	case fl.Changed("features") && fl.Changed("feature-prefix"):
		return cli.Usagef("give --features or --feature-prefix, not both")
	}
	cs := &cfg.Pool.CSV
	if fl.Changed("pool") {
		// A config's own CSV pool keeps its keys (id_column, features,
		// labels, k, ...): --pool then overrides pool.csv.file like any
		// flag its key; any other pool is replaced.
		if cfg.Pool.Kind != datasets.KindCSV {
			cfg.Pool = datasets.DefaultConfig(datasets.KindCSV)
			for _, name := range asCSVPoolFlags {
				o.fromFlags[name] = true
			}
		}
		cs.File = o.file
		if fl.Changed("ids") {
			cs.IDsFile = o.ids
		}
		base := filepath.Base(o.file)
		cfg.Task = strings.TrimSuffix(base, filepath.Ext(base))
	}
	// --features and --feature-prefix each replace the other's key.
	if fl.Changed("features") {
		cs.FeaturePrefix = ""
	}
	if fl.Changed("feature-prefix") {
		cs.FeatureColumns = nil
	}
	return nil
}

// check refuses the pool flags that contradict each other, once the table
// has applied them, and completes what follows from them (--metric
// tanimoto weighs edges by the Tanimoto similarity; --knn auto is no key).
// Each flag's own value (--metric, --knn, --k, --fingerprint-format) was
// checked when it was parsed (configkeys.Choice, MinInt).
func (o *asCSVPoolOptions) check(fl *pflag.FlagSet, cfg *asConfig) error {
	cs := &cfg.Pool.CSV
	if fl.Changed("metric") && cs.Metric == knn.MetricTanimoto && !fl.Changed("similarity") {
		cs.Similarity = knn.SimilarityNative
	}
	if fl.Changed("fingerprint-column") && cs.Metric != knn.MetricTanimoto {
		return cli.Usagef("--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --metric tanimoto")
	}
	if fl.Changed("knn") && cs.KNN == knn.KNNAuto {
		cs.KNN = ""
	}
	return nil
}
