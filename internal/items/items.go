package items

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Embedding kernels (Spec.EmbeddingKernel).
const (
	Cosine   = "cosine"
	Linear   = "linear"
	RBF      = "rbf"
	Tanimoto = "tanimoto"
)

// EmbeddingKernels are the kernels on embeddings, in the order help texts
// list them.
var EmbeddingKernels = []string{Cosine, Linear, RBF, Tanimoto}

// Spec says where the items come from: exactly one of Kernel and
// Embeddings, plus optional qualities, ids and groups. Error messages name
// the inputs by the flags of `qvs score` and `qvs select` (--id-column,
// --quality-column, ...), which set these fields one to one.
type Spec struct {
	Kernel     string // kernel matrix, n x n (.csv or .npy; - reads stdin)
	Embeddings string // embeddings, n x d (.csv or .npy; - reads stdin)
	Quality    string // qualities file, one per item, >= 0
	IDs        string // ids file, one per item
	// Columns of a kernel or embeddings CSV with a header (IDColumn also
	// of a kernel CSV).
	IDColumn, QualityColumn, GroupColumn string
	FeatureColumns, ExcludeColumns       []string
	FeaturePrefix                        string
	FingerprintColumn                    string
	FingerprintFormat                    string // datasets.FingerprintBits (default) or hex
	// Standardize z-scores every embedding column first (population sd,
	// fileio.StandardizeRows).
	Standardize bool
	// EmbeddingKernel is one of EmbeddingKernels ("" = Cosine).
	EmbeddingKernel string
	// LengthScale is the RBF's l; 0 takes the median heuristic
	// (vendi.NewRBF).
	LengthScale float64
	// Normalize rescales a kernel matrix to unit diagonal, K_ij / sqrt(K_ii K_jj).
	Normalize bool
	// RawNPY lets a float32 or float64 .npy of embeddings be read as it is,
	// one copy in its own dtype, when only the spectrum is needed (Scores):
	// no table, no float64 copy.
	RawNPY bool
}

// UsageError is an error in how the inputs were combined (a header column
// named on a file without a header, ids given twice), as opposed to what a
// file holds.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// Items is a loaded set of items: a kernel matrix, or embeddings with
// their kernel, plus optional qualities, ids and groups.
type Items struct {
	N       int
	Quality []float64 // nil when not given
	IDs     []string  // nil when not given
	Groups  []string  // each item's group (Spec.GroupColumn), nil when not given

	path        string        // the kernel or embeddings file, for messages
	groupColumn string        // Spec.GroupColumn
	kernel      *mat.SymDense // a kernel matrix (or Tanimoto similarities)
	embeddings  *mat.Dense    // cosine (rows scaled to unit norm) or linear
	rbf         *vendi.RBF    // embeddings under the RBF kernel
	// emb32 or emb64 (n x dim, as read) is set instead of embeddings for a
	// float32 or float64 .npy read with Spec.RawNPY; rawCosine scales rows
	// to unit norm.
	emb32     []float32
	emb64     []float64
	dim       int
	rawCosine bool
}

// Load reads the items spec names. Notes (a header column that looks like
// a quality read as an embedding dimension, the columns' roles, the RBF
// length scale chosen by the median heuristic) go to stderr: warnings
// always, information unless quiet.
func Load(spec Spec, stderr io.Writer, quiet bool) (*Items, error) {
	if (spec.Kernel == "") == (spec.Embeddings == "") {
		return nil, usageErrorf("give exactly one of --kernel or --embeddings")
	}
	if spec.EmbeddingKernel == "" {
		spec.EmbeddingKernel = Cosine
	}
	if !slices.Contains(EmbeddingKernels, spec.EmbeddingKernel) {
		return nil, usageErrorf("--embedding-kernel %q: expected cosine, linear, rbf or tanimoto", spec.EmbeddingKernel)
	}
	if spec.FingerprintFormat == "" {
		spec.FingerprintFormat = datasets.FingerprintBits
	}
	path := spec.Kernel + spec.Embeddings
	in := &Items{path: path, groupColumn: spec.GroupColumn}
	loaded, err := in.loadNPYFingerprints(spec)
	if err != nil {
		return nil, err
	}
	if !loaded {
		if loaded, err = in.loadRawNPY(spec); err != nil {
			return nil, err
		}
	}
	if !loaded {
		if loaded, err = in.loadColumnsCSV(spec, stderr, quiet); err != nil {
			return nil, err
		}
	}
	if !loaded {
		if err := in.loadTable(spec, stderr, quiet); err != nil {
			return nil, err
		}
	}
	if spec.Quality != "" {
		q, err := fileio.ReadVector(spec.Quality)
		if err != nil {
			return nil, err
		}
		if len(q) != in.N {
			return nil, fmt.Errorf("%s: %s for %s in %s", spec.Quality, fileio.Count(len(q), "quality"), fileio.Count(in.N, "item"), path)
		}
		in.Quality = q
	}
	for i, v := range in.Quality {
		if v < 0 {
			src := spec.Quality
			if src == "" {
				src = fmt.Sprintf("%s column %q", path, spec.QualityColumn)
			}
			return nil, fmt.Errorf("%s: row %d: quality %v is negative (qualities must be >= 0; rescale them, e.g. min-max to [0, 1])", src, i+1, v)
		}
	}
	if spec.IDs != "" {
		if in.IDs != nil {
			return nil, usageErrorf("give --ids or --id-column, not both")
		}
		ids, err := fileio.ReadStrings(spec.IDs)
		if err != nil {
			return nil, err
		}
		if len(ids) != in.N {
			return nil, fmt.Errorf("%s: %s for %s in %s", spec.IDs, fileio.Count(len(ids), "id"), fileio.Count(in.N, "item"), path)
		}
		in.IDs = ids
	}
	if in.IDs != nil {
		src := spec.IDs
		if src == "" {
			src = fmt.Sprintf("%s column %q", path, spec.IDColumn)
		}
		if err := fileio.CheckUniqueIDs(src, in.IDs); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// loadTable reads a kernel, a .npy of embeddings or a CSV of embeddings
// without a header through fileio's table reader.
func (in *Items) loadTable(spec Spec, stderr io.Writer, quiet bool) error {
	var t *fileio.Table
	var err error
	if spec.GroupColumn != "" {
		return usageErrorf("--group-column names a header column, and %s has no header row", in.path)
	}
	if spec.IDColumn != "" {
		t, in.IDs, err = fileio.SplitIDColumn(in.path, spec.IDColumn)
	} else if t, err = fileio.ReadTable(in.path, false); err != nil {
		if hint := idColumnHint(in.path); hint != "" {
			err = fmt.Errorf("%w (%s)", err, hint)
		}
	}
	if err != nil {
		return err
	}
	if spec.Kernel != "" {
		if in.kernel, err = datasets.KernelFromTable(t, spec.Normalize); err != nil {
			return err
		}
		in.N = t.Rows
		return nil
	}
	if err := checkHeaderFlags(t, spec); err != nil {
		return err
	}
	return in.setFeatures(t, spec, stderr, quiet)
}

// checkHeaderFlags refuses the options that name header columns on a table
// without a header (a headerless CSV or a .npy; a CSV with a header is read
// by loadColumnsCSV).
func checkHeaderFlags(t *fileio.Table, spec Spec) error {
	if (spec.QualityColumn != "" || len(spec.FeatureColumns) > 0 || spec.FeaturePrefix != "" || len(spec.ExcludeColumns) > 0 || spec.FingerprintColumn != "") && t.Header == nil {
		return fmt.Errorf("%s: --quality-column, --feature-columns, --feature-prefix, --exclude-columns and --fingerprint-column name header columns, and the file has no header row", t.Path)
	}
	return nil
}

// hasDistinctRows reports whether two rows of X differ.
func hasDistinctRows(X *mat.Dense) bool {
	n, _ := X.Dims()
	for i := 1; i < n; i++ {
		if !slices.Equal(X.RawRowView(i), X.RawRowView(0)) {
			return true
		}
	}
	return false
}

// setEmbeddings sets the items from the embeddings table under kernel:
// cosine scales every row to unit Euclidean norm (a zero row is refused),
// linear keeps the rows (rescaled by a power of two if their squares would
// overflow), rbf builds the RBF kernel with lengthScale (0: the median
// heuristic, said on stderr unless quiet).
func (in *Items) setEmbeddings(t *fileio.Table, kernel string, lengthScale float64, stderr io.Writer, quiet bool) error {
	if kernel == Linear {
		vendi.Unoverflow(t.Data) // cosine normalises rows; the RBF's --length-scale is in the file's units
	}
	X := t.Dense()
	in.N = t.Rows
	switch kernel {
	case RBF:
		var err error
		if in.rbf, err = vendi.NewRBF(X, lengthScale); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		if lengthScale == 0 && !quiet {
			why := "the median distance between distinct rows"
			if !hasDistinctRows(X) {
				why = "every row is the same, so the kernel is all ones whatever the scale"
			}
			fmt.Fprintf(stderr, "RBF length scale = %.6g: %s (set --length-scale to choose)\n", in.rbf.LengthScale, why)
		}
	case Cosine:
		for i := 0; i < t.Rows; i++ {
			row := X.RawRowView(i)
			norm := math.Sqrt(mat.Dot(mat.NewVecDense(len(row), row), mat.NewVecDense(len(row), row)))
			if math.IsInf(norm, 0) || norm < 1e-140 {
				norm = vendi.RowNorm(row) // squares overflow or underflow
			}
			if norm == 0 {
				return fmt.Errorf("%s: row %d is all zeros: cosine similarity is undefined (use --embedding-kernel linear or rbf)", t.Path, i+1)
			}
			for j := range row {
				row[j] /= norm
			}
		}
		in.embeddings = X
	default:
		in.embeddings = X
	}
	return nil
}

// idColumnHint suggests --id-column when the first column of a CSV with a
// header holds text while the others are numbers ("" otherwise).
func idColumnHint(path string) string {
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		return ""
	}
	f, err := fileio.OpenInput(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	cr := fileio.NewCSVReader(io.LimitReader(f, 1<<20))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err1 := cr.Read()
	row, err2 := cr.Read()
	if err1 != nil || err2 != nil || len(row) < 2 || len(header) != len(row) {
		return ""
	}
	isNum := func(s string) bool { _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); return err == nil }
	if isNum(row[0]) {
		return ""
	}
	for _, c := range row[1:] {
		if !isNum(c) {
			return ""
		}
	}
	if isNum(header[0]) {
		return "the first column holds text: if it is an item id, add a header row and pass --id-column"
	}
	return fmt.Sprintf("the first column %q holds text: if it is an item id, pass --id-column %s", strings.TrimSpace(header[0]), strings.TrimSpace(header[0]))
}

// loadRawNPY reads the embeddings as they are when allowed and the file is
// a C-order float32 or float64 .npy (one copy, read straight into its
// slice, no table); loaded is false when the ordinary reader must be used.
func (in *Items) loadRawNPY(spec Spec) (loaded bool, err error) {
	k := spec.EmbeddingKernel
	if !spec.RawNPY || spec.Embeddings == "" || !strings.HasSuffix(strings.ToLower(spec.Embeddings), ".npy") ||
		k == RBF || k == Tanimoto || spec.Standardize || spec.IDColumn != "" || spec.QualityColumn != "" || len(spec.FeatureColumns) > 0 || spec.GroupColumn != "" {
		return false, nil
	}
	in.rawCosine = k == Cosine
	rows, cols, x, err := fileio.ReadNPYFloat32File(spec.Embeddings)
	if err == nil {
		in.emb32, in.N, in.dim = x, rows, cols
		return true, nil
	}
	if !errors.Is(err, fileio.ErrNotFloat32) {
		return false, err
	}
	rows, cols, x64, err := fileio.ReadNPYFloat64File(spec.Embeddings)
	if errors.Is(err, fileio.ErrNotFloat64) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if k == Linear {
		vendi.Unoverflow(x64) // cosine rows are normalised by vendi.RowNorm
	}
	in.emb64, in.N, in.dim = x64, rows, cols
	return true, nil
}

// loadNPYFingerprints reads the embeddings under the tanimoto kernel when
// they are a uint8 or bool .npy: fingerprints by the rule of
// datasets.ReadNPYFingerprints (uint8 rows packed by numpy.packbits, most
// significant bit first; bool columns one bit each), as `qvs as suggest`
// and `qvs graph` read a pool. loaded is false for any other file or
// dtype (a numeric .npy of counts goes through the table reader), and
// when a flag naming header columns is set, which the table reader
// refuses.
func (in *Items) loadNPYFingerprints(spec Spec) (loaded bool, err error) {
	path := spec.Embeddings
	if spec.EmbeddingKernel != Tanimoto || path == "" || !strings.HasSuffix(strings.ToLower(path), ".npy") ||
		spec.IDColumn != "" || spec.GroupColumn != "" || spec.QualityColumn != "" || len(spec.FeatureColumns) > 0 ||
		spec.FeaturePrefix != "" || len(spec.ExcludeColumns) > 0 || spec.FingerprintColumn != "" {
		return false, nil
	}
	fps, ok, err := datasets.ReadNPYFingerprints(path)
	if !ok || err != nil {
		return ok, err
	}
	in.setTanimoto(fps)
	return true, nil
}

// loadColumnsCSV reads the embeddings when they are a CSV with a header
// row: columns by role (fileio.ReadColumnsCSV: the id, quality,
// fingerprint and group columns, the features named or by prefix, the
// excluded ones; unnamed columns never features, label-like ones refused
// unless named), then the kernel; loaded is false for a .npy, a kernel or
// a headerless CSV, which the table reader handles.
func (in *Items) loadColumnsCSV(spec Spec, stderr io.Writer, quiet bool) (loaded bool, err error) {
	path := spec.Embeddings
	if path == "" || strings.HasSuffix(strings.ToLower(path), ".npy") {
		return false, nil
	}
	cs := fileio.ColumnSpec{
		ID: spec.IDColumn, Quality: spec.QualityColumn, Fingerprint: spec.FingerprintColumn, Group: spec.GroupColumn,
		Features: spec.FeatureColumns, Prefix: spec.FeaturePrefix, Exclude: spec.ExcludeColumns,
		IDFlag: "--id-column", QualityFlag: "--quality-column", FingerprintFlag: "--fingerprint-column", GroupFlag: "--group-column",
		FeaturesFlag: "--feature-columns", PrefixFlag: "--feature-prefix", ExcludeFlag: "--exclude-columns",
	}
	d, ok, err := fileio.ReadColumnsCSV(path, cs)
	if !ok || err != nil {
		if err != nil && spec.IDColumn == "" {
			if hint := idColumnHint(path); hint != "" {
				err = fmt.Errorf("%w (%s)", err, hint)
			}
		}
		return ok, err
	}
	if !quiet {
		for _, note := range d.Notes {
			fmt.Fprintln(stderr, "qvs: "+note)
		}
	}
	in.IDs, in.Quality, in.Groups = d.IDs, d.Quality, d.Groups
	if d.Features == nil { // fingerprint column
		row := func(i int) string { return fmt.Sprintf("line %d", d.Lines[i]) }
		bits, err := datasets.ParseFingerprints(d.Fingerprints, spec.FingerprintFormat, path, fmt.Sprintf("%q (--fingerprint-column)", spec.FingerprintColumn), row)
		if err != nil {
			return true, err
		}
		in.setTanimoto(bits)
		return true, nil
	}
	if len(spec.FeatureColumns) == 0 && spec.FeaturePrefix == "" {
		warnSuspectColumns(d.Features, stderr)
	}
	return true, in.setFeatures(d.Features, spec, stderr, quiet)
}

// setFeatures sets the items from a table of features: Tanimoto
// fingerprints (0/1 bits or counts) under tanimoto, else embeddings,
// z-scored first with Spec.Standardize.
func (in *Items) setFeatures(t *fileio.Table, spec Spec, stderr io.Writer, quiet bool) error {
	if spec.EmbeddingKernel == Tanimoto {
		column := func(j int) string {
			if t.Header != nil {
				return fmt.Sprintf("column %q", strings.TrimSpace(t.Header[j]))
			}
			return fmt.Sprintf("column %d", j+1)
		}
		bits, err := datasets.FingerprintsFromCounts(t.RowViews(), column)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		in.setTanimoto(bits)
		return nil
	}
	if spec.Standardize {
		fileio.StandardizeRows(t.RowViews())
	}
	return in.setEmbeddings(t, spec.EmbeddingKernel, spec.LengthScale, stderr, quiet)
}

// setTanimoto sets the kernel to the Tanimoto similarities of the
// fingerprints (PSD, unit diagonal).
func (in *Items) setTanimoto(bits [][]uint64) {
	in.N = len(bits)
	in.kernel = mat.NewSymDense(in.N, datasets.TanimotoMatrix(bits))
}

// suspectColumnWords are header words that suggest a column holds a
// quality or a label rather than an embedding dimension.
var suspectColumnWords = []string{"quality", "score", "value", "label", "y"}

// suspectColumn reports whether a header name has one of
// suspectColumnWords as a word ("quality", "Score", "true_label", "y").
func suspectColumn(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		if slices.Contains(suspectColumnWords, w) {
			return true
		}
	}
	return false
}

// warnSuspectColumns warns about header columns read as embedding
// dimensions that look like a quality (quality, score, value).
func warnSuspectColumns(t *fileio.Table, stderr io.Writer) {
	for _, h := range t.Header {
		h = strings.TrimSpace(h)
		if suspectColumn(h) && !fileio.LabelLikeColumn(h, t.Header) && !(h == "y" && t.ColumnIndex("x") >= 0) {
			fmt.Fprintf(stderr, "qvs: warning: %s: column %q is read as an embedding dimension; if it holds qualities pass --quality-column %s, or choose the dimensions with --feature-columns\n", t.Path, h, h)
		}
	}
}
