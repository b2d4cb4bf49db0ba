package fileio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strings"
	"unsafe"
)

// ErrNotFloat32 is returned by ReadNPYFloat32 for a valid array that is not
// a C-order float32 matrix: read it with ReadNPY instead.
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

// ReadNPYFloat32 reads a 1-D or 2-D C-order float32 .npy stream of size
// bytes into a float32 slice, reading the bytes directly into it so that the
// data is held once (ReadNPY converts to float64: twice the data). ReadNPYHeader checks
// the header's promise against size before anything is allocated.
// Every value must be finite; errors name the 1-based row and column. It
// returns ErrNotFloat32 (wrapped) for another dtype or Fortran order.
func ReadNPYFloat32(r io.Reader, size int64, name string) (rows, cols int, data []float32, err error) {
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
	if dt != "f4" || h.Fortran {
		return 0, 0, nil, fmt.Errorf("%s: %w (dtype %s, Fortran order %v)", name, ErrNotFloat32, h.Dtype, h.Fortran)
	}
	rows, cols, ok := MatrixShape(h.Shape)
	if !ok {
		return 0, 0, nil, fmt.Errorf("%s: expected a 1-D or 2-D array, got shape %v", name, h.Shape)
	}
	if rows <= 0 || cols <= 0 {
		return 0, 0, nil, fmt.Errorf("%s: array is empty (shape %v)", name, h.Shape)
	}
	n := rows * cols
	data = make([]float32, n)
	// The bytes go straight into data's memory (no staging buffer, no
	// per-value decoding: this read is a memory copy), in chunks so that a
	// short file is reported where it ends; values are then byte-swapped in
	// place when the file's order is not the machine's, and checked.
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*n)
	swap := order != nativeOrder
	for off := 0; off < n; {
		k := min(n-off, npy32Chunk/4)
		chunk := raw[4*off : 4*(off+k)]
		if _, err := io.ReadFull(r, chunk); err != nil {
			return 0, 0, nil, fmt.Errorf("%s: data ends after %d of %d values: %w", name, off, n, err)
		}
		vals := data[off : off+k]
		if swap {
			for i := range vals {
				vals[i] = math.Float32frombits(bits.ReverseBytes32(math.Float32bits(vals[i])))
			}
		}
		for i, v := range vals {
			// An exponent of all ones is Inf or NaN.
			if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
				p := off + i
				return 0, 0, nil, fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", name, p/cols+1, p%cols+1, v)
			}
		}
		off += k
	}
	return rows, cols, data, nil
}

// ReadNPYFloat32File is ReadNPYFloat32 on a file.
func ReadNPYFloat32File(path string) (rows, cols int, data []float32, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, nil, err
	}
	return ReadNPYFloat32(f, st.Size(), path)
}

// WriteNPYFloat32 writes a rows x cols C-order little-endian float32 .npy
// (format version 1.0) to w.
func WriteNPYFloat32(w io.Writer, rows, cols int, data []float32) error {
	if len(data) != rows*cols {
		return fmt.Errorf("fileio: %d values for a %d x %d array", len(data), rows, cols)
	}
	h := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	buf := make([]byte, 10, 10+len(h)+4*len(data))
	copy(buf, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(h)))
	buf = append(buf, h...)
	for _, v := range data {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
	}
	_, err := w.Write(buf)
	return err
}
