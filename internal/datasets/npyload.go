package datasets

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
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

// readNPZMember opens member key of an archive and hands it to read with
// its uncompressed size, which archive/zip enforces (a member that inflates
// to more is a read error), so the .npy header is checked against it before
// anything is allocated.
func readNPZMember[T any](z *zip.Reader, path, key string, read func(io.Reader, int64, string) (T, error)) (T, error) {
	var zero T
	f := npzMember(z, key)
	if f == nil {
		return zero, fmt.Errorf("%s: no array %q in the archive (it has %q)", path, key, npzNames(z))
	}
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
	arrays := map[string]*fileio.NPYArray{}
	for _, key := range []string{"data", "indices", "indptr", "shape"} {
		a, err := readNPZMember(z, path, key, fileio.ReadNPY)
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
