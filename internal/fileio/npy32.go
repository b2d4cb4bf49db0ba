package fileio

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// ErrNotFloat32 is returned by readNPYFloat32 for a valid array that is not
// a C-order float32 matrix: read it with readNPYArray instead.
var ErrNotFloat32 = errors.New("not a C-order float32 array")

// npy32Chunk is how many bytes are read (then checked) at a time: 4 MiB,
// large enough that a read costs its copy, not its system call.
const npy32Chunk = 1 << 22

// nativeOrder is the machine's byte order, the layout of a []float32.
var nativeOrder binary.ByteOrder = func() binary.ByteOrder {
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}()

// ErrNotFloat64 is returned by readNPYFloat64 for a valid array that is not
// a C-order float64 matrix.
var ErrNotFloat64 = errors.New("not a C-order float64 array")

// readNPYFloat32 reads a 1-D or 2-D C-order float32 .npy stream of size
// bytes into a float32 slice, reading the bytes directly into it so that the
// data is held once (readNPYArray converts to float64: twice the data).
// ReadNPYHeader checks the header's promise against size before anything is
// allocated. Every value must be finite; errors name the 1-based row and
// column. It returns ErrNotFloat32 (wrapped) for another dtype or Fortran
// order.
func readNPYFloat32(r io.Reader, size int64, name string) (rows, cols int, data []float32, err error) {
	return readNPYFloat[float32](r, size, name, "f4", ErrNotFloat32)
}

// readNPYFloat64 is readNPYFloat32 for float64 arrays (NumPy's default
// dtype): one copy of the data, read straight into the slice. It returns
// ErrNotFloat64 (wrapped) for another dtype or Fortran order.
func readNPYFloat64(r io.Reader, size int64, name string) (rows, cols int, data []float64, err error) {
	return readNPYFloat[float64](r, size, name, "f8", ErrNotFloat64)
}

// readNPYFloat reads a C-order .npy of dtype want (f4 or f8, either byte
// order) into a []T of the same width.
func readNPYFloat[T float32 | float64](r io.Reader, size int64, name, want string, errNot error) (rows, cols int, data []T, err error) {
	h, err := ReadNPYHeader(r, size, name)
	if err != nil {
		return 0, 0, nil, err
	}
	dt := h.Dtype
	var order binary.ByteOrder = binary.LittleEndian
	switch {
	case strings.HasPrefix(dt, ">"):
		order = binary.BigEndian
		dt = dt[1:]
	case strings.HasPrefix(dt, "<"), strings.HasPrefix(dt, "="):
		dt = dt[1:]
	}
	if dt != want || h.Fortran {
		return 0, 0, nil, fmt.Errorf("%s: %w (dtype %s, Fortran order %v)", name, errNot, h.Dtype, h.Fortran)
	}
	rows, cols, ok := MatrixShape(h.Shape)
	if !ok {
		return 0, 0, nil, fmt.Errorf("%s: expected a 1-D or 2-D array, got shape %v", name, h.Shape)
	}
	if rows <= 0 || cols <= 0 {
		return 0, 0, nil, fmt.Errorf("%s: array is empty (shape %v)", name, h.Shape)
	}
	n := rows * cols
	width := int(unsafe.Sizeof(T(0)))
	data = make([]T, n)
	// The bytes go straight into data's memory (no staging buffer, no
	// per-value decoding: this read is a memory copy), in chunks so that a
	// short file is reported where it ends; values are then byte-swapped in
	// place when the file's order is not the machine's, and checked.
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), width*n)
	swap := order != nativeOrder
	// chunk reads values [off, off+k) with read, then swaps and checks them.
	chunk := func(off, k int, read func(b []byte) (int, error)) error {
		if got, err := read(raw[width*off : width*(off+k)]); err != nil {
			return fmt.Errorf("%s: data ends after %d of %d values: %w", name, off+got/width, n, err)
		}
		vals := data[off : off+k]
		if swap {
			swapBytes(vals)
		}
		if i := firstNonFinite(vals); i >= 0 {
			p := off + i
			return fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", name, p/cols+1, p%cols+1, vals[i])
		}
		return nil
	}
	per := npy32Chunk / width
	if f, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok && n > 4*per && runtime.GOMAXPROCS(0) > 1 {
		// A file: chunks are read at their offsets by parallel workers, so
		// that the page faults of data's fresh memory, most of a large
		// read's cost, are taken on several cores (82 MB: 52 -> 21 ms on
		// 2). The first error in file order is reported, as the
		// sequential read would.
		base, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("%s: %w", name, err)
		}
		chunks := (n + per - 1) / per
		if err := parallel.Each(context.Background(), chunks, min(runtime.GOMAXPROCS(0), 4), func(c int) error {
			off := c * per
			return chunk(off, min(per, n-off), func(b []byte) (int, error) {
				got, err := f.ReadAt(b, base+int64(width*off))
				if got == len(b) {
					err = nil
				} else if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return got, err
			})
		}); err != nil {
			return 0, 0, nil, err
		}
		return rows, cols, data, nil
	}
	for off := 0; off < n; off += per {
		if err := chunk(off, min(per, n-off), func(b []byte) (int, error) { return io.ReadFull(r, b) }); err != nil {
			return 0, 0, nil, err
		}
	}
	return rows, cols, data, nil
}

// firstNonFinite is the index of the first Inf or NaN in vals, or -1: a
// value whose exponent bits are all ones. On the bits, in a loop per type:
// this check runs over every value read, and float64 conversions with
// math.IsNaN / math.IsInf made the read of a float32 file 2.5 times slower.
func firstNonFinite[T float32 | float64](vals []T) int {
	switch v := any(vals).(type) {
	case []float32:
		for i, x := range v {
			if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
				return i
			}
		}
	case []float64:
		for i, x := range v {
			if math.Float64bits(x)&0x7ff0000000000000 == 0x7ff0000000000000 {
				return i
			}
		}
	}
	return -1
}

// swapBytes reverses the byte order of every value in place.
func swapBytes[T float32 | float64](vals []T) {
	switch v := any(vals).(type) {
	case []float32:
		for i := range v {
			v[i] = math.Float32frombits(bits.ReverseBytes32(math.Float32bits(v[i])))
		}
	case []float64:
		for i := range v {
			v[i] = math.Float64frombits(bits.ReverseBytes64(math.Float64bits(v[i])))
		}
	}
}

// ReadNPYFloat32File is readNPYFloat32 on a file.
func ReadNPYFloat32File(path string) (rows, cols int, data []float32, err error) {
	return readNPYFile(path, readNPYFloat32)
}

// ReadNPYFloat64File is readNPYFloat64 on a file.
func ReadNPYFloat64File(path string) (rows, cols int, data []float64, err error) {
	return readNPYFile(path, readNPYFloat64)
}

func readNPYFile[T any](path string, read func(io.Reader, int64, string) (int, int, []T, error)) (rows, cols int, data []T, err error) {
	f, err := OpenInput(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, nil, err
	}
	return read(f, st.Size(), path)
}

// WriteNPYFloat32 writes a rows x cols C-order little-endian float32 .npy
// (format version 1.0) to w.
func WriteNPYFloat32(w io.Writer, rows, cols int, data []float32) error {
	if len(data) != rows*cols {
		return fmt.Errorf("fileio: %d values for a %d x %d array", len(data), rows, cols)
	}
	buf := npyHeaderV1("<f4", fmt.Sprintf("(%d, %d)", rows, cols))
	buf = slices.Grow(buf, 4*len(data))
	for _, v := range data {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
	}
	_, err := w.Write(buf)
	return err
}
