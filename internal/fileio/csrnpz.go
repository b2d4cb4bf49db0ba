package fileio

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// CSR is a sparse matrix in compressed sparse row form, as scipy.sparse
// stores it: row i's stored values are Data[Indptr[i]:Indptr[i+1]], in the
// columns Indices[Indptr[i]:Indptr[i+1]].
type CSR struct {
	Rows, Cols int
	Indptr     []int     // Rows+1 offsets into Indices and Data, from 0 to len(Data)
	Indices    []int     // column of each stored value, in 0..Cols-1
	Data       []float64 // stored values
}

// Check reports a structural error of m: negative sizes, an Indptr that is
// not Rows+1 offsets rising from 0 to len(Data), Indices and Data of
// different lengths, or a column outside 0..Cols-1. Values are not checked.
func (m *CSR) Check() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("shape %d x %d, expected non-negative sizes", m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("array \"indptr\" has %d entries, expected rows+1 = %d", len(m.Indptr), m.Rows+1)
	}
	if len(m.Indices) != len(m.Data) {
		return fmt.Errorf("arrays \"indices\" (%d) and \"data\" (%d) differ in length", len(m.Indices), len(m.Data))
	}
	if m.Indptr[0] != 0 || m.Indptr[m.Rows] != len(m.Data) {
		return fmt.Errorf("array \"indptr\" must start at 0 and end at %d (the number of stored values), got %d and %d", len(m.Data), m.Indptr[0], m.Indptr[m.Rows])
	}
	for i := 1; i <= m.Rows; i++ {
		if m.Indptr[i] < m.Indptr[i-1] {
			return fmt.Errorf("array \"indptr\" entry %d is %d, less than entry %d (%d): offsets must rise", i, m.Indptr[i], i-1, m.Indptr[i-1])
		}
	}
	for i := range m.Rows {
		for e := m.Indptr[i]; e < m.Indptr[i+1]; e++ {
			if c := m.Indices[e]; c < 0 || c >= m.Cols {
				return fmt.Errorf("row %d stores column %d, outside 0..%d", i, c, m.Cols-1)
			}
		}
	}
	return nil
}

// csrMembers are the arrays scipy.sparse.save_npz writes, in its order
// (indices, indptr, then format, shape, data).
var csrMembers = []string{"indices", "indptr", "format", "shape", "data"}

// maxDeflateRatio bounds how many bytes deflate can produce per compressed
// byte (RFC 1951: a 258-byte match costs at least 2 bits, so about 1032);
// a member declaring more is a decompression bomb or damaged.
const maxDeflateRatio = 1032

// ReadCSRNPZ reads a sparse matrix saved by scipy.sparse.save_npz
// (compressed or not): a zip of the arrays data, indices, indptr, shape and
// format (b"csr"; a matrix saved in another format is refused, naming
// .tocsr(); an archive without format is read as CSR). data may be any numeric dtype, indices, indptr and shape must be
// integers; the structure is validated by CSR.Check, and every error names
// the file and the array.
//
// Bounded memory: before any array is inflated, every member's declared
// uncompressed size is checked against its compressed size (at most
// maxDeflateRatio times, equal when stored) and must be exactly what its
// .npy header justifies (numpy writes nothing more), and the headers are
// checked against each other (shape 2 values, indptr rows+1, indices as
// many as data, at most rows x cols and MaxCSRValues); indptr is read and
// must end at that count before indices and data are inflated, in chunks
// that grow with the bytes actually inflated, which archive/zip stops at the
// declared size. A small file cannot make the reader allocate much more
// than the matrix it really holds (a 1.9 MB csr_weights.npz
// inflating to 2 GB, a legal deflate ratio, used 1.9 GB).
func ReadCSRNPZ(path string) (*CSR, error) { return ReadSquareCSRNPZ(path, -1) }

// MaxCSRValues bounds the stored values of a sparse matrix ReadCSRNPZ reads
// (and of a kNN graph qvs builds): 2 x 10^7 values take 320 MB as indices
// and weights; Fashion-MNIST's graph, the largest of the shipped configs,
// has 70,000 x 200 = 1.4 x 10^7.
const MaxCSRValues = 20_000_000

// ReadSquareCSRNPZ is ReadCSRNPZ for a matrix that must be n x n (one row
// and column per item of a pool; n < 0: any shape), checked from its
// "shape" array before the other arrays are inflated.
func ReadSquareCSRNPZ(path string, n int) (*CSR, error) {
	zc, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) archive: %w", path, err)
	}
	defer zc.Close()
	z := &zc.Reader
	if err := checkNPZNames(z, path); err != nil {
		return nil, err
	}
	members := map[string]*zip.File{}
	for _, key := range csrMembers {
		f := npzMember(z, key)
		if f == nil && key == "format" {
			continue // scipy always writes it; hand-made archives may not
		}
		if f == nil {
			return nil, fmt.Errorf("%s: no array %q in the archive (it has %q; expected the arrays scipy.sparse.save_npz writes: %s)", path, key, npzNames(z), strings.Join(csrMembers, ", "))
		}
		if err := checkZipSizes(f); err != nil {
			return nil, fmt.Errorf("%s: array %q: %w", path, key, err)
		}
		members[key] = f
	}
	if f := members["format"]; f != nil {
		format, err := readNPZMember(f, path, "format", readNPYString)
		if err != nil {
			return nil, err
		}
		if format != "csr" {
			return nil, fmt.Errorf("%s: sparse format %q, expected \"csr\" (convert with .tocsr() before save_npz)", path, format)
		}
	}
	headers := map[string]*NPYHeader{}
	for _, key := range []string{"indices", "indptr", "shape", "data"} {
		h, err := readNPZMember(members[key], path, key, ReadNPYHeader)
		if err != nil {
			return nil, err
		}
		if len(h.Shape) != 1 {
			return nil, fmt.Errorf("%s: array %q has shape %v, expected one dimension", path, key, h.Shape)
		}
		if dt, _ := splitDtype(h.Dtype); key != "data" && (len(dt) != 2 || (dt[0] != 'i' && dt[0] != 'u')) {
			return nil, fmt.Errorf("%s: array %q has dtype %s, expected integers", path, key, h.Dtype)
		}
		if d, size := h.DataBytes(), members[key].UncompressedSize64; d >= 0 && size != uint64(h.Len+d) {
			return nil, fmt.Errorf("%s: array %q: the archive declares %d bytes uncompressed, its header (shape %v of dtype %s) justifies %d", path, key, size, h.Shape, h.Dtype, h.Len+d)
		}
		headers[key] = h
	}
	if n := headers["shape"].Shape[0]; n != 2 {
		return nil, fmt.Errorf("%s: array \"shape\" has %d values, expected 2 (rows, columns)", path, n)
	}
	if a, b := headers["indices"].Shape[0], headers["data"].Shape[0]; a != b {
		return nil, fmt.Errorf("%s: arrays \"indices\" (%d) and \"data\" (%d) differ in length", path, a, b)
	}
	shape, err := readNPZMember(members["shape"], path, "shape", readNPYArray)
	if err != nil {
		return nil, err
	}
	rows, cols := shape.Data[0], shape.Data[1]
	if rows < 0 || cols < 0 || rows > math.MaxInt32 || cols > math.MaxInt32 {
		return nil, fmt.Errorf("%s: array \"shape\" is %v, expected two sizes in 0..%d", path, shape.Data, math.MaxInt32)
	}
	m := &CSR{Rows: int(rows), Cols: int(cols)}
	if n >= 0 && (m.Rows != n || m.Cols != n) {
		return nil, fmt.Errorf("%s: matrix is %d x %d, expected %d x %d (one row and column per item)", path, m.Rows, m.Cols, n, n)
	}
	if got := headers["indptr"].Shape[0]; got != m.Rows+1 {
		return nil, fmt.Errorf("%s: array \"indptr\" has %d entries, expected rows+1 = %d", path, got, m.Rows+1)
	}
	nnz := headers["data"].Shape[0]
	if int64(nnz) > int64(m.Rows)*int64(m.Cols) || nnz > MaxCSRValues {
		return nil, fmt.Errorf("%s: arrays \"indices\" and \"data\" promise %d stored values, more than the %d x %d matrix holds or the %d qvs reads", path, nnz, m.Rows, m.Cols, MaxCSRValues)
	}
	streamed := func(r io.Reader, _ int64, name string) (*NPYArray, error) { return readNPYArray(r, -1, name) }
	arrays := map[string][]float64{}
	for _, key := range []string{"indptr", "indices", "data"} {
		a, err := readNPZMember(members[key], path, key, streamed)
		if err != nil {
			return nil, err
		}
		arrays[key] = a.Data
		if key == "indptr" && (len(a.Data) == 0 || a.Data[len(a.Data)-1] != float64(nnz)) {
			// Checked before indices and data are inflated.
			return nil, fmt.Errorf("%s: array \"indptr\" must end at %d (the number of stored values)", path, nnz)
		}
	}
	m.Data = arrays["data"]
	m.Indptr = toInts(arrays["indptr"])
	m.Indices = toInts(arrays["indices"])
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// toInts converts integer-valued floats (from an integer .npy) to ints;
// negative values and values beyond 2^53 become -1, which CSR.Check refuses.
func toInts(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = -1
		if x >= 0 && x <= 1<<53 {
			out[i] = int(x)
		}
	}
	return out
}

// checkZipSizes refuses a member whose declared uncompressed size exceeds
// what its compression method can produce from its compressed bytes.
func checkZipSizes(f *zip.File) error {
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return fmt.Errorf("stored member declares %d bytes uncompressed but holds %d", f.UncompressedSize64, f.CompressedSize64)
		}
	case zip.Deflate:
		if f.CompressedSize64 > math.MaxUint64/maxDeflateRatio || f.UncompressedSize64 > maxDeflateRatio*f.CompressedSize64+1024 {
			return fmt.Errorf("member declares %d bytes uncompressed from %d compressed, more than deflate can produce (a damaged archive or a decompression bomb)", f.UncompressedSize64, f.CompressedSize64)
		}
	default:
		return fmt.Errorf("compression method %d, expected stored or deflate (as numpy.savez writes)", f.Method)
	}
	return nil
}

// npzMember is the archive member holding array key: numpy.savez and
// savez_compressed name it key + ".npy".
func npzMember(z *zip.Reader, key string) *zip.File {
	for _, f := range z.File {
		if f.Name == key+".npy" || f.Name == key {
			return f
		}
	}
	return nil
}

// checkNPZNames refuses an archive in which two members name the same
// array ("data.npy" twice, or "data" and "data.npy"): readers disagree on
// which one counts (qvs read the first, NumPy and SciPy the last), so the
// file means two different matrices.
func checkNPZNames(z *zip.Reader, path string) error {
	seen := map[string]string{}
	for _, f := range z.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if first, ok := seen[key]; ok {
			return fmt.Errorf("%s: the archive has two members for array %q (%q and %q): rewrite it with one (numpy.savez, scipy.sparse.save_npz)", path, key, first, f.Name)
		}
		seen[key] = f.Name
	}
	return nil
}

// npzNames lists the archive's members for messages.
func npzNames(z *zip.Reader) []string {
	names := make([]string, len(z.File))
	for i, f := range z.File {
		names[i] = f.Name
	}
	return names
}

// readNPZMember opens archive member f (array key of the file at path) and
// hands it to read with its declared uncompressed size, which archive/zip
// enforces (a member that inflates to more is a read error).
func readNPZMember[T any](f *zip.File, path, key string, read func(io.Reader, int64, string) (T, error)) (T, error) {
	var zero T
	rc, err := f.Open()
	if err != nil {
		return zero, fmt.Errorf("%s: array %q: %w", path, key, err)
	}
	defer rc.Close()
	size := int64(-1)
	if f.UncompressedSize64 <= 1<<62 {
		size = int64(f.UncompressedSize64)
	}
	return read(bufio.NewReader(rc), size, fmt.Sprintf("%s: array %q", path, key))
}

// WriteCSRNPZ writes m to path as scipy.sparse.save_npz(path, m) does
// (compressed): a deflated zip of indices.npy, indptr.npy, format.npy
// (b"csr", dtype |S3), shape.npy (<i8, 2 values) and data.npy (<f8), in
// that order; indices and indptr are <i4 when the column count and the
// number of stored values fit in int32 (as scipy chooses), else <i8. The
// file is written atomically; scipy.sparse.load_npz and ReadCSRNPZ read it.
// Deflate runs at its fastest level, not zlib's default that numpy uses: a
// kNN graph's float64 weights hardly compress (12 bytes an edge become
// 10.26 against 10.14) and the default level took 3.3x as long
// (BenchmarkEncodeCSRNPZ: 1.55-1.64 s -> 0.46-0.48 s for 4,000,000 edges).
func WriteCSRNPZ(path string, m *CSR) error {
	if err := m.Check(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteAtomicFunc(path, func(w io.Writer) error { return encodeCSRNPZ(w, m) })
}

// encodeCSRNPZ writes m in the WriteCSRNPZ format to w (m must pass Check).
func encodeCSRNPZ(w io.Writer, m *CSR) error {
	bw := bufio.NewWriter(w)
	zw := zip.NewWriter(bw)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	wide := m.Cols > math.MaxInt32 || len(m.Data) > math.MaxInt32
	ints := func(v []int) (string, []byte) {
		if wide {
			b := make([]byte, 0, 8*len(v))
			for _, x := range v {
				b = binary.LittleEndian.AppendUint64(b, uint64(x))
			}
			return "<i8", b
		}
		b := make([]byte, 0, 4*len(v))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(x)))
		}
		return "<i4", b
	}
	put := func(key, descr, shape string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Deflate})
		if err != nil {
			return err
		}
		if _, err := f.Write(npyHeaderV1(descr, shape)); err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	n := strconv.Itoa(len(m.Indices))
	descr, b := ints(m.Indices)
	if err := put("indices", descr, "("+n+",)", b); err != nil {
		return err
	}
	descr, b = ints(m.Indptr)
	if err := put("indptr", descr, "("+strconv.Itoa(len(m.Indptr))+",)", b); err != nil {
		return err
	}
	if err := put("format", "|S3", "()", []byte("csr")); err != nil {
		return err
	}
	shape := binary.LittleEndian.AppendUint64(nil, uint64(m.Rows))
	shape = binary.LittleEndian.AppendUint64(shape, uint64(m.Cols))
	if err := put("shape", "<i8", "(2,)", shape); err != nil {
		return err
	}
	data := make([]byte, 0, 8*len(m.Data))
	for _, v := range m.Data {
		data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
	}
	if err := put("data", "<f8", "("+strconv.Itoa(len(m.Data))+",)", data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// npyHeaderV1 is the .npy format 1.0 preamble NumPy writes for a C-order
// array of dtype descr and shape (a Python tuple literal): magic, version,
// length, and the header dictionary padded with spaces so the data start at
// a multiple of 64 bytes.
func npyHeaderV1(descr, shape string) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	buf := make([]byte, 10, 10+len(h))
	copy(buf, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(h)))
	return append(buf, h...)
}
