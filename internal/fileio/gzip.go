package fileio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// gzipMagic starts every gzip stream (RFC 1952): a CSV file saved as
// pool.csv.gz, as screening libraries are distributed.
var gzipMagic = []byte{0x1f, 0x8b}

// IsGzip reports whether head, a file's first bytes, starts a gzip stream.
func IsGzip(head []byte) bool { return bytes.HasPrefix(head, gzipMagic) }

// Bounds of what a gzip-compressed CSV may decompress to: gzipSlack bytes
// plus gzipMaxRatio times the compressed bytes read so far (variables so
// tests can lower them). CSV text
// compresses 2-30x (the photoswitch table with its 2,048-character
// fingerprint strings: 25x); DEFLATE reaches about 1,000x on runs of one
// byte, so the bound refuses a file built to expand (a "gzip bomb") while
// what qvs holds stays within a few hundred times the file's size.
var (
	gzipMaxRatio int64 = 256
	gzipSlack    int64 = 64 << 20
)

// gunzipText returns a reader of the decompressed stream of br, which
// starts with gzipMagic, bounded as gzipMaxRatio and gzipSlack say; errors
// say the file is gzip-compressed (a corrupt or truncated stream, or one
// expanding beyond the bound).
func gunzipText(br *bufio.Reader) (io.Reader, error) {
	in := &countingReader{r: br}
	z, err := gzip.NewReader(in)
	if err != nil {
		return nil, fmt.Errorf("gzip-compressed, but its gzip header does not read: %v", err)
	}
	return &gzipLimited{z: z, in: in}, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gzipLimited reads a gzip stream (several members in a row, as gzip
// concatenates them), failing once the output passes the bound on its
// ratio to the input, and naming gzip in the errors of a bad stream.
type gzipLimited struct {
	z   *gzip.Reader
	in  *countingReader
	out int64
	err error
}

func (g *gzipLimited) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.z.Read(p)
	g.out += int64(n)
	if g.out > gzipSlack+gzipMaxRatio*g.in.n {
		g.err = fmt.Errorf("gzip-compressed data expands to more than %d times its %d bytes read (%d bytes out): decompress the file (gunzip) and give the result", gzipMaxRatio, g.in.n, g.out)
		return 0, g.err
	}
	if err != nil && err != io.EOF {
		g.err = fmt.Errorf("gzip-compressed data does not decompress: %v", err)
		return n, g.err
	}
	return n, err
}
