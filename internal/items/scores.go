package items

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/linalg"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// NoticeOrder and NoticeOrderLAPACK are the orders from which a dense
// eigendecomposition is worth announcing (DenseEigNotice), with the
// pure-Go backend and with LAPACK in use (variables so tests can lower
// them): `score --embedding-kernel rbf` on 5,000 x 16 embeddings took 12-29
// s in pure Go with nothing printed, 2,000 x 16 takes 1.4 s; with LAPACK
// order 2,048 takes 0.2 s and 5,000 about 3 s.
var (
	NoticeOrder       = 2000
	NoticeOrderLAPACK = 5000
)

// NoticeOrders is "2000 (5000 with OpenBLAS)", for help texts.
var NoticeOrders = fmt.Sprintf("%d (%d with OpenBLAS)", NoticeOrder, NoticeOrderLAPACK)

// DenseEigNotice reports whether a dense eigendecomposition of the given
// order takes long enough to say so first: order at least the threshold
// of the backend in use (an openblas build whose libraries are missing
// runs in pure Go; asked only when a notice may be due, as asking opens
// them).
func DenseEigNotice(order int) bool {
	if order < min(NoticeOrder, NoticeOrderLAPACK) {
		return false
	}
	limit := NoticeOrder
	if linalg.Backend == "openblas" && linalg.InUse() == "openblas" {
		limit = NoticeOrderLAPACK
	}
	return order >= limit
}

// Announce is called just before a dense eigendecomposition of the given
// order; what says what is decomposed ("the 3 x 3 kernel"). nil: nothing.
type Announce func(order int, what string)

func (a Announce) call(order int, what string) {
	if a != nil {
		a(order, what)
	}
}

// Kernel is the items' kernel for the greedy: the matrix, the RBF kernel,
// or the cosine / linear kernel of the embeddings (row dot products) as a
// vendi.FeatureKernel, so the greedy works in the d x d dual. Items read
// with Spec.RawNPY have no Kernel (nil).
func (in *Items) Kernel() vendi.Kernel {
	switch {
	case in.kernel != nil:
		return vendi.DenseKernel(in.kernel)
	case in.rbf != nil:
		return in.rbf
	case in.embeddings != nil:
		return vendi.FeatureMatrix{X: in.embeddings}
	}
	return nil
}

// LengthScale is the RBF kernel's length scale, ok false for other kernels.
func (in *Items) LengthScale() (l float64, ok bool) {
	if in.rbf == nil {
		return 0, false
	}
	return in.rbf.LengthScale, true
}

// UndefinedError is the error for items whose kernel has no positive
// eigenvalue (VS undefined, vendi.ErrNoPositiveEigenvalue). Embeddings get
// there only as all-zero rows under the linear kernel (cosine refuses a
// zero row, rbf has a unit diagonal).
func (in *Items) UndefinedError() error {
	if in.kernel == nil {
		return fmt.Errorf("%s: every row is all zeros: the linear kernel is the zero matrix and VS is undefined", in.path)
	}
	return fmt.Errorf("%s: %w", in.path, vendi.ErrNoPositiveEigenvalue)
}

// SpectrumOrder is the order of the matrix Spectrum eigendecomposes and
// what it is: the n x n kernel or rbf matrix, or the min(n, d) Gram of the
// embeddings.
func (in *Items) SpectrumOrder() (int, string) {
	switch {
	case in.kernel != nil:
		return in.N, fmt.Sprintf("the %d x %d kernel", in.N, in.N)
	case in.rbf != nil:
		return in.N, fmt.Sprintf("the %d x %d rbf kernel", in.N, in.N)
	case in.emb32 != nil || in.emb64 != nil:
		m := min(in.N, in.dim)
		return m, fmt.Sprintf("the %d x %d Gram matrix of the embeddings", m, m)
	}
	r := in.embeddings.RawMatrix()
	m := min(r.Rows, r.Cols)
	return m, fmt.Sprintf("the %d x %d Gram matrix of the embeddings", m, m)
}

// undefinedCheaply reports items whose VS O(n²) reads show undefined (no
// positive eigenvalue: a zero kernel, all-zero embeddings under the linear
// kernel), so Scores refuses them before the eigendecomposition.
func (in *Items) undefinedCheaply() bool {
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
// when d < n. It consumes the items' kernel or raw embeddings (decomposed
// or scaled in place): Scores is the items' last use.
func (in *Items) spectrum() ([]float64, error) {
	var eig []float64
	var err error
	switch {
	case in.kernel != nil:
		eig, err = vendi.EigenvaluesInPlace(in.kernel)
	case in.rbf != nil:
		eig, err = vendi.Eigenvalues(in.rbf.Matrix())
	case in.emb32 != nil || in.emb64 != nil:
		kernel := vendi.Linear
		if in.rawCosine {
			kernel = vendi.Cosine
		}
		// Scaled in place (the rows are unit-norm afterwards, so Linear
		// from then on).
		if in.emb32 != nil {
			eig, err = vendi.EmbeddingSpectrum32InPlace(in.N, in.dim, in.emb32, kernel)
		} else {
			eig, err = vendi.EmbeddingSpectrumInPlace(in.N, in.dim, in.emb64, kernel)
		}
		in.rawCosine = false
	default:
		// Rows are already unit-norm for cosine; Linear keeps them as they are.
		r := in.embeddings.RawMatrix()
		eig, err = vendi.EmbeddingSpectrum(r.Rows, r.Cols, r.Data, vendi.Linear)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.path, err)
	}
	return eig, nil
}

// Score is VS_q of a set of items for one order (eq. 1) and, when the
// items have qualities, qVS_q = mean quality x VS_q (eq. 2); QVS is nil
// without qualities.
type Score struct {
	Q   vendi.Order
	VS  float64
	QVS *float64
}

// scoresOf computes the Scores of every order from the eigenvalues eig of
// the kernel of the items with the given qualities (nil: none); undefined
// is the error for a kernel without a positive eigenvalue.
func scoresOf(eig []float64, orders vendi.Orders, quality []float64, undefined func() error) ([]Score, error) {
	out := make([]Score, 0, len(orders))
	for _, q := range orders {
		vs := vendi.ScoreFromEigenvalues(eig, q)
		if vs == 0 {
			return nil, undefined()
		}
		s := Score{Q: q, VS: vs}
		if quality != nil {
			v := vendi.MeanQuality(quality) * vs
			s.QVS = &v
		}
		out = append(out, s)
	}
	return out, nil
}

// Scores returns VS_q (and qVS_q) of all the items for every order, from
// one eigendecomposition (announced first). It decomposes the items'
// kernel or raw embeddings in place: call it last. Items whose kernel has
// no positive eigenvalue are refused (UndefinedError), when possible
// before the decomposition.
func (in *Items) Scores(orders vendi.Orders, announce Announce) ([]Score, error) {
	if in.undefinedCheaply() {
		return nil, in.UndefinedError()
	}
	order, what := in.SpectrumOrder()
	announce.call(order, what)
	eig, err := in.spectrum()
	if err != nil {
		return nil, err
	}
	return scoresOf(eig, orders, in.Quality, in.UndefinedError)
}

// Group are the scores of one group of items (Spec.GroupColumn).
type Group struct {
	Name   string
	N      int
	Scores []Score
}

// GroupScores returns, for each group of the items (in order of first
// appearance), VS_q (and qVS_q) of its items under the kernel of all the
// items: one RBF length scale for every group. Scoring each group's file
// alone would take each group's own median distance as the length scale,
// which rescales every group to the same typical similarity and hides how
// spread out the groups are compared with each other. Each group's kernel
// is decomposed once, announced first. An empty group name is an error
// naming its line.
func (in *Items) GroupScores(orders vendi.Orders, announce Announce) ([]Group, error) {
	var names []string
	members := map[string][]int{}
	for i, grp := range in.Groups {
		if grp == "" {
			return nil, fileio.LineErrorf(in.path, i+2, "the group column %q is empty", in.groupColumn)
		}
		if _, ok := members[grp]; !ok {
			names = append(names, grp)
		}
		members[grp] = append(members[grp], i)
	}
	k := in.Kernel()
	out := make([]Group, 0, len(names))
	for _, name := range names {
		idx := members[name]
		announce.call(len(idx), fmt.Sprintf("the %d x %d kernel of group %s", len(idx), len(idx), name))
		eig, err := vendi.EigenvaluesInPlace(vendi.Submatrix(k, idx))
		if err != nil {
			return nil, fmt.Errorf("%s: group %s: %w", in.path, name, err)
		}
		var quality []float64
		if in.Quality != nil {
			quality = make([]float64, len(idx))
			for t, i := range idx {
				quality[t] = in.Quality[i]
			}
		}
		scores, err := scoresOf(eig, orders, quality, func() error {
			return fmt.Errorf("%s: group %s: every row is all zeros: the linear kernel is the zero matrix and VS is undefined", in.path, name)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, Group{Name: name, N: len(idx), Scores: scores})
	}
	return out, nil
}

// Select picks k items greedily maximising qVS_q of the prefix plus the
// picks (eq. 5, vendi.Greedy), every item of quality 1 when the items have
// none; workers bounds the goroutines. A kernel without a positive
// eigenvalue is refused first (every set would score 0). Before the greedy
// eigendecomposes chosen sets of order up to len(prefix) + k, announce is
// called with that order (not for embeddings under the cosine or linear
// kernel, whose greedy works in the d x d dual). The caller checks k and
// the prefix against N.
func (in *Items) Select(k int, q vendi.Order, prefix []int, workers int, announce func(order int)) (vendi.GreedyResult, error) {
	quality := in.Quality
	if quality == nil {
		quality = make([]float64, in.N)
		for i := range quality {
			quality[i] = 1
		}
	}
	kernel := in.Kernel()
	if ok, err := vendi.HasPositiveEigenvalue(kernel); err != nil {
		return vendi.GreedyResult{}, fmt.Errorf("%s: %w", in.path, err)
	} else if !ok {
		return vendi.GreedyResult{}, in.UndefinedError()
	}
	if _, dual := kernel.(vendi.FeatureKernel); !dual && announce != nil {
		announce(len(prefix) + k)
	}
	return vendi.Greedy(vendi.GreedyProblem{
		Kernel: kernel, Quality: quality, Prefix: prefix, K: k, Q: q, Workers: workers,
		// Embeddings give a Gram matrix (PSD): q = 2 may use the closed form.
		// A kernel file may be indefinite: every order clips its spectrum.
		KnownPSD: in.embeddings != nil,
	})
}
