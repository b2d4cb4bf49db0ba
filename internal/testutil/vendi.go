package testutil

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// BruteVS is VS_q of a PSD kernel from the definition (the paper's eq. 1),
// an expectation for tests independent of package vendi: the exponential
// of the Rényi entropy of order q of the eigenvalues clipped at 0 and
// divided by their sum (q = 1: Shannon; q = +Inf: 1 / the largest), with
// normalised eigenvalues <= 1e-10 counted as zero (vendi's convention). It
// returns NaN if the eigendecomposition fails.
func BruteVS(k *mat.SymDense, q float64) float64 {
	var es mat.EigenSym
	if !es.Factorize(k, false) {
		return math.NaN()
	}
	lam := es.Values(nil)
	sum := 0.0
	for _, l := range lam {
		sum += math.Max(l, 0)
	}
	h, top := 0.0, 0.0
	for _, l := range lam {
		p := math.Max(l, 0) / sum
		if p <= 1e-10 {
			continue
		}
		top = math.Max(top, p)
		if q == 1 {
			h -= p * math.Log(p)
		} else {
			h += math.Pow(p, q)
		}
	}
	switch {
	case math.IsInf(q, 1):
		return 1 / top
	case q == 1:
		return math.Exp(h)
	}
	return math.Pow(h, 1/(1-q))
}

// BruteVSAdded returns, for every item c of the n x n kernel k not in set,
// BruteVS of k restricted to set plus c (in that order), and NaN for the
// items of set: one step of a greedy maximisation of VS_q, by brute force.
func BruteVSAdded(k mat.Symmetric, set []int, q float64) []float64 {
	n := k.SymmetricDim()
	in := make([]bool, n)
	for _, i := range set {
		in[i] = true
	}
	out := make([]float64, n)
	for c := range n {
		if in[c] {
			out[c] = math.NaN()
			continue
		}
		items := append(append([]int(nil), set...), c)
		sub := mat.NewSymDense(len(items), nil)
		for a, i := range items {
			for b := a; b < len(items); b++ {
				sub.SetSym(a, b, k.At(i, items[b]))
			}
		}
		out[c] = BruteVS(sub, q)
	}
	return out
}
