package fileio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NPYArray is a numeric NumPy array converted to float64, C order.
type NPYArray struct {
	Shape   []int
	Data    []float64
	Integer bool   // the stored dtype was an integer or boolean type
	Dtype   string // as stored, e.g. "<f4"
}

// NPYHeader is the parsed header of a .npy stream (format versions 1-3,
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
type NPYHeader struct {
	Major, Minor int
	Dtype        string // the 'descr' value, e.g. "<f8", "|S3"
	Fortran      bool   // 'fortran_order'
	Shape        []int  // empty for a 0-d array
	Len          int64  // bytes before the data: magic, version, length field and header
}

// Elements is the number of values the header promises (1 for a 0-d array).
func (h *NPYHeader) Elements() int {
	n := 1
	for _, s := range h.Shape {
		n *= s
	}
	return n
}

// DataBytes is the size of the data the header promises, in bytes, or -1
// for a dtype readNPYArray does not read.
func (h *NPYHeader) DataBytes() int64 {
	item := npyItemSize(h.Dtype)
	if item == 0 {
		return -1
	}
	return int64(h.Elements()) * int64(item)
}

const (
	// maxNPYElements bounds what a header may promise, so a corrupt header
	// cannot make us allocate without limit (2^31 values = 16 GiB as float64),
	// even when the stream's size is unknown.
	maxNPYElements = 1 << 31
	// maxNPYHeader bounds the header dictionary. NumPy itself refuses
	// headers above 10,000 bytes unless told otherwise (max_header_size);
	// ours are under 200.
	maxNPYHeader = 1 << 16
	// npyChunk is how many data bytes are read at a time, so what we hold
	// grows with the bytes actually present, not with what the header claims.
	npyChunk = 1 << 16
)

var npyMagic = []byte("\x93NUMPY")

// ReadNPYHeader reads and validates the header of a .npy stream and leaves r
// at the first data byte. size is the stream's total size in bytes if known
// (a file's size, a zip member's uncompressed size), or -1. The header must
// be a well-formed dictionary with exactly the keys 'descr' (a string),
// 'fortran_order' (True or False) and 'shape' (a tuple of non-negative
// integers), ended by a newline; the data it promises must fit in size.
// Errors name the stream (name) and what was wrong; nothing is allocated
// beyond the header itself, which is bounded by size and maxNPYHeader.
func ReadNPYHeader(r io.Reader, size int64, name string) (*NPYHeader, error) {
	var pre [10]byte // magic (6), major, minor, and at least 2 length bytes
	n, err := io.ReadFull(r, pre[:8])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		// Not the content: a directory ("is a directory"), an I/O error.
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if string(pre[:min(n, 6)]) != string(npyMagic[:min(n, 6)]) || n < 6 {
		return nil, fmt.Errorf("%s: not a .npy file (no \\x93NUMPY magic at the start)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: .npy header truncated after %d bytes", name, n)
	}
	h := &NPYHeader{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen int64
	switch h.Major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("%s: .npy header truncated in its length field", name)
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		h.Len = 10 + hlen
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("%s: .npy header truncated in its length field", name)
		}
		hlen = int64(binary.LittleEndian.Uint32(l[:]))
		h.Len = 12 + hlen
	default:
		return nil, fmt.Errorf("%s: .npy format version %d.%d is not supported (expected 1.x, 2.x or 3.x)", name, h.Major, h.Minor)
	}
	if hlen > maxNPYHeader {
		return nil, fmt.Errorf("%s: .npy header claims %d bytes, more than the %d allowed", name, hlen, maxNPYHeader)
	}
	if size >= 0 && h.Len > size {
		return nil, fmt.Errorf("%s: .npy header claims %d bytes but the file has only %d after the length field", name, hlen, size-(h.Len-hlen))
	}
	buf := make([]byte, hlen)
	if n, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("%s: .npy header truncated: %d of %d bytes", name, n, hlen)
	}
	if err := h.parseDict(buf); err != nil {
		return nil, fmt.Errorf("%s: invalid .npy header: %w", name, err)
	}
	n = 1
	for _, s := range h.Shape {
		if s > 0 && n > maxNPYElements/s {
			return nil, fmt.Errorf("%s: .npy header promises shape %v, more than %d values", name, h.Shape, maxNPYElements)
		}
		n *= s
	}
	if size >= 0 {
		if item := npyItemSize(h.Dtype); item > 0 && int64(n)*int64(item) > size-h.Len {
			return nil, fmt.Errorf("%s: .npy header promises shape %v of dtype %s (%d bytes of data), the file has %d", name, h.Shape, h.Dtype, int64(n)*int64(item), size-h.Len)
		}
	}
	return h, nil
}

// parseDict parses the header text: a Python dict literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and ended by a newline.
func (h *NPYHeader) parseDict(buf []byte) error {
	if !utf8.Valid(buf) {
		return errors.New("header is not text")
	}
	s := string(buf)
	if !strings.HasSuffix(s, "\n") {
		return errors.New("header does not end with a newline")
	}
	p := &dictParser{s: strings.TrimRight(s, " \n")}
	p.space()
	if !p.eat('{') {
		return errors.New("header is not a dictionary (expected '{')")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		p.space()
		if !p.eat(':') {
			return fmt.Errorf("expected ':' after key %q", key)
		}
		p.space()
		if seen[key] {
			return fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if h.Dtype, err = p.str(); err != nil {
				return fmt.Errorf("'descr': %w (structured dtypes are not supported)", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.Fortran = true
			case p.word("False"):
				h.Fortran = false
			default:
				return errors.New("'fortran_order' is neither True nor False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return fmt.Errorf("'shape': %w", err)
			}
		default:
			return fmt.Errorf("unexpected key %q", key)
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat('}') {
			return fmt.Errorf("expected ',' or '}' after the value of %q", key)
		}
		break
	}
	p.space()
	if p.i != len(p.s) {
		return errors.New("text after the closing '}'")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("key %q missing", k)
		}
	}
	return nil
}

// dictParser reads the small subset of Python literals a .npy header uses.
type dictParser struct {
	s string
	i int
}

func (p *dictParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *dictParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.ContainsRune(v, '\\') {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

// tuple reads (), (n,) or (n, m, ...) of non-negative integers.
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected a tuple '('")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected a non-negative integer")
		}
		// Python 2 wrote long integers as 3L.
		v, err := strconv.Atoi(p.s[p.i:j])
		if err != nil || v > maxNPYElements {
			return nil, fmt.Errorf("dimension %q is too large", p.s[p.i:j])
		}
		shape = append(shape, v)
		p.i = j
		p.eat('L')
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat(')') {
			return nil, errors.New("expected ',' or ')'")
		}
		return shape, nil
	}
}

// npyItemSize is the byte size of one value of a dtype we can read, or 0.
func npyItemSize(dtype string) int {
	dt, _ := splitDtype(dtype)
	switch {
	case dt == "b1":
		return 1
	case len(dt) == 2 && (dt[0] == 'u' || dt[0] == 'i') && strings.ContainsRune("1248", rune(dt[1])):
		return int(dt[1] - '0')
	case dt == "f4":
		return 4
	case dt == "f8":
		return 8
	}
	return 0
}

// splitDtype removes the byte-order character of a dtype.
func splitDtype(dtype string) (string, binary.ByteOrder) {
	switch {
	case strings.HasPrefix(dtype, ">"):
		return dtype[1:], binary.BigEndian
	case strings.HasPrefix(dtype, "<"), strings.HasPrefix(dtype, "|"), strings.HasPrefix(dtype, "="):
		return dtype[1:], binary.LittleEndian
	}
	return dtype, binary.LittleEndian
}

// readNPYArray reads one .npy stream of a numeric dtype (bool, signed or unsigned
// integers of 1-8 bytes, float32, float64; either byte order; C or Fortran
// order). size is the stream's size in bytes, or -1 if unknown; name is used
// in error messages. The header is validated by ReadNPYHeader; the data are
// read in chunks, so memory grows with the bytes present, never with what a
// damaged header claims. Data shorter than promised are an error; bytes after
// the data are ignored, as numpy.load does.
func readNPYArray(r io.Reader, size int64, name string) (*NPYArray, error) {
	h, err := ReadNPYHeader(r, size, name)
	if err != nil {
		return nil, err
	}
	a := &NPYArray{Shape: h.Shape, Dtype: h.Dtype}
	dt, order := splitDtype(h.Dtype)
	var conv func(b []byte) float64
	switch {
	case dt == "b1":
		a.Integer = true
		conv = func(b []byte) float64 { return float64(b[0]) }
	case len(dt) == 2 && dt[0] == 'u':
		a.Integer = true
		conv = func(b []byte) float64 { return float64(uintFrom(b, order)) }
	case len(dt) == 2 && dt[0] == 'i':
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
	}
	item := npyItemSize(h.Dtype)
	if conv == nil || item == 0 {
		return nil, fmt.Errorf("%s: dtype %q is not supported (expected bool, integer, float32 or float64)", name, h.Dtype)
	}
	if h.Fortran && len(h.Shape) > 2 {
		return nil, fmt.Errorf("%s: Fortran-order arrays of %d dimensions are not supported", name, len(h.Shape))
	}
	n := h.Elements()
	if size >= 0 {
		a.Data = make([]float64, 0, n) // ReadNPYHeader checked n against size
	}
	chunk := make([]byte, min(npyChunk/item, n)*item)
	for left := n; left > 0; {
		b := chunk[:min(len(chunk)/item, left)*item]
		if got, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("%s: header promises %d values of dtype %s (shape %v), data stop after %d", name, n, h.Dtype, h.Shape, n-left+got/item)
		}
		for k := 0; k < len(b); k += item {
			a.Data = append(a.Data, conv(b[k:k+item]))
		}
		left -= len(b) / item
	}
	if a.Data == nil {
		a.Data = []float64{}
	}
	if h.Fortran && len(a.Shape) == 2 {
		rows, cols := a.Shape[0], a.Shape[1]
		t := make([]float64, n)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				t[i*cols+j] = a.Data[j*rows+i]
			}
		}
		a.Data = t
	}
	return a, nil
}

// readNPYString reads a 0-d .npy array of dtype bytes (S) or unicode (U),
// such as the "format" member scipy writes into a sparse .npz. Trailing NULs
// are removed, as NumPy does.
func readNPYString(r io.Reader, size int64, name string) (string, error) {
	h, err := ReadNPYHeader(r, size, name)
	if err != nil {
		return "", err
	}
	dt, order := splitDtype(h.Dtype)
	if len(h.Shape) != 0 || len(dt) < 2 || (dt[0] != 'S' && dt[0] != 'U') {
		return "", fmt.Errorf("%s: dtype %s shape %v, expected a single string", name, h.Dtype, h.Shape)
	}
	width, err := strconv.Atoi(dt[1:])
	if err != nil || width < 0 || width > maxNPYHeader {
		return "", fmt.Errorf("%s: string dtype %s has an implausible width", name, h.Dtype)
	}
	if dt[0] == 'U' {
		width *= 4 // UCS-4
	}
	if size >= 0 && int64(width) > size-h.Len {
		return "", fmt.Errorf("%s: string of %d bytes promised, the file has %d", name, width, size-h.Len)
	}
	b := make([]byte, width)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("%s: string of %d bytes promised, data are shorter", name, width)
	}
	if dt[0] == 'S' {
		return strings.TrimRight(string(b), "\x00"), nil
	}
	var sb strings.Builder
	for k := 0; k < len(b); k += 4 {
		c := rune(order.Uint32(b[k:]))
		if !utf8.ValidRune(c) {
			return "", fmt.Errorf("%s: invalid character %#x in string", name, uint32(c))
		}
		sb.WriteRune(c)
	}
	return strings.TrimRight(sb.String(), "\x00"), nil
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

// ReadNPYFile reads a numeric .npy file, checking the header against the
// file's size before anything is allocated.
func ReadNPYFile(path string) (*NPYArray, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	return readNPYArray(bufio.NewReader(f), size, path)
}

// ReadPromised reads exactly n bytes that a file's header promised. Memory
// grows with the bytes actually read (a bytes.Buffer doubles as data
// arrive), so a header that lies about n costs about twice the real input
// at most, never n. Fewer bytes than n is io.ErrUnexpectedEOF with the
// count read.
func ReadPromised(r io.Reader, n int64) ([]byte, error) {
	var buf bytes.Buffer
	got, err := io.CopyN(&buf, r, n)
	if got < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%d of %d bytes: %w", got, n, err)
	}
	return buf.Bytes(), nil
}
