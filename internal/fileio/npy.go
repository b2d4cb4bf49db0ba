package fileio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sbinet/npyio"
)

// NPYArray is a numeric NumPy array converted to float64, C order.
type NPYArray struct {
	Shape   []int
	Data    []float64
	Integer bool   // the stored dtype was an integer or boolean type
	Dtype   string // as stored, e.g. "<f4"
}

// maxNPYElements bounds what a header may promise, so a corrupt header
// cannot make us allocate without limit (2^31 values = 16 GiB as float64).
const maxNPYElements = 1 << 31

// ReadNPY reads one .npy stream of a numeric dtype (bool, signed or unsigned
// integers of 1-8 bytes, float32, float64; either byte order; C or Fortran
// order). npyio parses the header; the data are converted here because
// npyio only reads into a Go slice of exactly the stored type. name is used
// in error messages.
func ReadNPY(r io.Reader, name string) (*NPYArray, error) {
	nr, err := npyio.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid .npy array: %w", name, err)
	}
	descr := nr.Header.Descr
	a := &NPYArray{Shape: append([]int(nil), descr.Shape...), Dtype: descr.Type}
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

// ReadNPYFile reads a numeric .npy file.
func ReadNPYFile(path string) (*NPYArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadNPY(f, path)
}
