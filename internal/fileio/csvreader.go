package fileio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// utf8BOM is the byte-order mark spreadsheet programs (Excel's "CSV UTF-8")
// put before the first header cell.
const utf8BOM = "\ufeff"

// sniffLen is how many leading bytes NewCSVReader inspects for binary data.
const sniffLen = 512

// NewCSVReader returns a csv.Reader over r that ignores a leading UTF-8
// byte-order mark, so a spreadsheet's export reads its first header cell as
// "id", not "\ufeffid". Every reader of a user's CSV file goes through it.
//
// Input that is not text fails on the first Read with an error saying what
// it looks like (a NumPy .npy array, a zip archive such as .npz, or other
// binary data such as UTF-16 text, recognised by a NUL byte in the first
// 512 bytes, or text whose lines end with CR alone) instead of a parse
// error quoting raw bytes; callers prefix it with the file name.
//
// Gzip-compressed input (the gzip magic bytes first: pool.csv.gz) is
// decompressed as it is read, within a bound on its expansion (at most
// 256 times the compressed bytes plus 64 MiB), and read
// as the CSV it holds; a corrupt or truncated stream fails with an error
// that says gzip.
func NewCSVReader(r io.Reader) *csv.Reader {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(gzipMagic)); IsGzip(head) {
		z, err := gunzipText(br)
		if err != nil {
			return csv.NewReader(errReader{err})
		}
		br = bufio.NewReader(z)
	}
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM))
	}
	head, _ := br.Peek(sniffLen)
	if err := notText(head); err != nil {
		return csv.NewReader(errReader{err})
	}
	return csv.NewReader(&lineLimiter{r: br, max: MaxCSVLine})
}

// MaxCSVLine bounds a line of a CSV file qvs reads: 1 MiB holds 50,000
// numbers of 20 characters, more than any table qvs can use as CSV (a
// kernel of 50,000 columns is 20 GB as float64; wide embeddings belong in
// .npy). encoding/csv holds a whole line and about 40 bytes per cell
// besides (it parses even the part of a line read before the bound), so
// without the bound a single-line file of 100 MB took 4-5 GB;
// with it, a line costs at most about 50 MB whatever the file.
const MaxCSVLine = 1 << 20

// lineLimiter passes r through and fails once a line (bytes between
// newlines) exceeds max bytes, naming the line.
type lineLimiter struct {
	r    io.Reader
	max  int
	line int // newlines seen
	run  int // bytes since the last newline
	err  error
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for chunk := p[:n]; ; {
		k := bytes.IndexByte(chunk, '\n')
		if k < 0 {
			l.run += len(chunk)
		} else {
			l.run += k
		}
		if l.run > l.max {
			l.err = fmt.Errorf("line %d is longer than %d bytes (a file without line breaks?): qvs reads CSV lines up to that; save wide tables as .npy", l.line+1, l.max)
			return 0, l.err
		}
		if k < 0 {
			break
		}
		l.line++
		l.run = 0
		chunk = chunk[k+1:]
	}
	return n, err
}

// notText describes why head, a file's first bytes, is not CSV text, or
// returns nil.
func notText(head []byte) error {
	switch {
	case bytes.HasPrefix(head, npyMagic):
		return fmt.Errorf("a NumPy .npy array, not CSV text (arrays are read as .npy only where a command accepts .npy, under a name ending in .npy)")
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return fmt.Errorf("a zip archive (NumPy's .npz?), not CSV text: save the array with numpy.save as .npy, or numpy.savetxt as CSV")
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Errorf("binary data (a NUL byte at offset %d), not CSV text; a spreadsheet's UTF-16 \"Unicode text\" must be saved as CSV (UTF-8)", i)
	}
	// Lines ended by CR alone (classic Mac OS, some exports) read as one
	// line holding every row ("empty file?" before).
	if i := bytes.IndexByte(head, '\r'); i >= 0 && i+1 < len(head) && bytes.IndexByte(head, '\n') < 0 {
		return fmt.Errorf("lines end with a carriage return alone (CR, old Mac format; offset %d): save the file with LF or CRLF line endings", i)
	}
	return nil
}

// errReader fails every Read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// SeparatorHint is appended to an error about cells (or header names) that
// did not parse: when one of them holds a ';' or a tab, the file was likely
// written with another separator (spreadsheets in many locales save CSV
// with ';'), so it says that qvs reads comma-separated values. It returns
// "" when no cell does, so errors about other mistakes are unchanged.
func SeparatorHint(cells ...string) string {
	for _, c := range cells {
		switch {
		case strings.Contains(c, ";"):
			return " (a cell holds a ';': qvs reads comma-separated values; save the file with ',' as the separator)"
		case strings.Contains(c, "\t"):
			return " (a cell holds a tab: qvs reads comma-separated values; save the file with ',' as the separator)"
		}
	}
	return ""
}
