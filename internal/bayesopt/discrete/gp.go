package discrete

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// hyper are the GP hyperparameters, in standardised-target units.
type hyper struct {
	Mean      float64 // constant prior mean m
	SignalVar float64 // s²: the prior covariance is s² K
	NoiseVar  float64 // σ²: Gaussian observation noise variance
}

// Bounds of the marginal-likelihood search, relative to the mean diagonal
// k̄ of the kernel so that they do not depend on the kernel's scale. With
// standardised targets s² k̄ ≈ 1 is the natural value; the box is wide.
// The smallest noise ratio equals datasets.KernelPSDTol, the tolerance the
// loader accepts, so K_DD + r I is positive definite for every accepted
// kernel.
const (
	signalVarMin  = 1e-3 // s² k̄ >= 1e-3
	signalVarMax  = 1e3  // s² k̄ <= 1e3
	noiseRatioMin = 1e-6 // σ² / (s² k̄) >= 1e-6
	noiseRatioMax = 1e2  // σ² / (s² k̄) <= 1e2
	noiseGrid     = 33   // log-spaced ratios scanned before the golden-section refinement
	goldenIters   = 40   // refinement steps: the bracket shrinks by 0.618^40 ≈ 4e-9
)

// GP is a Gaussian process over a finite candidate set {0, ..., n-1} whose
// prior covariance is a precomputed kernel matrix: f ~ GP(m, s² K), observed
// with noise σ². It is the surrogate of Liu et al. 2024 with one
// precomputed kernel in place of their sum of four.
//
// Targets are standardised before fitting, z = (y - mean(y)) / sd(y) with
// the n-1 sample standard deviation, as the authors' normalize_y_values
// does (sd = 1 when fewer than two observations or all equal). Posterior
// means and standard deviations are of the latent f in these standardised
// units (no observation noise added, as botorch's posterior), which leaves
// UCB rankings unchanged: map back with YMean + YScale·mu, YScale·sd.
type GP struct {
	K      mat.Symmetric
	Obs    []int     // observed items
	Z      []float64 // standardised targets of Obs
	YMean  float64
	YScale float64
	Hyper  hyper
	LogML  float64 // log marginal likelihood of Z at Hyper

	chol  mat.Cholesky  // of K_DD + (σ²/s²) I
	resid *mat.VecDense // (K_DD + r I)^-1 (z - m)
}

// NewGP conditions the GP with fixed hyperparameters h (standardised units)
// on observations y (raw units) of the items obs.
func NewGP(K mat.Symmetric, obs []int, y []float64, h hyper) (*GP, error) {
	g, err := newGP(K, obs, y)
	if err != nil {
		return nil, err
	}
	if !(h.SignalVar > 0) || !(h.NoiseVar >= 0) || math.IsInf(h.SignalVar, 0) || math.IsInf(h.NoiseVar, 0) || math.IsNaN(h.Mean) {
		return nil, fmt.Errorf("discrete: invalid GP hyperparameters %+v", h)
	}
	if err := g.condition(h); err != nil {
		return nil, err
	}
	return g, nil
}

func newGP(K mat.Symmetric, obs []int, y []float64) (*GP, error) {
	n := K.SymmetricDim()
	if len(obs) == 0 {
		return nil, errors.New("discrete: GP needs at least one observation")
	}
	if len(obs) != len(y) {
		return nil, fmt.Errorf("discrete: %d observed items but %d targets", len(obs), len(y))
	}
	seen := make(map[int]bool, len(obs))
	for k, i := range obs {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("discrete: observed item %d out of range [0, %d)", i, n)
		}
		if seen[i] {
			return nil, fmt.Errorf("discrete: item %d observed twice", i)
		}
		seen[i] = true
		if math.IsNaN(y[k]) || math.IsInf(y[k], 0) {
			return nil, fmt.Errorf("discrete: target of item %d is %v", i, y[k])
		}
	}
	z, ym, ys := bayesopt.Standardize(y)
	return &GP{K: K, Obs: append([]int(nil), obs...), Z: z, YMean: ym, YScale: ys}, nil
}

// meanDiag is k̄, the mean diagonal of K over all items.
func meanDiag(K mat.Symmetric) float64 {
	n := K.SymmetricDim()
	var s float64
	for i := 0; i < n; i++ {
		s += K.At(i, i)
	}
	return s / float64(n)
}

// profile holds the marginal likelihood maximised over m and s² for a fixed
// noise-to-signal ratio r = σ²/s².
type profile struct {
	r, mean, s2, logML float64
	ok                 bool
}

// profileAt factorises A_r = K_DD + r I and returns the profile likelihood:
// with A = s² A_r, the GLS mean m̂ = 1ᵀA_r⁻¹z / 1ᵀA_r⁻¹1 maximises the
// likelihood for every s², and s² = Q/n with Q = (z-m̂)ᵀA_r⁻¹(z-m̂) is the
// unconstrained maximiser (clamped to its box: the likelihood is unimodal in
// s²). log p(z) = -½ (Q/s² + n log s² + log det A_r + n log 2π).
func profileAt(Kdd *mat.SymDense, z []float64, r, kbar float64, chol *mat.Cholesky) profile {
	n := len(z)
	A := mat.NewSymDense(n, nil)
	A.CopySym(Kdd)
	for i := 0; i < n; i++ {
		A.SetSym(i, i, A.At(i, i)+r)
	}
	if !chol.Factorize(A) {
		return profile{r: r}
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	var u, w mat.VecDense
	zv := mat.NewVecDense(n, append([]float64(nil), z...))
	if chol.SolveVecTo(&u, zv) != nil || chol.SolveVecTo(&w, mat.NewVecDense(n, ones)) != nil {
		return profile{r: r}
	}
	var oneU, oneW float64
	for i := 0; i < n; i++ {
		oneU += u.AtVec(i)
		oneW += w.AtVec(i)
	}
	m := oneU / oneW
	var Q float64
	for i := 0; i < n; i++ {
		// A_r⁻¹(z - m1) = u - m w
		Q += (z[i] - m) * (u.AtVec(i) - m*w.AtVec(i))
	}
	Q = math.Max(Q, 0)
	s2 := math.Min(math.Max(Q/float64(n), signalVarMin/kbar), signalVarMax/kbar)
	ll := -0.5 * (Q/s2 + float64(n)*math.Log(s2) + chol.LogDet() + float64(n)*math.Log(2*math.Pi))
	return profile{r: r, mean: m, s2: s2, logML: ll, ok: true}
}

// fitGP fits the constant mean, signal variance and noise variance by
// maximising the marginal likelihood of the standardised targets (type-II
// maximum likelihood; the authors fit the same three by 1,000 Adam steps in
// gpytorch). The mean and s² are profiled out in closed form (profileAt);
// the noise ratio r = σ²/s² is scanned on a log grid over [1e-6, 1e2]·k̄
// and refined by golden-section search around the best grid point, so the
// fit is deterministic. s² is kept within [1e-3, 1e3]/k̄.
func fitGP(K mat.Symmetric, obs []int, y []float64) (*GP, error) {
	g, err := newGP(K, obs, y)
	if err != nil {
		return nil, err
	}
	kbar := meanDiag(K)
	Kdd := submatrix(K, g.Obs)
	var chol mat.Cholesky
	lo, hi := math.Log(noiseRatioMin*kbar), math.Log(noiseRatioMax*kbar)
	step := (hi - lo) / (noiseGrid - 1)
	best := profile{logML: math.Inf(-1)}
	bestK := -1
	for k := 0; k < noiseGrid; k++ {
		p := profileAt(Kdd, g.Z, math.Exp(lo+float64(k)*step), kbar, &chol)
		if p.ok && p.logML > best.logML {
			best, bestK = p, k
		}
	}
	if bestK < 0 {
		return nil, errors.New("discrete: GP fit failed: the observed kernel block is not positive definite even with the largest noise")
	}
	// Golden-section search of the log ratio in the bracket around the grid maximum.
	a := lo + float64(max(bestK-1, 0))*step
	b := lo + float64(min(bestK+1, noiseGrid-1))*step
	eval := func(t float64) profile { return profileAt(Kdd, g.Z, math.Exp(t), kbar, &chol) }
	const phi = 0.6180339887498949 // (√5 - 1) / 2
	c, d := b-phi*(b-a), a+phi*(b-a)
	pc, pd := eval(c), eval(d)
	for it := 0; it < goldenIters; it++ {
		if better(pc, pd) {
			b, d, pd = d, c, pc
			c = b - phi*(b-a)
			pc = eval(c)
		} else {
			a, c, pc = c, d, pd
			d = a + phi*(b-a)
			pd = eval(d)
		}
	}
	for _, p := range []profile{pc, pd} {
		if p.ok && p.logML > best.logML {
			best = p
		}
	}
	if err := g.condition(hyper{Mean: best.mean, SignalVar: best.s2, NoiseVar: best.r * best.s2}); err != nil {
		return nil, err
	}
	return g, nil
}

// better reports whether profile a has the higher likelihood (failed
// factorisations lose).
func better(a, b profile) bool {
	if !a.ok {
		return false
	}
	return !b.ok || a.logML >= b.logML
}

// condition factorises the observed block for hyperparameters h.
func (g *GP) condition(h hyper) error {
	n := len(g.Obs)
	Kdd := submatrix(g.K, g.Obs)
	r := h.NoiseVar / h.SignalVar
	A := mat.NewSymDense(n, nil)
	A.CopySym(Kdd)
	for i := 0; i < n; i++ {
		A.SetSym(i, i, A.At(i, i)+r)
	}
	if !g.chol.Factorize(A) {
		return fmt.Errorf("discrete: K_DD + %g I is not positive definite (noise too small for this kernel)", r)
	}
	e := make([]float64, n)
	for i, v := range g.Z {
		e[i] = v - h.Mean
	}
	g.resid = new(mat.VecDense)
	if err := g.chol.SolveVecTo(g.resid, mat.NewVecDense(n, e)); err != nil {
		return fmt.Errorf("discrete: GP solve: %w", err)
	}
	var Q float64
	for i := 0; i < n; i++ {
		Q += e[i] * g.resid.AtVec(i)
	}
	s2 := h.SignalVar
	g.LogML = -0.5 * (Q/s2 + float64(n)*math.Log(s2) + g.chol.LogDet() + float64(n)*math.Log(2*math.Pi))
	g.Hyper = h
	return nil
}

// Posterior returns the posterior mean and standard deviation of the latent
// f at every item 0..n-1, in standardised units (dst slices are reused when
// long enough):
//
//	mu_i  = m + k_iᵀ (K_DD + r I)⁻¹ (z - m)
//	var_i = s² (K_ii - k_iᵀ (K_DD + r I)⁻¹ k_i),   r = σ²/s²
//
// where k_i = K[D, i]; variances below 0 (round-off) are clipped to 0.
func (g *GP) Posterior(mu, sd []float64) ([]float64, []float64) {
	n := g.K.SymmetricDim()
	m := len(g.Obs)
	mu = resize(mu, n)
	sd = resize(sd, n)
	Kx := mat.NewDense(m, n, nil)
	for a, i := range g.Obs {
		row := Kx.RawRowView(a)
		for j := 0; j < n; j++ {
			row[j] = g.K.At(i, j)
		}
	}
	var L mat.TriDense
	g.chol.LTo(&L)
	var V mat.Dense
	if err := V.Solve(&L, Kx); err != nil {
		// L is a Cholesky factor of a positive definite matrix: not reached.
		panic(fmt.Sprintf("discrete: triangular solve: %v", err))
	}
	res := g.resid.RawVector().Data
	for j := 0; j < n; j++ {
		var mj, vv float64
		for a := 0; a < m; a++ {
			mj += Kx.At(a, j) * res[a]
			x := V.At(a, j)
			vv += x * x
		}
		mu[j] = g.Hyper.Mean + mj
		sd[j] = math.Sqrt(math.Max(g.Hyper.SignalVar*(g.K.At(j, j)-vv), 0))
	}
	return mu, sd
}

// UCB returns mu + sqrt(beta) sd for every item (botorch's
// UpperConfidenceBound convention, which the MOF code of Liu et al. 2024
// calls with beta = 2, i.e. mu + 1.414 sd).
func UCB(mu, sd []float64, beta float64, dst []float64) []float64 {
	dst = resize(dst, len(mu))
	sb := math.Sqrt(beta)
	for i := range mu {
		dst[i] = mu[i] + sb*sd[i]
	}
	return dst
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// submatrix is K restricted to idx (in that order).
func submatrix(K mat.Symmetric, idx []int) *mat.SymDense {
	m := len(idx)
	S := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			S.SetSym(a, b, K.At(idx[a], idx[b]))
		}
	}
	return S
}
