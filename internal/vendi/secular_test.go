package vendi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// solveShiftedRef is solveShifted as it was before its pole loop was split
// at the origin (one loop, a branch per pole, math.Abs of every term): the
// reference TestSolveShiftedBitwise compares the current version against.
func solveShiftedRef(a0 float64, diff, w []float64, blo, bhi float64) float64 {
	k0 := -1
	for k, dk := range diff {
		if dk == 0 {
			k0 = k
			break
		}
	}
	w0 := w[k0]
	positive := bhi > 0
	x := 0.5 * (blo + bhi)
	for it := 0; it < 200; it++ {
		var R, dR, absSum float64
		for k, dk := range diff {
			if k == k0 {
				continue
			}
			t := 1 / (x + dk)
			R += w[k] * t
			dR -= w[k] * t * t
			absSum += math.Abs(w[k] * t)
		}
		f := a0 - x + w0/x + R
		if math.Abs(f) <= secularTol*float64(len(diff)+2)*(absSum+math.Abs(a0)+math.Abs(x)+math.Abs(w0/x)) {
			return x
		}
		if f > 0 {
			blo = x
		} else {
			bhi = x
		}
		A := dR - 1
		B := a0 + R - dR*x
		C := w0
		disc := math.Sqrt(B*B - 4*A*C)
		qq := -0.5 * (B + math.Copysign(disc, B))
		r1, r2 := qq/A, C/qq
		nx := r1
		if (r1 > 0) != positive {
			nx = r2
		}
		if !(nx > blo && nx < bhi) || math.IsNaN(nx) {
			nx = 0.5 * (blo + bhi)
		}
		if math.Abs(nx-x) <= 2e-16*math.Abs(nx) || bhi-blo <= 2e-16*math.Max(math.Abs(blo), math.Abs(bhi)) {
			return nx
		}
		x = nx
	}
	return x
}

// TestSolveShiftedBitwise: every root of random arrowhead matrices (spread,
// clustered and graded poles, weights from 1e-30 to 10, both signs of a)
// is bit for bit the reference's, so the greedy's exact scores, hence the
// picks and every campaign record, are unchanged.
func TestSolveShiftedBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	ws := &secularWork{}
	roots := 0
	for trial := 0; trial < 3000; trial++ {
		d, z, a := randomBordered(rng, trial)
		p, w, lo, hi, ok := ws.deflate(d, z, a, func(float64) {})
		if !ok {
			continue
		}
		diff := make([]float64, len(p))
		for j := 0; j <= len(p); j++ {
			got := secularRoot(a, p, w, lo, hi, j, diff)
			want := refRoot(a, p, w, lo, hi, j)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("trial %d root %d of %d: %v (%x), reference %v (%x)", trial, j, len(p), got, math.Float64bits(got), want, math.Float64bits(want))
			}
			roots++
		}
	}
	if roots < 10000 {
		t.Fatalf("only %d roots compared", roots)
	}
}

// refRoot is the root in interval j by secularRoot's set-up (origin, bracket)
// and solveShiftedRef.
func refRoot(a float64, p, w []float64, lo, hi float64, j int) float64 {
	left, right := lo, hi
	if j > 0 {
		left = p[j-1]
	}
	if j < len(p) {
		right = p[j]
	}
	var origin, blo, bhi float64
	switch {
	case j == 0:
		origin, blo, bhi = p[0], lo-p[0], 0
	case j == len(p):
		origin, blo, bhi = p[len(p)-1], 0, hi-p[len(p)-1]
	default:
		mid := 0.5 * (left + right)
		if secular(a, p, w, mid) > 0 {
			origin, blo, bhi = right, mid-right, 0
		} else {
			origin, blo, bhi = left, 0, mid-left
		}
	}
	diff := make([]float64, len(p))
	for k := range p {
		diff[k] = origin - p[k]
	}
	return origin + solveShiftedRef(a-origin, diff, w, blo, bhi)
}

// TestArrowheadPairsBitwise: arrowhead, which solves the roots two at a
// time with interleaved iterations (secularRootPair), emits bit for bit
// the reference's roots, in interval order after the deflated values, on
// the random arrowhead matrices of TestSolveShiftedBitwise (odd and even
// root counts, pairs that stop at different iterations).
func TestArrowheadPairsBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	ws := &secularWork{}
	roots := 0
	for trial := 0; trial < 3000; trial++ {
		d, z, a := randomBordered(rng, trial)
		r := len(d)
		var deflated []float64
		p, w, lo, hi, ok := ws.deflate(d, z, a, func(mu float64) { deflated = append(deflated, mu) })
		var want []float64
		want = append(want, deflated...)
		if ok {
			p, w = slices.Clone(p), slices.Clone(w)
			for j := 0; j <= len(p); j++ {
				want = append(want, refRoot(a, p, w, lo, hi, j))
			}
		}
		var got []float64
		arrowhead(d, z, a, ws, func(mu float64) { got = append(got, mu) })
		if len(got) != len(want) || len(got) != r+1 {
			t.Fatalf("trial %d: %d eigenvalues, reference %d, size %d", trial, len(got), len(want), r+1)
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d eigenvalue %d of %d: %v, reference %v", trial, i, len(got), got[i], want[i])
			}
		}
		roots += len(got) - len(deflated)
	}
	if roots < 10000 {
		t.Fatalf("only %d roots compared", roots)
	}
}

// randomBordered returns the poles d, border z and corner a of a random
// arrowhead matrix of size 2..61: spread, clustered or graded poles
// (trial % 3), weights from 1e-30 to 10, both signs of a.
func randomBordered(rng *rand.Rand, trial int) (d, z []float64, a float64) {
	r := 1 + rng.IntN(60)
	d = make([]float64, r)
	z = make([]float64, r)
	for i := range d {
		switch trial % 3 {
		case 0:
			d[i] = 10*rng.Float64() - 4
		case 1:
			d[i] = float64(rng.IntN(5)) + 1e-9*rng.Float64() // clusters
		default:
			d[i] = math.Pow(10, -8*rng.Float64()) // graded
		}
		z[i] = rng.NormFloat64() * math.Pow(10, -15*rng.Float64()*rng.Float64())
	}
	return d, z, 4*rng.Float64() - 1
}

// BenchmarkArrowhead: every eigenvalue of a bordered matrix of r poles
// spread over (0, 2) (a touched block's spectrum and a candidate's
// projections, as the greedy solves them), the secular roots two at a time
// (secularRootPair).
func BenchmarkArrowhead(b *testing.B) {
	for _, r := range []int{8, 20, 32} {
		b.Run(fmt.Sprintf("r=%d", r), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(r)))
			d := make([]float64, r)
			z := make([]float64, r)
			for i := range d {
				d[i] = 2 * rng.Float64()
				z[i] = 0.2 * rng.NormFloat64()
			}
			ws := &secularWork{}
			n := 0
			for b.Loop() {
				arrowhead(d, z, 1, ws, func(float64) { n++ })
			}
			if n == 0 {
				b.Fatal("no eigenvalue")
			}
		})
	}
}
