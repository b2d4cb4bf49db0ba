package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/items"
)

// ItemsOptions name the items of score and select: a kernel matrix or
// embeddings, with qualities and ids.
type ItemsOptions struct {
	Kernel, Embeddings, Quality, IDs, IDColumn string
	Normalize                                  bool
	Emb                                        EmbeddingOptions
	// EmbFlags are the flags given that apply to --embeddings only (the
	// settings table's rows of Emb).
	EmbFlags []string
	// RawNPY: items.Spec.RawNPY (qvs score: only the spectrum is needed).
	RawNPY bool
}

// EmbeddingOptions apply to --embeddings only.
type EmbeddingOptions struct {
	QualityColumn, FeatureColumns, FeaturePrefix, ExcludeColumns string
	FingerprintColumn, FingerprintFormat                         string
	Standardize, Linear                                          bool
	GroupColumn                                                  string // score only
	Kernel                                                       string
	LengthScale                                                  float64
}

// given reports whether the embeddings-only flag was given.
func (o *ItemsOptions) given(flag string) bool { return slices.Contains(o.EmbFlags, flag) }

// embeddingKernel resolves --embedding-kernel and its shorthand --linear.
func (o *ItemsOptions) embeddingKernel() (string, error) {
	f := &o.Emb
	k := strings.ToLower(strings.TrimSpace(f.Kernel))
	if k == "" {
		k = items.Cosine
	}
	if !slices.Contains(items.EmbeddingKernels, k) {
		return "", Usagef("--embedding-kernel %q: expected cosine, linear, rbf or tanimoto", f.Kernel)
	}
	if f.FingerprintColumn != "" && k != items.Tanimoto {
		return "", Usagef("--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --embedding-kernel tanimoto")
	}
	if o.given("fingerprint-format") && !slices.Contains(datasets.FingerprintFormats, f.FingerprintFormat) {
		return "", Usagef("--fingerprint-format %q: expected %s", f.FingerprintFormat, strings.Join(datasets.FingerprintFormats, " or "))
	}
	if f.Standardize && k == items.Tanimoto {
		return "", Usagef("--standardize: z-scored features are not fingerprints: --embedding-kernel tanimoto needs 0/1 bits or counts as they are")
	}
	if f.FeatureColumns != "" && f.FeaturePrefix != "" {
		return "", Usagef("give --feature-columns or --feature-prefix, not both")
	}
	if f.Linear {
		if o.given("embedding-kernel") && k != items.Linear {
			return "", Usagef("--linear is --embedding-kernel linear: it contradicts --embedding-kernel %s", k)
		}
		k = items.Linear
	}
	if o.given("length-scale") {
		if k != items.RBF {
			return "", Usagef("--length-scale applies to --embedding-kernel rbf")
		}
		if !(f.LengthScale > 0) || math.IsInf(f.LengthScale, 0) {
			return "", Usagef("--length-scale %v: expected a finite number > 0", f.LengthScale)
		}
	}
	return k, nil
}

// loadItems checks how the options combine and reads the items they name
// (items.Load); notes go to e.Err (information only unless quiet).
func loadItems(e *Env, o *ItemsOptions) (*items.Items, error) {
	if (o.Kernel == "") == (o.Embeddings == "") {
		return nil, Usagef("give exactly one of --kernel or --embeddings")
	}
	embKernel, err := o.embeddingKernel()
	if err != nil {
		return nil, err
	}
	if o.Kernel != "" && len(o.EmbFlags) > 0 {
		return nil, Usagef("--%s applies to --embeddings, not --kernel", o.EmbFlags[0])
	}
	f := &o.Emb
	if o.Quality != "" && f.QualityColumn != "" {
		return nil, Usagef("give --quality FILE or --quality-column NAME, not both")
	}
	in, err := items.Load(items.Spec{
		Kernel: o.Kernel, Embeddings: o.Embeddings, Quality: o.Quality, IDs: o.IDs,
		IDColumn: o.IDColumn, QualityColumn: f.QualityColumn, GroupColumn: f.GroupColumn,
		FeatureColumns: configkeys.ParseList(f.FeatureColumns), FeaturePrefix: f.FeaturePrefix, ExcludeColumns: configkeys.ParseList(f.ExcludeColumns),
		FingerprintColumn: f.FingerprintColumn, FingerprintFormat: f.FingerprintFormat, Standardize: f.Standardize,
		EmbeddingKernel: embKernel, LengthScale: f.LengthScale, Normalize: o.Normalize, RawNPY: o.RawNPY,
	}, e.Err, e.Quiet)
	var ue *items.UsageError
	if errors.As(err, &ue) {
		return nil, Usage(err)
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
