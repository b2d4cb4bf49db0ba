package datasets

import (
	"fmt"
	"strings"

	"github.com/sbinet/npyio/npz"

	"github.com/qvs-dev/qvs/internal/fileio"
)

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
func readNPZArray(z *npz.Reader, path, key string) (*fileio.NPYArray, error) {
	name := npzMember(z, key)
	if name == "" {
		return nil, fmt.Errorf("%s: no array %q in the archive (it has %q)", path, key, z.Keys())
	}
	rc, err := z.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: array %q: %w", path, key, err)
	}
	defer rc.Close()
	return fileio.ReadNPY(rc, fmt.Sprintf("%s: array %q", path, key))
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
	arrays := map[string]*fileio.NPYArray{}
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
