package datasets

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// The rule every command applies to a .npy of fingerprints (a pool with
// metric tanimoto: `qvs as suggest`, `qvs graph`; embeddings under
// --embedding-kernel tanimoto: `qvs score`, `qvs select`): a uint8 row is
// packed bits as numpy.packbits(fp, axis=1) writes them, most significant
// bit first (fingerprint bit b is bit 7 - b%8 of byte b/8; d bytes hold
// 8d bits), and a bool column is one bit. Other dtypes are not
// fingerprints (counts go through FingerprintsFromCounts as numbers).

// isNPYFingerprintDtype reports whether a .npy dtype (the header's descr,
// byte order included) holds fingerprints: uint8 (packed) or bool.
func isNPYFingerprintDtype(dtype string) bool {
	dt := strings.TrimLeft(dtype, "<>=|")
	return dt == "u1" || dt == "b1"
}

// ReadNPYFingerprints reads a 2-D C-order .npy of uint8 or bool dtype as
// fingerprints (the rule above), one per row, every one of the same
// length in bits. ok is false, and nothing is read past the header, when
// the dtype is neither: the caller reads the file its own way. Errors name
// the file, and the row and column of a bad value.
func ReadNPYFingerprints(path string) (fps [][]uint64, ok bool, err error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	h, err := fileio.ReadNPYHeader(br, st.Size(), path)
	if err != nil {
		return nil, false, err
	}
	if !isNPYFingerprintDtype(h.Dtype) {
		return nil, false, nil
	}
	if len(h.Shape) != 2 || h.Fortran {
		return nil, true, fmt.Errorf("%s: shape %v (Fortran order %v), expected a C-order 2-D array, one fingerprint per row", path, h.Shape, h.Fortran)
	}
	if h.Shape[0] < 1 || h.Shape[1] < 1 {
		return nil, true, fmt.Errorf("%s: shape %v, expected at least 1 row and 1 column", path, h.Shape)
	}
	fps, err = readNPYBits(br, h, path, nil)
	return fps, true, err
}

// readNPYBits reads the h.Shape[0] x h.Shape[1] data of a uint8 or bool
// .npy (the header already read from r) as fingerprints, into one block,
// counting rows on rd.
func readNPYBits(r io.Reader, h *fileio.NPYHeader, path string, rd *knn.Phase) ([][]uint64, error) {
	n, d := h.Shape[0], h.Shape[1]
	packed := strings.TrimLeft(h.Dtype, "<>=|") == "u1"
	nbits := d
	if packed {
		nbits = 8 * d
	}
	if nbits > maxFingerprintBits {
		return nil, fmt.Errorf("%s: fingerprints of %d bits (%d %s a row), more than the %d bits allowed", path, nbits, d, map[bool]string{true: "bytes", false: "bool columns"}[packed], maxFingerprintBits)
	}
	words := (nbits + 63) / 64
	back := make([]uint64, n*words)
	out := make([][]uint64, n)
	row := make([]byte, d)
	for i := range n {
		if _, err := io.ReadFull(r, row); err != nil {
			return nil, fmt.Errorf("%s: data ends in row %d of %d: %w", path, i+1, n, err)
		}
		rd.At(int64(i + 1))
		w := back[i*words : (i+1)*words]
		for c, v := range row {
			if !packed {
				if v > 1 {
					return nil, fmt.Errorf("%s: row %d, column %d: bool byte %d, expected 0 or 1", path, i+1, c+1, v)
				}
				w[c/64] |= uint64(v) << (c % 64)
				continue
			}
			// MSB first: byte c's bit 7-b is fingerprint bit 8c+b.
			w[c/8] |= uint64(bits.Reverse8(v)) << (8 * (c % 8))
		}
		out[i] = w
	}
	return out, nil
}
