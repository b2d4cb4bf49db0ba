package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/parallel"
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
// cfg.FingerprintColumn in cfg.FingerprintFormat (parseFingerprint), or the
// feature columns: 0/1 bits, or non-negative integer counts compared by
// Σ min / Σ max (FingerprintsFromCounts). The pool is named after the file
// (without the extension).
func LoadCSV(cfg CSVConfig, cacheDir string, workers int) (*Pool, error) {
	return loadCSV(cfg, cacheDir, knn.GraphOptions{Workers: workers})
}

func loadCSV(cfg CSVConfig, cacheDir string, opt knn.GraphOptions) (*Pool, error) {
	if cfg.File == "" {
		return nil, configkeys.Invalid("pool.csv.file", nil, "empty, expected the path of a CSV file")
	}
	if strings.EqualFold(filepath.Ext(cfg.File), ".npy") {
		return loadNPYPool(cfg, cacheDir, opt)
	}
	reading := knn.StartPhase(opt.Progress, "reading "+cfg.File, "", 0)
	p, err := readCSVPool(cfg, opt)
	reading.Finish()
	if err != nil {
		return nil, err
	}
	if opt.FeaturesOnly {
		return p, nil
	}
	if err := p.buildGraph(cfg, cacheDir, opt); err != nil {
		return nil, err
	}
	return p, nil
}

// checkMetric refuses a metric not in knn.Metrics, naming the config key that
// set it.
func checkMetric(key, metric string) error {
	if metric != knn.MetricEuclidean && metric != knn.MetricCosine && metric != knn.MetricTanimoto {
		return configkeys.Invalid(key, metric, "expected %q, %q or %q", knn.MetricEuclidean, knn.MetricCosine, knn.MetricTanimoto)
	}
	return nil
}

// readCSVPool is LoadCSV up to the graph: the checked rows, features
// (standardized if asked) or fingerprints, parsed on opt.Workers goroutines.
func readCSVPool(cfg CSVConfig, opt knn.GraphOptions) (*Pool, error) {
	if cfg.IDsFile != "" {
		return nil, configkeys.Invalid("pool.csv.ids_file", nil, "only for a .npy pool; a CSV pool names its id column (%s)", opt.NameOf("pool.csv.id_column"))
	}
	if err := checkMetric("pool.csv.metric", cfg.Metric); err != nil {
		return nil, err
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
	if cfg.FingerprintColumn != "" && cfg.Metric != knn.MetricTanimoto {
		return nil, configkeys.Invalid("pool.csv.fingerprint_column", nil, "fingerprints are compared by Tanimoto similarity: set %s to %q (it is %q)", opt.NameOf("pool.csv.metric"), knn.MetricTanimoto, cfg.Metric)
	}
	if cfg.Metric == knn.MetricTanimoto && cfg.Standardize {
		return nil, configkeys.Invalid("pool.csv.standardize", nil, "z-scored features are not fingerprints: metric %q needs 0/1 bits or counts as they are", knn.MetricTanimoto)
	}
	path := cfg.File
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, configkeys.Wrap("pool.csv.file", err)
	}
	defer f.Close()
	// A gzip-compressed pool (pool.csv.gz) is read as it decompresses, row
	// by row: its byte ranges cannot be parsed apart.
	magic := make([]byte, 2)
	nmagic, _ := f.ReadAt(magic, 0)
	gz := fileio.IsGzip(magic[:nmagic])
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
	if _, ok := col[defaultLabelColumn]; ok && spec.Label == "" {
		spec.Label = defaultLabelColumn
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
	if gz {
		base = strings.TrimSuffix(base, filepath.Ext(base)) // pool.csv.gz is pool
	}
	p := &Pool{Name: strings.TrimSuffix(base, filepath.Ext(base)), Metric: cfg.Metric, Unlabeled: lc < 0}
	var fps *fingerprintReader
	if fc >= 0 {
		fps = &fingerprintReader{Format: format, Path: path, Column: fmt.Sprintf("%q (%s)", strings.TrimSpace(header[fc]), opt.NameOf("pool.csv.fingerprint_column"))}
	}
	rows := &csvRows{d: len(fcols), unnamed: unnamed}
	// row parses one data row into slot: everything but the uniqueness of
	// the ids, which checkIDs does in file order.
	row := func(slot, line int, rec []string) error {
		rows.lines[slot] = line
		if lc >= 0 {
			pos, err := isPositive(strings.TrimSpace(rec[lc]))
			if err != nil {
				return fileio.FieldErrorf(path, line, header[lc], "%w", err)
			}
			rows.labels[slot] = pos
		}
		if fc >= 0 {
			b, err := fps.Parse(rec[fc], fmt.Sprintf("line %d", line))
			if err != nil {
				return err
			}
			rows.bits[slot] = b
		} else {
			x := rows.dense[slot*rows.d : (slot+1)*rows.d]
			for k, j := range fcols {
				v, err := strconv.ParseFloat(strings.TrimSpace(rec[j]), 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return fileio.FieldErrorf(path, line, header[j], "%s is not a finite number%s", fileio.Excerpt(rec[j]), fileio.SeparatorHint(rec[j]))
				}
				x[k] = v
			}
		}
		if ic >= 0 {
			id := strings.Clone(rec[ic]) // verbatim: " sp " stays " sp "
			if strings.TrimSpace(id) == "" {
				return fileio.FieldErrorf(path, line, header[ic], "empty id")
			}
			rows.ids[slot] = id
		}
		for u, j := range cols.Unnamed {
			rows.unnamed[u][slot] = strings.Clone(strings.TrimSpace(rec[j]))
		}
		return nil
	}
	checkIDs := func(upto int) error {
		if ic < 0 {
			return nil
		}
		idLine := make(map[string]int, upto)
		for slot, id := range rows.ids[:upto] {
			if l, dup := idLine[id]; dup {
				return fileio.FieldErrorf(path, rows.lines[slot], header[ic], "id %q repeats line %d; ids must be unique", id, l)
			}
			idLine[id] = rows.lines[slot]
		}
		return nil
	}
	workers := defaultWorkers(opt.Workers)
	if st, serr := f.Stat(); serr == nil && fc < 0 && !gz && st.Size() >= parallelCSVMinBytes {
		err = rows.readParallel(f, st.Size(), fileio.CSVDataStart(f, cr), path, len(header), workers, row, checkIDs)
	} else {
		err = rows.readSerial(cr, path, len(header), row, checkIDs)
	}
	if err != nil {
		return nil, err
	}
	p.Labels = rows.labels
	if ic >= 0 {
		p.IDs = rows.ids
	}
	if fc >= 0 {
		p.Bits = rows.bits
	} else {
		p.Dense = make([][]float64, rows.n)
		for i := range p.Dense {
			p.Dense[i] = rows.dense[i*rows.d : (i+1)*rows.d : (i+1)*rows.d]
		}
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
	// The kNN graph's k: irrelevant when only the features are read (a
	// GP on them).
	if !opt.FeaturesOnly {
		if cfg.K >= p.Len() {
			return nil, configkeys.Invalid("pool.csv.k", cfg.K, "expected less than the %d rows of %s", p.Len(), path)
		}
		if err := checkGraphSize("pool.csv.k", cfg.K, p.Len(), "rows of "+path); err != nil {
			return nil, err
		}
	}
	if lc >= 0 && p.PositiveCount() == 0 {
		return nil, fmt.Errorf("%s: no positive row (column %q; pool.csv.positive = %q)", path, header[lc], cfg.Positive)
	}
	if cfg.Metric == knn.MetricTanimoto {
		if fc < 0 {
			if p.Bits, err = FingerprintsFromCounts(p.Dense, func(j int) string { return fmt.Sprintf("column %q", strings.TrimSpace(header[fcols[j]])) }); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			p.Dense = nil
		}
		return p, nil
	}
	if cfg.Standardize {
		fileio.StandardizeRows(p.Dense)
	}
	return p, nil
}

// buildGraph sets the pool's kNN graph from its features as cfg says
// (k, metric, knn, similarity), recording how in p.Graph.
func (p *Pool) buildGraph(cfg CSVConfig, cacheDir string, opt knn.GraphOptions) error {
	if _, err := knn.ResolveKNNMethod(cfg.KNN, p.Len(), cfg.Metric); err != nil {
		return configkeys.Wrap("pool.csv.knn", err)
	}
	if cfg.Metric == knn.MetricTanimoto {
		if err := knn.CheckSimilarity(cfg.Similarity, knn.MetricTanimoto); err != nil {
			return configkeys.Wrap("pool.csv.similarity", err)
		}
	}
	defer knn.LowGCSlack(p.Len())()
	g, info, err := knn.BuildGraph(cacheDir, p.denseSrc(), p.Bits, cfg.K, cfg.Metric, cfg.KNN, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.File, err)
	}
	weighing := knn.StartPhase(opt.Progress, "kNN graph: edge weights", "", 0)
	// Written over the distances, which are not read again: no second n*k
	// array.
	w, err := knn.WeightsInPlace(g, p.Bits, cfg.Similarity, opt.Workers)
	if err != nil {
		return configkeys.Wrap("pool.csv.similarity", err)
	}
	p.SetGraph(g, w)
	weighing.Finish()
	p.Graph = info
	if info.CacheNote != "" {
		p.Notes = append(p.Notes, info.CacheNote)
	}
	if w := lowRecallNote(cfg.K, info); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	return nil
}

// lowRecallNote is the warning for an approximate graph whose measured
// recall@k is below knn.MinApproxRecall ("" otherwise, or when the recall was
// not measured): qVS-AS then misses that share of the true neighbours, and
// the exact graph is the remedy.
func lowRecallNote(k int, info knn.GraphInfo) string {
	r := info.Stats.Recall
	if info.Method != knn.KNNApprox || r < 0 || r >= knn.MinApproxRecall {
		return ""
	}
	return fmt.Sprintf("warning: the approximate kNN graph's recall@%d is %.4f (measured on %d sampled rows), below %.2f: about %.1f%% of the true neighbours are missing; pool.csv.knn: exact (--knn exact) builds the exact graph, slower", k, r, info.Stats.RecallRows, knn.MinApproxRecall, 100*(1-r))
}

// parallelCSVMinBytes: CSV pools from this size on are parsed in byte
// ranges (csvRows.readParallel), on several cores and into one allocation
// sized in advance, even with one worker; smaller ones are read row by row.
var parallelCSVMinBytes int64 = 4 << 20

// csvRows holds the parsed rows of a CSV pool by slot: labels, features
// (dense, slot-major, d per slot) or fingerprints, ids, the unnamed
// columns' cells, and each row's line.
type csvRows struct {
	n, d    int // rows kept; features per row
	lines   []int
	labels  []bool
	dense   []float64
	bits    [][]uint64
	ids     []string
	unnamed [][]string
}

// resize makes room for exactly slots rows, keeping the first n.
func (r *csvRows) resize(slots int) {
	r.lines = slices.Grow(r.lines[:min(r.n, len(r.lines))], slots-r.n)[:slots]
	r.labels = slices.Grow(r.labels[:min(r.n, len(r.labels))], slots-r.n)[:slots]
	r.ids = slices.Grow(r.ids[:min(r.n, len(r.ids))], slots-r.n)[:slots]
	r.bits = slices.Grow(r.bits[:min(r.n, len(r.bits))], slots-r.n)[:slots]
	r.dense = slices.Grow(r.dense[:min(r.n*r.d, len(r.dense))], (slots-r.n)*r.d)[:slots*r.d]
	for u := range r.unnamed {
		r.unnamed[u] = slices.Grow(r.unnamed[u][:min(r.n, len(r.unnamed[u]))], slots-r.n)[:slots]
	}
}

// truncate keeps the first n rows.
func (r *csvRows) truncate(n int) {
	r.n = n
	r.lines, r.labels, r.ids, r.bits, r.dense = r.lines[:n], r.labels[:n], r.ids[:n], r.bits[:n], r.dense[:n*r.d]
	for u := range r.unnamed {
		r.unnamed[u] = r.unnamed[u][:n]
	}
}

// readSerial parses the data rows from cr (after the header) one by one.
func (r *csvRows) readSerial(cr *csv.Reader, path string, ncols int, row func(slot, line int, rec []string) error, checkIDs func(upto int) error) error {
	err := fileio.EachRow(cr, path, ncols, func(line int, rec []string) error {
		if r.n == len(r.lines) {
			r.resize(max(2*r.n, 64))
		}
		if err := row(r.n, line, rec); err != nil {
			return err
		}
		r.n++
		return nil
	})
	if idErr := checkIDs(r.n); idErr != nil {
		return idErr
	}
	if err != nil {
		return err
	}
	r.truncate(r.n)
	return nil
}

// readParallel parses the data rows of the file f (size bytes, rows from
// offset start) in byte ranges on workers goroutines (fileio.SplitCSV, two
// per worker), each range into its own slots of one allocation (the rows
// it may hold at most: at most its bytes / ncols + 1, so a file of blank
// lines allocates no more than 8 bytes per byte of input), then moves the
// rows down over the unused slots.
// The rows, and the error if any (the first in file order, ids checked in
// file order before it), are the serial reader's.
func (r *csvRows) readParallel(f *os.File, size, start int64, path string, ncols, workers int, row func(slot, line int, rec []string) error, checkIDs func(upto int) error) error {
	chunks, err := fileio.SplitCSV(f, start, size, 2*workers)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	first := make([]int, len(chunks)+1) // first slot of each chunk
	for c := range chunks {
		// A row passed on has ncols cells: ncols-1 commas and a line end
		// (the range's last row may lack it), which bounds the slots by the
		// bytes, however many blank lines there are.
		ch := &chunks[c]
		ch.MaxRows = min(ch.MaxRows, int((ch.End-ch.Start)/int64(ncols))+1)
		first[c+1] = first[c] + ch.MaxRows
	}
	r.resize(first[len(chunks)])
	used := make([]int, len(chunks))
	errs := make([]error, len(chunks))
	parallel.Blocks(len(chunks), 1, workers, func(_, c, _ int) {
		used[c], errs[c] = fileio.EachRowChunk(f, chunks[c], path, ncols, func(i, line int, rec []string) error {
			return row(first[c]+i, line, rec)
		})
	})
	// Compact: chunk c's rows move from first[c] to n.
	n := 0
	for c := range chunks {
		if n != first[c] {
			copy(r.lines[n:], r.lines[first[c]:first[c]+used[c]])
			copy(r.labels[n:], r.labels[first[c]:first[c]+used[c]])
			copy(r.ids[n:], r.ids[first[c]:first[c]+used[c]])
			copy(r.bits[n:], r.bits[first[c]:first[c]+used[c]])
			copy(r.dense[n*r.d:], r.dense[first[c]*r.d:(first[c]+used[c])*r.d])
			for u := range r.unnamed {
				copy(r.unnamed[u][n:], r.unnamed[u][first[c]:first[c]+used[c]])
			}
		}
		n += used[c]
		if errs[c] != nil {
			if idErr := checkIDs(n); idErr != nil {
				return idErr
			}
			return errs[c]
		}
	}
	if err := checkIDs(n); err != nil {
		return err
	}
	r.truncate(n)
	return nil
}
