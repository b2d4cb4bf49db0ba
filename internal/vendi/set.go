package vendi

import "fmt"

// scoreSet returns VS_q of the items idx of a pool under kernel k. With a
// SparseKernel the chosen items' kernel is split into connected blocks that
// are eigendecomposed separately (the spectrum of a block-diagonal matrix is
// the union of the blocks' spectra), so the VS of hundreds of items on a kNN
// graph costs the cube of the largest block, not of the whole set.
// Duplicate items in idx are an error.
func scoreSet(k Kernel, idx []int, q Order) (float64, error) {
	if len(idx) == 0 {
		if err := q.Validate(); err != nil {
			return 0, err
		}
		return 0, nil
	}
	ones := make([]float64, k.Len())
	for i := range ones {
		ones[i] = 1
	}
	g, err := newGreedyState(GreedyProblem{Kernel: k, Quality: ones, Prefix: idx, Candidates: []int{}, Q: q, Workers: 1})
	if err != nil {
		return 0, err
	}
	return g.setScore(), nil
}

// qualityWeightedSet returns qVS_q of the items idx of a pool: the mean of
// quality over idx times scoreSet. quality has one entry per pool item.
func qualityWeightedSet(k Kernel, quality []float64, idx []int, q Order) (float64, error) {
	if len(quality) != k.Len() {
		return 0, fmt.Errorf("vendi: %d qualities for %d items", len(quality), k.Len())
	}
	sub := make([]float64, len(idx))
	for j, i := range idx {
		if i < 0 || i >= len(quality) {
			return 0, fmt.Errorf("vendi: item %d out of range [0, %d)", i, len(quality))
		}
		sub[j] = quality[i]
	}
	if err := checkQuality(sub); err != nil {
		return 0, err
	}
	vs, err := scoreSet(k, idx, q)
	if err != nil {
		return 0, err
	}
	return MeanQuality(sub) * vs, nil
}

// setScore is VS_q of the current members.
func (g *greedyState) setScore() float64 {
	if g.dual != nil {
		return g.vsOfSpectrum(g.dual.lam)
	}
	if g.frobenius2() {
		if g.trace <= 0 || g.frob == 0 {
			return 0
		}
		return g.trace * g.trace / g.frob
	}
	total := g.totPos
	thr := zeroTol * total
	f, rank := g.all.above(thr)
	var maxEig float64
	if n := len(g.all.eig); n > 0 {
		maxEig = g.all.eig[n-1]
	}
	return g.p.Q.FromRawSum(total, f, maxEig, rank)
}

// QualityWeightedSequence returns qVS_q(prefix ∪ picks[:t+1]) for every t,
// quality having one entry per pool item: the values Greedy reports in
// GreedyResult.Scores, for picks made by any policy. The set grows one item
// at a time with Greedy's block update (a pick merges the blocks it touches
// and only that block is re-eigendecomposed), so scoring a batch of B costs
// about what B greedy adds cost, not B eigendecompositions of ever larger
// sets (O(B^4), which made `qvs as suggest --batch 400` take seconds).
func QualityWeightedSequence(k Kernel, quality []float64, prefix, picks []int, q Order) ([]float64, error) {
	g, err := newGreedyState(GreedyProblem{Kernel: k, Quality: quality, Prefix: prefix, Candidates: []int{}, Q: q, Workers: 1})
	if err != nil {
		return nil, err
	}
	g.valuesOnly = true
	out := make([]float64, len(picks))
	for t, i := range picks {
		if i < 0 || i >= g.n {
			return nil, fmt.Errorf("vendi: item %d out of range [0, %d)", i, g.n)
		}
		if g.itemMember[i] >= 0 {
			return nil, fmt.Errorf("vendi: item %d is already in the set", i)
		}
		if err := g.addMember(i); err != nil {
			return nil, err
		}
		out[t] = g.sumQ / float64(g.members()) * g.setScore()
	}
	return out, nil
}
