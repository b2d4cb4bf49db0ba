package surrogate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/parallel"
)

// Hyper are the fitted GP hyperparameters: f ~ GP(Mean, SignalVar·k),
// observed with Gaussian noise of variance NoiseVar, in standardised-target
// units (z = (y - YMean)/YScale, larger is better), and the kernel's length
// scale (0 for Tanimoto and MinMax, which have none).
type Hyper struct {
	Mean, SignalVar, NoiseVar float64
	LengthScale               float64
	LogML                     float64 // log marginal likelihood of the fitting subset's targets at these values
}

// Forms of the posterior.
const (
	formExact = "exact" // conditioned on every label
	formDTC   = "dtc"   // deterministic training conditional on inducing labels
)

// Defaults of the fit, measured on 50k-item Tanimoto pools (see doc.go).
const (
	// defaultMaxExact is the largest number of labels the posterior
	// conditions on exactly; beyond it the DTC form with defaultInducing
	// inducing labels is used. Exact to 3,000 instead of 1,000 finds more
	// hits on Enamine 50k (docs/results.md) for a round of ~9 CPU s at
	// 2,485 labels (the sd's bound and blocked solve: see shortlist).
	defaultMaxExact = 3000
	// defaultInducing is the number of inducing labels of the DTC form.
	defaultInducing = 600
	// defaultFitSubset bounds the labels the hyperparameters are fitted
	// on (a random subset beyond it): an eigendecomposition of the subset's
	// kernel gives the likelihood at every noise ratio in O(n).
	defaultFitSubset = 600
)

// Bounds of the marginal-likelihood search (standardised targets, unit
// diagonal kernels), as internal/bayesopt/discrete's FitGP.
const (
	signalVarMin  = 1e-3
	signalVarMax  = 1e3
	noiseRatioMin = 1e-6 // σ²/s²
	noiseRatioMax = 1e2
	noiseGrid     = 33
	goldenIters   = 40
	// jitter is added to the inducing block K_UU of the DTC form (its
	// Cholesky factor; labels with identical fingerprints make it singular).
	jitter = 1e-8
)

// lengthFactors are the multiples of the median pairwise distance tried as
// length scales of RBF and Matern-5/2 (the one of highest marginal
// likelihood is kept).
var lengthFactors = []float64{0.125, 0.25, 0.5, 1, 2, 4}

// Model is a GP fitted to the scores of some pool items, with the pool's
// kernel: its posterior at any item of the pool.
//
// Posterior (latent f, standardised units, r = NoiseVar/SignalVar):
//
//	exact: mu_x = m + k_xDᵀ (K_DD + rI)⁻¹ (z - m),
//	       var_x = s² (1 - k_xDᵀ (K_DD + rI)⁻¹ k_xD)
//	DTC:   mu_x = m + k_xUᵀ (r K_UU + K_UD K_DU)⁻¹ K_UD (z - m),
//	       var_x = s² (1 - k_xUᵀ K_UU⁻¹ k_xU + r k_xUᵀ (r K_UU + K_UD K_DU)⁻¹ k_xU)
//
// with D the labels and U ⊂ D the inducing labels (Quiñonero-Candela and
// Rasmussen 2005, eq. 20-21, in units of s²).
type Model struct {
	Hyper  Hyper
	Form   string
	YMean  float64
	YScale float64
	Active []int // the items k_x is computed against (D exact, U for DTC)

	kern    featureKernel
	w       []float64         // mu_x = m + k_xAᵀ w
	l1      blas64.Triangular // exact: chol(K_DD + rI); DTC: chol(K_UU + jitter)
	l2      blas64.Triangular // DTC: chol(r K_UU + K_UD K_DU)
	ratio   float64
	workers int
	// activeBits: the active items' fingerprints gathered (Tanimoto
	// only), for tanimotoKernel.fillBlock
	activeBits *tanimotoKernel
	// known: posteriors already computed (remember), returned by Predict
	// without recomputing when every item asked for is known
	known map[int][2]float64
}

// remember keeps the posterior mean and sd of items (as Predict computed
// them) for later Predict calls: an item's values do not depend on the
// items predicted with it, so they are the values Predict would return.
func (m *Model) remember(items []int, mu, sd []float64) {
	if m.known == nil {
		m.known = make(map[int][2]float64, len(items))
	}
	for t, i := range items {
		m.known[i] = [2]float64{mu[t], sd[t]}
	}
}

// fitOptions are the sizes of the fit.
type fitOptions struct {
	maxExact, inducing, fitSubset int
	seed                          uint64
	workers                       int
}

// fit fits the model to values y (larger is better, finite) of items obs.
func fit(ctx context.Context, kern featureKernel, obs []int, y []float64, o fitOptions) (*Model, error) {
	if len(obs) == 0 {
		return nil, errors.New("surrogate: the GP needs at least one scored item")
	}
	z, ym, ys := bayesopt.Standardize(y)
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	// Hyperparameters on a random subset of at most fitSubset labels.
	sub := make([]int, len(obs))
	for i := range sub {
		sub[i] = i
	}
	if len(sub) > o.fitSubset {
		rng.Shuffle(len(sub), func(a, b int) { sub[a], sub[b] = sub[b], sub[a] })
		sub = sub[:o.fitSubset]
		sort.Ints(sub)
	}
	fitItems := make([]int, len(sub))
	fitZ := make([]float64, len(sub))
	for a, t := range sub {
		fitItems[a], fitZ[a] = obs[t], z[t]
	}
	scales := []float64{0}
	if st, ok := kern.(stationaryKernel); ok {
		med := st.medianDistance(fitItems)
		scales = scales[:0]
		for _, f := range lengthFactors {
			scales = append(scales, f*med)
		}
	}
	best := Hyper{LogML: math.Inf(-1)}
	for _, ell := range scales {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := kern.WithLengthScale(ell)
		h, err := fitHyper(gram(k, fitItems, o.workers), fitZ)
		if err != nil {
			continue
		}
		h.LengthScale = ell
		if h.LogML > best.LogML {
			best = h
		}
	}
	if math.IsInf(best.LogML, -1) {
		return nil, errors.New("surrogate: GP fit failed: no hyperparameters give a positive definite kernel block")
	}
	kern = kern.WithLengthScale(best.LengthScale)
	m := &Model{Hyper: best, YMean: ym, YScale: ys, kern: kern, ratio: best.NoiseVar / best.SignalVar, workers: o.workers}
	if len(obs) <= o.maxExact {
		return m, m.conditionExact(obs, z)
	}
	return m, m.conditionDTC(obs, z, inducingSet(y, o.inducing, rng))
}

// inducingSet picks the inducing labels of the DTC form: the best-scored
// half (the region the acquisition ranks) and a uniformly random half of
// the rest (coverage of the library), as positions in y.
func inducingSet(y []float64, m int, rng *rand.Rand) []int {
	order := make([]int, len(y))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return y[order[a]] > y[order[b]] })
	top := m / 2
	out := append([]int(nil), order[:top]...)
	rest := order[top:]
	rng.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	out = append(out, rest[:m-top]...)
	sort.Ints(out)
	return out
}

// gram is the kernel matrix of items (row-major, n x n, symmetric).
func gram(k featureKernel, items []int, workers int) []float64 {
	n := len(items)
	g := make([]float64, n*n)
	tk, tiled := k.(*tanimotoKernel)
	var cols *tanimotoKernel
	if tiled {
		cols = tk.gather(items)
	}
	parallel.Blocks(n, 16, workers, func(_, lo, hi int) {
		if tiled {
			tk.fillBlock(items[lo:hi], cols, g[lo*n:hi*n])
			return
		}
		for a := lo; a < hi; a++ {
			k.Fill(items[a], items, g[a*n:(a+1)*n])
		}
	})
	// exact symmetry (Fill computes both triangles with the same formula,
	// but keep the lower one equal to the upper by construction)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			g[b*n+a] = g[a*n+b]
		}
	}
	return g
}

// fitHyper maximises the marginal likelihood of z under GP(m, s² K) with
// noise r s² over (m, s², r): m and s² in closed form for each r (GLS
// mean, s² = Q/n clamped to its box), r by a log grid on [1e-6, 1e2] and a
// golden-section refinement. One eigendecomposition K = V Λ Vᵀ gives every
// r's likelihood in O(n): with ẑ = Vᵀz, 1̂ = Vᵀ1,
//
//	m(r) = Σ ẑ_i 1̂_i/(λ_i + r) / Σ 1̂_i²/(λ_i + r)
//	Q(r) = Σ (ẑ_i - m 1̂_i)²/(λ_i + r)
//	log p = -½ (Q/s² + n log s² + Σ log(s²... )) (see profile)
func fitHyper(K []float64, z []float64) (Hyper, error) {
	n := len(z)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, K), true) {
		return Hyper{}, errors.New("surrogate: eigendecomposition failed")
	}
	lam := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	zh := make([]float64, n)
	oh := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := V.At(j, i)
			zh[i] += v * z[j]
			oh[i] += v
		}
		lam[i] = math.Max(lam[i], 0) // PSD kernels: round-off below 0
	}
	p := func(logr float64) (ll, m, s2 float64) { return profile(lam, zh, oh, math.Exp(logr)) }
	lo, hi := math.Log(noiseRatioMin), math.Log(noiseRatioMax)
	step := (hi - lo) / (noiseGrid - 1)
	bestK, bestLL := -1, math.Inf(-1)
	for k := 0; k < noiseGrid; k++ {
		if ll, _, _ := p(lo + float64(k)*step); ll > bestLL {
			bestK, bestLL = k, ll
		}
	}
	if bestK < 0 {
		return Hyper{}, errors.New("surrogate: marginal likelihood is not finite")
	}
	a := lo + float64(max(bestK-1, 0))*step
	b := lo + float64(min(bestK+1, noiseGrid-1))*step
	const phi = 0.6180339887498949
	c, d := b-phi*(b-a), a+phi*(b-a)
	fc, _, _ := p(c)
	fd, _, _ := p(d)
	for it := 0; it < goldenIters; it++ {
		if fc >= fd {
			b, d, fd = d, c, fc
			c = b - phi*(b-a)
			fc, _, _ = p(c)
		} else {
			a, c, fc = c, d, fd
			d = a + phi*(b-a)
			fd, _, _ = p(d)
		}
	}
	t := lo + float64(bestK)*step
	for _, cand := range []float64{c, d} {
		if ll, _, _ := p(cand); ll > bestLL {
			t, bestLL = cand, ll
		}
	}
	ll, m, s2 := p(t)
	r := math.Exp(t)
	return Hyper{Mean: m, SignalVar: s2, NoiseVar: r * s2, LogML: ll}, nil
}

// profile is the log marginal likelihood maximised over m and s² at noise
// ratio r, from the eigendecomposition of K (see fitHyper):
// log p = -½ (Q/s² + n log s² + Σ log(λ_i + r) + n log 2π).
func profile(lam, zh, oh []float64, r float64) (ll, m, s2 float64) {
	n := len(lam)
	var zu, ou, logdet float64
	for i := range lam {
		d := lam[i] + r
		zu += zh[i] * oh[i] / d
		ou += oh[i] * oh[i] / d
		logdet += math.Log(d)
	}
	m = zu / ou
	var Q float64
	for i := range lam {
		e := zh[i] - m*oh[i]
		Q += e * e / (lam[i] + r)
	}
	s2 = math.Min(math.Max(Q/float64(n), signalVarMin), signalVarMax)
	ll = -0.5 * (Q/s2 + float64(n)*math.Log(s2) + logdet + float64(n)*math.Log(2*math.Pi))
	return ll, m, s2
}

// logMarginalLikelihood is log N(z; m1, s²(K + rI)) of targets z
// (standardised) of items under kernel K (row-major), computed directly by
// a Cholesky factorisation: the quantity fitHyper maximises.
func logMarginalLikelihood(K []float64, z []float64, h Hyper) (float64, error) {
	n := len(z)
	A := mat.NewSymDense(n, nil)
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			v := h.SignalVar * K[a*n+b]
			if a == b {
				v += h.NoiseVar
			}
			A.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		return 0, errors.New("surrogate: covariance not positive definite")
	}
	e := make([]float64, n)
	for i := range e {
		e[i] = z[i] - h.Mean
	}
	var u mat.VecDense
	if err := ch.SolveVecTo(&u, mat.NewVecDense(n, e)); err != nil {
		return 0, err
	}
	var Q float64
	for i := range e {
		Q += e[i] * u.AtVec(i)
	}
	return -0.5 * (Q + ch.LogDet() + float64(n)*math.Log(2*math.Pi)), nil
}

// cholesky factorises the row-major symmetric n x n matrix a in place
// (lower triangle) and returns it as a blas64.Triangular.
func cholesky(a []float64, n int) (blas64.Triangular, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, a)) {
		return blas64.Triangular{}, false
	}
	var L mat.TriDense
	ch.LTo(&L)
	return L.RawTriangular(), true
}

// conditionExact conditions on every label: L = chol(K_DD + rI), w = (K_DD
// + rI)⁻¹ (z - m).
func (m *Model) conditionExact(obs []int, z []float64) error {
	n := len(obs)
	K := gram(m.kern, obs, m.workers)
	for i := 0; i < n; i++ {
		K[i*n+i] += m.ratio
	}
	L, ok := cholesky(K, n)
	if !ok {
		return fmt.Errorf("surrogate: K_DD + %g I is not positive definite", m.ratio)
	}
	m.Form, m.Active, m.l1 = formExact, append([]int(nil), obs...), L
	m.gatherActive()
	w := make([]float64, n)
	for i := range w {
		w[i] = z[i] - m.Hyper.Mean
	}
	m.w = cholSolve(L, w)
	return nil
}

// conditionDTC conditions on every label through the inducing labels
// inducing (positions in obs): see Model.
func (m *Model) conditionDTC(obs []int, z []float64, inducing []int) error {
	M, n := len(inducing), len(obs)
	U := make([]int, M)
	for a, t := range inducing {
		U[a] = obs[t]
	}
	Kuu := gram(m.kern, U, m.workers)
	// K_UD, M x n, row-major
	Kud := make([]float64, M*n)
	parallel.Blocks(M, 8, m.workers, func(_, lo, hi int) {
		for a := lo; a < hi; a++ {
			m.kern.Fill(U[a], obs, Kud[a*n:(a+1)*n])
		}
	})
	// B = r K_UU + K_UD K_DU
	B := make([]float64, M*M)
	for i := range B {
		B[i] = m.ratio * Kuu[i]
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: M, Cols: n, Stride: n, Data: Kud},
		blas64.General{Rows: M, Cols: n, Stride: n, Data: Kud}, 1, blas64.General{Rows: M, Cols: M, Stride: M, Data: B})
	for a := 0; a < M; a++ {
		Kuu[a*M+a] += jitter
		B[a*M+a] += jitter * m.ratio
		for b := a + 1; b < M; b++ { // exact symmetry for the factorisation
			B[b*M+a] = B[a*M+b]
		}
	}
	L1, ok := cholesky(Kuu, M)
	if !ok {
		return errors.New("surrogate: the inducing block K_UU is not positive definite")
	}
	L2, ok := cholesky(B, M)
	if !ok {
		return errors.New("surrogate: r K_UU + K_UD K_DU is not positive definite")
	}
	e := make([]float64, n)
	for i := range e {
		e[i] = z[i] - m.Hyper.Mean
	}
	v := make([]float64, M)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: M, Cols: n, Stride: n, Data: Kud}, blas64.Vector{N: n, Inc: 1, Data: e}, 0, blas64.Vector{N: M, Inc: 1, Data: v})
	m.Form, m.Active, m.l1, m.l2 = formDTC, U, L1, L2
	m.gatherActive()
	m.w = cholSolve(L2, v)
	return nil
}

// gatherActive copies the active items' fingerprints into one block
// (Tanimoto kernel only; Predict then fills kernel rows by tiles).
func (m *Model) gatherActive() {
	if tk, ok := m.kern.(*tanimotoKernel); ok {
		m.activeBits = tk.gather(m.Active)
	}
}

// cholSolve returns (L Lᵀ)⁻¹ b (b is overwritten).
func cholSolve(L blas64.Triangular, b []float64) []float64 {
	v := blas64.Vector{N: len(b), Inc: 1, Data: b}
	blas64.Trsv(blas.NoTrans, L, v)
	blas64.Trsv(blas.Trans, L, v)
	return b
}

// predictBlock is the number of items whose kernel rows are computed and
// solved together.
const predictBlock = 128

// Predict sets mu[t] and (when sd is non-nil) sd[t] to the posterior mean
// and standard deviation of the latent f at items[t], in standardised
// units (see Model): YMean + YScale·mu and YScale·sd are in the targets'
// units.
func (m *Model) Predict(items []int, mu, sd []float64) {
	if sd != nil && len(m.known) > 0 {
		all := true
		for _, i := range items {
			if _, ok := m.known[i]; !ok {
				all = false
				break
			}
		}
		if all {
			for t, i := range items {
				mu[t], sd[t] = m.known[i][0], m.known[i][1]
			}
			return
		}
	}
	m.predict(items, mu, sd, nil)
}

// predictBound sets mu[t] to the posterior mean at items[t], as Predict,
// and ub[t] to an upper bound of its posterior sd (sdBound) from the same
// kernel row, without the triangular solve the sd itself costs.
func (m *Model) predictBound(items []int, mu, ub []float64) { m.predict(items, mu, nil, ub) }

func (m *Model) predict(items []int, mu, sd, ub []float64) {
	M := len(m.Active)
	tk, tiled := m.kern.(*tanimotoKernel)
	tiled = tiled && m.activeBits != nil
	buf := make([][]float64, m.workers)
	parallel.Blocks(len(items), predictBlock, m.workers, func(w, lo, hi int) {
		nb := hi - lo
		if len(buf[w]) < nb*M {
			buf[w] = make([]float64, predictBlock*M)
		}
		kx := buf[w][:nb*M]
		if tiled {
			tk.fillBlock(items[lo:hi], m.activeBits, kx)
		}
		var nearest []int
		for t := lo; t < hi; t++ {
			row := kx[(t-lo)*M : (t-lo+1)*M]
			if !tiled {
				m.kern.Fill(items[t], m.Active, row)
			}
			var s float64
			for a, v := range row {
				s += v * m.w[a]
			}
			mu[t] = m.Hyper.Mean + s
			if ub != nil {
				nearest = m.nearestLabels(row, nearest)
				ub[t] = m.sdBound(row, nearest)
			}
		}
		if sd == nil {
			return
		}
		var k2 []float64
		if m.Form == formDTC {
			k2 = append([]float64(nil), kx...)
		}
		// rows of kx L⁻ᵀ are (L⁻¹ k_x)ᵀ
		solveRowsLT(m.l1, kx, nb)
		if k2 != nil {
			solveRowsLT(m.l2, k2, nb)
		}
		for t := 0; t < nb; t++ {
			v := 1 - sumSq(kx[t*M:(t+1)*M])
			if k2 != nil {
				v += m.ratio * sumSq(k2[t*M:(t+1)*M])
			}
			sd[lo+t] = math.Sqrt(math.Max(m.Hyper.SignalVar*v, 0))
		}
	})
}

// solveBlock is the column block of solveRowsLT, gemmInner the slices of
// its updates (gonum's Dgemm block size).
const (
	solveBlock = 256
	gemmInner  = 64
)

// solveRowsLT overwrites the rows x of b (rows x L.N, row-major, stride
// L.N) with the solutions of X Lᵀ = B (row t: L⁻¹ b_t) for lower
// triangular L, by blocks of solveBlock columns: X_J = (B_J - X_<J
// L_J,<Jᵀ) L_JJ⁻ᵀ, the update a matrix product. It is blas64.Trsm(Right,
// Trans) reordered so that each block of L is read once for all rows
// instead of once a row (the unblocked solve streams all of L from memory
// for every row: 3-4x slower at 3,000 labels); the result agrees with it
// to rounding, and each row's result is the same whichever rows are
// solved with it (shortlist relies on it: an item's sd is the same in
// every chunk).
func solveRowsLT(L blas64.Triangular, b []float64, rows int) {
	n := L.N
	for j0 := 0; j0 < n; j0 += solveBlock {
		j1 := min(j0+solveBlock, n)
		// the update by slices of at most gemmInner columns: each Gemm
		// call then adds one dot product per entry whichever of its serial
		// or parallel paths it takes (its parallel path slices by 64, its
		// serial one does not, and it chooses by the number of rows), so
		// a row's result does not depend on the rows solved with it
		for k0 := 0; k0 < j0; k0 += gemmInner {
			k1 := min(k0+gemmInner, j0)
			blas64.Gemm(blas.NoTrans, blas.Trans, -1,
				blas64.General{Rows: rows, Cols: k1 - k0, Stride: n, Data: b[k0:]},
				blas64.General{Rows: j1 - j0, Cols: k1 - k0, Stride: L.Stride, Data: L.Data[j0*L.Stride+k0:]},
				1, blas64.General{Rows: rows, Cols: j1 - j0, Stride: n, Data: b[j0:]})
		}
		blas64.Trsm(blas.Right, blas.Trans, 1,
			blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: j1 - j0, Stride: L.Stride, Data: L.Data[j0*L.Stride+j0:]},
			blas64.General{Rows: rows, Cols: j1 - j0, Stride: n, Data: b[j0:]})
	}
}

// boundLabels is the number of most similar labels sdBound conditions on
// (at most 8). At Enamine 50k's last round (2,485 labels, 1,988
// candidates) 1, 2, 4 and 8 labels left 3,780, 3,524, 3,268 and 3,012 sds
// to compute, for about the same CPU time of the shortlist: the bound's
// own cost grows with the labels (m kernel values and an m x m Cholesky
// an item).
var boundLabels = 4

// sdBoundSlack is added to the bound of the posterior variance (in units
// of s²) to cover the rounding of the exact sd: the triangular solve of
// Predict errs by far less at the condition numbers r >= 1e-6 allows.
const sdBoundSlack = 1e-6

// nearestLabels returns the positions in row (a kernel row against the
// active labels) of its boundLabels largest values, largest first (ties
// to the lowest position), reusing buf.
func (m *Model) nearestLabels(row []float64, buf []int) []int {
	if m.Form != formExact {
		return buf[:0]
	}
	top := buf[:0]
	for a, v := range row {
		if len(top) == boundLabels && v <= row[top[len(top)-1]] {
			continue
		}
		if len(top) < boundLabels {
			top = append(top, a)
		} else {
			top[len(top)-1] = a
		}
		for p := len(top) - 1; p > 0 && row[top[p-1]] < v; p-- {
			top[p-1], top[p] = top[p], top[p-1]
		}
	}
	return top
}

// sdBound is an upper bound of the exact form's posterior sd at an item
// with kernel row row against the labels, from its labels nearest
// (positions in row): the posterior variance given only those labels S,
//
//	s² (1 - k_Sᵀ (K_SS + rI)⁻¹ k_S),   for one label: s² (1 - k²/(1 + r)),
//
// plus sdBoundSlack·s². Proof: with the hyperparameters fixed, var(f_x |
// y_D) is the smallest mean squared error of an affine predictor of f_x
// from y_D (Gaussian: the conditional mean is that predictor), and
// predictors from y_S ⊂ y_D are among those, so var(f_x | y_D) <=
// var(f_x | y_S). The DTC form's bound is the prior sd s (its
// variance is at most s²).
func (m *Model) sdBound(row []float64, nearest []int) float64 {
	s2 := m.Hyper.SignalVar
	if m.Form != formExact || len(nearest) == 0 {
		return math.Sqrt(s2)
	}
	// Cholesky of K_SS + rI grown one label at a time, y = L⁻¹ k_S;
	// a label whose pivot is not positive (round-off) is left out, and
	// the bound given the labels kept still holds.
	var L [8][8]float64
	var y [8]float64
	var lab [8]int
	kept := 0
	v := 1.0
	var kc [8]float64
	var idx [8]int
	for _, a := range nearest[:min(len(nearest), 8)] {
		if kept > 0 {
			idx[kept-1] = m.Active[lab[kept-1]]
			m.kern.Fill(m.Active[a], idx[:kept], kc[:kept])
		}
		d := 1 + m.ratio
		yy := row[a]
		for b := 0; b < kept; b++ {
			l := kc[b]
			for c := 0; c < b; c++ {
				l -= L[kept][c] * L[b][c]
			}
			l /= L[b][b]
			L[kept][b] = l
			d -= l * l
			yy -= l * y[b]
		}
		if !(d > 0) {
			continue
		}
		L[kept][kept] = math.Sqrt(d)
		y[kept] = yy / L[kept][kept]
		v -= y[kept] * y[kept]
		lab[kept] = a
		kept++
	}
	return math.Sqrt(s2 * (math.Max(v, 0) + sdBoundSlack))
}

func sumSq(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}
