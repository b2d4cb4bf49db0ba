package datasets

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
)

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

// openNPZMember opens member key of an archive and returns it with its
// uncompressed size (-1 if implausible), which archive/zip enforces (a
// member that inflates to more is a read error), and its name for messages.
func openNPZMember(z *zip.Reader, path, key string) (io.ReadCloser, int64, string, error) {
	f := npzMember(z, key)
	if f == nil {
		return nil, 0, "", fmt.Errorf("%s: no array %q in the archive (it has %q)", path, key, npzNames(z))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, 0, "", fmt.Errorf("%s: array %q: %w", path, key, err)
	}
	size := int64(-1)
	if f.UncompressedSize64 <= 1<<62 {
		size = int64(f.UncompressedSize64)
	}
	return rc, size, fmt.Sprintf("%s: array %q", path, key), nil
}

// readNPZMember opens member key of an archive and hands it to read with
// its uncompressed size, so the .npy header is checked against it before
// anything is allocated.
func readNPZMember[T any](z *zip.Reader, path, key string, read func(io.Reader, int64, string) (T, error)) (T, error) {
	var zero T
	rc, size, name, err := openNPZMember(z, path, key)
	if err != nil {
		return zero, err
	}
	defer rc.Close()
	return read(bufio.NewReader(rc), size, name)
}

// npzArrayHeader reads only the .npy header of member key (a few hundred
// inflated bytes) and checks the member's declared uncompressed size
// against it: numpy writes the header and elements x item size bytes,
// nothing more, so a member declaring more is refused before it is
// inflated (archive/zip stops inflating at the declared size).
func npzArrayHeader(z *zip.Reader, path, key string) (*fileio.NPYHeader, error) {
	rc, size, name, err := openNPZMember(z, path, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	h, err := fileio.ReadNPYHeader(rc, size, name)
	if err != nil {
		return nil, err
	}
	if d := h.DataBytes(); d >= 0 && size != h.Len+d {
		return nil, fmt.Errorf("%s: the archive declares %d bytes uncompressed, its header (shape %v of dtype %s) justifies %d", name, size, h.Shape, h.Dtype, h.Len+d)
	}
	return h, nil
}

// maxCSRValues bounds the stored values of a graph read from a .npz, the
// same bound as a kNN graph built by qvs (maxGraphEdges: 2 x 10^7, 320 MB
// of indices and weights; Fashion-MNIST's graph, the largest shipped, has
// 1.4 x 10^7).
const maxCSRValues = maxGraphEdges

// CSR is a sparse matrix in compressed sparse row form, as scipy stores it.
type CSR struct {
	Rows, Cols int
	Indptr     []int     // Rows+1 offsets into Indices and Data
	Indices    []int     // column of each stored value
	Data       []float64 // stored values
}

// ReadCSRNPZ reads a scipy.sparse CSR matrix saved with scipy.sparse.save_npz:
// a zip of arrays "data", "indices", "indptr", "shape" and "format" (b"csr").
// n, when >= 0, is the matrix's required order (the pool's items). The
// structure is validated (monotone indptr, columns in range) and every
// error names the file and the array.
//
// A decompression bomb (a small archive whose members inflate to GBs) is
// refused before the large members are inflated: every member's header is
// read first and its declared size must be exactly what the header
// justifies; "shape" (n x n when n is given) fixes indptr's length; indices
// and data must promise the same count, at most rows x cols and
// maxCSRValues; indptr is read and must end at that count before indices
// and data are inflated, each stopped at its declared size.
func ReadCSRNPZ(path string, n int) (*CSR, error) {
	zc, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) archive: %w", path, err)
	}
	defer zc.Close()
	z := &zc.Reader
	if err := checkNPZNames(z, path); err != nil {
		return nil, err
	}
	if npzMember(z, "format") != nil {
		format, err := readNPZMember(z, path, "format", fileio.ReadNPYString)
		if err != nil {
			return nil, err
		}
		if format != "csr" {
			return nil, fmt.Errorf("%s: sparse format %q, expected \"csr\" (convert with .tocsr() before save_npz)", path, format)
		}
	}
	keys := []string{"shape", "indptr", "indices", "data"}
	heads := map[string]*fileio.NPYHeader{}
	for _, key := range keys {
		h, err := npzArrayHeader(z, path, key)
		if err != nil {
			return nil, err
		}
		if len(h.Shape) != 1 {
			return nil, fmt.Errorf("%s: array %q has shape %v, expected one dimension", path, key, h.Shape)
		}
		heads[key] = h
	}
	if got := heads["shape"].Shape[0]; got != 2 {
		return nil, fmt.Errorf("%s: array \"shape\" has %d entries, expected two sizes", path, got)
	}
	arrays := map[string]*fileio.NPYArray{}
	read := func(key string) error {
		a, err := readNPZMember(z, path, key, fileio.ReadNPY)
		if err != nil {
			return err
		}
		if key != "data" && !a.Integer {
			return fmt.Errorf("%s: array %q has dtype %s, expected integers", path, key, a.Dtype)
		}
		arrays[key] = a
		return nil
	}
	if err := read("shape"); err != nil {
		return nil, err
	}
	shape := arrays["shape"].Data
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 || shape[0] > math.MaxInt32 || shape[1] > math.MaxInt32 {
		return nil, fmt.Errorf("%s: array \"shape\" is %v, expected two non-negative sizes", path, shape)
	}
	m := &CSR{Rows: int(shape[0]), Cols: int(shape[1])}
	if n >= 0 && (m.Rows != n || m.Cols != n) {
		return nil, fmt.Errorf("%s: matrix is %d x %d, expected %d x %d (one row and column per item)", path, m.Rows, m.Cols, n, n)
	}
	if got := heads["indptr"].Elements(); got != m.Rows+1 {
		return nil, fmt.Errorf("%s: array \"indptr\" has %d entries, expected rows+1 = %d", path, got, m.Rows+1)
	}
	nnz := heads["data"].Elements()
	if got := heads["indices"].Elements(); got != nnz {
		return nil, fmt.Errorf("%s: arrays \"indices\" (%d) and \"data\" (%d) differ in length", path, got, nnz)
	}
	if int64(nnz) > int64(m.Rows)*int64(m.Cols) || nnz > maxCSRValues {
		return nil, fmt.Errorf("%s: arrays \"indices\" and \"data\" promise %d stored values, more than the %d x %d matrix holds or the %d qvs reads", path, nnz, m.Rows, m.Cols, maxCSRValues)
	}
	if err := read("indptr"); err != nil {
		return nil, err
	}
	ip := arrays["indptr"].Data
	m.Indptr = make([]int, len(ip))
	for i, v := range ip {
		m.Indptr[i] = int(v)
		if v < 0 || int(v) > nnz || (i > 0 && m.Indptr[i] < m.Indptr[i-1]) {
			return nil, fmt.Errorf("%s: array \"indptr\" entry %d is %v: offsets must rise from 0 to %d", path, i, v, nnz)
		}
	}
	if m.Indptr[0] != 0 || m.Indptr[m.Rows] != nnz {
		return nil, fmt.Errorf("%s: array \"indptr\" must start at 0 and end at %d (the number of stored values)", path, nnz)
	}
	for _, key := range []string{"indices", "data"} {
		if err := read(key); err != nil {
			return nil, err
		}
	}
	ix := arrays["indices"].Data
	m.Data = arrays["data"].Data
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
