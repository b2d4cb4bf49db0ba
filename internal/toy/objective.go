package toy

import (
	"fmt"
	"math"

	"github.com/qvs-dev/qvs/internal/vendi"
	"gonum.org/v1/gonum/mat"
)

// Point is a location in the square domain [-1, 1]^2 of Figure 1.
type Point [2]float64

// lo and Hi bound every coordinate of the domain [-1, 1]^2.
const (
	lo = -1.0
	hi = 1.0
)

// kernel is the similarity of Figure 1, the isotropic Gaussian kernel
// k(x, y) = exp(-|x - y|^2 / 2) (unit lengthscale, k(x, x) = 1).
func kernel(x, y Point) float64 {
	dx, dy := x[0]-y[0], x[1]-y[1]
	return math.Exp(-(dx*dx + dy*dy) / 2)
}

// quality is the score function of Figure 1, a Gaussian bump at the centre,
// s(x) = exp(-|x|^2 / 2): 1 at the origin, exp(-1) ~ 0.37 at the corners.
func quality(x Point) float64 {
	return math.Exp(-(x[0]*x[0] + x[1]*x[1]) / 2)
}

// kernelMatrix returns K_ij = Kernel(x_i, x_j).
func kernelMatrix(x []Point) *mat.SymDense {
	K := mat.NewSymDense(len(x), nil)
	fillKernel(K, x)
	return K
}

func fillKernel(K *mat.SymDense, x []Point) {
	for i := range x {
		K.SetSym(i, i, 1)
		for j := i + 1; j < len(x); j++ {
			K.SetSym(i, j, kernel(x[i], x[j]))
		}
	}
}

// Scores returns VS_q and qVS_q = mean quality * VS_q of the batch x
// (eqs. 1, 2 and 4 of the paper, computed by the vendi package).
func Scores(x []Point, q vendi.Order) (vs, qvs float64, err error) {
	if len(x) == 0 {
		return 0, 0, fmt.Errorf("toy: empty batch")
	}
	for i, p := range x {
		if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
			return 0, 0, fmt.Errorf("toy: point %d is (%v, %v), want finite coordinates", i, p[0], p[1])
		}
	}
	vs, err = vendi.Score(kernelMatrix(x), q)
	if err != nil {
		return 0, 0, err
	}
	return vs, meanQuality(x) * vs, nil
}

// meanQuality returns the average of Quality over the batch.
func meanQuality(x []Point) float64 {
	var m float64
	for _, p := range x {
		m += quality(p)
	}
	return m / float64(len(x))
}

// Target names the function a panel of Figure 1 maximises.
type Target int

const (
	// targetVS is VS_q of the batch (top row of Figure 1).
	targetVS Target = iota
	// targetQVS is qVS_q = mean quality * VS_q (bottom row).
	targetQVS
	// targetMeanQuality is the mean quality alone: what gradient ascent on
	// qVS_0 sees, because VS_0 is piecewise constant (zero gradient).
	targetMeanQuality
)

func (t Target) String() string {
	switch t {
	case targetVS:
		return "VS"
	case targetQVS:
		return "qVS"
	case targetMeanQuality:
		return "mean quality"
	}
	return fmt.Sprintf("Target(%d)", int(t))
}

// objective evaluates a target and its gradient with respect to the point
// coordinates; it owns its workspace, so one objective per goroutine.
type objective struct {
	target Target
	q      vendi.Order
	n      int
	pts    []Point
	K, G   mat.SymDense
	s, ds  []float64
}

func newObjective(target Target, q vendi.Order, n int) *objective {
	return &objective{
		target: target, q: q, n: n,
		pts: make([]Point, n),
		s:   make([]float64, n), ds: make([]float64, n),
	}
}

// valueGrad returns the target at the flattened coordinates z (z[2i],
// z[2i+1] = point i) and writes its gradient into grad.
//
// Chain rule: with G = dF/dK from the vendi package (dF = sum_ab G_ab dK_ab
// over both triangles) and dK_ij/dx_i = -K_ij (x_i - x_j) for the Gaussian
// kernel, dF/dx_i = 2 sum_{j != i} G_ij (-K_ij) (x_i - x_j); the diagonal of
// K is constant. The quality term adds (dF/ds_i) ds_i/dx_i with
// ds/dx = -s(x) x.
func (o *objective) valueGrad(z, grad []float64) (float64, error) {
	for i := range o.pts {
		o.pts[i] = Point{z[2*i], z[2*i+1]}
	}
	for i := range grad {
		grad[i] = 0
	}
	if o.target == targetMeanQuality {
		var m float64
		for i, p := range o.pts {
			s := quality(p)
			m += s
			grad[2*i] = -s * p[0] / float64(o.n)
			grad[2*i+1] = -s * p[1] / float64(o.n)
		}
		return m / float64(o.n), nil
	}
	if o.K.IsEmpty() {
		o.K.ReuseAsSym(o.n)
		o.G.ReuseAsSym(o.n)
	}
	fillKernel(&o.K, o.pts)
	var (
		f   float64
		err error
	)
	if o.target == targetQVS {
		for i, p := range o.pts {
			o.s[i] = quality(p)
		}
		f, err = vendi.QualityWeightedGradient(&o.K, o.s, o.q, &o.G, o.ds)
	} else {
		f, err = vendi.ScoreGradient(&o.K, o.q, &o.G)
	}
	if err != nil {
		return 0, err
	}
	for i := 0; i < o.n; i++ {
		xi := o.pts[i]
		for j := 0; j < o.n; j++ {
			if j == i {
				continue
			}
			c := -2 * o.G.At(i, j) * o.K.At(i, j)
			grad[2*i] += c * (xi[0] - o.pts[j][0])
			grad[2*i+1] += c * (xi[1] - o.pts[j][1])
		}
		if o.target == targetQVS {
			grad[2*i] += o.ds[i] * (-o.s[i] * xi[0])
			grad[2*i+1] += o.ds[i] * (-o.s[i] * xi[1])
		}
	}
	return f, nil
}
