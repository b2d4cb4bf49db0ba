package datasets

import (
	"fmt"
	"math"
	"strings"
)

// Fingerprint text formats (pool.csv.fingerprint_format, --fingerprint-format).
const (
	// FingerprintBits: one character '0' or '1' per bit, bit 0 first
	// (chemfp's --binary: "00100000" sets bit 2), as RDKit's
	// ExplicitBitVect.ToBitString() writes it.
	FingerprintBits = "bits"
	// FingerprintHex: the FPS convention of chemfp: hexadecimal digit pairs,
	// one per byte, bytes in order; bit i is bit i%8 (value 1<<(i%8)) of
	// byte i/8, so "04" sets bit 2 (the same fingerprint as the bit string
	// "00100000") and "0100" sets bit 0 of 16. Either case is read.
	FingerprintHex = "hex"
)

// FingerprintFormats lists the fingerprint text formats.
var FingerprintFormats = []string{FingerprintBits, FingerprintHex}

// maxFingerprintBits bounds one fingerprint (and a count fingerprint's
// expansion to bits): 65,536 bits is 32 times a 2,048-bit Morgan
// fingerprint, 8 KiB per item.
const maxFingerprintBits = 1 << 16

// parseFingerprint parses one fingerprint written in format (FingerprintBits
// or FingerprintHex; surrounding spaces are ignored) into words of 64 bits,
// bit i in word i/64 at 1<<(i%64), and returns its length in bits (the
// characters of a bit string, 4 per hex digit). Errors say which character
// is wrong and where (1-based).
func parseFingerprint(s, format string) ([]uint64, int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, 0, fmt.Errorf("empty fingerprint")
	}
	switch format {
	case FingerprintBits:
		if len(s) > maxFingerprintBits {
			return nil, 0, fmt.Errorf("fingerprint of %d characters, more than the %d bits allowed", len(s), maxFingerprintBits)
		}
		words := make([]uint64, (len(s)+63)/64)
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '1':
				words[i/64] |= 1 << (i % 64)
			case '0':
			default:
				return nil, 0, fmt.Errorf("character %d is %q, expected '0' or '1' (a bit string; for hexadecimal give --fingerprint-format hex)", i+1, s[i:i+1])
			}
		}
		return words, len(s), nil
	case FingerprintHex:
		if len(s)%2 != 0 {
			return nil, 0, fmt.Errorf("%d hexadecimal digits, expected an even number (two per byte, the FPS convention)", len(s))
		}
		if 4*len(s) > maxFingerprintBits {
			return nil, 0, fmt.Errorf("fingerprint of %d hexadecimal digits, more than the %d bits allowed", len(s), maxFingerprintBits)
		}
		nbits := 4 * len(s)
		words := make([]uint64, (nbits+63)/64)
		for b := 0; b < len(s)/2; b++ {
			hi, ok1 := hexDigit(s[2*b])
			lo, ok2 := hexDigit(s[2*b+1])
			if !ok1 || !ok2 {
				at := 2 * b
				if ok1 {
					at++
				}
				return nil, 0, fmt.Errorf("character %d is %q, expected a hexadecimal digit", at+1, s[at:at+1])
			}
			words[b/8] |= uint64(hi<<4|lo) << (8 * (b % 8))
		}
		return words, nbits, nil
	}
	return nil, 0, fmt.Errorf("fingerprint format %q is not one of %s", format, strings.Join(FingerprintFormats, ", "))
}

func hexDigit(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// FingerprintsFromCounts turns rows of non-negative integer features into
// bit fingerprints whose Tanimoto similarity is the min/max generalisation
// of Tanimoto to counts, Σ_f min(a_f, b_f) / Σ_f max(a_f, b_f) (1 for two
// all-zero rows): feature f becomes a block of m_f bits, m_f the largest
// count in column f, of which the first c bits are set for a count c, so
// |a AND b| = Σ min and |a OR b| = Σ max exactly. 0/1 features stay one bit
// each (plain Tanimoto). column names the columns in errors (nil: "feature
// j", 1-based); the error names the row (1-based) and column of the first
// value that is not a non-negative integer, or says when the expansion
// exceeds maxFingerprintBits.
func FingerprintsFromCounts(rows [][]float64, column func(j int) string) ([][]uint64, error) {
	if column == nil {
		column = func(j int) string { return fmt.Sprintf("feature %d", j+1) }
	}
	if len(rows) == 0 {
		return nil, nil
	}
	d := len(rows[0])
	width := make([]int, d)
	for i, row := range rows {
		for j, v := range row {
			if !(v >= 0) || v != math.Trunc(v) || v > maxFingerprintBits {
				return nil, fmt.Errorf("row %d, %s: %v is not a count (metric tanimoto needs 0/1 bits or non-negative integer counts)", i+1, column(j), v)
			}
			width[j] = max(width[j], int(v))
		}
	}
	offset := make([]int, d+1)
	for j, w := range width {
		offset[j+1] = offset[j] + w
		if offset[j+1] > maxFingerprintBits {
			return nil, fmt.Errorf("the counts expand to more than %d bits (the sum over columns of each column's largest count, up to %s); count fingerprints this large are not supported", maxFingerprintBits, column(j))
		}
	}
	words := max(1, (offset[d]+63)/64)
	out := make([][]uint64, len(rows))
	for i, row := range rows {
		b := make([]uint64, words)
		for j, v := range row {
			for t := offset[j]; t < offset[j]+int(v); t++ {
				b[t/64] |= 1 << (t % 64)
			}
		}
		out[i] = b
	}
	return out, nil
}

// TanimotoMatrix is the n x n matrix of Tanimoto similarities of the
// fingerprints (row-major; unit diagonal, two all-zero fingerprints have
// similarity 1, an all-zero and another 0: see Tanimoto). It is positive
// semidefinite (Tanimoto is a kernel on bit vectors).
func TanimotoMatrix(b [][]uint64) []float64 {
	n := len(b)
	k := make([]float64, n*n)
	for i := range n {
		k[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			v := Tanimoto(b[i], b[j])
			k[i*n+j], k[j*n+i] = v, v
		}
	}
	return k
}

// fingerprintReader parses a column of fingerprints one row at a time
// (parseFingerprint), checking that all have the same length in bits.
// Errors read "Path: ROW, column Column: ...", ROW as the caller names it
// (e.g. "line 3").
type fingerprintReader struct {
	Format, Path, Column string
	nbits                int
	first                string
}

// Parse parses the fingerprint of the row named row.
func (r *fingerprintReader) Parse(text, row string) ([]uint64, error) {
	b, nb, err := parseFingerprint(text, r.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %s, column %s, format %s: %w", r.Path, row, r.Column, r.Format, err)
	}
	if r.first == "" {
		r.nbits, r.first = nb, row
	} else if nb != r.nbits {
		return nil, fmt.Errorf("%s: %s, column %s: fingerprint of %d bits, expected %d like %s", r.Path, row, r.Column, nb, r.nbits, r.first)
	}
	return b, nil
}

// ParseFingerprints parses one fingerprint per item with a
// fingerprintReader; row(i) names item i's row in errors (e.g. "line 3").
func ParseFingerprints(texts []string, format, path, column string, row func(i int) string) ([][]uint64, error) {
	r := fingerprintReader{Format: format, Path: path, Column: column}
	out := make([][]uint64, len(texts))
	for i, text := range texts {
		var err error
		if out[i], err = r.Parse(text, row(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
