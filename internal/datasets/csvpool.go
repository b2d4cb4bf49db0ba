package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
// (default: every other column); ids must be non-empty and unique. A row is positive
// if its label, trimmed, equals one of cfg.Positive (compared as text, or as
// numbers when both parse as numbers, so "1" matches "1.0"); with
// cfg.Positive empty, a label must be a number (positive if > 0) or a
// boolean (true/false). Feature cells must be finite numbers. Optionally the
// features are z-scored (constant columns become 0). The graph is the exact
// kNN graph under cfg.Metric (euclidean or cosine) with cfg.K neighbours and
// cfg.Similarity weights. The pool is named after the file (without the
// extension).
func LoadCSV(cfg CSVConfig, cacheDir string, workers int) (*Pool, error) {
	if cfg.File == "" {
		return nil, configkeys.Invalid("pool.csv.file", nil, "empty, expected the path of a CSV file")
	}
	if cfg.Metric != MetricEuclidean && cfg.Metric != MetricCosine {
		return nil, configkeys.Invalid("pool.csv.metric", cfg.Metric, "expected %q or %q", MetricEuclidean, MetricCosine)
	}
	if err := checkPositive("pool.csv.k", cfg.K); err != nil {
		return nil, err
	}
	path := cfg.File
	f, err := os.Open(path)
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
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s: the header names column %q twice", path, h)
		}
		col[h] = j
	}
	find := func(key, name string) (int, error) {
		j, ok := col[name]
		if !ok {
			return 0, fmt.Errorf("%s: %w", path, configkeys.Invalid(key, name, "no such column in the header %q%s", header, fileio.SeparatorHint(header...)))
		}
		return j, nil
	}
	lc := -1
	if cfg.LabelColumn != "" {
		if lc, err = find("pool.csv.label_column", cfg.LabelColumn); err != nil {
			return nil, err
		}
	} else if j, ok := col[DefaultLabelColumn]; ok {
		lc = j
	}
	ic := -1
	if cfg.IDColumn != "" {
		if ic, err = find("pool.csv.id_column", cfg.IDColumn); err != nil {
			return nil, err
		}
	}
	var fcols []int
	if len(cfg.FeatureColumns) > 0 && cfg.FeaturePrefix != "" {
		return nil, fmt.Errorf("pool.csv: give feature_columns or feature_prefix, not both")
	}
	if cfg.FeaturePrefix != "" {
		for j, h := range header {
			h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
			if strings.HasPrefix(h, cfg.FeaturePrefix) && j != lc && j != ic {
				fcols = append(fcols, j)
			}
		}
		if len(fcols) == 0 {
			return nil, fmt.Errorf("%s: %w", path, configkeys.Invalid("pool.csv.feature_prefix", cfg.FeaturePrefix, "no column name starts with it in the header %q", header))
		}
	} else if len(cfg.FeatureColumns) > 0 {
		for _, name := range cfg.FeatureColumns {
			j, err := find("pool.csv.feature_columns", name)
			if err != nil {
				return nil, err
			}
			if j == lc || j == ic {
				return nil, fmt.Errorf("%s: %w", path, configkeys.Invalid("pool.csv.feature_columns", name, "the label or id column cannot be a feature"))
			}
			fcols = append(fcols, j)
		}
	} else {
		for j := range header {
			if j != lc && j != ic {
				fcols = append(fcols, j)
			}
		}
	}
	if len(fcols) == 0 {
		return nil, fmt.Errorf("%s: no feature columns besides the label and id columns", path)
	}
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
	err = fileio.EachRow(cr, path, len(header), func(line int, rec []string) error {
		pos := false
		if lc >= 0 {
			var err error
			if pos, err = isPositive(strings.TrimSpace(rec[lc])); err != nil {
				return fmt.Errorf("%s: line %d, column %q: %w", path, line, header[lc], err)
			}
		}
		x := make([]float64, len(fcols))
		for k, j := range fcols {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[j]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: line %d, column %q: %q is not a finite number%s", path, line, header[j], rec[j], fileio.SeparatorHint(rec[j]))
			}
			x[k] = v
		}
		if ic >= 0 {
			id := strings.TrimSpace(rec[ic])
			if id == "" {
				return fmt.Errorf("%s: line %d, column %q: empty id", path, line, header[ic])
			}
			if l, dup := idLine[id]; dup {
				return fmt.Errorf("%s: line %d, column %q: id %q repeats line %d; ids must be unique", path, line, header[ic], id, l)
			}
			idLine[id] = line
			p.IDs = append(p.IDs, id)
		}
		p.Labels = append(p.Labels, pos)
		p.Dense = append(p.Dense, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.Len() < 2 {
		return nil, fmt.Errorf("%s: %d data rows, expected at least 2", path, p.Len())
	}
	if cfg.K >= p.Len() {
		return nil, configkeys.Invalid("pool.csv.k", cfg.K, "expected less than the %d rows of %s", p.Len(), path)
	}
	if lc >= 0 && p.PositiveCount() == 0 {
		return nil, fmt.Errorf("%s: no positive row (column %q; pool.csv.positive = %q)", path, header[lc], cfg.Positive)
	}
	if cfg.Standardize {
		standardizeColumns(p.Dense)
	}
	g, _, err := CachedKNN(cacheDir, p.Dense, nil, cfg.K, cfg.Metric, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w, err := EdgeWeights(g, cfg.Similarity)
	if err != nil {
		return nil, configkeys.Wrap("pool.csv.similarity", err)
	}
	p.SetGraph(g, w)
	return p, nil
}

// standardizeColumns z-scores each column in place (population sd); a
// constant column becomes all zeros.
func standardizeColumns(x [][]float64) {
	n := float64(len(x))
	for c := range x[0] {
		var s float64
		for _, row := range x {
			s += row[c]
		}
		mean := s / n
		var ss float64
		for _, row := range x {
			ss += (row[c] - mean) * (row[c] - mean)
		}
		sd := math.Sqrt(ss / n)
		for _, row := range x {
			if sd > 0 {
				row[c] = (row[c] - mean) / sd
			} else {
				row[c] = 0
			}
		}
	}
}
