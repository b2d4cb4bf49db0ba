package datasets

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sbinet/npyio"
	"github.com/sbinet/npyio/npz"
)

// npyArray is a numeric NumPy array converted to float64, C order.
type npyArray struct {
	Shape   []int
	Data    []float64
	Integer bool   // the stored dtype was an integer or boolean type
	Dtype   string // as stored, e.g. "<f4"
}

// maxNPYElements bounds what a header may promise, so a corrupt header
// cannot make us allocate without limit (2^31 values = 16 GiB as float64).
const maxNPYElements = 1 << 31

// readNPY reads one .npy stream of a numeric dtype (bool, signed or unsigned
// integers of 1-8 bytes, float32, float64; either byte order; C or Fortran
// order). npyio parses the header; the data are converted here because
// npyio only reads into a Go slice of exactly the stored type. name is used
// in error messages.
func readNPY(r io.Reader, name string) (*npyArray, error) {
	nr, err := npyio.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid .npy array: %w", name, err)
	}
	descr := nr.Header.Descr
	a := &npyArray{Shape: append([]int(nil), descr.Shape...), Dtype: descr.Type}
	n := 1
	for _, s := range a.Shape {
		if s < 0 || (s > 0 && n > maxNPYElements/s) {
			return nil, fmt.Errorf("%s: implausible shape %v", name, a.Shape)
		}
		n *= s
	}
	dt := descr.Type
	var order binary.ByteOrder = binary.LittleEndian
	switch {
	case strings.HasPrefix(dt, ">"):
		order = binary.BigEndian
		dt = dt[1:]
	case strings.HasPrefix(dt, "<"), strings.HasPrefix(dt, "|"), strings.HasPrefix(dt, "="):
		dt = dt[1:]
	}
	size := 0
	if len(dt) == 2 {
		size = int(dt[1] - '0')
	}
	var conv func(b []byte) float64
	switch {
	case dt == "b1":
		a.Integer = true
		conv = func(b []byte) float64 { return float64(b[0]) }
	case len(dt) == 2 && dt[0] == 'u' && (size == 1 || size == 2 || size == 4 || size == 8):
		a.Integer = true
		conv = func(b []byte) float64 { return float64(uintFrom(b, order)) }
	case len(dt) == 2 && dt[0] == 'i' && (size == 1 || size == 2 || size == 4 || size == 8):
		a.Integer = true
		conv = func(b []byte) float64 {
			u := uintFrom(b, order)
			shift := 64 - 8*uint(len(b))
			return float64(int64(u<<shift) >> shift)
		}
	case dt == "f4":
		conv = func(b []byte) float64 { return float64(math.Float32frombits(order.Uint32(b))) }
	case dt == "f8":
		conv = func(b []byte) float64 { return math.Float64frombits(order.Uint64(b)) }
	default:
		return nil, fmt.Errorf("%s: dtype %q is not supported (expected bool, integer, float32 or float64)", name, descr.Type)
	}
	if dt == "b1" {
		size = 1
	}
	raw := make([]byte, n*size)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("%s: header promises %d values of dtype %s (shape %v), data is shorter: %w", name, n, descr.Type, a.Shape, err)
	}
	a.Data = make([]float64, n)
	for i := range a.Data {
		a.Data[i] = conv(raw[i*size : (i+1)*size])
	}
	if descr.Fortran && len(a.Shape) == 2 {
		rows, cols := a.Shape[0], a.Shape[1]
		t := make([]float64, n)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				t[i*cols+j] = a.Data[j*rows+i]
			}
		}
		a.Data = t
	} else if descr.Fortran && len(a.Shape) > 2 {
		return nil, fmt.Errorf("%s: Fortran-order arrays of %d dimensions are not supported", name, len(a.Shape))
	}
	return a, nil
}

func uintFrom(b []byte, order binary.ByteOrder) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(order.Uint16(b))
	case 4:
		return uint64(order.Uint32(b))
	default:
		return order.Uint64(b)
	}
}

// readNPYFile reads a numeric .npy file.
func readNPYFile(path string) (*npyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readNPY(f, path)
}

// npzMember is the archive member holding array key: numpy.savez and
// savez_compressed name it key + ".npy".
func npzMember(z *npz.Reader, key string) string {
	for _, name := range z.Keys() {
		if name == key+".npy" || name == key {
			return name
		}
	}
	return ""
}

// readNPZArray reads the numeric member key of an open .npz archive.
func readNPZArray(z *npz.Reader, path, key string) (*npyArray, error) {
	name := npzMember(z, key)
	if name == "" {
		return nil, fmt.Errorf("%s: no array %q in the archive (it has %q)", path, key, z.Keys())
	}
	rc, err := z.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: array %q: %w", path, key, err)
	}
	defer rc.Close()
	return readNPY(rc, fmt.Sprintf("%s: array %q", path, key))
}

// readNPZString reads a 0-d byte- or unicode-string member (like scipy's
// "format").
func readNPZString(z *npz.Reader, path, key string) (string, error) {
	name := npzMember(z, key)
	if name == "" {
		return "", fmt.Errorf("%s: no array %q in the archive", path, key)
	}
	var s string
	if err := z.Read(name, &s); err != nil {
		return "", fmt.Errorf("%s: array %q is not a string: %w", path, key, err)
	}
	return strings.TrimRight(s, "\x00"), nil
}

// CSR is a sparse matrix in compressed sparse row form, as scipy stores it.
type CSR struct {
	Rows, Cols int
	Indptr     []int     // Rows+1 offsets into Indices and Data
	Indices    []int     // column of each stored value
	Data       []float64 // stored values
}

// ReadCSRNPZ reads a scipy.sparse CSR matrix saved with scipy.sparse.save_npz:
// a zip of arrays "data", "indices", "indptr", "shape" and "format" (b"csr").
// The structure is validated (monotone indptr, columns in range) and every
// error names the file and the array.
func ReadCSRNPZ(path string) (*CSR, error) {
	z, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) archive: %w", path, err)
	}
	defer z.Close()
	if npzMember(z, "format") != "" {
		format, err := readNPZString(z, path, "format")
		if err != nil {
			return nil, err
		}
		if format != "csr" {
			return nil, fmt.Errorf("%s: sparse format %q, expected \"csr\" (convert with .tocsr() before save_npz)", path, format)
		}
	}
	arrays := map[string]*npyArray{}
	for _, key := range []string{"data", "indices", "indptr", "shape"} {
		a, err := readNPZArray(z, path, key)
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 1 {
			return nil, fmt.Errorf("%s: array %q has shape %v, expected one dimension", path, key, a.Shape)
		}
		if key != "data" && !a.Integer {
			return nil, fmt.Errorf("%s: array %q has dtype %s, expected integers", path, key, a.Dtype)
		}
		arrays[key] = a
	}
	shape := arrays["shape"].Data
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 {
		return nil, fmt.Errorf("%s: array \"shape\" is %v, expected two non-negative sizes", path, shape)
	}
	m := &CSR{Rows: int(shape[0]), Cols: int(shape[1]), Data: arrays["data"].Data}
	ip, ix := arrays["indptr"].Data, arrays["indices"].Data
	if len(ip) != m.Rows+1 {
		return nil, fmt.Errorf("%s: array \"indptr\" has %d entries, expected rows+1 = %d", path, len(ip), m.Rows+1)
	}
	if len(ix) != len(m.Data) {
		return nil, fmt.Errorf("%s: arrays \"indices\" (%d) and \"data\" (%d) differ in length", path, len(ix), len(m.Data))
	}
	m.Indptr = make([]int, len(ip))
	for i, v := range ip {
		m.Indptr[i] = int(v)
		if v < 0 || int(v) > len(ix) || (i > 0 && m.Indptr[i] < m.Indptr[i-1]) {
			return nil, fmt.Errorf("%s: array \"indptr\" entry %d is %v: offsets must rise from 0 to %d", path, i, v, len(ix))
		}
	}
	if m.Indptr[0] != 0 || m.Indptr[m.Rows] != len(ix) {
		return nil, fmt.Errorf("%s: array \"indptr\" must start at 0 and end at %d (the number of stored values)", path, len(ix))
	}
	m.Indices = make([]int, len(ix))
	for e, v := range ix {
		if v < 0 || int(v) >= m.Cols {
			row := 0
			for m.Indptr[row+1] <= e {
				row++
			}
			return nil, fmt.Errorf("%s: row %d stores column %v, outside 0..%d", path, row, v, m.Cols-1)
		}
		m.Indices[e] = int(v)
	}
	return m, nil
}
