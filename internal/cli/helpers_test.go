package cli

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// exitOf calls run with o and an Env of buffers and returns what qvs
// would: the exit code (ExitCode of the error, 0 without one), stdout,
// and the error's message followed by stderr.
func exitOf[O any](t *testing.T, run func(*Env, *O) error, o *O) (code int, stdout, msg string) {
	t.Helper()
	err, out, errs := runCmd(t, run, o)
	if err != nil {
		return ExitCode(err), out, err.Error() + "\n" + errs
	}
	return 0, out, errs
}

// npyHeader is the header of a .npy file (format 1.0) of a C-order array
// of dtype descr and shape, padded to 64 bytes as NumPy pads it.
func npyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.Itoa(s)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + sh + "), }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(out, header...)
}

// writeNPY writes a little-endian .npy file (format 1.0) of float64 ('<f8')
// or int64 ('<i8') values.
func writeNPY(t *testing.T, path, descr string, shape []int, vals []float64) {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(npyHeader(descr, shape))
	for _, v := range vals {
		var u uint64
		if descr == "<i8" {
			u = uint64(int64(v))
		} else {
			u = math.Float64bits(v)
		}
		for b := 0; b < 8; b++ {
			buf.WriteByte(byte(u >> (8 * b)))
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
