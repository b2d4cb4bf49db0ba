package eval

import "math/bits"

// bitRow returns a row function over bit-vector features (fingerprints),
// each bit a 0/1 feature, and the number of features.
func bitRow(b [][]uint64) (func(i int, dst []float64), int) {
	words := 0
	for _, r := range b {
		words = max(words, len(r))
	}
	return func(i int, dst []float64) {
		clear(dst)
		for w, word := range b[i] {
			for word != 0 {
				t := bits.TrailingZeros64(word)
				dst[w*64+t] = 1
				word &= word - 1
			}
		}
	}, words * 64
}
