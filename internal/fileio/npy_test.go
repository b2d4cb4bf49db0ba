package fileio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// npyBytes builds a .npy stream as the format specification describes it
// (numpy.lib.format): magic, version, little-endian header length (2 bytes
// for version 1, 4 for 2 and 3), the dict padded with spaces so the data
// start at a multiple of 64, a newline, then data.
func npyBytes(major byte, dict string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	hlen := len(dict) + 1
	if pad := (pre + hlen) % 64; pad != 0 {
		hlen += 64 - pad
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(major)
	b.WriteByte(0)
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(hlen))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(hlen))
	}
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", hlen-len(dict)-1))
	b.WriteByte('\n')
	b.Write(data)
	return b.Bytes()
}

func le(vals ...any) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// TestReadNPYFormats reads arrays whose bytes are built by hand from the
// format specification, so the expected values are independent of the reader.
func TestReadNPYFormats(t *testing.T) {
	be := new(bytes.Buffer)
	binary.Write(be, binary.BigEndian, []int16{-2, 300})
	for _, c := range []struct {
		name  string
		in    []byte
		shape []int
		want  []float64
		isInt bool
	}{
		{"v1 f8 2x2", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", le([]float64{1, 2, 3, 4})), []int{2, 2}, []float64{1, 2, 3, 4}, false},
		{"v2 f4", npyBytes(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", le([]float32{0.5, -1, 2})), []int{3}, []float64{0.5, -1, 2}, false},
		{"v3 keys reordered, double quotes", npyBytes(3, `{"shape": (2,), "fortran_order": False, "descr": "<u1"}`, []byte{7, 255}), []int{2}, []float64{7, 255}, true},
		{"big-endian i2", npyBytes(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", be.Bytes()), []int{2}, []float64{-2, 300}, true},
		{"Fortran 2x3", npyBytes(1, "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }", le([]int64{1, 4, 2, 5, 3, 6})), []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}, true},
		{"bool", npyBytes(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", []byte{1, 0, 1}), []int{3}, []float64{1, 0, 1}, true},
		{"0-d", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", le(2.5)), []int{}, []float64{2.5}, false},
		{"empty 0x3", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", nil), []int{0, 3}, []float64{}, false},
		{"Python 2 long", npyBytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1L,), }", le(int32(-9))), []int{1}, []float64{-9}, true},
	} {
		for _, size := range []int64{int64(len(c.in)), -1} {
			a, err := readNPYArray(bytes.NewReader(c.in), size, "x.npy")
			if err != nil {
				t.Errorf("%s (size %d): %v", c.name, size, err)
				continue
			}
			if !slices.Equal(a.Shape, c.shape) || !slices.Equal(a.Data, c.want) || a.Integer != c.isInt {
				t.Errorf("%s (size %d): got shape %v data %v integer %v, want %v %v %v", c.name, size, a.Shape, a.Data, a.Integer, c.shape, c.want, c.isInt)
			}
		}
	}
}

// TestReadNPYString reads the 0-d string arrays scipy.sparse.save_npz writes
// as "format": bytes (|S3) and unicode (<U3, UCS-4).
func TestReadNPYString(t *testing.T) {
	s := npyBytes(1, "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte("csr"))
	u := npyBytes(1, "{'descr': '<U4', 'fortran_order': False, 'shape': (), }", le([]uint32{'c', 's', 'r', 0}))
	for _, in := range [][]byte{s, u} {
		got, err := readNPYString(bytes.NewReader(in), int64(len(in)), "f.npy")
		if err != nil || got != "csr" {
			t.Errorf("got %q, %v; want csr", got, err)
		}
	}
	num := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", le(1.0))
	if _, err := readNPYString(bytes.NewReader(num), int64(len(num)), "f.npy"); err == nil || !strings.Contains(err.Error(), "expected a single string") {
		t.Errorf("numeric array as string: %v", err)
	}
}

// TestReadNPYDamaged: truncated and malformed headers were once
// handed to npyio, which panicked (slice bounds out of range in its header
// reader); each must now be an error naming the file.
func TestReadNPYDamaged(t *testing.T) {
	good := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", le([]float64{1, 2}))
	noNewline := bytes.Clone(good)
	noNewline[len(good)-17] = ' ' // the header's final '\n'
	for _, c := range []struct {
		name, in, want string
	}{
		{"issue repro", "\x93NUMPY\x01000", "header claims 12336 bytes but the file has only 0"},
		{"truncated length", "\x93NUMPY\x01\x00\x30", "truncated in its length field"},
		{"v1 header without newline", string(noNewline), "does not end with a newline"},
		{"empty", "", "not a .npy file"},
		{"magic only", "\x93NUMPY", "truncated"},
		{"half magic", "\x93NUM", "not a .npy file"},
		{"other magic", "PK\x03\x04 a zip file", "not a .npy file"},
		{"version 9", "\x93NUMPY\x09\x00\x10\x00", "version 9.0"},
		{"v2 huge header", "\x93NUMPY\x02\x00\xff\xff\xff\xff", "more than"},
		{"header past end", "\x93NUMPY\x01\x00\x40\x00{'descr'", "file has only"},
		{"not a dict", string(npyBytes(1, "['<f8', False, (2,)]", le([]float64{1, 2}))), "not a dictionary"},
		{"missing shape", string(npyBytes(1, "{'descr': '<f8', 'fortran_order': False}", le([]float64{1, 2}))), `key "shape" missing`},
		{"extra key", string(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", le([]float64{1, 2}))), `unexpected key "x"`},
		{"negative dim", string(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }", le([]float64{1, 2}))), "non-negative integer"},
		{"bad order", string(npyBytes(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }", le([]float64{1, 2}))), "neither True nor False"},
		{"structured", string(npyBytes(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", le([]float64{1, 2}))), "structured"},
		{"complex", string(npyBytes(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", le([]float64{1, 2}))), "not supported"},
		{"short data", string(good[:len(good)-3]), "(16 bytes of data), the file has 13"},
		{"dimension overflow", string(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", nil)), "too large"},
		{"product overflow", string(npyBytes(1, "{'descr': '<u1', 'fortran_order': False, 'shape': (2000000000, 2000000000), }", nil)), "more than"},
		{"3-d Fortran", string(npyBytes(1, "{'descr': '<u1', 'fortran_order': True, 'shape': (1, 1, 1), }", []byte{1})), "Fortran-order"},
	} {
		_, err := readNPYArray(strings.NewReader(c.in), int64(len(c.in)), "d/x.npy")
		if err == nil || !strings.HasPrefix(err.Error(), "d/x.npy: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one starting with the file name and containing %q", c.name, err, c.want)
		}
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadNPYHugeClaim: a 416-byte file whose header
// claims 40000 x 40000 float64 made the old reader allocate 12.8 GB before
// reading. The claim is now checked against the file size (file path) or
// the data are read in chunks (stream of unknown size), so a few KiB are
// allocated either way.
func TestReadNPYHugeClaim(t *testing.T) {
	in := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (40000, 40000), }", make([]byte, 416-128))
	if len(in) != 416 {
		t.Fatalf("test file is %d bytes", len(in))
	}
	p := filepath.Join(t.TempDir(), "big.npy")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20 // far below the 12.8 GB claimed, far above what a 416-byte file needs
	var err error
	if n := allocated(func() { _, err = ReadNPYFile(p) }); n > limit {
		t.Errorf("file: allocated %d bytes", n)
	}
	if err == nil || !strings.Contains(err.Error(), "big.npy: .npy header promises shape [40000 40000]") {
		t.Errorf("file: error %v", err)
	}
	if n := allocated(func() { _, err = readNPYArray(bytes.NewReader(in), -1, "stream") }); n > limit {
		t.Errorf("stream: allocated %d bytes", n)
	}
	if err == nil || !strings.Contains(err.Error(), "data stop after 36") {
		t.Errorf("stream: error %v", err)
	}
}

// TestReadNPYNpyioFiles reads what another writer (npyio) produces.
func TestReadNPYNpyioFiles(t *testing.T) {
	var b bytes.Buffer
	if err := npyio.Write(&b, mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	a, err := readNPYArray(&b, int64(b.Len()), "m.npy")
	if err != nil || !slices.Equal(a.Shape, []int{2, 3}) || a.Data[4] != 5 {
		t.Errorf("npyio matrix: %+v %v", a, err)
	}
}

// FuzzReadNPY feeds arbitrary bytes to the .npy reader. It must never panic;
// a success must hold exactly the promised number of values, no more values
// than the input has bytes, and agree with the unknown-size (chunked) path.
func FuzzReadNPY(f *testing.F) {
	var b bytes.Buffer
	npyio.Write(&b, mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()}))
	f.Add(b.Bytes())
	b.Reset()
	npyio.Write(&b, []int32{3, -1, 7})
	f.Add(b.Bytes())
	f.Add(npyBytes(2, "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 1), }", []byte{0, 1, 0, 2}))
	f.Add(npyBytes(3, "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte("csr")))
	f.Add([]byte("\x93NUMPY\x01000"))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := readNPYArray(bytes.NewReader(in), int64(len(in)), "f.npy")
		a2, err2 := readNPYArray(bytes.NewReader(in), -1, "f.npy")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("sized and unsized reads disagree: %v vs %v", err, err2)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.npy: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		n := 1
		for _, s := range a.Shape {
			n *= s
		}
		if len(a.Data) != n || len(a.Data) > len(in) || !slices.Equal(a.Shape, a2.Shape) || len(a2.Data) != n {
			t.Fatalf("shape %v but %d values from %d bytes", a.Shape, len(a.Data), len(in))
		}
		for i := range a.Data {
			if a.Data[i] != a2.Data[i] && !(math.IsNaN(a.Data[i]) && math.IsNaN(a2.Data[i])) {
				t.Fatalf("value %d: %v vs %v", i, a.Data[i], a2.Data[i])
			}
		}
		readNPYString(bytes.NewReader(in), int64(len(in)), "f.npy")
	})
}
