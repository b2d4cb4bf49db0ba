package rover

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkReward(b *testing.B) {
	x := randomX(rand.New(rand.NewPCG(1, 1)))
	for b.Loop() {
		reward(x)
	}
}

func BenchmarkDistance(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x1, x2 := randomX(rng), randomX(rng)
	b.Run("cached", func(b *testing.B) {
		task := New()
		for b.Loop() {
			task.Distance(x1, x2)
		}
	})
	b.Run("cached-near", func(b *testing.B) {
		// A pair as a trust region produces: x2 = x1 perturbed by 2% of the box.
		task := New()
		x3 := append([]float64(nil), x1...)
		for i := range x3 {
			x3[i] = min(Upper, max(Lower, x3[i]+0.02*(Upper-Lower)*rng.NormFloat64()))
		}
		for b.Loop() {
			task.Distance(x1, x3)
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			New().Distance(x1, x2)
		}
	})
	b.Run("bruteforce", func(b *testing.B) {
		t1, t2 := Trajectory(x1), Trajectory(x2)
		for b.Loop() {
			bruteOneWay(t1, t2)
		}
	})
}
