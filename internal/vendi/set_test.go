package vendi

import (
	"math"
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
			got, err := ScoreSet(K, idx, q)
			if err != nil || !near(got, want, 1e-10) {
				t.Errorf("trial %d q=%v: ScoreSet %v (%v), dense %v", trial, q, got, err, want)
			}
		}
	}
	if v, err := ScoreSet(K, nil, 1); v != 0 || err != nil {
		t.Errorf("empty set: %v %v", v, err)
	}
	if _, err := ScoreSet(K, []int{1, 1}, 1); err == nil {
		t.Error("duplicate item: want error")
	}
	qual := make([]float64, 40)
	for i := range qual {
		qual[i] = 0.5
	}
	v, _ := QualityWeightedSet(K, qual, []int{0, 5, 9}, math.Inf(1))
	w, _ := ScoreSet(K, []int{0, 5, 9}, math.Inf(1))
	if !near(v, 0.5*w, 1e-15) {
		t.Errorf("qVS = %v, want %v", v, 0.5*w)
	}
}
