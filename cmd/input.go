package cmd

import (
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
)

// bindItems binds the flags that name the items of score and select to o
// in t: the embeddings-only ones to o.Emb (applyItems lists those given).
func bindItems(t *configkeys.Table, o *cli.ItemsOptions) {
	fs, e := t.FlagSet(), &o.Emb
	configkeys.Bind(t, fs.StringVar, "kernel", "", "", "kernel matrix, n x n (.csv or .npy; - reads stdin)", &o.Kernel)
	configkeys.Bind(t, fs.StringVar, "embeddings", "", "", "embeddings, n x d (.csv or .npy; - reads stdin); cosine kernel unless --embedding-kernel", &o.Embeddings)
	configkeys.Bind(t, fs.StringVar, "quality", "", "", "quality scores, one per item, >= 0 (.csv or .npy)", &o.Quality)
	configkeys.Bind(t, fs.StringVar, "ids", "", "", "item ids, the first column, one per item (optional header 'id'); ids must be unique", &o.IDs)
	configkeys.Bind(t, fs.StringVar, "id-column", "", "", "name of an id column in the --kernel/--embeddings CSV (requires a header)", &o.IDColumn)
	configkeys.Bind(t, fs.BoolVar, "normalize", "", false, "rescale the kernel to unit diagonal, K_ij / sqrt(K_ii K_jj)", &o.Normalize)
	// --embeddings only (o.Emb).
	configkeys.Bind(t, fs.StringVar, "quality-column", "", "", "--embeddings CSV: the column holding each item's quality (not an embedding dimension)", &e.QualityColumn)
	configkeys.Bind(t, fs.StringVar, "feature-columns", "", "", "--embeddings CSV: comma-separated columns that are the embedding (default: all but the id and quality columns)", &e.FeatureColumns)
	configkeys.Bind(t, fs.StringVar, "embedding-kernel", "", e.Kernel, "kernel on --embeddings: cosine, linear (X X^T), rbf (exp(-|x-y|^2/(2 l^2))) or tanimoto (fingerprints: --fingerprint-column, a uint8 .npy packed by numpy.packbits, or 0/1 or count columns)", &e.Kernel)
	configkeys.Bind(t, fs.StringVar, "feature-prefix", "", "", "--embeddings CSV: the embedding columns are those named PREFIX... (e.g. x for x1,x2,...)", &e.FeaturePrefix)
	configkeys.Bind(t, fs.StringVar, "exclude-columns", "", "", "--embeddings CSV: comma-separated columns that are never embedding dimensions", &e.ExcludeColumns)
	configkeys.Bind(t, fs.StringVar, "fingerprint-column", "", "", "--embeddings CSV: column of fingerprints as text (with --embedding-kernel tanimoto), see --fingerprint-format", &e.FingerprintColumn)
	configkeys.Bind(t, fs.StringVar, "fingerprint-format", "", e.FingerprintFormat, "bits ('0'/'1' characters, bit 0 first) or hex (chemfp's FPS convention: two digits per byte, bytes in order, bit i = 1<<(i%8) of byte i/8; '04' = '00100000')", &e.FingerprintFormat)
	configkeys.Bind(t, fs.BoolVar, "standardize", "", false, "z-score every embedding column before the kernel: (x - mean)/sd, population sd (divisor n); a constant column becomes 0", &e.Standardize)
	configkeys.Bind(t, fs.BoolVar, "linear", "", false, "same as --embedding-kernel linear", &e.Linear)
	configkeys.Bind(t, fs.Float64Var, "length-scale", "", 0, "rbf: length scale l (default: the median heuristic, the median distance between distinct rows)", &e.LengthScale)
}

// applyItems applies t's flags and lists the embeddings-only flags given
// in o.
func applyItems(g *GlobalOptions, t *configkeys.Table, o *cli.ItemsOptions) {
	g.table = t
	t.Apply()
	o.EmbFlags = givenFlags(t, &o.Emb)
}
