package tasks

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

func TestLookup(t *testing.T) {
	cases := []struct {
		name    string
		dim     int
		wantErr string
	}{
		{"rover", 60, ""},
		{"lunar", 12, ""},
		{"synthetic", 6, ""},
		{"synthetic-3", 3, ""},
		{"synthetic-1", 0, "out of range"},
		{"synthetic-x", 0, "integer dimension"},
		{"Rover", 0, "known: lunar, rover, synthetic"},
		{"", 0, "unknown task"},
	}
	for _, c := range cases {
		obj, err := Lookup(c.name)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("Lookup(%q) error %v, want one containing %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Lookup(%q): %v", c.name, err)
		}
		lo, hi := obj.Bounds()
		if obj.Dim() != c.dim || len(lo) != c.dim || len(hi) != c.dim {
			t.Errorf("%s: Dim %d, bounds %d/%d, want %d", c.name, obj.Dim(), len(lo), len(hi), c.dim)
		}
		if obj.Name() != c.name {
			t.Errorf("Lookup(%q).Name() = %q", c.name, obj.Name())
		}
	}
	for _, n := range Names() {
		if _, err := Lookup(n); err != nil {
			t.Errorf("Names() lists %q but Lookup fails: %v", n, err)
		}
	}
}

func TestSyntheticClosedForm(t *testing.T) {
	// At a centre, f = its height plus the other bumps' tails (closed form),
	// and the values at the centres are ranked like the heights.
	for _, d := range []int{2, 3, 6, 11} {
		s, err := NewSynthetic(d)
		if err != nil {
			t.Fatal(err)
		}
		prev := math.Inf(1)
		for k, c := range s.Centres() {
			f := value(t, s, c)
			tail := 0.0
			for j, cj := range s.Centres() {
				if j != k {
					tail += s.Heights()[j] * math.Exp(-sqDist(c, cj)/(2*s.Sigma()*s.Sigma()))
				}
			}
			if math.Abs(f-(s.Heights()[k]+tail)) > 1e-15 {
				t.Errorf("d=%d: f(c_%d) = %v, want %v", d, k, f, s.Heights()[k]+tail)
			}
			if f >= prev {
				t.Errorf("d=%d: f(c_%d) = %v not below f(c_%d) = %v", d, k, f, k-1, prev)
			}
			prev = f
		}
	}
}

func TestSyntheticGradientFiniteDifference(t *testing.T) {
	// Central differences with step 1e-6 have error ~ h^2 f''' + eps/h ~ 1e-10.
	const h, tol = 1e-6, 1e-8
	s, _ := NewSynthetic(6)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 5 {
		x := make([]float64, 6)
		for i := range x {
			x[i] = rng.Float64()
		}
		g := s.Gradient(x)
		for i := range x {
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			fd := (value(t, s, xp) - value(t, s, xm)) / (2 * h)
			if math.Abs(fd-g[i]) > tol {
				t.Errorf("d f/d x_%d = %v, finite difference %v", i, g[i], fd)
			}
		}
	}
}

func TestSyntheticHasFourSeparatedMaxima(t *testing.T) {
	// Gradient ascent from each centre stays near it (within a quarter sigma;
	// the 0.4 bump's maximum is pulled 0.16 sigma towards its neighbours):
	// four distinct local maxima.
	for _, d := range []int{2, 3, 6, 7, 10} {
		s, _ := NewSynthetic(d)
		var maxima [][]float64
		for _, c := range s.Centres() {
			x := append([]float64(nil), c...)
			step := 0.5 * s.Sigma() * s.Sigma() // below 1/curvature of a bump
			for range 2000 {
				g := s.Gradient(x)
				for i := range x {
					x[i] += step * g[i]
				}
			}
			if dist := s.Distance(x, c); dist > 0.25*s.Sigma() {
				t.Errorf("d=%d: local maximum %v is %v from its centre (sigma %v)", d, x, dist, s.Sigma())
			}
			g := s.Gradient(x)
			if n := math.Sqrt(sqDist(g, make([]float64, d))); n > 1e-9 {
				t.Errorf("d=%d: ascent did not converge, |grad| = %v", d, n)
			}
			maxima = append(maxima, x)
		}
		for i := range maxima {
			for j := i + 1; j < len(maxima); j++ {
				if s.Distance(maxima[i], maxima[j]) < s.Sigma() {
					t.Errorf("d=%d: maxima %d and %d coincide", d, i, j)
				}
			}
		}
	}
}

func TestObjectivesConcurrentAndDeterministic(t *testing.T) {
	// Every task must give identical values when evaluated concurrently.
	rng := rand.New(rand.NewPCG(1, 1))
	for _, name := range []string{"rover", "synthetic"} { // lunar: its own package tests this
		obj, _ := Lookup(name)
		lo, hi := obj.Bounds()
		xs := make([][]float64, 16)
		want := make([]float64, len(xs))
		for k := range xs {
			xs[k] = make([]float64, obj.Dim())
			for i := range xs[k] {
				xs[k][i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
			}
			want[k] = value(t, obj, xs[k])
		}
		got := make([]float64, len(xs))
		done := make(chan struct{})
		for k := range xs {
			go func() { got[k] = value(t, obj, xs[k]); done <- struct{}{} }()
		}
		for range xs {
			<-done
		}
		for k := range xs {
			if got[k] != want[k] {
				t.Errorf("%s: concurrent Evaluate %v, serial %v", name, got[k], want[k])
			}
		}
	}
}

// value is obj's f(x); an error fails the test (from any goroutine).
func value(t testing.TB, obj bayesopt.Objective, x []float64) float64 {
	v, err := obj.Evaluate(context.Background(), x)
	if err != nil {
		t.Errorf("Evaluate: %v", err)
	}
	return v
}

// TestEvaluateWrongLength: a point of the wrong length is an error, not a
// panic (the tasks' Evaluate returns errors).
func TestEvaluateWrongLength(t *testing.T) {
	for _, name := range []string{"rover", "lunar", "synthetic"} {
		obj, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obj.Evaluate(context.Background(), make([]float64, obj.Dim()+1)); err == nil || !strings.Contains(err.Error(), "entries, want") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
