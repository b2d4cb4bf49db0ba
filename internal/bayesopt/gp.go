package bayesopt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// matern52 is the Matérn-5/2 correlation at scaled distance r >= 0:
// (1 + √5 r + 5r²/3) exp(-√5 r).
func matern52(r float64) float64 {
	s := math.Sqrt(5) * r
	return (1 + s + s*s/3) * math.Exp(-s)
}

// gpHyper are the hyperparameters of the Gaussian-process prior
// f ~ GP(Mean, SignalVariance * Matern52(|(x - x') / Lengthscales|)) with
// Gaussian observation noise of variance NoiseVariance. Mean, SignalVariance
// and NoiseVariance are in units of the standardised targets.
type gpHyper struct {
	Lengthscales   []float64 // one per input dimension (ARD)
	SignalVariance float64
	NoiseVariance  float64
	Mean           float64
}

// gpBounds bound the hyperparameters during fitting. The constant mean is
// unbounded.
type gpBounds struct {
	Lengthscale, SignalVariance, NoiseVariance [2]float64
}

// defaultGPBounds are TuRBO's constraints (Eriksson et al. 2019, reference
// implementation) for inputs in the unit cube and standardised targets.
var defaultGPBounds = gpBounds{
	Lengthscale:    [2]float64{0.005, 2},
	SignalVariance: [2]float64{0.05, 20},
	NoiseVariance:  [2]float64{5e-4, 0.2},
}

// gpFitOptions control fitGP.
type gpFitOptions struct {
	Bounds gpBounds
	// Init is the starting point of the optimisation (nil lengthscales:
	// 0.5 in every dimension, signal variance 1, noise variance 0.005, mean 0).
	Init gpHyper
	// MaxIterations caps the L-BFGS iterations (0: 30; the likelihood
	// gains little after 20-30 iterations on 200-point, 12- and 60-d tests).
	MaxIterations int
}

// gp is a Gaussian-process regression model conditioned on training data.
// Targets are standardised internally (z = (y - loc) / scale with the sample
// mean and standard deviation); every method takes and returns values in the
// original units unless it says otherwise.
type gp struct {
	x          *mat.Dense // n x d training inputs
	z          []float64  // standardised targets
	loc, scale float64
	hyper      gpHyper
	chol       mat.Cholesky // of K = SignalVariance*M + (NoiseVariance + jitter) I
	alpha      []float64    // K^{-1} (z - Mean)
	jitter     float64
}

// ErrNotPositiveDefinite is returned when a covariance matrix stays
// indefinite after the largest jitter.
var ErrNotPositiveDefinite = errors.New("bayesopt: covariance matrix not positive definite even with jitter")

// Standardize returns z = (y - mean) / scale with scale the n-1 sample
// standard deviation, or 1 if n < 2 or all values are equal (so a constant
// target stays finite); mean is 0 for an empty y. Both GPs (the continuous
// one here and discrete's) fit standardised targets.
func Standardize(y []float64) (z []float64, mean, scale float64) {
	n := len(y)
	for _, v := range y {
		mean += v
	}
	if n > 0 {
		mean /= float64(n)
	}
	var ss float64
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	scale = 1
	if n > 1 && ss > 0 {
		scale = math.Sqrt(ss / float64(n-1))
	}
	z = make([]float64, n)
	for i, v := range y {
		z[i] = (v - mean) / scale
	}
	return z, mean, scale
}

// scaled returns x with column j divided by ls[j].
func scaled(x mat.Matrix, ls []float64) *mat.Dense {
	n, d := x.Dims()
	z := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := z.RawRowView(i)
		for j := 0; j < d; j++ {
			row[j] = x.At(i, j) / ls[j]
		}
	}
	return z
}

func dist(a, b []float64) float64 { return math.Sqrt(sqDist(a, b)) }

// sqDist is the squared Euclidean distance.
func sqDist(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return s
}

func rowNorms(z *mat.Dense) []float64 {
	n, _ := z.Dims()
	out := make([]float64, n)
	for i := range out {
		r := z.RawRowView(i)
		out[i] = blas64.Dot(blas64.Vector{N: len(r), Inc: 1, Data: r}, blas64.Vector{N: len(r), Inc: 1, Data: r})
	}
	return out
}

// selfSqDist returns the squared distances between the rows of z as the
// upper triangle of a symmetric matrix, |a|² + |b|² - 2 a·b through a BLAS
// rank-k update (clamped at 0). The rounding error, about 1e-16 |z|², is
// harmless: the Matérn-5/2 kernel is smooth in the squared distance at 0.
func selfSqDist(z *mat.Dense) *mat.SymDense {
	n, _ := z.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, z)
	nr := rowNorms(z)
	raw := g.RawSymmetric()
	for a := 0; a < n; a++ {
		row := raw.Data[a*raw.Stride:]
		for b := a + 1; b < n; b++ {
			row[b] = math.Max(nr[a]+nr[b]-2*row[b], 0)
		}
		row[a] = 0
	}
	return g
}

// crossSqDist returns the len(a) x len(b) squared distances between the rows
// of za and zb (see selfSqDist).
func crossSqDist(za, zb *mat.Dense) *mat.Dense {
	na, nb := rowNorms(za), rowNorms(zb)
	var g mat.Dense
	g.Mul(za, zb.T())
	raw := g.RawMatrix()
	for a := range na {
		row := raw.Data[a*raw.Stride : a*raw.Stride+len(nb)]
		for b := range row {
			row[b] = math.Max(na[a]+nb[b]-2*row[b], 0)
		}
	}
	return &g
}

// choleskyJitter factorises a + jitter*I, trying jitter = 0 and then
// 1e-10, 1e-9, ..., 1e-3 times the mean diagonal (a is not modified).
func choleskyJitter(chol *mat.Cholesky, a *mat.SymDense) (float64, error) {
	return jitterLadder(a, chol.Factorize)
}

// jitterLadder calls factor(a), then factor(a + jitter·I) for jitter = 10^-10
// ... 10^-3 times a's mean diagonal, until one succeeds; it returns that
// jitter.
func jitterLadder(a *mat.SymDense, factor func(mat.Symmetric) bool) (float64, error) {
	if factor(a) {
		return 0, nil
	}
	n := a.SymmetricDim()
	mean := 0.0
	for i := 0; i < n; i++ {
		mean += a.At(i, i)
	}
	mean /= float64(n)
	if !(mean > 0) || math.IsInf(mean, 0) {
		return 0, ErrNotPositiveDefinite
	}
	b := mat.NewSymDense(n, nil)
	for e := -10; e <= -3; e++ {
		jit := mean * math.Pow(10, float64(e))
		b.CopySym(a)
		for i := 0; i < n; i++ {
			b.SetSym(i, i, a.At(i, i)+jit)
		}
		if factor(b) {
			return jit, nil
		}
	}
	return 0, ErrNotPositiveDefinite
}

// newGP conditions a GP with fixed hyperparameters on inputs x (n x d, one
// row per point) and targets y.
func newGP(x *mat.Dense, y []float64, h gpHyper) (*gp, error) {
	n, d := x.Dims()
	if n == 0 || len(y) != n || len(h.Lengthscales) != d {
		return nil, fmt.Errorf("bayesopt: NewGP with %d inputs, %d targets, %d lengthscales for %d dimensions", n, len(y), len(h.Lengthscales), d)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("bayesopt: GP target %d is %v", i, v)
		}
	}
	g := &gp{x: mat.DenseCopyOf(x), hyper: cloneHyper(h)}
	g.z, g.loc, g.scale = Standardize(y)
	K := g.trainCov(selfSqDist(scaled(x, h.Lengthscales)))
	jit, err := choleskyJitter(&g.chol, K)
	if err != nil {
		return nil, err
	}
	g.jitter = jit
	r := make([]float64, n)
	for i := range r {
		r[i] = g.z[i] - h.Mean
	}
	a := mat.NewVecDense(n, nil)
	if err := g.chol.SolveVecTo(a, mat.NewVecDense(n, r)); err != nil {
		return nil, err
	}
	g.alpha = a.RawVector().Data
	return g, nil
}

func cloneHyper(h gpHyper) gpHyper {
	h.Lengthscales = append([]float64(nil), h.Lengthscales...)
	return h
}

// trainCov is SignalVariance * M + NoiseVariance * I from squared scaled
// distances (upper triangle of sq).
func (g *gp) trainCov(sq *mat.SymDense) *mat.SymDense {
	n := sq.SymmetricDim()
	K := mat.NewSymDense(n, nil)
	raw, rs := K.RawSymmetric(), sq.RawSymmetric()
	for a := 0; a < n; a++ {
		raw.Data[a*raw.Stride+a] = g.hyper.SignalVariance + g.hyper.NoiseVariance
		for b := a + 1; b < n; b++ {
			raw.Data[a*raw.Stride+b] = g.hyper.SignalVariance * matern52(math.Sqrt(rs.Data[a*rs.Stride+b]))
		}
	}
	return K
}

// Hyper returns the hyperparameters.
func (g *gp) Hyper() gpHyper { return cloneHyper(g.hyper) }

// LogMarginalLikelihood is log p(z | X, hyperparameters) of the standardised
// targets z (add -n log(scale) for the original units).
func (g *gp) LogMarginalLikelihood() float64 {
	n := len(g.z)
	quad := 0.0
	for i, a := range g.alpha {
		quad += (g.z[i] - g.hyper.Mean) * a
	}
	return -0.5*quad - 0.5*g.chol.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
}

// crossCov returns the n x m matrix SignalVariance * M between training rows
// and the rows of xs, and the scaled rows of xs.
func (g *gp) crossCov(xs mat.Matrix) (*mat.Dense, *mat.Dense) {
	zt := scaled(g.x, g.hyper.Lengthscales)
	zs := scaled(xs, g.hyper.Lengthscales)
	Ks := crossSqDist(zt, zs)
	raw := Ks.RawMatrix()
	for a := 0; a < raw.Rows; a++ {
		row := raw.Data[a*raw.Stride : a*raw.Stride+raw.Cols]
		for b, r2 := range row {
			row[b] = g.hyper.SignalVariance * matern52(math.Sqrt(r2))
		}
	}
	return Ks, zs
}

// halfSolve overwrites B with L^{-1} B where K = L L^T.
func (g *gp) halfSolve(B *mat.Dense) {
	var L mat.TriDense
	g.chol.LTo(&L)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, L.RawTriangular(), B.RawMatrix())
}

// Predict returns the posterior mean and variance of the latent f (without
// observation noise) at the rows of xs, in original units.
func (g *gp) Predict(xs mat.Matrix) (mean, variance []float64) {
	Ks, _ := g.crossCov(xs)
	n, m := Ks.Dims()
	mean = make([]float64, m)
	for b := 0; b < m; b++ {
		mu := g.hyper.Mean
		for a := 0; a < n; a++ {
			mu += Ks.At(a, b) * g.alpha[a]
		}
		mean[b] = g.loc + g.scale*mu
	}
	g.halfSolve(Ks)
	variance = make([]float64, m)
	for b := 0; b < m; b++ {
		v := g.hyper.SignalVariance
		for a := 0; a < n; a++ {
			v -= Ks.At(a, b) * Ks.At(a, b)
		}
		variance[b] = g.scale * g.scale * math.Max(v, 0)
	}
	return mean, variance
}

// PosteriorCovariance returns the joint posterior mean and covariance of the
// latent f at the rows of xs, in original units.
func (g *gp) PosteriorCovariance(xs mat.Matrix) ([]float64, *mat.SymDense) {
	Ks, zs := g.crossCov(xs)
	n, m := Ks.Dims()
	mean := make([]float64, m)
	for b := 0; b < m; b++ {
		mu := g.hyper.Mean
		for a := 0; a < n; a++ {
			mu += Ks.At(a, b) * g.alpha[a]
		}
		mean[b] = mu
	}
	g.halfSolve(Ks) // V = L^{-1} K(X, xs)
	prior := selfSqDist(zs)
	raw := prior.RawSymmetric()
	for a := 0; a < m; a++ {
		raw.Data[a*raw.Stride+a] = g.hyper.SignalVariance
		for b := a + 1; b < m; b++ {
			raw.Data[a*raw.Stride+b] = g.hyper.SignalVariance * matern52(math.Sqrt(raw.Data[a*raw.Stride+b]))
		}
	}
	cov := mat.NewSymDense(m, nil)
	cov.SymRankK(prior, -1, Ks.T()) // prior - V^T V
	s2 := g.scale * g.scale
	for a := 0; a < m; a++ {
		mean[a] = g.loc + g.scale*mean[a]
		for b := a; b < m; b++ {
			cov.SetSym(a, b, s2*cov.At(a, b))
		}
	}
	return mean, cov
}

// JointSamples draws k joint samples of the latent f at the rows of xs from
// the exact posterior (Cholesky of the posterior covariance with jitter as
// needed), in original units: samples[s][i] is sample s at row i.
func (g *gp) JointSamples(xs mat.Matrix, k int, rng *rand.Rand) ([][]float64, error) {
	mean, cov := g.PosteriorCovariance(xs)
	m := len(mean)
	// The factor only: mat.Cholesky.Factorize also estimates the condition
	// number (LAPACK's Dpocon), a tenth of a 1,000-candidate sample's time
	// that nothing here reads. The factor is Factorize's, bit for bit: the
	// same upper-triangle Potrf, transposed into L as Cholesky.LTo does.
	U := mat.NewTriDense(m, mat.Upper, nil)
	upper := func(a mat.Symmetric) bool {
		raw := U.RawTriangular()
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				raw.Data[i*raw.Stride+j] = a.At(i, j)
			}
		}
		_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: raw.Stride, Data: raw.Data})
		return ok
	}
	if _, err := jitterLadder(cov, upper); err != nil {
		// A posterior that has collapsed to (numerically) zero variance:
		// fall back to a tiny diagonal so samples equal the mean.
		for i := 0; i < m; i++ {
			cov.SetSym(i, i, cov.At(i, i)+1e-12*g.scale*g.scale+1e-300)
		}
		if _, err := jitterLadder(cov, upper); err != nil {
			return nil, err
		}
	}
	L := mat.NewTriDense(m, mat.Lower, nil)
	L.Copy(U.TTri())
	Z := mat.NewDense(m, k, nil)
	zr := Z.RawMatrix()
	// Draw sample by sample so sample s does not depend on k.
	for s := 0; s < k; s++ {
		for i := 0; i < m; i++ {
			zr.Data[i*zr.Stride+s] = rng.NormFloat64()
		}
	}
	blas64.Trmm(blas.Left, blas.NoTrans, 1, L.RawTriangular(), zr)
	out := make([][]float64, k)
	for s := 0; s < k; s++ {
		out[s] = make([]float64, m)
		for i := 0; i < m; i++ {
			out[s][i] = mean[i] + zr.Data[i*zr.Stride+s]
		}
	}
	return out, nil
}

// boundedLog maps an unconstrained u to log p in [log lo, log hi] by a
// logistic curve; its derivative is (log hi - log lo) σ(u)(1 - σ(u)).
func boundedLog(u float64, b [2]float64) (logp, dlogp float64) {
	lo, hi := math.Log(b[0]), math.Log(b[1])
	s := 1 / (1 + math.Exp(-u))
	return lo + (hi-lo)*s, (hi - lo) * s * (1 - s)
}

// unboundedLog inverts boundedLog, clamping p strictly inside the bounds.
func unboundedLog(p float64, b [2]float64) float64 {
	lo, hi := math.Log(b[0]), math.Log(b[1])
	s := (math.Log(p) - lo) / (hi - lo)
	s = math.Min(math.Max(s, 1e-6), 1-1e-6)
	return math.Log(s / (1 - s))
}

// hyperFromU maps the optimisation vector u = (lengthscale u's, signal u,
// noise u, mean) to hyperparameters and d(log p)/du for the bounded ones.
func hyperFromU(u []float64, d int, b gpBounds) (gpHyper, []float64) {
	h := gpHyper{Lengthscales: make([]float64, d)}
	jac := make([]float64, d+2)
	for i := 0; i < d; i++ {
		lp, dl := boundedLog(u[i], b.Lengthscale)
		h.Lengthscales[i], jac[i] = math.Exp(lp), dl
	}
	lp, dl := boundedLog(u[d], b.SignalVariance)
	h.SignalVariance, jac[d] = math.Exp(lp), dl
	lp, dl = boundedLog(u[d+1], b.NoiseVariance)
	h.NoiseVariance, jac[d+1] = math.Exp(lp), dl
	h.Mean = u[d+2]
	return h, jac
}

// lmlGrad returns the log marginal likelihood of standardised targets z and
// its gradient with respect to (log lengthscales, log signal variance, log
// noise variance, mean):
//
//	LML = -½ rᵀα - ½ log|K| - n/2 log 2π,  r = z - mean, α = K⁻¹r,
//	∂LML/∂θ = ½ tr((ααᵀ - K⁻¹) ∂K/∂θ),  ∂LML/∂mean = Σ α,
//
// with ∂K_ab/∂log ℓ_i = s² (5/3)(1 + √5 ρ) e^{-√5 ρ} (x_ai - x_bi)²/ℓ_i²
// (ρ the scaled distance), ∂K/∂log s² = s² M and ∂K/∂log σ² = σ² I.
func lmlGrad(x *mat.Dense, z []float64, h gpHyper) (float64, []float64, error) {
	n, d := x.Dims()
	Z := scaled(x, h.Lengthscales)
	sq := selfSqDist(Z)
	s2 := h.SignalVariance
	sq5 := math.Sqrt(5)
	// sq's upper triangle holds ρ² and is overwritten with the kernel's
	// derivative factor s² (5/3)(1 + √5 ρ) e^{-√5 ρ}; its (unused) strict
	// lower triangle receives the kernel values s² k(ρ), which survive the
	// in-place factorisation of K below.
	qr := sq.RawSymmetric()
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			r2 := qr.Data[a*qr.Stride+b]
			rho := math.Sqrt(r2)
			e := math.Exp(-sq5 * rho)
			qr.Data[b*qr.Stride+a] = s2 * (1 + sq5*rho + 5*r2/3) * e
			qr.Data[a*qr.Stride+b] = s2 * (5.0 / 3) * (1 + sq5*rho) * e
		}
	}
	// K = s² M + σ² I is factorised in place (K = UᵀU, LAPACK dpotrf) and
	// then overwritten with K⁻¹ (dpotri). Unlike mat.Cholesky this skips
	// the condition-number estimate, a quarter of a factorisation's cost.
	// An indefinite K is retried with the jitter ladder of choleskyJitter.
	K := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
	build := func(jit float64) {
		for a := 0; a < n; a++ {
			K.Data[a*n+a] = s2 + h.NoiseVariance + jit
			for b := a + 1; b < n; b++ {
				K.Data[a*n+b] = qr.Data[b*qr.Stride+a]
			}
		}
	}
	build(0)
	if _, ok := lapack64.Potrf(K); !ok {
		for e := -10; e <= -3 && !ok; e++ {
			build((s2 + h.NoiseVariance) * math.Pow(10, float64(e)))
			_, ok = lapack64.Potrf(K)
		}
		if !ok {
			return 0, nil, ErrNotPositiveDefinite
		}
	}
	U := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: K.Data}
	alpha := make([]float64, n)
	for i := range alpha {
		alpha[i] = z[i] - h.Mean
	}
	av := blas64.Vector{N: n, Inc: 1, Data: alpha}
	blas64.Trsv(blas.Trans, U, av) // Uᵀ w = r
	quad, logDet := 0.0, 0.0
	for i, v := range alpha {
		quad += v * v
		logDet += 2 * math.Log(K.Data[i*n+i])
	}
	blas64.Trsv(blas.NoTrans, U, av) // U α = w, so α = K⁻¹ r
	lml := -0.5*quad - 0.5*logDet - 0.5*float64(n)*math.Log(2*math.Pi)
	if _, ok := lapack64.Potri(U); !ok {
		return 0, nil, ErrNotPositiveDefinite
	}
	ir := K
	grad := make([]float64, d+3)
	// P_ab = W_ab * factor_ab (a != b, P_aa = 0), W = ααᵀ - K⁻¹; then
	// ½ Σ_ab P_ab (z_ak - z_bk)² = Σ_a z_ak² Σ_b P_ab - Σ_a z_ak (P Z)_ak.
	P := mat.NewDense(n, n, nil)
	pr := P.RawMatrix()
	rowSum := make([]float64, n)
	sumWK, trW := 0.0, 0.0
	for a := 0; a < n; a++ {
		waa := alpha[a]*alpha[a] - ir.Data[a*ir.Stride+a]
		trW += waa
		sumWK += waa * s2
		for b := a + 1; b < n; b++ {
			w := alpha[a]*alpha[b] - ir.Data[a*ir.Stride+b]
			sumWK += 2 * w * qr.Data[b*qr.Stride+a]
			p := w * qr.Data[a*qr.Stride+b]
			pr.Data[a*pr.Stride+b] = p
			pr.Data[b*pr.Stride+a] = p
			rowSum[a] += p
			rowSum[b] += p
		}
	}
	var PZ mat.Dense
	PZ.Mul(P, Z)
	for a := 0; a < n; a++ {
		za, pza := Z.RawRowView(a), PZ.RawRowView(a)
		for k := 0; k < d; k++ {
			grad[k] += za[k] * (za[k]*rowSum[a] - pza[k])
		}
	}
	grad[d] = 0.5 * sumWK
	grad[d+1] = 0.5 * h.NoiseVariance * trW
	for _, a := range alpha {
		grad[d+2] += a
	}
	return lml, grad, nil
}

// fitGP fits the hyperparameters by maximising the log marginal likelihood
// of the standardised targets with L-BFGS (gonum/optimize) and analytic
// gradients, then conditions on the data. Bounded hyperparameters are
// optimised through a logistic transform of their logarithm (boundedLog),
// so the optimiser is unconstrained and every iterate is within the bounds.
// If the optimiser stops early (line-search failure, iteration cap) the best
// point it visited is used; if the likelihood cannot be evaluated anywhere,
// Init is used.
func fitGP(x *mat.Dense, y []float64, opt gpFitOptions) (*gp, error) {
	n, d := x.Dims()
	if n == 0 || len(y) != n {
		return nil, fmt.Errorf("bayesopt: FitGP with %d inputs and %d targets", n, len(y))
	}
	b := opt.Bounds
	if b.Lengthscale[1] == 0 {
		b = defaultGPBounds
	}
	init := cloneHyper(opt.Init)
	if init.Lengthscales == nil {
		init = gpHyper{Lengthscales: make([]float64, d), SignalVariance: 1, NoiseVariance: 0.005}
		for i := range init.Lengthscales {
			init.Lengthscales[i] = 0.5
		}
	}
	z, _, _ := Standardize(y)
	u0 := make([]float64, d+3)
	for i := 0; i < d; i++ {
		u0[i] = unboundedLog(init.Lengthscales[i], b.Lengthscale)
	}
	u0[d] = unboundedLog(init.SignalVariance, b.SignalVariance)
	u0[d+1] = unboundedLog(init.NoiseVariance, b.NoiseVariance)
	u0[d+2] = init.Mean
	nf := float64(n)

	// Cache the last gradient so Func and Grad at the same point share work.
	var lastU, lastG []float64
	var lastF float64
	eval := func(u []float64) (float64, []float64) {
		if lastU != nil && slices.Equal(u, lastU) {
			return lastF, lastG
		}
		h, jac := hyperFromU(u, d, b)
		lml, g, err := lmlGrad(x, z, h)
		f := -lml / nf
		gu := make([]float64, len(u))
		if err != nil || math.IsNaN(f) {
			f = math.Inf(1)
		} else {
			for i := 0; i < d+2; i++ {
				gu[i] = -g[i] * jac[i] / nf
			}
			gu[d+2] = -g[d+2] / nf
		}
		lastU, lastF, lastG = append(lastU[:0], u...), f, gu
		return f, gu
	}
	f0, _ := eval(u0)
	best := u0
	if !math.IsInf(f0, 1) {
		maxIter := opt.MaxIterations
		if maxIter <= 0 {
			maxIter = 30
		}
		p := optimize.Problem{
			Func: func(u []float64) float64 { f, _ := eval(u); return f },
			Grad: func(grad, u []float64) { _, g := eval(u); copy(grad, g) },
		}
		settings := &optimize.Settings{
			MajorIterations:   maxIter,
			GradientThreshold: 1e-5,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-7, Relative: 1e-7, Iterations: 10},
		}
		res, _ := optimize.Minimize(p, u0, settings, &optimize.LBFGS{})
		if res != nil && res.F < f0 && !math.IsNaN(res.F) {
			best = res.X
		}
	}
	h, _ := hyperFromU(best, d, b)
	return newGP(x, y, h)
}
