package bayesopt

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSobolPublishedPoints compares the unscrambled 2-d sequence with the
// points printed in the scipy.stats.qmc.Sobol documentation
// (Sobol(d=2, scramble=False).random_base2(m=3)), which uses the same
// Joe-Kuo direction numbers and Gray-code order.
func TestSobolPublishedPoints(t *testing.T) {
	want := [][]float64{
		{0, 0}, {0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75},
		{0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625},
	}
	s, err := NewSobol(2)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Points(len(want))
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] { // dyadic rationals: exact
				t.Errorf("point %d dim %d: got %v want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}

// bratleyFoxPoint computes point i (Gray-code order) of dimension j from the
// Joe-Kuo m-values with the integer recurrence of Bratley & Fox (1988):
// m_k = 2 a_1 m_{k-1} ^ 4 a_2 m_{k-2} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}, v_k = m_k / 2^k,
// an implementation independent of NewSobol's shifted form.
func bratleyFoxPoint(j int, i uint32) float64 {
	const L = 32
	m := make([]uint64, L+1) // 1-based
	if j == 0 {
		for k := 1; k <= L; k++ {
			m[k] = 1
		}
	} else {
		row := joeKuo[j-1]
		s := int(row.s)
		for k := 1; k <= s; k++ {
			m[k] = uint64(row.m[k-1])
		}
		for k := s + 1; k <= L; k++ {
			x := (m[k-s] << s) ^ m[k-s]
			for q := 1; q < s; q++ {
				aq := uint64(row.a>>(s-1-q)) & 1
				x ^= (aq << q) * m[k-q]
			}
			m[k] = x
		}
	}
	g := i ^ (i >> 1)
	var num uint64 // binary fraction with L bits
	for k := 1; k <= L; k++ {
		if (g>>(k-1))&1 == 1 {
			num ^= m[k] << (L - k)
		}
	}
	return float64(num) / (1 << L)
}

func TestSobolMatchesBratleyFox(t *testing.T) {
	s, err := NewSobol(maxSobolDim)
	if err != nil {
		t.Fatal(err)
	}
	pts := s.Points(1024)
	for i := 0; i < 1024; i += 7 {
		for j := 0; j < maxSobolDim; j++ {
			if want := bratleyFoxPoint(j, uint32(i)); pts[i][j] != want {
				t.Fatalf("point %d dim %d: got %v, Bratley-Fox gives %v", i, j, pts[i][j], want)
			}
		}
	}
}

// isPrimitive reports whether x^s + a_1 x^{s-1} + ... + a_{s-1} x + 1 is
// primitive over GF(2): the powers of x cycle with period exactly 2^s - 1.
func isPrimitive(s, a uint32) bool {
	poly := uint32(1)<<s | a<<1 | 1
	period := uint32(1)<<s - 1
	x := uint32(1)
	for k := uint32(1); k <= period; k++ {
		x <<= 1
		if x&(1<<s) != 0 {
			x ^= poly
		}
		if x == 1 {
			return k == period
		}
	}
	return false
}

func TestSobolTableWellFormed(t *testing.T) {
	seen := map[[2]uint32]bool{}
	for i, row := range joeKuo {
		if int(row.s) != len(row.m) {
			t.Errorf("dim %d: degree %d but %d m-values", i+2, row.s, len(row.m))
		}
		if !isPrimitive(row.s, row.a) {
			t.Errorf("dim %d: polynomial (s=%d, a=%d) is not primitive", i+2, row.s, row.a)
		}
		if seen[[2]uint32{row.s, row.a}] {
			t.Errorf("dim %d: polynomial (s=%d, a=%d) repeated", i+2, row.s, row.a)
		}
		seen[[2]uint32{row.s, row.a}] = true
		for k, m := range row.m {
			if m%2 == 0 || m >= 1<<(k+1) {
				t.Errorf("dim %d: m_%d = %d must be odd and < 2^%d", i+2, k+1, m, k+1)
			}
		}
	}
}

// stratified reports whether the first 2^m points put exactly one point in
// each of the 2^m cells of every axis.
func stratified(pts [][]float64, m int) bool {
	n := 1 << m
	for j := range pts[0] {
		seen := make([]bool, n)
		for _, p := range pts[:n] {
			c := int(p[j] * float64(n))
			if c < 0 || c >= n || seen[c] {
				return false
			}
			seen[c] = true
		}
	}
	return true
}

// net2 reports whether the first 2^m points of axes 0 and 1 form a
// (0, m, 2)-net: every dyadic box of area 2^-m holds one point.
func net2(pts [][]float64, m int) bool {
	for a := 0; a <= m; a++ {
		seen := map[[2]int]bool{}
		for _, p := range pts[:1<<m] {
			c := [2]int{int(p[0] * float64(int(1)<<a)), int(p[1] * float64(int(1)<<(m-a)))}
			if seen[c] {
				return false
			}
			seen[c] = true
		}
	}
	return true
}

func TestSobolScrambleKeepsNets(t *testing.T) {
	const m = 8
	for seed := uint64(1); seed <= 3; seed++ {
		s, _ := NewSobol(maxSobolDim)
		s.Scramble(rand.New(rand.NewPCG(seed, 1)))
		pts := s.Points(1 << m)
		if !stratified(pts, m) {
			t.Errorf("seed %d: scrambled points are not stratified on every axis", seed)
		}
		if !net2(pts, m) {
			t.Errorf("seed %d: axes 0,1 of the scrambled points are not a (0,%d,2)-net", seed, m)
		}
		// Incremental and direct evaluation agree after scrambling too.
		p := make([]float64, maxSobolDim)
		for _, i := range []int{0, 1, 77, 255} {
			s.At(uint32(i), p)
			for j := range p {
				if p[j] != pts[i][j] {
					t.Fatalf("seed %d point %d dim %d: At %v, Points %v", seed, i, j, p[j], pts[i][j])
				}
			}
		}
	}
	u, _ := NewSobol(maxSobolDim)
	if !stratified(u.Points(1<<m), m) || !net2(u.Points(1<<m), m) {
		t.Error("unscrambled points fail the net property")
	}
}

// TestSobolScrambleUniform: the random shift makes point 0 uniform on [0,1)^d,
// so over many scrambles its coordinates average 1/2 with variance 1/12.
func TestSobolScrambleUniform(t *testing.T) {
	const reps, d = 2000, 5
	rng := rand.New(rand.NewPCG(1, 1))
	sum, sq := 0.0, 0.0
	p := make([]float64, d)
	for r := 0; r < reps; r++ {
		s, _ := NewSobol(d)
		s.Scramble(rng)
		s.At(0, p)
		for _, x := range p {
			if x < 0 || x >= 1 {
				t.Fatalf("coordinate %v outside [0,1)", x)
			}
			sum += x
			sq += x * x
		}
	}
	n := float64(reps * d)
	mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
	// Standard error of the mean is sqrt(1/12/n) ~ 0.0029; 5 SE.
	if math.Abs(mean-0.5) > 5*math.Sqrt(1.0/12/n) {
		t.Errorf("mean of scrambled first points %v, want 0.5", mean)
	}
	if math.Abs(variance-1.0/12) > 0.01 { // SE of the variance ~ 0.0009
		t.Errorf("variance %v, want 1/12", variance)
	}
}

func TestSobolBadDimension(t *testing.T) {
	for _, d := range []int{0, -1, maxSobolDim + 1} {
		if _, err := NewSobol(d); err == nil {
			t.Errorf("NewSobol(%d): no error", d)
		}
	}
}
