package fileio

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// fixtureCSR is the matrix testdata/make-csr-npz.py saves with scipy 1.10.1
// (numpy 1.24.2):
//
//	[0     0.5   0     0  0.25]
//	[1     0     0     0  0   ]
//	[0     0     0     0  0   ]
//	[0     0.125 0.75  0  1   ]
func fixtureCSR() *CSR {
	return &CSR{Rows: 4, Cols: 5,
		Indptr:  []int{0, 2, 3, 3, 6},
		Indices: []int{1, 4, 0, 1, 2, 4},
		Data:    []float64{0.5, 0.25, 1, 0.125, 0.75, 1}}
}

// TestReadCSRNPZScipy reads what scipy.sparse.save_npz wrote, compressed
// (its default) and stored, and refuses its CSC format naming .tocsr().
func TestReadCSRNPZScipy(t *testing.T) {
	for _, name := range []string{"csr-scipy.npz", "csr-scipy-stored.npz"} {
		m, err := ReadCSRNPZ(filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(m, fixtureCSR()) {
			t.Errorf("%s: read %+v, want %+v", name, m, fixtureCSR())
		}
	}
	_, err := ReadCSRNPZ(filepath.Join("testdata", "csc-scipy.npz"))
	if err == nil || !strings.Contains(err.Error(), `csc-scipy.npz: sparse format "csc"`) || !strings.Contains(err.Error(), ".tocsr()") {
		t.Errorf("csc: %v", err)
	}
}

// npzContents returns the member names (in order) and their uncompressed
// contents.
func npzContents(t *testing.T, path string) ([]string, map[string][]byte) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	contents := map[string][]byte{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		contents[f.Name] = b
	}
	return names, contents
}

// TestWriteCSRNPZMatchesScipy: WriteCSRNPZ's archive holds the same members
// in the same order with the same .npy bytes (headers, padding, dtypes,
// values) as scipy.sparse.save_npz's, and reads back to the same matrix.
func TestWriteCSRNPZMatchesScipy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.npz")
	if err := WriteCSRNPZ(p, fixtureCSR()); err != nil {
		t.Fatal(err)
	}
	gotNames, got := npzContents(t, p)
	wantNames, want := npzContents(t, filepath.Join("testdata", "csr-scipy.npz"))
	if !reflect.DeepEqual(gotNames, wantNames) {
		t.Fatalf("members %q, scipy writes %q", gotNames, wantNames)
	}
	for _, name := range wantNames {
		if !bytes.Equal(got[name], want[name]) {
			t.Errorf("%s:\n got %q\nwant %q", name, got[name], want[name])
		}
	}
	m, err := ReadCSRNPZ(p)
	if err != nil || !reflect.DeepEqual(m, fixtureCSR()) {
		t.Errorf("read back %+v, %v", m, err)
	}
	bad := fixtureCSR()
	bad.Indices[2] = 5
	if err := WriteCSRNPZ(p, bad); err == nil || !strings.Contains(err.Error(), "row 1 stores column 5, outside 0..4") {
		t.Errorf("bad matrix written: %v", err)
	}
}

// rawNPZ builds a zip whose members are given raw: name, method, the
// compressed bytes and the declared uncompressed size.
type rawMember struct {
	name     string
	data     []byte // as stored (deflated for zip.Deflate)
	declared uint64
}

func deflated(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func writeRawNPZ(t *testing.T, path string, members []rawMember) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: zip.Deflate,
			CompressedSize64: uint64(len(m.data)), UncompressedSize64: m.declared})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// honest is a member whose declared size is its real one.
func honest(name string, npy []byte) rawMember {
	return rawMember{name, deflated(npy), uint64(len(npy))}
}

func npyInts(descr string, n int, fill uint32) []byte {
	b := npyHeaderV1(descr, "("+strconv.Itoa(n)+",)")
	for range n {
		b = binary.LittleEndian.AppendUint32(b, fill)
	}
	return b
}

// TestReadCSRNPZBombs: archives whose members inflate (or claim to) far
// beyond the matrix they describe are refused before the big member is
// inflated, allocating under 1 MiB: a member declaring 1 TiB from a few
// bytes (more than deflate can produce), and an indices array of 4 million
// zeros (16 MB inflated from 16 KB: a legal ratio) beside a data array of 6.
func TestReadCSRNPZBombs(t *testing.T) {
	dir := t.TempDir()
	format := honest("format.npy", append(npyHeaderV1("|S3", "()"), "csr"...))
	shape := honest("shape.npy", append(npyHeaderV1("<i8", "(2,)"), 4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0))
	indptr := honest("indptr.npy", npyInts("<i4", 5, 0))
	data := honest("data.npy", append(npyHeaderV1("<f8", "(6,)"), make([]byte, 48)...))
	claim := honest("indices.npy", npyInts("<i4", 6, 0))
	claim.declared = 1 << 40
	big := honest("indices.npy", npyInts("<i4", 4_000_000, 0))
	cases := []struct {
		name    string
		members []rawMember
		want    string
	}{
		{"claim", []rawMember{claim, indptr, format, shape, data}, `array "indices": member declares 1099511627776 bytes uncompressed`},
		{"mismatch", []rawMember{big, indptr, format, shape, data}, `arrays "indices" (4000000) and "data" (6) differ in length`},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".npz")
		writeRawNPZ(t, p, c.members)
		var err error
		if n := allocated(func() { _, err = ReadCSRNPZ(p) }); n > 1<<20 {
			t.Errorf("%s: allocated %d bytes", c.name, n)
		}
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestReadCSRNPZDamaged: structural errors name the file and the array.
func TestReadCSRNPZDamaged(t *testing.T) {
	dir := t.TempDir()
	enc := func(name string, m *CSR) string {
		var b bytes.Buffer
		if err := encodeCSRNPZ(&b, m); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b.Bytes(), 0o644)
		return p
	}
	m := fixtureCSR()
	m.Indptr = []int{0, 3, 2, 3, 6}
	p1 := enc("indptr.npz", m)
	m = fixtureCSR()
	m.Indices[5] = 7
	p2 := enc("column.npz", m)
	m = fixtureCSR()
	m.Rows = 3
	p3 := enc("rows.npz", m)
	for _, c := range []struct{ path, want string }{
		{p1, `array "indptr" entry 2 is 2, less than entry 1 (3)`},
		{p2, "row 3 stores column 7, outside 0..4"},
		{p3, `array "indptr" has 5 entries, expected rows+1 = 4`},
		{filepath.Join("testdata", "make-csr-npz.py"), "not a .npz (zip) archive"},
	} {
		_, err := ReadCSRNPZ(c.path)
		if err == nil || !strings.HasPrefix(err.Error(), c.path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
}

// FuzzReadCSRNPZ: the reader never panics, its errors name the file, and a
// matrix it returns passes Check and survives a write/read round trip.
func FuzzReadCSRNPZ(f *testing.F) {
	for _, name := range []string{"csr-scipy.npz", "csr-scipy-stored.npz", "csc-scipy.npz"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, dir, "m.npz", data)
		m, err := ReadCSRNPZ(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("accepted a bad matrix: %v", err)
		}
		q := filepath.Join(dir, "back.npz")
		if err := WriteCSRNPZ(q, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSRNPZ(q)
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, m)
		}
	})
}
