package vendi

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/linalg"
)

// zeroTol is the threshold below which a normalised eigenvalue is treated as
// zero by VS_0 (see the package documentation).
const zeroTol = 1e-10

// ErrNoPositiveEigenvalue is returned (wrapped) when a kernel has no
// eigenvalue > 0: clipped at 0 its spectrum is all zeros, nothing can be
// normalised to sum 1, and VS_q is undefined for every q (a zero matrix, or
// a negative semidefinite one such as -I).
var ErrNoPositiveEigenvalue = errors.New("the kernel has no positive eigenvalue (a zero matrix?): VS is undefined")

// overflowScale is the magnitude beyond which kernel entries or embedding
// values make sums of products overflow float64 (MaxFloat64 ≈ 1.8e308:
// n·x² overflows for x above ~1e154 / sqrt(n)); 1e150 leaves room for
// n up to 10^8. VS is invariant to the kernel's scale, so such data
// should be divided by its largest value first.
const overflowScale = 1e150

// Unoverflow divides x (a kernel's entries, or embeddings under the linear
// or cosine kernel) by its largest |value| when that exceeds overflowScale,
// and returns the largest |value| of x as it is afterwards. VS_q and qVS_q
// are invariant to that scale, so the scores are the same, but products no
// longer overflow: diag(1e308) scored "no positive eigenvalue" and a
// 1e308 embedding row "every row is all zeros". Data below the
// threshold are left bit for bit.
func Unoverflow(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if !(m > overflowScale) || math.IsInf(m, 0) {
		return m
	}
	for i := range x {
		x[i] /= m
	}
	return 1
}

// ScoreFromEigenvalues returns VS_q of the spectrum eig (eigenvalues of a
// kernel matrix, any scale). Negative values are clipped to 0 and the rest
// normalised to sum 1. It returns 0 when no eigenvalue is positive.
func ScoreFromEigenvalues(eig []float64, q Order) float64 {
	var total float64
	for _, l := range eig {
		if l > 0 {
			total += l
		}
	}
	if total == 0 {
		return 0
	}
	return scoreFromSums(eig, total, q)
}

// scoreFromSums evaluates VS_q given the positive total of eig. Normalised
// eigenvalues at or below zeroTol count as zero for every q, so rounding noise
// of a rank-deficient kernel (≈1e-16, which raised to a small q is not small)
// never counts as diversity.
func scoreFromSums(eig []float64, total float64, q Order) float64 {
	thr := zeroTol * total
	var n int
	var s, m float64
	for _, l := range eig {
		if l <= thr {
			continue
		}
		n++
		m = math.Max(m, l)
		s += q.Term(l / total)
	}
	return q.FromSum(s, m/total, n)
}

// symEigenvalues is the dense symmetric eigensolver every spectrum here
// uses; a test replaces it to prove that cheap checks come first.
var symEigenvalues = linalg.SymEigenvalues

// Eigenvalues returns the eigenvalues of the symmetric matrix K in ascending order.
func Eigenvalues(K mat.Symmetric) ([]float64, error) {
	n := K.SymmetricDim()
	if n == 0 {
		return nil, nil
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a[i*n+j] = K.At(i, j)
		}
	}
	w := make([]float64, n)
	if !symEigenvalues(n, a, w) {
		return nil, errors.New("vendi: eigendecomposition did not converge")
	}
	return w, nil
}

// EigenvaluesInPlace is Eigenvalues without the copy: K's upper triangle is
// decomposed where it lies and destroyed (its values are unspecified
// afterwards). For a caller that needs only the spectrum of a large kernel.
func EigenvaluesInPlace(K *mat.SymDense) ([]float64, error) {
	n := K.SymmetricDim()
	if n == 0 {
		return nil, nil
	}
	raw := K.RawSymmetric()
	if raw.Stride != n || raw.Uplo != blas.Upper {
		return Eigenvalues(K)
	}
	w := make([]float64, n)
	if !symEigenvalues(n, raw.Data[:n*n], w) {
		return nil, errors.New("vendi: eigendecomposition did not converge")
	}
	return w, nil
}

// Score returns VS_q of the kernel matrix K (see the package conventions).
// K must be finite; an empty K scores 0. Every order, q = 2 included, uses
// the clipped spectrum: K may be indefinite (a symmetrised kNN graph), and
// the closed form (tr K)²/‖K‖²_F would then count the negative eigenvalues
// ([[1, 1.5], [1.5, 1]] would give VS_2 = 0.615 < VS_∞ = 1).
func Score(K mat.Symmetric, q Order) (float64, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	n := K.SymmetricDim()
	if n == 0 {
		return 0, nil
	}
	if err := checkFinite(K); err != nil {
		return 0, err
	}
	if has, known := PositiveEigenvalueCheaply(DenseKernel(K)); known && !has {
		return 0, fmt.Errorf("vendi: %w", ErrNoPositiveEigenvalue)
	}
	eig, err := Eigenvalues(K)
	if err != nil {
		return 0, err
	}
	v := ScoreFromEigenvalues(eig, q)
	if v == 0 {
		return 0, fmt.Errorf("vendi: %w", ErrNoPositiveEigenvalue)
	}
	return v, nil
}

func checkFinite(K mat.Symmetric) error {
	n := K.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := K.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("vendi: kernel entry (%d, %d) = %v is not finite", i, j, v)
			}
		}
	}
	return nil
}

// checkQuality returns an error unless every quality is finite and >= 0.
func checkQuality(quality []float64) error {
	for i, s := range quality {
		if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
			return fmt.Errorf("quality of item %d is %v: qualities must be finite and >= 0", i, s)
		}
	}
	return nil
}

// MeanQuality is Σ s_i / n (0 for an empty slice).
func MeanQuality(quality []float64) float64 {
	if len(quality) == 0 {
		return 0
	}
	var s float64
	for _, v := range quality {
		s += v
	}
	return s / float64(len(quality))
}

// QualityWeighted returns qVS_q = mean(quality) × VS_q(K) (paper eq. 2).
func QualityWeighted(K mat.Symmetric, quality []float64, q Order) (float64, error) {
	if len(quality) != K.SymmetricDim() {
		return 0, fmt.Errorf("vendi: %d qualities for a %d x %d kernel", len(quality), K.SymmetricDim(), K.SymmetricDim())
	}
	if err := checkQuality(quality); err != nil {
		return 0, err
	}
	vs, err := Score(K, q)
	if err != nil {
		return 0, err
	}
	return MeanQuality(quality) * vs, nil
}

// Normalize returns the kernel with unit diagonal: K_ij / sqrt(K_ii K_jj).
// Every diagonal entry must be positive.
func Normalize(K mat.Symmetric) (*mat.SymDense, error) {
	n := K.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	out.CopySym(K)
	if err := checkNormalizable(out); err != nil {
		return nil, err
	}
	NormalizeInPlace(out)
	return out, nil
}

// checkNormalizable reports a diagonal entry that is not positive and
// finite (0-based index).
func checkNormalizable(K *mat.SymDense) error {
	for i := 0; i < K.SymmetricDim(); i++ {
		if v := K.At(i, i); !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("vendi: cannot normalise: diagonal entry %d is %v (must be positive)", i, v)
		}
	}
	return nil
}

// NormalizeInPlace is Normalize writing into K itself, whose diagonal the
// caller has checked (positive and finite).
func NormalizeInPlace(K *mat.SymDense) {
	n := K.SymmetricDim()
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Sqrt(K.At(i, i))
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, K.At(i, j)/(d[i]*d[j]))
		}
	}
}

// weightedScore returns VS_q with probability weights p on the items: the
// eigenvalues are those of diag(√p) K diag(√p) (vendi_score's `p`). p must be
// finite, >= 0 and not all zero; it is normalised to sum 1. Uniform p gives
// Score(K, q) for a unit-diagonal K.
func weightedScore(K mat.Symmetric, p []float64, q Order) (float64, error) {
	n := K.SymmetricDim()
	if len(p) != n {
		return 0, fmt.Errorf("vendi: %d weights for a %d x %d kernel", len(p), n, n)
	}
	var sum float64
	for i, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("vendi: weight %d is %v: weights must be finite and >= 0", i, v)
		}
		sum += v
	}
	if sum == 0 {
		return 0, errors.New("vendi: weights are all zero")
	}
	s := make([]float64, n)
	for i, v := range p {
		s[i] = math.Sqrt(v / sum)
	}
	W := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			W.SetSym(i, j, s[i]*K.At(i, j)*s[j])
		}
	}
	return Score(W, q)
}

// ScoreSamples returns VS_q of samples under the similarity function k
// (k(x, x) should be 1).
func ScoreSamples[T any](xs []T, k func(a, b T) float64, q Order) (float64, error) {
	return Score(SampleKernel(xs, k), q)
}

// SampleKernel builds the kernel matrix of samples under k.
func SampleKernel[T any](xs []T, k func(a, b T) float64) *mat.SymDense {
	n := len(xs)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, k(xs[i], xs[j]))
		}
	}
	return K
}

// EmbeddingKernel selects the kernel used on embeddings.
type EmbeddingKernel int

const (
	// Cosine: rows are scaled to unit norm, K = X Xᵀ (unit diagonal). Default.
	Cosine EmbeddingKernel = iota
	// Linear: K = X Xᵀ as given (normalised by its trace).
	Linear
)

// scoreEmbeddings returns VS_q of the rows of X (n x d) under the cosine (or
// linear) kernel. The nonzero eigenvalues of X Xᵀ equal those of Xᵀ X, so the
// d x d matrix is used when d < n: O(n d² + d³) instead of O(n³), and no
// n x n kernel is formed (EmbeddingSpectrum). The Gram matrix is PSD, so
// every order, q = 2 included, follows from its eigenvalues.
func scoreEmbeddings(X mat.Matrix, kernel EmbeddingKernel, q Order) (float64, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	n, d := X.Dims()
	if n == 0 {
		return 0, nil
	}
	var data []float64
	if D, ok := X.(*mat.Dense); ok && D.RawMatrix().Stride == d {
		data = D.RawMatrix().Data[:n*d]
	} else {
		data = mat.DenseCopyOf(X).RawMatrix().Data
	}
	eig, err := EmbeddingSpectrum(n, d, data, kernel)
	if err != nil {
		return 0, err
	}
	if v := ScoreFromEigenvalues(eig, q); v > 0 {
		return v, nil
	}
	return 0, errors.New("vendi: embeddings are all zero")
}
