package datasets

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// bombMember is a zip member: an .npy header of descr and shape, data,
// then zeros bytes of zeros (deflated, they shrink about 1000 times).
type bombMember struct {
	name, descr string
	shape       []int
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
		w.Write(rawNPY(m.descr, false, m.shape, m.data))
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

// TestCSRDecompressionBomb: archives of a few hundred KB whose members
// inflate to 200-300 MB of zeros are refused from their headers before
// the large members are inflated, with the heap far below what they
// inflate to (issue 23: a 1.9 MB csr_weights.npz inflating to 2 GB used
// 1.9 GB). Before, "data" was read first, whole.
func TestCSRDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GB through deflate")
	}
	const big = 25_000_000 // values: 200 MB as float64, 100 MB as int32
	dir := t.TempDir()
	shape := bombMember{"shape.npy", "<i8", []int{2}, leBytes([]int64{4, 4}), 0}
	for _, c := range []struct {
		name    string
		n       int // the pool's items
		members []bombMember
		want    string
	}{
		{"data only", 4, []bombMember{shape, {"indptr.npy", "<i4", []int{5}, nil, 20}, {"indices.npy", "<i4", []int{7}, nil, 28},
			{"data.npy", "<f8", []int{big}, nil, 8 * big}},
			`arrays "indices" (7) and "data" (25000000) differ in length`},
		{"consistent, more values than the matrix holds", 4, []bombMember{shape, {"indptr.npy", "<i4", []int{5}, nil, 20},
			{"indices.npy", "<i4", []int{big}, nil, 4 * big}, {"data.npy", "<f8", []int{big}, nil, 8 * big}},
			`arrays "indices" and "data" promise 25000000 stored values, more than the 4 x 4 matrix holds`},
		// A 100,000 x 100,000 matrix could hold them, the graph bound not.
		{"consistent, beyond the graph bound", 100_000, []bombMember{
			{"shape.npy", "<i8", []int{2}, leBytes([]int64{100_000, 100_000}), 0},
			{"indptr.npy", "<i4", []int{100_001}, nil, 4 * 100_001},
			{"indices.npy", "<i4", []int{big}, nil, 4 * big}, {"data.npy", "<f8", []int{big}, nil, 8 * big}},
			"or the 20000000 qvs reads"},
		{"trailing bytes beyond the header", 4, []bombMember{shape, {"indptr.npy", "<i4", []int{5}, nil, 20},
			{"indices.npy", "<i4", []int{7}, nil, 28}, {"data.npy", "<f8", []int{7}, nil, 8 * big}},
			`array "data": the archive declares 200000128 bytes uncompressed, its header (shape [7] of dtype <f8) justifies 184`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".npz")
			writeBomb(t, p, c.members)
			fi, _ := os.Stat(p)
			_, peak := testutil.WatchHeap(t, 1<<40)
			_, err := ReadCSRNPZ(p, c.n)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d-byte archive: error %v, want %q", fi.Size(), err, c.want)
			}
			if p := peak(); p > 32<<20 {
				t.Errorf("%d-byte archive: heap peaked at %d MB", fi.Size(), p>>20)
			}
		})
	}
}
