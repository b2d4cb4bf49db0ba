package datasets

import (
	"bytes"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// TestReadNPYFingerprints: uint8 rows are packed most significant bit
// first (numpy.packbits: 0x80 is bit 0, 0x01 bit 7, the second byte holds
// bits 8-15), bool columns are one bit each, other dtypes are left to the
// caller (ok false), and bad files are errors naming the file and the row.
func TestReadNPYFingerprints(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, body []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Two rows of 16 bits: bits {0, 7, 9} and {15}.
	fps, ok, err := ReadNPYFingerprints(write("p.npy", rawNPY("|u1", false, []int{2, 2}, []byte{0x81, 0x40, 0x00, 0x01})))
	if err != nil || !ok || len(fps) != 2 || fps[0][0] != 1|1<<7|1<<9 || fps[1][0] != 1<<15 {
		t.Errorf("packed: %v, %v, %v; want bits {0,7,9} and {15}", fps, ok, err)
	}
	fps, ok, err = ReadNPYFingerprints(write("b.npy", rawNPY("|b1", false, []int{2, 3}, []byte{1, 0, 1, 0, 1, 0})))
	if err != nil || !ok || fps[0][0] != 0b101 || fps[1][0] != 0b010 {
		t.Errorf("bool: %v, %v, %v", fps, ok, err)
	}
	if _, ok, err := ReadNPYFingerprints(write("f.npy", rawNPY("<f8", false, []int{1, 1}, make([]byte, 8)))); ok || err != nil {
		t.Errorf("float64: ok %v, %v; want the caller's (ok false, no error)", ok, err)
	}
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"bool2.npy", rawNPY("|b1", false, []int{2, 2}, []byte{1, 0, 2, 0}), "bool2.npy: row 2, column 1: bool byte 2"},
		{"short.npy", append(rawNPY("|u1", false, []int{2, 2}, nil), 1, 2, 3), "short.npy"},
		{"flat.npy", rawNPY("|u1", false, []int{4}, []byte{1, 2, 3, 4}), "flat.npy: shape [4]"},
		{"wide.npy", rawNPY("|u1", false, []int{1, 9000}, make([]byte, 9000)), "more than the 65536 bits allowed"},
	} {
		if _, _, err := ReadNPYFingerprints(write(c.name, c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// FuzzReadNPYFingerprints: any bytes are fingerprints, the caller's
// (ok false) or an error, never a panic or an allocation beyond the file;
// packed fingerprints repack (MSB first) to the file's data bytes.
func FuzzReadNPYFingerprints(f *testing.F) {
	f.Add(rawNPY("|u1", false, []int{2, 2}, []byte{0x81, 0x40, 0x00, 0x01}))
	f.Add(rawNPY("|b1", false, []int{2, 3}, []byte{1, 0, 1, 0, 1, 0}))
	f.Add(rawNPY("|u1", false, []int{1 << 40, 2}, nil))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		path := filepath.Join(dir, "fp.npy")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		fps, ok, err := ReadNPYFingerprints(path)
		if err != nil || !ok {
			return
		}
		h, err := fileio.ReadNPYHeader(bytes.NewReader(body), int64(len(body)), path)
		if err != nil {
			t.Fatalf("read, but the header is refused: %v", err)
		}
		n, d := h.Shape[0], h.Shape[1]
		data := body[h.Len:]
		if len(fps) != n || len(data) < n*d {
			t.Fatalf("%d fingerprints of a %v array, %d data bytes", len(fps), h.Shape, len(data))
		}
		for i, w := range fps {
			for c := range d {
				var b byte
				if strings.HasSuffix(h.Dtype, "u1") {
					b = bits.Reverse8(byte(w[c/8] >> (8 * (c % 8))))
				} else {
					b = byte(w[c/64]>>(c%64)) & 1
				}
				if b != data[i*d+c] {
					t.Fatalf("row %d, byte %d: %#x repacked, %#x in the file", i+1, c+1, b, data[i*d+c])
				}
			}
		}
	})
}
