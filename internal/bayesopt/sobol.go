package bayesopt

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// sobolBits is the number of bits of every Sobol' coordinate: 2^32 points
// can be drawn before the sequence repeats, far beyond any candidate set.
const sobolBits = 32

// maxSobolDim is the largest dimension Sobol supports (the rover task is 60-d).
const maxSobolDim = len(joeKuo) + 1

// joeKuo holds, for Sobol' dimensions 2..64, the degree s of the primitive
// polynomial, its coefficients a (bits a_1..a_{s-1}, most significant first)
// and the initial direction numbers m_1..m_s: the first rows of Joe & Kuo's
// table new-joe-kuo-6.21201 (S. Joe and F. Y. Kuo, "Constructing Sobol
// sequences with better two-dimensional projections", SIAM J. Sci. Comput.
// 30, 2635-2654, 2008). Dimension 1 is the van der Corput sequence (all m = 1).
// The tests check every polynomial is primitive and every m_k odd and < 2^k.
var joeKuo = [...]struct {
	s, a uint32
	m    []uint32
}{
	{1, 0, []uint32{1}},                                  // 2
	{2, 1, []uint32{1, 3}},                               // 3
	{3, 1, []uint32{1, 3, 1}},                            // 4
	{3, 2, []uint32{1, 1, 1}},                            // 5
	{4, 1, []uint32{1, 1, 3, 3}},                         // 6
	{4, 4, []uint32{1, 3, 5, 13}},                        // 7
	{5, 2, []uint32{1, 1, 5, 5, 17}},                     // 8
	{5, 4, []uint32{1, 1, 5, 5, 5}},                      // 9
	{5, 7, []uint32{1, 1, 7, 11, 19}},                    // 10
	{5, 11, []uint32{1, 1, 5, 1, 1}},                     // 11
	{5, 13, []uint32{1, 1, 1, 3, 11}},                    // 12
	{5, 14, []uint32{1, 3, 5, 5, 31}},                    // 13
	{6, 1, []uint32{1, 3, 3, 9, 7, 49}},                  // 14
	{6, 13, []uint32{1, 1, 1, 15, 21, 21}},               // 15
	{6, 16, []uint32{1, 3, 1, 13, 27, 49}},               // 16
	{6, 19, []uint32{1, 1, 1, 15, 7, 5}},                 // 17
	{6, 22, []uint32{1, 3, 1, 15, 13, 25}},               // 18
	{6, 25, []uint32{1, 1, 5, 5, 19, 61}},                // 19
	{7, 1, []uint32{1, 3, 7, 11, 23, 15, 103}},           // 20
	{7, 4, []uint32{1, 3, 7, 13, 13, 15, 69}},            // 21
	{7, 7, []uint32{1, 1, 3, 13, 7, 35, 63}},             // 22
	{7, 8, []uint32{1, 3, 5, 9, 1, 25, 53}},              // 23
	{7, 14, []uint32{1, 3, 1, 13, 9, 35, 107}},           // 24
	{7, 19, []uint32{1, 3, 1, 5, 27, 61, 31}},            // 25
	{7, 21, []uint32{1, 1, 5, 11, 19, 41, 61}},           // 26
	{7, 28, []uint32{1, 3, 5, 3, 3, 13, 69}},             // 27
	{7, 31, []uint32{1, 1, 7, 13, 1, 19, 1}},             // 28
	{7, 32, []uint32{1, 3, 7, 5, 13, 19, 59}},            // 29
	{7, 37, []uint32{1, 1, 3, 9, 25, 29, 41}},            // 30
	{7, 41, []uint32{1, 3, 5, 13, 23, 1, 55}},            // 31
	{7, 42, []uint32{1, 3, 7, 3, 13, 59, 17}},            // 32
	{7, 50, []uint32{1, 3, 1, 3, 5, 53, 69}},             // 33
	{7, 55, []uint32{1, 1, 5, 5, 23, 33, 13}},            // 34
	{7, 56, []uint32{1, 1, 7, 7, 1, 61, 123}},            // 35
	{7, 59, []uint32{1, 1, 7, 9, 13, 61, 49}},            // 36
	{7, 62, []uint32{1, 3, 3, 5, 3, 55, 33}},             // 37
	{8, 14, []uint32{1, 3, 1, 15, 31, 13, 49, 245}},      // 38
	{8, 21, []uint32{1, 3, 5, 15, 31, 59, 63, 97}},       // 39
	{8, 22, []uint32{1, 3, 1, 11, 11, 11, 77, 249}},      // 40
	{8, 38, []uint32{1, 3, 1, 11, 27, 43, 71, 9}},        // 41
	{8, 47, []uint32{1, 1, 7, 15, 21, 11, 81, 45}},       // 42
	{8, 49, []uint32{1, 3, 7, 3, 25, 31, 65, 79}},        // 43
	{8, 50, []uint32{1, 3, 1, 1, 19, 11, 3, 205}},        // 44
	{8, 52, []uint32{1, 1, 5, 9, 19, 21, 29, 157}},       // 45
	{8, 56, []uint32{1, 3, 7, 11, 1, 33, 89, 185}},       // 46
	{8, 67, []uint32{1, 3, 3, 3, 15, 9, 79, 71}},         // 47
	{8, 70, []uint32{1, 3, 7, 11, 15, 39, 119, 27}},      // 48
	{8, 84, []uint32{1, 1, 3, 1, 11, 31, 97, 225}},       // 49
	{8, 97, []uint32{1, 1, 1, 3, 23, 43, 57, 177}},       // 50
	{8, 103, []uint32{1, 3, 7, 7, 17, 17, 37, 71}},       // 51
	{8, 115, []uint32{1, 3, 1, 5, 27, 63, 123, 213}},     // 52
	{8, 122, []uint32{1, 1, 3, 5, 11, 43, 53, 133}},      // 53
	{9, 8, []uint32{1, 3, 5, 5, 29, 17, 47, 173, 479}},   // 54
	{9, 13, []uint32{1, 3, 3, 11, 3, 1, 109, 9, 69}},     // 55
	{9, 16, []uint32{1, 1, 1, 5, 17, 39, 23, 5, 343}},    // 56
	{9, 22, []uint32{1, 3, 1, 5, 25, 15, 31, 103, 499}},  // 57
	{9, 25, []uint32{1, 1, 1, 11, 11, 17, 63, 105, 183}}, // 58
	{9, 44, []uint32{1, 1, 5, 11, 9, 29, 97, 231, 363}},  // 59
	{9, 47, []uint32{1, 1, 5, 15, 19, 45, 41, 7, 383}},   // 60
	{9, 52, []uint32{1, 3, 7, 7, 31, 19, 83, 137, 221}},  // 61
	{9, 55, []uint32{1, 1, 1, 3, 23, 15, 111, 223, 83}},  // 62
	{9, 59, []uint32{1, 1, 5, 13, 31, 15, 55, 25, 161}},  // 63
	{9, 62, []uint32{1, 1, 3, 13, 25, 47, 39, 87, 257}},  // 64
}

// Sobol generates points of the Sobol' low-discrepancy sequence in [0, 1)^d
// in Gray-code order (Antonov & Saleev), optionally scrambled. It is not
// safe for concurrent use by several goroutines; At is.
type Sobol struct {
	dim int
	// v[j][k] is direction number k+1 of dimension j as a 32-bit binary
	// fraction (bit 31 = 1/2).
	v     [][sobolBits]uint32
	shift []uint32
}

// NewSobol returns the unscrambled Sobol' sequence in dim dimensions
// (1 <= dim <= maxSobolDim).
func NewSobol(dim int) (*Sobol, error) {
	if dim < 1 || dim > maxSobolDim {
		return nil, fmt.Errorf("sobol: dimension %d outside [1, %d]", dim, maxSobolDim)
	}
	s := &Sobol{dim: dim, v: make([][sobolBits]uint32, dim), shift: make([]uint32, dim)}
	for k := 0; k < sobolBits; k++ {
		s.v[0][k] = 1 << (sobolBits - 1 - k)
	}
	for j := 1; j < dim; j++ {
		row := joeKuo[j-1]
		deg := int(row.s)
		v := &s.v[j]
		for k := 0; k < deg && k < sobolBits; k++ {
			v[k] = row.m[k] << (sobolBits - 1 - k)
		}
		// Bratley & Fox recurrence: v_k = v_{k-s} ^ (v_{k-s} >> s) ^ sum_i a_i v_{k-i}.
		for k := deg; k < sobolBits; k++ {
			x := v[k-deg] ^ (v[k-deg] >> deg)
			for i := 1; i < deg; i++ {
				if (row.a>>(deg-1-i))&1 == 1 {
					x ^= v[k-i]
				}
			}
			v[k] = x
		}
	}
	return s, nil
}

// Scramble applies a random linear matrix scramble and a random digital
// shift (Matoušek 1998; the "LMS + shift" of scipy.stats.qmc.Sobol) drawn
// from rng. Each dimension's direction numbers are multiplied by a random
// lower-triangular binary matrix with unit diagonal, which keeps the
// sequence's net structure (every 2^m consecutive points from index 0 still
// stratify each axis into 2^m cells), and every coordinate is XORed with a
// random 32-bit shift, which makes each point uniform on [0, 1)^d.
// Scramble composes with earlier scrambles.
func (s *Sobol) Scramble(rng *rand.Rand) {
	for j := 0; j < s.dim; j++ {
		// Row r of the matrix (r = 0 is the most significant output bit)
		// holds random bits in columns < r and a 1 in column r, as a mask
		// in the same bit order as the direction numbers.
		var rows [sobolBits]uint32
		for r := 0; r < sobolBits; r++ {
			diag := uint32(1) << (sobolBits - 1 - r)
			above := ^(diag | (diag - 1)) // bits more significant than the diagonal
			rows[r] = diag | (rng.Uint32() & above)
		}
		for k := 0; k < sobolBits; k++ {
			old := s.v[j][k]
			var out uint32
			for r := 0; r < sobolBits; r++ {
				if bits.OnesCount32(rows[r]&old)&1 == 1 {
					out |= 1 << (sobolBits - 1 - r)
				}
			}
			s.v[j][k] = out
		}
		s.shift[j] ^= rng.Uint32()
	}
}

// At writes point i of the sequence (Gray-code order, i = 0 first) to dst,
// which must have length Dim.
func (s *Sobol) At(i uint32, dst []float64) {
	if len(dst) != s.dim {
		panic("bayesopt: Sobol.At destination length differs from the dimension")
	}
	g := i ^ (i >> 1)
	for j := 0; j < s.dim; j++ {
		x := s.shift[j]
		for k, gg := 0, g; gg != 0; k, gg = k+1, gg>>1 {
			if gg&1 == 1 {
				x ^= s.v[j][k]
			}
		}
		dst[j] = toUnit(x)
	}
}

// Points returns the first n points of the sequence as an n-row slice,
// computed incrementally (one XOR per coordinate and point).
func (s *Sobol) Points(n int) [][]float64 {
	out := make([][]float64, n)
	buf := make([]float64, n*s.dim)
	x := append([]uint32(nil), s.shift...)
	for i := 0; i < n; i++ {
		if i > 0 {
			// Point i differs from point i-1 in the direction number of the
			// lowest zero bit of i-1 (Gray code).
			c := bits.TrailingZeros32(^uint32(i - 1))
			for j := range x {
				x[j] ^= s.v[j][c]
			}
		}
		p := buf[i*s.dim : (i+1)*s.dim : (i+1)*s.dim]
		for j, xv := range x {
			p[j] = toUnit(xv)
		}
		out[i] = p
	}
	return out
}

func toUnit(x uint32) float64 { return float64(x) / (1 << sobolBits) }
