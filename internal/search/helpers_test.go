package search

import (
	"math/rand/v2"
	"testing"
)

// randomGraph returns a directed kNN graph on n items with k distinct
// neighbours per row (never self). With coarse, weights come from
// {0.25, 0.5, 0.75, 1} so that ties in scores are common.
func randomGraph(rng *rand.Rand, n, k int, coarse bool) ([][]int32, [][]float64) {
	nbr := make([][]int32, n)
	w := make([][]float64, n)
	for i := range nbr {
		perm := rng.Perm(n)
		for _, j := range perm {
			if j == i {
				continue
			}
			nbr[i] = append(nbr[i], int32(j))
			v := 1 - rng.Float64()
			if coarse {
				v = float64(1+rng.IntN(4)) / 4
			}
			w[i] = append(w[i], v)
			if len(nbr[i]) == k {
				break
			}
		}
	}
	return nbr, w
}

// randomModel builds a model on a random graph and observes nObs random
// items with random labels.
func randomModel(t testing.TB, rng *rand.Rand, n, k, nObs int, coarse bool) *Model {
	t.Helper()
	nbr, w := randomGraph(rng, n, k, coarse)
	m, err := NewModel(nbr, w, 0.9, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range rng.Perm(n)[:nObs] {
		m.Observe(i, rng.IntN(3) == 0)
	}
	return m
}

// directProbability is the kNN model's formula (see Model) evaluated from
// scratch on the observed set.
func directProbability(m *Model, x int) float64 {
	pos, neg := 0.0, 0.0
	nbr, w := m.Neighbors(x)
	for t, j := range nbr {
		if !m.Observed(int(j)) {
			continue
		}
		if m.Positive(int(j)) {
			pos += w[t]
		} else {
			neg += w[t]
		}
	}
	return (m.Alpha1 + pos) / ((m.Alpha0 + neg) + (m.Alpha1 + pos))
}

// directArgmax is the unlabelled item of largest score, lowest index on ties.
func directArgmax(m *Model, score func(x int) float64) int {
	best, arg := 0.0, -1
	for x := 0; x < m.Len(); x++ {
		if m.Observed(x) {
			continue
		}
		if s := score(x); arg < 0 || s > best {
			best, arg = s, x
		}
	}
	return arg
}
