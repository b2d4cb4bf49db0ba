package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/items"
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
	// rawNPY: items.Spec.RawNPY (qvs score: only the spectrum is needed).
	rawNPY  bool
	changed func(name string) bool
}

// embeddingKernel resolves --embedding-kernel and its shorthand --linear.
func (f inputFlags) embeddingKernel() (string, error) {
	k := strings.ToLower(strings.TrimSpace(f.embKernel))
	if k == "" {
		k = items.Cosine
	}
	if !slices.Contains(items.EmbeddingKernels, k) {
		return "", usageErrorf("--embedding-kernel %q: expected cosine, linear, rbf or tanimoto", f.embKernel)
	}
	if f.fingerprintColumn != "" && k != items.Tanimoto {
		return "", usageErrorf("--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --embedding-kernel tanimoto")
	}
	if f.changed("fingerprint-format") && !slices.Contains(datasets.FingerprintFormats, f.fingerprintFormat) {
		return "", usageErrorf("--fingerprint-format %q: expected %s", f.fingerprintFormat, strings.Join(datasets.FingerprintFormats, " or "))
	}
	if f.standardize && k == items.Tanimoto {
		return "", usageErrorf("--standardize: z-scored features are not fingerprints: --embedding-kernel tanimoto needs 0/1 bits or counts as they are")
	}
	if f.featureColumns != "" && f.featurePrefix != "" {
		return "", usageErrorf("give --feature-columns or --feature-prefix, not both")
	}
	if f.linear {
		if f.changed("embedding-kernel") && k != items.Linear {
			return "", usageErrorf("--linear is --embedding-kernel linear: it contradicts --embedding-kernel %s", k)
		}
		k = items.Linear
	}
	if f.changed("length-scale") {
		if k != items.RBF {
			return "", usageErrorf("--length-scale applies to --embedding-kernel rbf")
		}
		if !(f.lengthScale > 0) || math.IsInf(f.lengthScale, 0) {
			return "", usageErrorf("--length-scale %v: expected a finite number > 0", f.lengthScale)
		}
	}
	return k, nil
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
	fs.StringVar(&f.embKernel, "embedding-kernel", items.Cosine, "kernel on --embeddings: cosine, linear (X X^T), rbf (exp(-|x-y|^2/(2 l^2))) or tanimoto (fingerprints: --fingerprint-column, a uint8 .npy packed by numpy.packbits, or 0/1 or count columns)")
	fs.StringVar(&f.featurePrefix, "feature-prefix", "", "--embeddings CSV: the embedding columns are those named PREFIX... (e.g. x for x1,x2,...)")
	fs.StringVar(&f.excludeColumns, "exclude-columns", "", "--embeddings CSV: comma-separated columns that are never embedding dimensions")
	fs.StringVar(&f.fingerprintColumn, "fingerprint-column", "", "--embeddings CSV: column of fingerprints as text (with --embedding-kernel tanimoto), see --fingerprint-format")
	fs.StringVar(&f.fingerprintFormat, "fingerprint-format", datasets.FingerprintBits, "bits ('0'/'1' characters, bit 0 first) or hex (chemfp's FPS convention: two digits per byte, bytes in order, bit i = 1<<(i%8) of byte i/8; '04' = '00100000')")
	fs.BoolVar(&f.standardize, "standardize", false, "z-score every embedding column before the kernel: (x - mean)/sd, population sd (divisor n); a constant column becomes 0")
	fs.BoolVar(&f.linear, "linear", false, "same as --embedding-kernel linear")
	fs.Float64Var(&f.lengthScale, "length-scale", 0, "rbf: length scale l (default: the median heuristic, the median distance between distinct rows)")
	f.changed = func(name string) bool { return fs.Changed(name) }
}

// loadItems checks how the flags combine and reads the items they name
// (items.Load); notes go to stderr (information only unless quiet).
func loadItems(f inputFlags, stderr io.Writer, quiet bool) (*items.Items, error) {
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
	in, err := items.Load(items.Spec{
		Kernel: f.kernel, Embeddings: f.embeddings, Quality: f.quality, IDs: f.ids,
		IDColumn: f.idColumn, QualityColumn: f.qualityColumn, GroupColumn: f.groupColumn,
		FeatureColumns: configkeys.ParseList(f.featureColumns), FeaturePrefix: f.featurePrefix, ExcludeColumns: configkeys.ParseList(f.excludeColumns),
		FingerprintColumn: f.fingerprintColumn, FingerprintFormat: f.fingerprintFormat, Standardize: f.standardize,
		EmbeddingKernel: embKernel, LengthScale: f.lengthScale, Normalize: f.normalize, RawNPY: f.rawNPY,
	}, stderr, quiet)
	var ue *items.UsageError
	if errors.As(err, &ue) {
		return nil, cli.Usage(err)
	}
	return in, err
}

// noteDenseEig writes one line to w, unless quiet, before a dense
// eigendecomposition of the given order that takes a while
// (items.DenseEigNotice); what says what is decomposed, with its order.
func noteDenseEig(w io.Writer, quiet bool, order int, what string) {
	if !quiet && items.DenseEigNotice(order) {
		fmt.Fprintf(w, "%s (dense; this can take a while)\n", what)
	}
}
