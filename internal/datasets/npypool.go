package datasets

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// loadNPYPool builds an unlabelled pool from a 2-D C-order .npy matrix,
// one row per item (pool.csv.file ends in .npy), read straight into one
// contiguous copy of the features:
//   - float32 or float64 (either byte order): real features, every value
//     finite, metric euclidean or cosine; float32 features are kept as
//     read (Pool.Dense32, one copy at 4 bytes a value; distances computed
//     from them in float64 equal those of the values widened, bit for
//     bit), except with cfg.Standardize (then widened to float64);
//   - uint8 or bool with metric tanimoto: fingerprints by the rule of
//     ReadNPYFingerprints (uint8 rows packed by numpy.packbits, most
//     significant bit first; bool columns one bit each), the rule `qvs
//     score` and `qvs select` apply too; with metric euclidean or cosine,
//     uint8 and bool values are numbers.
//
// Ids come from cfg.IDsFile (one per line, optional header "id", unique
// and non-empty, one per row), else the row index. The graph is built as
// for a CSV pool (cfg.K, cfg.KNN, cfg.Similarity).
func loadNPYPool(cfg CSVConfig, cacheDir string, opt knn.GraphOptions) (*Pool, error) {
	path := cfg.File
	if err := checkMetric("pool.csv.metric", cfg.Metric); err != nil {
		return nil, err
	}
	if err := checkPositive("pool.csv.k", cfg.K); err != nil {
		return nil, err
	}
	if cfg.LabelColumn != "" || cfg.IDColumn != "" || len(cfg.FeatureColumns) > 0 || cfg.FeaturePrefix != "" || len(cfg.Positive) > 0 {
		return nil, fmt.Errorf("%s: a .npy pool holds features only: label_column, id_column, feature_columns, feature_prefix and positive do not apply (ids: %s)", path, opt.NameOf("pool.csv.ids_file"))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, configkeys.Wrap("pool.csv.file", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, configkeys.Wrap("pool.csv.file", err)
	}
	br := bufio.NewReaderSize(f, 1<<20)
	h, err := fileio.ReadNPYHeader(br, st.Size(), path)
	if err != nil {
		return nil, err
	}
	if len(h.Shape) != 2 || h.Fortran {
		return nil, fmt.Errorf("%s: shape %v (Fortran order %v), expected a C-order 2-D array, one row per item", path, h.Shape, h.Fortran)
	}
	n, d := h.Shape[0], h.Shape[1]
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("%s: shape %v, expected at least 2 rows and 1 column", path, h.Shape)
	}
	base := filepath.Base(path)
	p := &Pool{Name: strings.TrimSuffix(base, filepath.Ext(base)), Metric: cfg.Metric, Unlabeled: true, Labels: make([]bool, n)}
	rd := knn.StartPhase(opt.Progress, "reading "+path, "rows", int64(n))
	dt := strings.TrimLeft(h.Dtype, "<>=|")
	var order binary.ByteOrder = binary.LittleEndian
	if strings.HasPrefix(h.Dtype, ">") {
		order = binary.BigEndian
	}
	switch {
	case cfg.Metric == knn.MetricTanimoto && isNPYFingerprintDtype(h.Dtype):
		if p.Bits, err = readNPYBits(br, h, path, rd); err != nil {
			return nil, err
		}
	case cfg.Metric == knn.MetricTanimoto:
		return nil, fmt.Errorf("%s: dtype %s with metric tanimoto: expected uint8 (packed bits, numpy.packbits) or bool (one bit per column)", path, h.Dtype)
	case dt == "f4" && !cfg.Standardize:
		p.Dense32 = knn.Rows32{Data: make([]float32, n*d), D: d}
		buf := make([]byte, 4*d)
		for i := range n {
			if _, err := io.ReadFull(br, buf); err != nil {
				return nil, fmt.Errorf("%s: data ends in row %d of %d: %w", path, i+1, n, err)
			}
			rd.At(int64(i + 1))
			x := p.Dense32.Row(i)
			for c := range x {
				v := math.Float32frombits(order.Uint32(buf[4*c:]))
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", path, i+1, c+1, f)
				}
				x[c] = v
			}
		}
	default:
		width := map[string]int{"f4": 4, "f8": 8, "u1": 1, "b1": 1}[dt]
		if dt == "u1" || dt == "b1" {
			// Packed fingerprints (numpy.packbits) are uint8 too: read as
			// numbers they give a silently different kernel, so say which
			// reading was taken and how to get the other.
			p.Notes = append(p.Notes, fmt.Sprintf("%s: dtype %s read as numeric features (the metric is %s); if it holds fingerprints (numpy.packbits rows, or one bit per column), give --metric tanimoto", path, h.Dtype, cfg.Metric))
		}
		if width == 0 {
			return nil, fmt.Errorf("%s: dtype %s, expected float32, float64, uint8 or bool features", path, h.Dtype)
		}
		back := make([]float64, n*d)
		p.Dense = make([][]float64, n)
		buf := make([]byte, width*d)
		for i := range n {
			if _, err := io.ReadFull(br, buf); err != nil {
				return nil, fmt.Errorf("%s: data ends in row %d of %d: %w", path, i+1, n, err)
			}
			rd.At(int64(i + 1))
			x := back[i*d : (i+1)*d]
			for c := range x {
				var v float64
				switch width {
				case 4:
					v = float64(math.Float32frombits(order.Uint32(buf[4*c:])))
				case 8:
					v = math.Float64frombits(order.Uint64(buf[8*c:]))
				default:
					v = float64(buf[c])
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", path, i+1, c+1, v)
				}
				x[c] = v
			}
			p.Dense[i] = x
		}
	}
	rd.Finish()
	if cfg.IDsFile != "" {
		ids, err := fileio.ReadStrings(cfg.IDsFile)
		if err != nil {
			return nil, configkeys.Wrap("pool.csv.ids_file", err)
		}
		if len(ids) != n {
			return nil, fmt.Errorf("%s: %d ids for the %d rows of %s, expected one per row", cfg.IDsFile, len(ids), n, path)
		}
		line := make(map[string]int, n)
		for i, id := range ids {
			if id == "" {
				return nil, fmt.Errorf("%s: id %d is empty", cfg.IDsFile, i+1)
			}
			if l, dup := line[id]; dup {
				return nil, fmt.Errorf("%s: id %q repeats id %d; ids must be unique", cfg.IDsFile, id, l)
			}
			line[id] = i + 1
		}
		p.IDs = ids
	}
	// The kNN graph's k: irrelevant when only the features are read (a
	// GP on them).
	if !opt.FeaturesOnly {
		if cfg.K >= n {
			return nil, configkeys.Invalid("pool.csv.k", cfg.K, "expected less than the %d rows of %s", n, path)
		}
		if err := checkGraphSize("pool.csv.k", cfg.K, n, "rows of "+path); err != nil {
			return nil, err
		}
	}
	if cfg.Standardize && p.Dense != nil {
		fileio.StandardizeRows(p.Dense)
	}
	if opt.FeaturesOnly {
		return p, nil
	}
	if err := p.buildGraph(cfg, cacheDir, opt); err != nil {
		return nil, err
	}
	return p, nil
}
