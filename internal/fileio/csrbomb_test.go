package fileio

import (
	"archive/zip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// bombMember is a zip member: an .npy header of descr and n values, data,
// then zeros bytes of zeros (deflated, they shrink about 1000 times: a
// legal ratio, so checkZipSizes lets them through).
type bombMember struct {
	name, descr string
	n           int
	data        []byte
	zeros       int64
}

// writeBomb writes a deflated .npz of members.
func writeBomb(t *testing.T, path string, members []bombMember) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	chunk := make([]byte, 1<<20)
	for _, m := range members {
		w, err := z.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(append(npyHeaderV1(m.descr, "("+strconv.Itoa(m.n)+",)"), m.data...))
		for left := m.zeros; left > 0; left -= int64(len(chunk)) {
			w.Write(chunk[:min(left, int64(len(chunk)))])
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCSRDecompressionBomb: archives of 200-300 KB whose members inflate
// to 200-300 MB of zeros (a legal deflate ratio) are refused from their
// headers before the large members are inflated, allocating under 1 MiB
// (about 80 KB) of the 200-300 MB they inflate to (a 1.9 MB
// csr_weights.npz inflating to 2 GB used 1.9 GB). Before, the headers
// agreeing with each other was enough and the arrays were inflated whole
// (191-383 MB of heap here). The bound is on what the read allocates, not
// on the peak heap, which moves with the GC's timing.
func TestCSRDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GB through deflate")
	}
	const big = 25_000_000 // values: 200 MB as float64, 100 MB as int32
	dir := t.TempDir()
	shape := func(rows, cols int64) bombMember {
		return bombMember{"shape.npy", "<i8", 2, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, uint64(rows)), uint64(cols)), 0}
	}
	for _, c := range []struct {
		name    string
		n       int // the pool's items
		members []bombMember
		want    string
	}{
		{"consistent, more values than the matrix holds", 4, []bombMember{shape(4, 4), {"indptr.npy", "<i4", 5, nil, 20},
			{"indices.npy", "<i4", big, nil, 4 * big}, {"data.npy", "<f8", big, nil, 8 * big}},
			`arrays "indices" and "data" promise 25000000 stored values, more than the 4 x 4 matrix holds`},
		// A 100,000 x 100,000 matrix could hold them, the bound not.
		{"consistent, beyond the graph bound", 100_000, []bombMember{shape(100_000, 100_000),
			{"indptr.npy", "<i4", 100_001, nil, 4 * 100_001},
			{"indices.npy", "<i4", big, nil, 4 * big}, {"data.npy", "<f8", big, nil, 8 * big}},
			"or the 20000000 qvs reads"},
		// Not the pool's n x n: refused from shape alone.
		{"another order", 4, []bombMember{shape(100_000, 100_000),
			{"indptr.npy", "<i4", 100_001, nil, 4 * 100_001},
			{"indices.npy", "<i4", 1000, nil, 4 * 1000}, {"data.npy", "<f8", 1000, nil, 8 * 1000}},
			"matrix is 100000 x 100000, expected 4 x 4"},
		{"indptr disagrees with data", 4, []bombMember{shape(4, 4), {"indptr.npy", "<i4", 5, nil, 20},
			{"indices.npy", "<i4", 16, nil, 4 * 16}, {"data.npy", "<f8", 16, nil, 8 * 16}},
			`array "indptr" must end at 16`},
		{"trailing bytes beyond the header", 4, []bombMember{shape(4, 4), {"indptr.npy", "<i4", 5, nil, 20},
			{"indices.npy", "<i4", 7, nil, 28}, {"data.npy", "<f8", 7, nil, 8 * big}},
			`array "data": the archive declares 200000128 bytes uncompressed, its header (shape [7] of dtype <f8) justifies 184`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".npz")
			writeBomb(t, p, c.members)
			fi, _ := os.Stat(p)
			var err error
			allocated := testutil.Allocated(func() { _, err = ReadSquareCSRNPZ(p, c.n) })
			if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d-byte archive: error %v, want %q", fi.Size(), err, c.want)
			}
			if allocated > 1<<20 {
				t.Errorf("%d-byte archive: allocated %d KiB, want under 1 MiB", fi.Size(), allocated>>10)
			}
		})
	}
}
