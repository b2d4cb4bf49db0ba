// Package items loads the set of items that `qvs score` and `qvs select`
// work on and computes their Vendi scores: either a kernel matrix (n x n,
// CSV or .npy) or embeddings (n x d) under a cosine, linear (X X^T), RBF
// (exp(-|x_i - x_j|² / (2 l²)), paper §2) or Tanimoto kernel, with optional
// qualities (eq. 2: qVS_q = mean quality x VS_q), ids and groups.
//
// Load reads what a Spec names and checks it: the kernel's symmetry (a
// kernel read from a table is symmetric with finite entries, rescaled to a
// unit diagonal when asked), non-negative qualities, unique non-empty ids,
// one quality and one id per item. Errors name the file, the row or column
// and what was expected; an error caused by how the inputs were combined
// (a header column named on a headerless file, ids given twice) is a
// *UsageError, which the command line reports as a usage error.
//
// Conventions. VS_q is computed from the eigenvalues of the kernel (eq. 1),
// clipped at 0 and normalised to sum 1 (vendi.ScoreFromEigenvalues). For
// embeddings under the cosine or linear kernel the kernel is X X^T, whose
// non-zero eigenvalues are those of the d x d Gram X^T X: Spectrum
// decomposes the smaller of the two (SpectrumOrder says which). Cosine
// scales every row to unit Euclidean norm first (a zero row is refused);
// the linear kernel rescales the table by a power of two when its squares
// would overflow (vendi.Unoverflow), which changes no VS. A kernel with no
// positive eigenvalue has no VS (vendi.ErrNoPositiveEigenvalue).
package items
