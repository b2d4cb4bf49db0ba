package fileio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// ErrNotFloat32 is returned by ReadNPYFloat32 for a valid array that is not
// a C-order float32 matrix: read it with ReadNPY instead.
var ErrNotFloat32 = errors.New("not a C-order float32 array")

// npy32Chunk is how many bytes are converted at a time.
const npy32Chunk = 1 << 16

// ReadNPYFloat32 reads a 1-D or 2-D C-order float32 .npy stream of size
// bytes into a float32 slice, converting in chunks so that the data is held
// once (ReadNPY converts to float64: twice the data). ReadNPYHeader checks
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
	buf := make([]byte, npy32Chunk)
	for off := 0; off < n; {
		k := min(n-off, npy32Chunk/4)
		if _, err := io.ReadFull(r, buf[:4*k]); err != nil {
			return 0, 0, nil, fmt.Errorf("%s: data ends after %d of %d values: %w", name, off, n, err)
		}
		for i := 0; i < k; i++ {
			v := math.Float32frombits(order.Uint32(buf[4*i:]))
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				p := off + i
				return 0, 0, nil, fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", name, p/cols+1, p%cols+1, v)
			}
			data[off+i] = v
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
