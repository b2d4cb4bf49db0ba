// Package toy reproduces Figure 1 of Nguyen & Dieng (ICML 2024, §2.4):
// batches of n = 10 points in the square [-1, 1]^2 that maximise VS_q (top
// row) and qVS_q (bottom row) for q in {0, 0.1, 1, 5, inf}, with the
// Gaussian kernel k(x, y) = exp(-|x - y|^2 / 2) and the quality (score
// function) s(x) = exp(-|x|^2 / 2), a bump at the centre.
//
// # Gradients
//
// The batch X is a point in R^(2n). The vendi package differentiates VS_q
// with respect to the kernel matrix through its eigendecomposition
// (vendi.ScoreGradient, vendi.QualityWeightedGradient); this package adds
// the chain rule through the kernel, dK_ij/dx_i = -K_ij (x_i - x_j), and
// through the quality, ds/dx = -s(x) x.
//
// # Optimiser
//
// Each start is a spectral projected gradient ascent (Birgin, Martinez and
// Raydan 2000): Barzilai-Borwein step lengths, a nonmonotone Armijo
// backtracking search, and the box handled exactly by projection (clamping),
// so points can sit on the boundary where the VS maximisers live. A cap on
// how far one step moves a coordinate keeps early long steps from piling
// several points into the same corner, a saddle they could never leave
// (coinciding points receive identical gradients). Many uniform random
// starts run in parallel and the best local maximum is kept; start i of a
// panel draws from rng.New(seed, "toy", row, q, n, i), so results do
// not depend on the number of workers.
//
// # q = 0
//
// VS_0 counts distinct points (the numerical rank of K): it is piecewise
// constant and its gradient is zero, so gradient ascent has nothing to
// follow. As in the paper the VS_0 panel is left empty. For qVS_0 =
// mean(s) * VS_0 the only term with a gradient is the mean quality, so the
// ascent drives every point to the centre; coinciding points have VS_0 = 1,
// so the reported qVS_0 of that batch is 1 (its supremum n is approached by
// distinct points shrinking to the centre, and never attained).
//
// Typical use:
//
//	panels, err := toy.Figure1(ctx, toy.DefaultOrders, toy.Config{N: 10, Starts: 64, Workers: 2})
//	err = toy.WriteFigure("results/toy/toy.png", "png", panels)
package toy
