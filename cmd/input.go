package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// itemInput is the set of items of `qvs score` / `qvs select`: either a
// kernel matrix or embeddings, plus optional qualities and ids.
type itemInput struct {
	n          int
	kernel     *mat.SymDense // set for --kernel
	embeddings *mat.Dense    // set for --embeddings with cosine (rows scaled to unit norm) or linear
	rbf        *vendi.RBF    // set for --embeddings with --embedding-kernel rbf
	// emb32 or emb64 (n x dim, as read) is set instead of embeddings for a
	// float32 or float64 .npy when inputFlags.rawNPY; rawCosine scales rows
	// to unit norm.
	emb32     []float32
	emb64     []float64
	dim       int
	rawCosine bool
	quality   []float64 // nil when not given
	ids       []string  // nil when not given
	groups    []string  // each item's group (score --group-column), nil when not given
}

// Embedding kernels of --embedding-kernel.
const (
	embCosine   = "cosine"
	embLinear   = "linear"
	embRBF      = "rbf"
	embTanimoto = "tanimoto"
)

type inputFlags struct {
	kernel, embeddings, quality, ids, idColumn string
	qualityColumn, featureColumns              string
	featurePrefix, excludeColumns              string
	fingerprintColumn, fingerprintFormat       string
	standardize                                bool
	groupColumn                                string // score only
	embKernel                                  string
	lengthScale                                float64
	normalize, linear                          bool
	// rawNPY lets a float32 or float64 .npy of embeddings be read as it is,
	// one copy in its own dtype (qvs score: only the spectrum is needed, see
	// itemInput.spectrum).
	rawNPY  bool
	changed func(name string) bool
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

// embeddingKernel resolves --embedding-kernel and its shorthand --linear.
func (f inputFlags) embeddingKernel() (string, error) {
	k := strings.ToLower(strings.TrimSpace(f.embKernel))
	if k == "" {
		k = embCosine
	}
	if k != embCosine && k != embLinear && k != embRBF && k != embTanimoto {
		return "", usageErrorf("--embedding-kernel %q: expected cosine, linear, rbf or tanimoto", f.embKernel)
	}
	if f.fingerprintColumn != "" && k != embTanimoto {
		return "", usageErrorf("--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --embedding-kernel tanimoto")
	}
	if f.changed("fingerprint-format") && !slices.Contains(datasets.FingerprintFormats, f.fingerprintFormat) {
		return "", usageErrorf("--fingerprint-format %q: expected %s", f.fingerprintFormat, strings.Join(datasets.FingerprintFormats, " or "))
	}
	if f.standardize && k == embTanimoto {
		return "", usageErrorf("--standardize: z-scored features are not fingerprints: --embedding-kernel tanimoto needs 0/1 bits or counts as they are")
	}
	if f.featureColumns != "" && f.featurePrefix != "" {
		return "", usageErrorf("give --feature-columns or --feature-prefix, not both")
	}
	if f.linear {
		if f.changed("embedding-kernel") && k != embLinear {
			return "", usageErrorf("--linear is --embedding-kernel linear: it contradicts --embedding-kernel %s", k)
		}
		k = embLinear
	}
	if f.changed("length-scale") {
		if k != embRBF {
			return "", usageErrorf("--length-scale applies to --embedding-kernel rbf")
		}
		if !(f.lengthScale > 0) || math.IsInf(f.lengthScale, 0) {
			return "", usageErrorf("--length-scale %v: expected a finite number > 0", f.lengthScale)
		}
	}
	return k, nil
}

// loadItems reads the items the flags describe. Warnings (a header column
// that looks like a quality read as an embedding dimension) and the RBF
// length scale chosen by the median heuristic go to stderr; info lines only
// unless quiet.
func loadItems(f inputFlags, stderr io.Writer, quiet bool) (*itemInput, error) {
	if f.changed == nil {
		f.changed = func(string) bool { return false }
	}
	if (f.kernel == "") == (f.embeddings == "") {
		return nil, usageErrorf("give exactly one of --kernel or --embeddings")
	}
	embKernel, err := f.embeddingKernel()
	if err != nil {
		return nil, err
	}
	if f.kernel != "" {
		for _, name := range []string{"quality-column", "feature-columns", "feature-prefix", "exclude-columns", "fingerprint-column", "fingerprint-format", "standardize", "embedding-kernel", "linear", "length-scale", "group-column"} {
			if f.changed(name) {
				return nil, usageErrorf("--%s applies to --embeddings, not --kernel", name)
			}
		}
	}
	if f.quality != "" && f.qualityColumn != "" {
		return nil, usageErrorf("give --quality FILE or --quality-column NAME, not both")
	}
	in := &itemInput{}
	path := f.kernel + f.embeddings
	loaded, err := in.loadRawNPY(f, embKernel)
	if err != nil {
		return nil, err
	}
	if !loaded {
		if loaded, err = in.loadColumnsCSV(f, embKernel, stderr, quiet); err != nil {
			return nil, err
		}
	}
	if !loaded {
		var t *fileio.Table
		if f.groupColumn != "" {
			return nil, usageErrorf("--group-column names a header column, and %s has no header row", path)
		}
		if f.idColumn != "" {
			t, in.ids, err = fileio.SplitIDColumn(path, f.idColumn)
		} else if t, err = fileio.ReadTable(path, false); err != nil {
			if hint := idColumnHint(path); hint != "" {
				err = fmt.Errorf("%w (%s)", err, hint)
			}
		}
		if err != nil {
			return nil, err
		}
		if f.kernel != "" {
			if in.kernel, err = datasets.KernelFromTable(t, f.normalize); err != nil {
				return nil, err
			}
			in.n = t.Rows
		} else {
			if err := checkHeaderFlags(t, f); err != nil {
				return nil, err
			}
			if err := in.setFeatures(t, f, embKernel, stderr, quiet); err != nil {
				return nil, err
			}
		}
	}
	if f.quality != "" {
		q, err := fileio.ReadVector(f.quality)
		if err != nil {
			return nil, err
		}
		if len(q) != in.n {
			return nil, fmt.Errorf("%s: %s for %s in %s", f.quality, nItems(len(q), "quality"), nItems(in.n, "item"), path)
		}
		in.quality = q
	}
	for i, v := range in.quality {
		if v < 0 {
			src := f.quality
			if src == "" {
				src = fmt.Sprintf("%s column %q", path, f.qualityColumn)
			}
			return nil, fmt.Errorf("%s: row %d: quality %v is negative (qualities must be >= 0; rescale them, e.g. min-max to [0, 1])", src, i+1, v)
		}
	}
	if f.ids != "" {
		if in.ids != nil {
			return nil, usageErrorf("give --ids or --id-column, not both")
		}
		ids, err := fileio.ReadStrings(f.ids)
		if err != nil {
			return nil, err
		}
		if len(ids) != in.n {
			return nil, fmt.Errorf("%s: %s for %s in %s", f.ids, nItems(len(ids), "id"), nItems(in.n, "item"), path)
		}
		in.ids = ids
	}
	if in.ids != nil {
		src := f.ids
		if src == "" {
			src = fmt.Sprintf("%s column %q", path, f.idColumn)
		}
		if err := checkUniqueIDs(src, in.ids); err != nil {
			return nil, err
		}
	}
	return in, nil
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

// checkUniqueIDs reports an empty or repeated id: ids name the items in
// the output (and in input files such as --observed), so each must name
// one item. Rows count the items from 1.
func checkUniqueIDs(src string, ids []string) error {
	first := make(map[string]int, len(ids))
	for k, id := range ids {
		if id == "" {
			return fmt.Errorf("%s: id %d is empty", src, k+1)
		}
		if j, dup := first[id]; dup {
			return fmt.Errorf("%s: id %q is given for rows %d and %d; ids must be unique", src, id, j+1, k+1)
		}
		first[id] = k
	}
	return nil
}

// checkHeaderFlags refuses the flags that name header columns on a table
// without a header (a headerless CSV or a .npy; a CSV with a header is read
// by loadColumnsCSV).
func checkHeaderFlags(t *fileio.Table, f inputFlags) error {
	if (f.qualityColumn != "" || f.featureColumns != "" || f.featurePrefix != "" || f.excludeColumns != "" || f.fingerprintColumn != "") && t.Header == nil {
		return fmt.Errorf("%s: --quality-column, --feature-columns, --feature-prefix, --exclude-columns and --fingerprint-column name header columns, and the file has no header row", t.Path)
	}
	return nil
}

// setEmbeddings sets the items from the embeddings table under kernel.
func (in *itemInput) setEmbeddings(t *fileio.Table, kernel string, lengthScale float64, stderr io.Writer, quiet bool) error {
	if kernel == embLinear {
		vendi.Unoverflow(t.Data) // cosine normalises rows; the RBF's --length-scale is in the file's units
	}
	X := t.Dense()
	in.n = t.Rows
	switch kernel {
	case embRBF:
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
	case embCosine:
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

// undefinedError is the error of `score` and `select` for items whose kernel
// has no positive eigenvalue (VS undefined, vendi.ErrNoPositiveEigenvalue).
// Embeddings get there only as all-zero rows under the linear kernel
// (cosine refuses a zero row, rbf has a unit diagonal).
func (in *itemInput) undefinedError(path string) error {
	if in.kernel == nil {
		return fmt.Errorf("%s: every row is all zeros: the linear kernel is the zero matrix and VS is undefined", path)
	}
	return fmt.Errorf("%s: %w", path, vendi.ErrNoPositiveEigenvalue)
}

// vendiKernel returns the greedy kernel of the items: the matrix, the RBF
// kernel, or the cosine / linear kernel of the embeddings (row dot
// products) as a FeatureKernel, so the greedy works in the d x d dual.
func (in *itemInput) vendiKernel() vendi.Kernel {
	if in.kernel != nil {
		return vendi.DenseKernel(in.kernel)
	}
	if in.rbf != nil {
		return in.rbf
	}
	return vendi.FeatureMatrix{X: in.embeddings}
}

// loadRawNPY reads --embeddings as they are when allowed and the file is a
// C-order float32 or float64 .npy (one copy, read straight into its slice,
// no table); loaded is false when the ordinary reader must be used.
func (in *itemInput) loadRawNPY(f inputFlags, embKernel string) (loaded bool, err error) {
	if !f.rawNPY || f.embeddings == "" || !strings.HasSuffix(strings.ToLower(f.embeddings), ".npy") ||
		embKernel == embRBF || embKernel == embTanimoto || f.standardize || f.idColumn != "" || f.qualityColumn != "" || f.featureColumns != "" || f.groupColumn != "" {
		return false, nil
	}
	in.rawCosine = embKernel == embCosine
	rows, cols, x, err := fileio.ReadNPYFloat32File(f.embeddings)
	if err == nil {
		in.emb32, in.n, in.dim = x, rows, cols
		return true, nil
	}
	if !errors.Is(err, fileio.ErrNotFloat32) {
		return false, err
	}
	rows, cols, x64, err := fileio.ReadNPYFloat64File(f.embeddings)
	if errors.Is(err, fileio.ErrNotFloat64) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if embKernel == embLinear {
		vendi.Unoverflow(x64) // cosine rows are normalised by vendi.RowNorm
	}
	in.emb64, in.n, in.dim = x64, rows, cols
	return true, nil
}

// denseEigNotice and denseEigNoticeLAPACK are the orders from which score
// and select say on stderr that a dense eigendecomposition is coming, with
// the pure-Go backend and with LAPACK in use (variables so tests can lower
// them): `score --embedding-kernel rbf` on 5,000 x 16 embeddings took 12-29
// s in pure Go in the QA pass with nothing printed, 2,000 x 16 takes 1.4 s;
// with LAPACK order 2,048 takes 0.2 s and 5,000 about 3 s.
var (
	denseEigNotice       = 2000
	denseEigNoticeLAPACK = 5000
)

// denseEigNoticeOrders is "2000 (5000 with OpenBLAS)" for the help texts.
var denseEigNoticeOrders = fmt.Sprintf("%d (%d with OpenBLAS)", denseEigNotice, denseEigNoticeLAPACK)

// noteDenseEig writes one line to w, unless quiet, before a dense
// eigendecomposition of the given order when it is at least the threshold
// of the backend in use (an openblas build whose libraries are missing
// runs in pure Go: asked only when a notice may be due, as asking opens
// them); what says what is decomposed, with its order.
func noteDenseEig(w io.Writer, quiet bool, order int, what string) {
	if quiet || order < min(denseEigNotice, denseEigNoticeLAPACK) {
		return
	}
	limit := denseEigNotice
	if linalg.Backend == "openblas" && linalg.InUse() == "openblas" {
		limit = denseEigNoticeLAPACK
	}
	if order >= limit {
		fmt.Fprintf(w, "%s (dense; this can take a while)\n", what)
	}
}

// spectrumOrder is the order of the matrix spectrum eigendecomposes and
// what it is: the n x n kernel or rbf matrix, or the min(n, d) Gram of the
// embeddings.
func (in *itemInput) spectrumOrder() (int, string) {
	switch {
	case in.kernel != nil:
		return in.n, fmt.Sprintf("the %d x %d kernel", in.n, in.n)
	case in.rbf != nil:
		return in.n, fmt.Sprintf("the %d x %d rbf kernel", in.n, in.n)
	case in.emb32 != nil || in.emb64 != nil:
		m := min(in.n, in.dim)
		return m, fmt.Sprintf("the %d x %d Gram matrix of the embeddings", m, m)
	}
	r := in.embeddings.RawMatrix()
	m := min(r.Rows, r.Cols)
	return m, fmt.Sprintf("the %d x %d Gram matrix of the embeddings", m, m)
}

// undefinedCheaply reports items whose VS O(n²) reads show undefined (no
// positive eigenvalue: a zero kernel, all-zero embeddings under the linear
// kernel), so score refuses them before the eigendecomposition.
func (in *itemInput) undefinedCheaply() bool {
	allZero := func(n int, at func(k int) bool) bool {
		for k := 0; k < n; k++ {
			if !at(k) {
				return false
			}
		}
		return true
	}
	switch {
	case in.kernel != nil:
		has, known := vendi.PositiveEigenvalueCheaply(vendi.DenseKernel(in.kernel))
		return known && !has
	case in.emb32 != nil && !in.rawCosine:
		return allZero(len(in.emb32), func(k int) bool { return in.emb32[k] == 0 })
	case in.emb64 != nil && !in.rawCosine:
		return allZero(len(in.emb64), func(k int) bool { return in.emb64[k] == 0 })
	}
	return false
}

// spectrum returns the eigenvalues VS_q is computed from, once for every
// order: of the kernel (or RBF) matrix, or of the embeddings' d x d Gram
// when d < n.
func (in *itemInput) spectrum(path string) ([]float64, error) {
	var eig []float64
	var err error
	switch {
	case in.kernel != nil:
		// score needs the kernel for nothing else: decompose it in place.
		eig, err = vendi.EigenvaluesInPlace(in.kernel)
	case in.rbf != nil:
		eig, err = vendi.Eigenvalues(in.rbf.Matrix())
	case in.emb32 != nil || in.emb64 != nil:
		kernel := vendi.Linear
		if in.rawCosine {
			kernel = vendi.Cosine
		}
		// score needs the embeddings only for this: scale them in place
		// (the rows are unit-norm afterwards, so Linear from then on).
		if in.emb32 != nil {
			eig, err = vendi.EmbeddingSpectrum32InPlace(in.n, in.dim, in.emb32, kernel)
		} else {
			eig, err = vendi.EmbeddingSpectrumInPlace(in.n, in.dim, in.emb64, kernel)
		}
		in.rawCosine = false
	default:
		// Rows are already unit-norm for cosine; Linear keeps them as they are.
		r := in.embeddings.RawMatrix()
		eig, err = vendi.EmbeddingSpectrum(r.Rows, r.Cols, r.Data, vendi.Linear)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return eig, nil
}

func (f *inputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.kernel, "kernel", "", "kernel matrix, n x n (.csv or .npy; - reads stdin)")
	fs.StringVar(&f.embeddings, "embeddings", "", "embeddings, n x d (.csv or .npy; - reads stdin); cosine kernel unless --embedding-kernel")
	fs.StringVar(&f.quality, "quality", "", "quality scores, one per item, >= 0 (.csv or .npy)")
	fs.StringVar(&f.qualityColumn, "quality-column", "", "--embeddings CSV: the column holding each item's quality (not an embedding dimension)")
	fs.StringVar(&f.featureColumns, "feature-columns", "", "--embeddings CSV: comma-separated columns that are the embedding (default: all but the id and quality columns)")
	fs.StringVar(&f.ids, "ids", "", "item ids, the first column, one per item (optional header 'id'); ids must be unique")
	fs.StringVar(&f.idColumn, "id-column", "", "name of an id column in the --kernel/--embeddings CSV (requires a header)")
	fs.BoolVar(&f.normalize, "normalize", false, "rescale the kernel to unit diagonal, K_ij / sqrt(K_ii K_jj)")
	fs.StringVar(&f.embKernel, "embedding-kernel", embCosine, "kernel on --embeddings: cosine, linear (X X^T), rbf (exp(-|x-y|^2/(2 l^2))) or tanimoto (fingerprints: --fingerprint-column, or 0/1 or count columns)")
	fs.StringVar(&f.featurePrefix, "feature-prefix", "", "--embeddings CSV: the embedding columns are those named PREFIX... (e.g. x for x1,x2,...)")
	fs.StringVar(&f.excludeColumns, "exclude-columns", "", "--embeddings CSV: comma-separated columns that are never embedding dimensions")
	fs.StringVar(&f.fingerprintColumn, "fingerprint-column", "", "--embeddings CSV: column of fingerprints as text (with --embedding-kernel tanimoto), see --fingerprint-format")
	fs.StringVar(&f.fingerprintFormat, "fingerprint-format", datasets.FingerprintBits, "bits ('0'/'1' characters, bit 0 first) or hex (chemfp's FPS convention: two digits per byte, bytes in order, bit i = 1<<(i%8) of byte i/8; '04' = '00100000')")
	fs.BoolVar(&f.standardize, "standardize", false, "z-score every embedding column before the kernel: (x - mean)/sd, population sd (divisor n); a constant column becomes 0")
	fs.BoolVar(&f.linear, "linear", false, "same as --embedding-kernel linear")
	fs.Float64Var(&f.lengthScale, "length-scale", 0, "rbf: length scale l (default: the median heuristic, the median distance between distinct rows)")
	f.changed = func(name string) bool { return fs.Changed(name) }
}

// loadColumnsCSV reads --embeddings when it is a CSV with a header row:
// columns by role (fileio.ReadColumnsCSV: --id-column, --quality-column,
// --fingerprint-column, --feature-columns or --feature-prefix, and
// --exclude-columns; unnamed columns never features, label-like ones refused
// unless named), then the kernel; loaded is false for a .npy, a kernel or a
// headerless CSV, which the table reader handles.
func (in *itemInput) loadColumnsCSV(f inputFlags, embKernel string, stderr io.Writer, quiet bool) (loaded bool, err error) {
	path := f.embeddings
	if path == "" || strings.HasSuffix(strings.ToLower(path), ".npy") {
		return false, nil
	}
	spec := fileio.ColumnSpec{
		ID: f.idColumn, Quality: f.qualityColumn, Fingerprint: f.fingerprintColumn, Group: f.groupColumn,
		Features: splitList(f.featureColumns), Prefix: f.featurePrefix, Exclude: splitList(f.excludeColumns),
		IDFlag: "--id-column", QualityFlag: "--quality-column", FingerprintFlag: "--fingerprint-column", GroupFlag: "--group-column",
		FeaturesFlag: "--feature-columns", PrefixFlag: "--feature-prefix", ExcludeFlag: "--exclude-columns",
	}
	d, ok, err := fileio.ReadColumnsCSV(path, spec)
	if !ok || err != nil {
		if err != nil && f.idColumn == "" {
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
	in.ids, in.quality, in.groups = d.IDs, d.Quality, d.Groups
	if d.Features == nil { // fingerprint column
		row := func(i int) string { return fmt.Sprintf("line %d", d.Lines[i]) }
		bits, err := datasets.ParseFingerprints(d.Fingerprints, f.fingerprintFormat, path, fmt.Sprintf("%q (--fingerprint-column)", f.fingerprintColumn), row)
		if err != nil {
			return true, err
		}
		in.setTanimoto(bits)
		return true, nil
	}
	if f.featureColumns == "" && f.featurePrefix == "" {
		warnSuspectColumns(d.Features, stderr)
	}
	return true, in.setFeatures(d.Features, f, embKernel, stderr, quiet)
}

// setFeatures sets the items from a table of features: Tanimoto
// fingerprints (0/1 bits or counts) under tanimoto, else embeddings,
// z-scored first with --standardize.
func (in *itemInput) setFeatures(t *fileio.Table, f inputFlags, embKernel string, stderr io.Writer, quiet bool) error {
	if embKernel == embTanimoto {
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
	if f.standardize {
		fileio.StandardizeRows(t.RowViews())
	}
	return in.setEmbeddings(t, embKernel, f.lengthScale, stderr, quiet)
}

// setTanimoto sets the kernel to the Tanimoto similarities of the
// fingerprints (PSD, unit diagonal).
func (in *itemInput) setTanimoto(bits [][]uint64) {
	in.n = len(bits)
	in.kernel = mat.NewSymDense(in.n, datasets.TanimotoMatrix(bits))
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
