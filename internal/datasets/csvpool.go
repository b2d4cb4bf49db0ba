package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// LoadCSV builds a pool from a CSV file with a header row: an optional
// label column cfg.LabelColumn (default: the column "label" if the header
// has one; without a label column the pool is Unlabeled, for suggestions
// only); an optional identifier column cfg.IDColumn; the feature columns
// cfg.FeatureColumns, or those whose name starts with cfg.FeaturePrefix
// (default: every other column but cfg.ExcludeColumns); ids must be
// non-empty and unique. Columns never leak into the features
// (fileio.ResolveColumns): an unnamed column (pandas' index) is the row
// index when it holds 0..n-1, else the ids when its values are unique (the
// Notes say so), else an error; a column named like a label or target
// (target, y, class, activity, active, is_*) is an error unless excluded or
// named in cfg.FeatureColumns. A row is positive
// if its label, trimmed, equals one of cfg.Positive (compared as text, or as
// numbers when both parse as numbers, so "1" matches "1.0"); with
// cfg.Positive empty, a label must be a number (positive if > 0) or a
// boolean (true/false). Feature cells must be finite numbers. Optionally the
// features are z-scored (population sd; constant columns become 0). The
// graph is the exact kNN graph under cfg.Metric with cfg.K neighbours:
// euclidean or cosine with cfg.Similarity weights; tanimoto on
// fingerprints, whose edge weight is the Tanimoto similarity (similarity
// unweighted: 1), ties to the lower index. Fingerprints are the text column
// cfg.FingerprintColumn in cfg.FingerprintFormat (ParseFingerprint), or the
// feature columns: 0/1 bits, or non-negative integer counts compared by
// Σ min / Σ max (FingerprintsFromCounts). The pool is named after the file
// (without the extension).
func LoadCSV(cfg CSVConfig, cacheDir string, workers int) (*Pool, error) {
	return loadCSV(cfg, cacheDir, GraphOptions{Workers: workers})
}

func loadCSV(cfg CSVConfig, cacheDir string, opt GraphOptions) (*Pool, error) {
	if cfg.File == "" {
		return nil, configkeys.Invalid("pool.csv.file", nil, "empty, expected the path of a CSV file")
	}
	if strings.EqualFold(filepath.Ext(cfg.File), ".npy") {
		return loadNPYPool(cfg, cacheDir, opt)
	}
	if cfg.IDsFile != "" {
		return nil, configkeys.Invalid("pool.csv.ids_file", nil, "only for a .npy pool; a CSV pool names its id column (%s)", opt.name("pool.csv.id_column"))
	}
	if cfg.Metric != MetricEuclidean && cfg.Metric != MetricCosine && cfg.Metric != MetricTanimoto {
		return nil, configkeys.Invalid("pool.csv.metric", cfg.Metric, "expected %q, %q or %q", MetricEuclidean, MetricCosine, MetricTanimoto)
	}
	if err := checkPositive("pool.csv.k", cfg.K); err != nil {
		return nil, err
	}
	format := cfg.FingerprintFormat
	if format == "" {
		format = FingerprintBits
	}
	if !slices.Contains(FingerprintFormats, format) {
		return nil, configkeys.Invalid("pool.csv.fingerprint_format", cfg.FingerprintFormat, "expected one of %s", strings.Join(FingerprintFormats, ", "))
	}
	if cfg.FingerprintColumn != "" && cfg.Metric != MetricTanimoto {
		return nil, configkeys.Invalid("pool.csv.fingerprint_column", nil, "fingerprints are compared by Tanimoto similarity: set %s to %q (it is %q)", opt.name("pool.csv.metric"), MetricTanimoto, cfg.Metric)
	}
	if cfg.Metric == MetricTanimoto && cfg.Standardize {
		return nil, configkeys.Invalid("pool.csv.standardize", nil, "z-scored features are not fingerprints: metric %q needs 0/1 bits or counts as they are", MetricTanimoto)
	}
	path := cfg.File
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, configkeys.Wrap("pool.csv.file", err)
	}
	defer f.Close()
	cr := fileio.NewCSVReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, expected a header row", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for j, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup && !fileio.UnnamedColumn(h) {
			return nil, fmt.Errorf("%s: the header names column %q twice", path, h)
		}
		col[h] = j
	}
	spec := fileio.ColumnSpec{
		ID: cfg.IDColumn, Label: cfg.LabelColumn, Fingerprint: cfg.FingerprintColumn,
		Features: cfg.FeatureColumns, Prefix: cfg.FeaturePrefix, Exclude: cfg.ExcludeColumns,
		IDFlag: "pool.csv.id_column", LabelFlag: "pool.csv.label_column", FingerprintFlag: "pool.csv.fingerprint_column",
		FeaturesFlag: "pool.csv.feature_columns", PrefixFlag: "pool.csv.feature_prefix", ExcludeFlag: "pool.csv.exclude_columns",
		Name: opt.Name,
	}
	if _, ok := col[DefaultLabelColumn]; ok && spec.Label == "" {
		spec.Label = DefaultLabelColumn
	}
	cols, err := fileio.ResolveColumns(path, header, spec)
	if err != nil {
		return nil, err
	}
	lc, ic, fc, fcols := cols.Label, cols.ID, cols.Fingerprint, cols.Features
	unnamed := make([][]string, len(cols.Unnamed))
	isPositive := func(cell string) (bool, error) {
		if len(cfg.Positive) > 0 {
			v, verr := strconv.ParseFloat(cell, 64)
			for _, p := range cfg.Positive {
				p = strings.TrimSpace(p)
				if cell == p {
					return true, nil
				}
				if pv, perr := strconv.ParseFloat(p, 64); verr == nil && perr == nil && v == pv {
					return true, nil
				}
			}
			return false, nil
		}
		if v, err := strconv.ParseFloat(cell, 64); err == nil && !math.IsNaN(v) {
			return v > 0, nil
		}
		if b, err := strconv.ParseBool(cell); err == nil {
			return b, nil
		}
		return false, fmt.Errorf("label %q is neither a number nor true/false (set pool.csv.positive to list the positive values)", cell)
	}
	base := filepath.Base(path)
	p := &Pool{Name: strings.TrimSuffix(base, filepath.Ext(base)), Metric: cfg.Metric, Unlabeled: lc < 0}
	// idLine maps each id to its line: ids name items in an observed-labels
	// file, so an empty or repeated id would make that file ambiguous.
	var idLine map[string]int
	if ic >= 0 {
		p.IDs = []string{}
		idLine = map[string]int{}
	}
	var fps *FingerprintReader
	if fc >= 0 {
		fps = &FingerprintReader{Format: format, Path: path, Column: fmt.Sprintf("%q (%s)", strings.TrimSpace(header[fc]), opt.name("pool.csv.fingerprint_column"))}
	}
	err = fileio.EachRow(cr, path, len(header), func(line int, rec []string) error {
		pos := false
		if lc >= 0 {
			var err error
			if pos, err = isPositive(strings.TrimSpace(rec[lc])); err != nil {
				return fmt.Errorf("%s: line %d, column %q: %w", path, line, header[lc], err)
			}
		}
		if fc >= 0 {
			b, err := fps.Parse(rec[fc], fmt.Sprintf("line %d", line))
			if err != nil {
				return err
			}
			p.Bits = append(p.Bits, b)
		} else {
			x := make([]float64, len(fcols))
			for k, j := range fcols {
				v, err := strconv.ParseFloat(strings.TrimSpace(rec[j]), 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s: line %d, column %s: %s is not a finite number%s", path, line, fileio.Excerpt(header[j]), fileio.Excerpt(rec[j]), fileio.SeparatorHint(rec[j]))
				}
				x[k] = v
			}
			p.Dense = append(p.Dense, x)
		}
		if ic >= 0 {
			id := rec[ic] // verbatim: " sp " stays " sp "
			if strings.TrimSpace(id) == "" {
				return fmt.Errorf("%s: line %d, column %q: empty id", path, line, header[ic])
			}
			if l, dup := idLine[id]; dup {
				return fmt.Errorf("%s: line %d, column %q: id %q repeats line %d; ids must be unique", path, line, header[ic], id, l)
			}
			idLine[id] = line
			p.IDs = append(p.IDs, id)
		}
		for u, j := range cols.Unnamed {
			unnamed[u] = append(unnamed[u], strings.TrimSpace(rec[j]))
		}
		p.Labels = append(p.Labels, pos)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.Notes, err = fileio.ResolveUnnamed(path, header, cols, unnamed); err != nil {
		return nil, err
	}
	if ic < 0 && cols.ID >= 0 {
		p.IDs = unnamed[slices.Index(cols.Unnamed, cols.ID)]
	}
	if p.Len() < 2 {
		return nil, fmt.Errorf("%s: %d data rows, expected at least 2", path, p.Len())
	}
	if cfg.K >= p.Len() {
		return nil, configkeys.Invalid("pool.csv.k", cfg.K, "expected less than the %d rows of %s", p.Len(), path)
	}
	if err := checkGraphSize("pool.csv.k", cfg.K, p.Len(), "rows of "+path); err != nil {
		return nil, err
	}
	if lc >= 0 && p.PositiveCount() == 0 {
		return nil, fmt.Errorf("%s: no positive row (column %q; pool.csv.positive = %q)", path, header[lc], cfg.Positive)
	}
	if cfg.Metric == MetricTanimoto {
		if fc < 0 {
			if p.Bits, err = FingerprintsFromCounts(p.Dense, func(j int) string { return fmt.Sprintf("column %q", strings.TrimSpace(header[fcols[j]])) }); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			p.Dense = nil
		}
		if err := p.buildGraph(cfg, cacheDir, opt); err != nil {
			return nil, err
		}
		return p, nil
	}
	if cfg.Standardize {
		fileio.StandardizeRows(p.Dense)
	}
	if err := p.buildGraph(cfg, cacheDir, opt); err != nil {
		return nil, err
	}
	return p, nil
}

// buildGraph sets the pool's kNN graph from its features as cfg says
// (k, metric, knn, similarity), recording how in p.Graph.
func (p *Pool) buildGraph(cfg CSVConfig, cacheDir string, opt GraphOptions) error {
	if _, err := ResolveKNNMethod(cfg.KNN, p.Len()); err != nil {
		return configkeys.Wrap("pool.csv.knn", err)
	}
	if cfg.Metric == MetricTanimoto {
		if err := checkTanimotoSimilarity(cfg.Similarity); err != nil {
			return configkeys.Wrap("pool.csv.similarity", err)
		}
	}
	g, info, err := BuildGraph(cacheDir, p.Dense, p.Bits, cfg.K, cfg.Metric, cfg.KNN, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.File, err)
	}
	var w []float64
	if cfg.Metric == MetricTanimoto {
		w = tanimotoWeights(g, p.Bits, cfg.Similarity, opt.Workers)
	} else if w, err = EdgeWeights(g, cfg.Similarity); err != nil {
		return configkeys.Wrap("pool.csv.similarity", err)
	}
	p.SetGraph(g, w)
	p.Graph = info
	return nil
}
