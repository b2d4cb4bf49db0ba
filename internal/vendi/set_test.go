package vendi

import (
	"math/rand/v2"
	"testing"
)

func TestScoreSetMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	K := randomKNN(rng, 40, 2, 3)
	for trial := 0; trial < 5; trial++ {
		idx := rng.Perm(40)[:5+trial*6]
		for _, q := range testOrders {
			want, err := Score(K.Submatrix(idx), q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := scoreSet(K, idx, q)
			if err != nil || !near(got, want, 1e-10) {
				t.Errorf("trial %d q=%v: ScoreSet %v (%v), dense %v", trial, q, got, err, want)
			}
		}
	}
	if v, err := scoreSet(K, nil, 1); v != 0 || err != nil {
		t.Errorf("empty set: %v %v", v, err)
	}
	if _, err := scoreSet(K, []int{1, 1}, 1); err == nil {
		t.Error("duplicate item: want error")
	}
	qual := make([]float64, 40)
	for i := range qual {
		qual[i] = 0.5
	}
	v, _ := qualityWeightedSet(K, qual, []int{0, 5, 9}, OrderInf)
	w, _ := scoreSet(K, []int{0, 5, 9}, OrderInf)
	if !near(v, 0.5*w, 1e-15) {
		t.Errorf("qVS = %v, want %v", v, 0.5*w)
	}
}

// TestQualityWeightedSequenceMatchesDense checks the incremental scores of a
// growing set (as `qvs as suggest` reports them for any policy's picks)
// against a dense eigendecomposition of each prefix of the sequence.
func TestQualityWeightedSequenceMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	const n = 40
	K := randomKNN(rng, n, 2, 3)
	qual := make([]float64, n)
	for i := range qual {
		qual[i] = rng.Float64()
	}
	for trial := 0; trial < 4; trial++ {
		perm := rng.Perm(n)
		prefix, picks := perm[:trial], perm[trial:trial+12]
		for _, q := range testOrders {
			got, err := QualityWeightedSequence(K, qual, prefix, picks, q)
			if err != nil {
				t.Fatal(err)
			}
			for s := range picks {
				set := append(append([]int{}, prefix...), picks[:s+1]...)
				sub := make([]float64, len(set))
				for j, i := range set {
					sub[j] = qual[i]
				}
				want, err := QualityWeighted(K.Submatrix(set), sub, q)
				if err != nil {
					t.Fatal(err)
				}
				if !near(got[s], want, 1e-10) {
					t.Errorf("trial %d q=%v step %d: %v, dense %v", trial, q, s, got[s], want)
				}
			}
		}
	}
	if _, err := QualityWeightedSequence(K, qual, []int{3}, []int{5, 3}, 1); err == nil {
		t.Error("pick already in the prefix: want error")
	}
	if _, err := QualityWeightedSequence(K, qual, nil, []int{n}, 1); err == nil {
		t.Error("pick out of range: want error")
	}
}
