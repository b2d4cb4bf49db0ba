package fileio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npy32Bytes builds a version 1.0 .npy stream by hand (NumPy's format spec):
// magic, header length, the header dict padded with spaces to a multiple of
// 64 bytes ending in a newline, then the data.
func npy32Bytes(descr string, fortran bool, shape string, data []byte) []byte {
	f := "False"
	if fortran {
		f = "True"
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f32le(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func f32be(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func TestReadNPYFloat32(t *testing.T) {
	vals := make([]float32, 3*npy32Chunk/4/2+5) // more than one chunk
	for i := range vals {
		vals[i] = float32(i) * 0.5
	}
	rows := len(vals) / 3
	vals = vals[:rows*3]
	raw := npy32Bytes("<f4", false, fmt.Sprintf("(%d, 3)", rows), f32le(vals...))
	r, c, got, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "x.npy")
	if err != nil || r != rows || c != 3 {
		t.Fatalf("%d x %d, %v", r, c, err)
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Fatalf("value %d = %v, want %v", i, got[i], vals[i])
		}
	}
	// big-endian over several chunks: every value swapped, in every chunk
	raw = npy32Bytes(">f4", false, fmt.Sprintf("(%d, 3)", rows), f32be(vals...))
	if r, c, got, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "b.npy"); err != nil || r != rows || c != 3 {
		t.Fatalf("big-endian: %d x %d, %v", r, c, err)
	} else {
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("big-endian value %d = %v, want %v", i, got[i], vals[i])
			}
		}
	}
	// a non-finite value in a later chunk is found and placed
	bad := append([]float32(nil), vals...)
	p := len(bad) - 4 // second-to-last row, last column
	bad[p] = float32(math.Inf(-1))
	raw = npy32Bytes("<f4", false, fmt.Sprintf("(%d, 3)", rows), f32le(bad...))
	want := fmt.Sprintf("row %d, column %d", p/3+1, p%3+1)
	if _, _, _, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "i.npy"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-Inf at value %d: %v, want %q", p, err, want)
	}
	// big-endian 1-D
	raw = npy32Bytes(">f4", false, "(2,)", f32be(1.5, -2))
	if r, c, got, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "v.npy"); err != nil || r != 2 || c != 1 || got[1] != -2 {
		t.Errorf("big-endian vector: %d %d %v %v", r, c, got, err)
	}
	cases := map[string]struct {
		raw  []byte
		want string
	}{
		"float64":   {npy32Bytes("<f8", false, "(1, 1)", make([]byte, 8)), "not a C-order float32"},
		"fortran":   {npy32Bytes("<f4", true, "(1, 2)", f32le(1, 2)), "not a C-order float32"},
		"short":     {npy32Bytes("<f4", false, "(2, 2)", f32le(1, 2, 3)), "header promises shape [2 2]"},
		"huge":      {npy32Bytes("<f4", false, "(100000000, 100000)", f32le(1)), "header promises"},
		"nan":       {npy32Bytes("<f4", false, "(2, 2)", f32le(1, 2, 3, float32(math.NaN()))), "row 2, column 2"},
		"3-d":       {npy32Bytes("<f4", false, "(1, 1, 1)", f32le(1)), "1-D or 2-D"},
		"empty":     {npy32Bytes("<f4", false, "(0, 3)", nil), "empty"},
		"not numpy": {[]byte("hello"), "not a .npy file"},
	}
	for name, tc := range cases {
		_, _, _, err := readNPYFloat32(bytes.NewReader(tc.raw), int64(len(tc.raw)), "e.npy")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "e.npy") {
			t.Errorf("%s: %v, want an error naming the file and %q", name, err, tc.want)
		}
		if name == "float64" && !errors.Is(err, ErrNotFloat32) {
			t.Errorf("float64: %v is not ErrNotFloat32", err)
		}
	}
	path := filepath.Join(t.TempDir(), "m.npy")
	os.WriteFile(path, npy32Bytes("<f4", false, "(1, 2)", f32le(3, 4)), 0o644)
	if r, c, got, err := ReadNPYFloat32File(path); err != nil || r != 1 || c != 2 || got[1] != 4 {
		t.Errorf("file: %d %d %v %v", r, c, got, err)
	}
}

// FuzzReadNPYFloat32: any bytes give values or an error, never a panic or
// an allocation beyond the input's size.
func FuzzReadNPYFloat32(f *testing.F) {
	f.Add(npy32Bytes("<f4", false, "(2, 2)", f32le(1, 2, 3, 4)))
	f.Add(npy32Bytes("<f4", false, "(3,)", f32le(1, 2)))
	f.Add(npy32Bytes(">f4", true, "(1, 1)", f32le(1)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, c, data, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "fuzz.npy")
		if err != nil {
			return
		}
		if r*c != len(data) || 4*len(data) > len(raw) {
			t.Fatalf("%d x %d with %d values from %d bytes", r, c, len(data), len(raw))
		}
	})
}

// TestReadNPYTruncatedHeader: a header length beyond the data made npyio
// panic in both readers (FuzzReadNPYFloat32's first find; main's own
// header parser, ReadNPYHeader, now reads both).
func TestReadNPYTruncatedHeader(t *testing.T) {
	raw := []byte("\x93NUMPY\x01000")
	if _, err := readNPYArray(bytes.NewReader(raw), int64(len(raw)), "t.npy"); err == nil || !strings.Contains(err.Error(), "t.npy") {
		t.Errorf("readNPYArray: %v", err)
	}
	if _, _, _, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "t.npy"); err == nil {
		t.Error("readNPYFloat32: no error")
	}
}

func TestWriteNPYFloat32RoundTrip(t *testing.T) {
	var b bytes.Buffer
	vals := []float32{1, -2.5, 3e-8, 4, 5, 6}
	if err := WriteNPYFloat32(&b, 2, 3, vals); err != nil {
		t.Fatal(err)
	}
	// readable by the general reader too
	a, err := readNPYArray(bytes.NewReader(b.Bytes()), int64(b.Len()), "w.npy")
	if err != nil || a.Dtype != "<f4" || a.Shape[0] != 2 || a.Shape[1] != 3 || a.Data[2] != float64(float32(3e-8)) {
		t.Fatalf("readNPYArray: %+v %v", a, err)
	}
	r, c, got, err := readNPYFloat32(bytes.NewReader(b.Bytes()), int64(b.Len()), "w.npy")
	if err != nil || r != 2 || c != 3 || got[1] != -2.5 {
		t.Fatalf("readNPYFloat32: %d %d %v %v", r, c, got, err)
	}
	if WriteNPYFloat32(&b, 2, 2, vals) == nil {
		t.Error("length mismatch accepted")
	}
}

func f64bytes(order binary.AppendByteOrder, vs ...float64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = order.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// TestReadNPYFloat64: the float64 reader over several chunks in both byte
// orders, a non-finite value placed by row and column in a later chunk,
// and the dtypes it leaves to readNPYArray.
func TestReadNPYFloat64(t *testing.T) {
	rows := npy32Chunk/8/3 + 11 // more than one chunk
	vals := make([]float64, rows*3)
	for i := range vals {
		vals[i] = float64(i)*0.25 - 7 + 1e-300
	}
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		descr := "<f8"
		if order == binary.BigEndian {
			descr = ">f8"
		}
		raw := npy32Bytes(descr, false, fmt.Sprintf("(%d, 3)", rows), f64bytes(order, vals...))
		r, c, got, err := readNPYFloat64(bytes.NewReader(raw), int64(len(raw)), "d.npy")
		if err != nil || r != rows || c != 3 {
			t.Fatalf("%s: %d x %d, %v", descr, r, c, err)
		}
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("%s: value %d = %v, want %v", descr, i, got[i], vals[i])
			}
		}
	}
	bad := append([]float64(nil), vals...)
	p := len(bad) - 2
	bad[p] = math.NaN()
	raw := npy32Bytes("<f8", false, fmt.Sprintf("(%d, 3)", rows), f64bytes(binary.LittleEndian, bad...))
	want := fmt.Sprintf("row %d, column %d", p/3+1, p%3+1)
	if _, _, _, err := readNPYFloat64(bytes.NewReader(raw), int64(len(raw)), "n.npy"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NaN at value %d: %v, want %q", p, err, want)
	}
	for name, raw := range map[string][]byte{
		"float32": npy32Bytes("<f4", false, "(1, 1)", f32le(1)),
		"fortran": npy32Bytes("<f8", true, "(1, 2)", f64bytes(binary.LittleEndian, 1, 2)),
	} {
		if _, _, _, err := readNPYFloat64(bytes.NewReader(raw), int64(len(raw)), "e.npy"); !errors.Is(err, ErrNotFloat64) || !strings.Contains(err.Error(), "e.npy") {
			t.Errorf("%s: %v, want ErrNotFloat64 naming the file", name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "m.npy")
	os.WriteFile(path, npy32Bytes("<f8", false, "(2,)", f64bytes(binary.LittleEndian, 3, 4)), 0o644)
	if r, c, got, err := ReadNPYFloat64File(path); err != nil || r != 2 || c != 1 || got[1] != 4 {
		t.Errorf("file: %d %d %v %v", r, c, got, err)
	}
}

// FuzzReadNPYFloat64: any bytes give values or an error, never a panic or
// an allocation beyond the input's size.
func FuzzReadNPYFloat64(f *testing.F) {
	f.Add(npy32Bytes("<f8", false, "(2, 2)", f64bytes(binary.LittleEndian, 1, 2, 3, 4)))
	f.Add(npy32Bytes(">f8", false, "(3,)", f64bytes(binary.BigEndian, 1, 2)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, c, data, err := readNPYFloat64(bytes.NewReader(raw), int64(len(raw)), "fuzz.npy")
		if err != nil {
			return
		}
		if r*c != len(data) || 8*len(data) > len(raw) {
			t.Fatalf("%d x %d with %d values from %d bytes", r, c, len(data), len(raw))
		}
	})
}

// BenchmarkReadNPYFloat: reading 4,000,000 values (1,000 x 4,000) from
// memory, so the cost is the copy and the checks, not the disk. The check
// for non-finite values once made the float32 read 2.5 times slower.
func BenchmarkReadNPYFloat(b *testing.B) {
	const rows, cols = 1000, 4000
	v32 := make([]float32, rows*cols)
	v64 := make([]float64, rows*cols)
	for i := range v32 {
		v32[i] = float32(i%977) * 0.5
		v64[i] = float64(v32[i])
	}
	raw32 := npy32Bytes("<f4", false, fmt.Sprintf("(%d, %d)", rows, cols), f32le(v32...))
	raw64 := npy32Bytes("<f8", false, fmt.Sprintf("(%d, %d)", rows, cols), f64bytes(binary.LittleEndian, v64...))
	b.Run("float32", func(b *testing.B) {
		b.SetBytes(int64(len(raw32)))
		for b.Loop() {
			if _, _, _, err := readNPYFloat32(bytes.NewReader(raw32), int64(len(raw32)), "b.npy"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("float64", func(b *testing.B) {
		b.SetBytes(int64(len(raw64)))
		for b.Loop() {
			if _, _, _, err := readNPYFloat64(bytes.NewReader(raw64), int64(len(raw64)), "b.npy"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// onlyReader hides a reader's ReadAt and Seek: the sequential path.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(b []byte) (int, error) { return o.r.Read(b) }

// TestReadNPYFloat32Parallel: a file-like reader (ReadAt, Seek) of more
// than four chunks is read by parallel workers; the values equal the
// sequential read's, the first non-finite value in file order is the one
// reported whatever chunk finishes first, and a stream shorter than its
// size says where the data ends.
func TestReadNPYFloat32Parallel(t *testing.T) {
	per := npy32Chunk / 4
	n := 5*per + 123
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i%1009) - 500.5
	}
	shape := fmt.Sprintf("(%d, 1)", n)
	raw := npy32Bytes("<f4", false, shape, f32le(vals...))
	_, _, par, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "p.npy")
	if err != nil {
		t.Fatal(err)
	}
	_, _, seq, err := readNPYFloat32(onlyReader{bytes.NewReader(raw)}, int64(len(raw)), "p.npy")
	if err != nil || !slices.Equal(par, seq) || !slices.Equal(par, vals) {
		t.Fatalf("parallel and sequential reads differ (%v)", err)
	}
	bad := slices.Clone(vals)
	bad[4*per+7] = float32(math.NaN())
	bad[per+3] = float32(math.Inf(1)) // the first in file order
	raw = npy32Bytes("<f4", false, shape, f32le(bad...))
	want := fmt.Sprintf("row %d, column 1", per+4)
	for i := 0; i < 5; i++ {
		if _, _, _, err := readNPYFloat32(bytes.NewReader(raw), int64(len(raw)), "b.npy"); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%v, want the first non-finite value, %q", err, want)
		}
	}
	// size promises the whole array, the stream stops 10 values short
	full := npy32Bytes("<f4", false, shape, f32le(vals...))
	short := full[:len(full)-40]
	if _, _, _, err := readNPYFloat32(bytes.NewReader(short), int64(len(full)), "s.npy"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("data ends after %d of %d values", n-10, n)) {
		t.Errorf("short stream: %v", err)
	}
}
