package rover

import (
	"math"
	"testing"
)

func goldenX(f func(i int) float64) []float64 {
	x := make([]float64, Dim)
	for i := range x {
		x[i] = math.Min(math.Max(f(i), Lower), Upper)
	}
	return x
}

func TestRewardGolden(t *testing.T) {
	// Golden values of the original Python rover code (Wang et al. 2018, as
	// the ROBOT code runs it).
	const relTol = 1e-6 // the brief's acceptance tolerance
	cases := []struct {
		name string
		f    func(i int) float64
		want float64
	}{
		{"sin", func(i int) float64 { return 0.03 + 0.03*math.Sin(float64(i)) }, -11.0512770566},
		{"cos", func(i int) float64 { return 0.03 + 0.03*math.Cos(1.7*float64(i)) }, -9.5674443061},
		{"mod13", func(i int) float64 { return 0.015 + 0.045*float64((7919*i)%13)/12 }, -53.0655912892},
		{"const", func(i int) float64 { return 0.03 }, -6.3773481093},
	}
	for _, c := range cases {
		got := reward(goldenX(c.f))
		t.Logf("%s: %.10f (want %.10f)", c.name, got, c.want)
		if math.Abs(got-c.want) > relTol*math.Abs(c.want) {
			t.Errorf("%s: Reward = %.10f, want %.10f", c.name, got, c.want)
		}
	}
}
