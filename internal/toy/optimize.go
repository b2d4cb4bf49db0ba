package toy

import (
	"context"
	"math"
)

// Settings of the spectral projected gradient ascent (Birgin, Martinez and
// Raydan 2000, "Nonmonotone spectral projected gradient methods on convex
// sets", algorithm SPG2 with a one-dimensional backtracking search).
const (
	spgMemory    = 10    // nonmonotone window M: compare with the max of the last M values
	spgArmijo    = 1e-4  // sufficient-increase constant gamma
	spgStepMin   = 1e-12 // bounds on the Barzilai-Borwein step
	spgStepMax   = 1e12  //
	spgMinShrink = 1e-10 // give up the line search below this fraction of the step
	// Stagnation: stop when the best value has gained less than spgStallTol
	// (relative) over the last spgStall iterations. Near a maximum the
	// changes in VS are at rounding level and the line search would
	// otherwise keep accepting negligible steps until maxIter.
	spgStall    = 50
	spgStallTol = 1e-12
	// spgMaxMove caps how far one iteration may move any coordinate. Without
	// it an early long step pushes many points into the same corner of the
	// box; coinciding points get identical gradients and never separate
	// again (a saddle of VS), so the start is wasted.
	spgMaxMove = 0.1
)

// ascendResult is the local maximum found from one start.
type ascendResult struct {
	z          []float64 // flattened coordinates
	value      float64
	iterations int
	evals      int
}

// project clamps every coordinate into [Lo, Hi]: the Euclidean projection
// onto the box, so projected-gradient steps never leave the domain.
func project(z []float64) {
	for i, v := range z {
		z[i] = math.Min(hi, math.Max(lo, v))
	}
}

// ascend maximises o from z0 by spectral projected gradient ascent on the
// box [Lo, Hi]^(2n). The box is handled exactly by projection (no
// reparameterisation), which matters here because VS maximisers sit on the
// boundary. It stops when the projected gradient step P(z + g) - z has
// max-norm below tol, after maxIter iterations, when the best value stalls
// (spgStall, spgStallTol), or when the line search can no longer increase
// the value (the limit of floating point).
func ascend(ctx context.Context, o *objective, z0 []float64, maxIter int, tol float64) (ascendResult, error) {
	d := len(z0)
	z := append([]float64(nil), z0...)
	project(z)
	g := make([]float64, d)
	f, err := o.valueGrad(z, g)
	if err != nil {
		return ascendResult{}, err
	}
	res := ascendResult{evals: 1}
	zt, gt, dir, pg := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	hist := []float64{f}
	// The search is nonmonotone, so remember the best iterate.
	best, bestF := append([]float64(nil), z...), f
	stallRef := f // bestF spgStall iterations ago

	alpha := math.Inf(1) // first step: spgMaxMove along the gradient
	for res.iterations = 0; res.iterations < maxIter; res.iterations++ {
		if res.iterations%16 == 0 && ctx.Err() != nil {
			return ascendResult{}, ctx.Err()
		}
		if projectedStep(z, g, 1, pg) < tol {
			break
		}
		if res.iterations > 0 && res.iterations%spgStall == 0 {
			if bestF-stallRef <= spgStallTol*math.Abs(bestF) {
				break
			}
			stallRef = bestF
		}
		alpha = math.Min(alpha, spgMaxMove/maxAbs(g))
		projectedStep(z, g, alpha, dir)
		var slope float64 // g . dir >= 0 for a projected ascent direction
		for i := range dir {
			slope += g[i] * dir[i]
		}
		fref := hist[0]
		for _, v := range hist {
			fref = math.Max(fref, v)
		}
		lambda := 1.0
		accepted := false
		var ft float64
		for lambda >= spgMinShrink {
			for i := range z {
				zt[i] = z[i] + lambda*dir[i]
			}
			ft, err = o.valueGrad(zt, gt)
			res.evals++
			if err != nil {
				return ascendResult{}, err
			}
			if ft >= fref+spgArmijo*lambda*slope {
				accepted = true
				break
			}
			lambda /= 2
		}
		if !accepted {
			break
		}
		// Barzilai-Borwein step for ascent: alpha = s.s / -(s.y).
		var ss, sy float64
		for i := range z {
			s := zt[i] - z[i]
			ss += s * s
			sy += s * (gt[i] - g[i])
		}
		if sy >= 0 {
			alpha = spgStepMax
		} else {
			alpha = math.Min(spgStepMax, math.Max(spgStepMin, ss/-sy))
		}
		z, zt = zt, z
		g, gt = gt, g
		f = ft
		if f > bestF {
			bestF = f
			copy(best, z)
		}
		hist = append(hist, f)
		if len(hist) > spgMemory {
			hist = hist[1:]
		}
	}
	res.z, res.value = best, bestF
	return res, nil
}

// projectedStep writes P(z + alpha g) - z into dst and returns its max-norm.
func projectedStep(z, g []float64, alpha float64, dst []float64) float64 {
	var m float64
	for i := range z {
		v := math.Min(hi, math.Max(lo, z[i]+alpha*g[i]))
		dst[i] = v - z[i]
		m = math.Max(m, math.Abs(dst[i]))
	}
	return m
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
