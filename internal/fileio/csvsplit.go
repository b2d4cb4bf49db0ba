package fileio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
)

// CSVChunk is a part of a CSV file's data rows that a reader can parse on
// its own: bytes [Start, End) of the file, starting at the start of a
// record, on line Line (1-based, as the csv.Reader of the whole file counts
// lines), holding at most MaxRows records (its newlines outside quoted
// cells, plus one).
type CSVChunk struct {
	Start, End    int64
	Line, MaxRows int
}

// SplitCSV splits bytes [start, size) of a CSV file, start being the start
// of a record (the end of the header), into at most parts chunks of about
// equal size that end at record boundaries: after a newline outside quoted
// cells. A quoted cell may hold newlines; whether a newline is inside one is
// decided by the parity of the double quotes before it (an escaped quote ""
// counts twice), which is what encoding/csv reads in a file without syntax
// errors; in a file with one (a bare quote), the chunk holding it fails as
// the whole file's reader does, and no earlier chunk is affected. One
// streaming pass, counting quotes and newlines with package bytes.
func SplitCSV(r io.ReaderAt, start, size int64, parts int) ([]CSVChunk, error) {
	parts = max(parts, 1)
	target := max((size-start)/int64(parts), 1)
	var chunks []CSVChunk
	cur := CSVChunk{Start: start, Line: 1, MaxRows: 1}
	line := 1        // line of the next byte
	inQuote := false // an odd number of quotes so far
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		b := buf[:n]
		for len(b) > 0 {
			nl := bytes.IndexByte(b, '\n')
			seg := b
			if nl >= 0 {
				seg = b[:nl]
			}
			if bytes.Count(seg, []byte{'"'})%2 == 1 {
				inQuote = !inQuote
			}
			if nl < 0 {
				break
			}
			line++
			end := off + int64(n-len(b)+nl+1) // just after this newline
			b = b[nl+1:]
			switch {
			case end < start:
			case end == start:
				cur.Line = line
			case inQuote:
			case end-cur.Start >= target && end < size && len(chunks) < parts-1:
				cur.End = end
				chunks = append(chunks, cur)
				cur = CSVChunk{Start: end, Line: line, MaxRows: 1}
			default:
				cur.MaxRows++
			}
		}
		off += int64(n)
	}
	cur.End = max(size, cur.Start)
	return append(chunks, cur), nil
}

// EachRowChunk is EachRow over the records of chunk c of the file read from
// r, with the lines numbered as in the whole file (in fn and in errors,
// csv syntax errors included): fn(row, line, rec) gets the chunk's data
// rows in order, row counting from 0 (below c.MaxRows). It returns the
// number of rows fn accepted (returned nil for). Lines longer than MaxCSVLine fail as in
// NewCSVReader.
func EachRowChunk(r io.ReaderAt, c CSVChunk, path string, ncols int, fn func(row, line int, rec []string) error) (int, error) {
	lim := &lineLimiter{r: bufio.NewReaderSize(io.NewSectionReader(r, c.Start, c.End-c.Start), 1<<16), max: MaxCSVLine, line: c.Line - 1}
	cr := csv.NewReader(lim)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rows := 0
	err := eachRow(cr, path, ncols, c.Line-1, func(line int, rec []string) error {
		if rows >= c.MaxRows { // not reached: SplitCSV counted the records
			return LineErrorf(path, line, "more records than counted in bytes %d-%d", c.Start, c.End)
		}
		if err := fn(rows, line, rec); err != nil {
			return err
		}
		rows++
		return nil
	})
	return rows, err
}

// shiftParseError returns err with the line numbers of a *csv.ParseError
// in it moved by offset lines.
func shiftParseError(err error, offset int) error {
	var pe *csv.ParseError
	if offset == 0 || !errors.As(err, &pe) {
		return err
	}
	shifted := *pe
	shifted.StartLine += offset
	shifted.Line += offset
	return &shifted
}

// CSVDataStart is the offset in the file r of the byte after the records
// cr has read, cr being NewCSVReader(file) (a skipped byte-order mark
// counted): after the header, where the data rows start.
func CSVDataStart(r io.ReaderAt, cr *csv.Reader) int64 {
	off := cr.InputOffset()
	bom := make([]byte, len(utf8BOM))
	if n, _ := r.ReadAt(bom, 0); n == len(bom) && string(bom) == utf8BOM {
		off += int64(len(bom))
	}
	return off
}
