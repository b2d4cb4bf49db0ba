package fileio

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// csvRow is one data row as EachRow passes it.
type csvRow struct {
	line int
	rec  []string
}

// serialRows reads body as every CSV reader of a pool does: NewCSVReader,
// the header, then EachRow. It returns the rows and the error text.
func serialRows(body []byte) ([]csvRow, int64, int, string) {
	cr := NewCSVReader(bytes.NewReader(body))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, 0, 0, "header: " + err.Error()
	}
	start := CSVDataStart(bytes.NewReader(body), cr)
	var rows []csvRow
	err = EachRow(cr, "f.csv", len(header), func(line int, rec []string) error {
		rows = append(rows, csvRow{line, slices.Clone(rec)})
		if rec[0] == "stop" { // an error of the caller's, as a bad cell
			return fmt.Errorf("f.csv: line %d: stop", line)
		}
		return nil
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return rows, start, len(header), msg
}

// chunkedRows reads the rows after start in parts chunks (SplitCSV), one
// chunk after the other, stopping at the first chunk that fails.
func chunkedRows(t *testing.T, body []byte, start int64, ncols, parts int) ([]csvRow, string) {
	r := bytes.NewReader(body)
	chunks, err := SplitCSV(r, start, int64(len(body)), parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) > parts || chunks[0].Start != start || chunks[len(chunks)-1].End != int64(len(body)) && len(body) > 0 {
		t.Fatalf("%q, %d parts: chunks %+v do not cover [%d, %d)", body, parts, chunks, start, len(body))
	}
	var rows []csvRow
	for c, ch := range chunks {
		if c > 0 && ch.Start != chunks[c-1].End {
			t.Fatalf("%q: chunks %+v are not contiguous", body, chunks)
		}
		_, err := EachRowChunk(r, ch, "f.csv", ncols, func(i, line int, rec []string) error {
			if i != 0 && i >= ch.MaxRows {
				t.Fatalf("%q: chunk %+v: row %d beyond MaxRows", body, ch, i)
			}
			rows = append(rows, csvRow{line, slices.Clone(rec)})
			if rec[0] == "stop" {
				return fmt.Errorf("f.csv: line %d: stop", line)
			}
			return nil
		})
		if err != nil {
			return rows, err.Error()
		}
	}
	return rows, ""
}

// randomCSV writes a CSV of 3 columns with quoted cells (holding commas,
// newlines, escaped quotes), CRLF or LF line ends, blank lines, an optional
// byte-order mark and an optional empty last line.
func randomCSV(rng *rand.Rand) []byte {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteString("\ufeff")
	}
	eol := "\n"
	if rng.IntN(2) == 0 {
		eol = "\r\n"
	}
	b.WriteString(`id,"x, 1",x2` + eol)
	cells := []string{"1", "-2.5", "abc", `"q,uoted"`, "\"multi\nline\"", `"esc ""q"" "`, "", " 7 ", `"a` + "\r\n" + `b"`}
	for r := rng.IntN(30); r > 0; r-- {
		switch rng.IntN(12) {
		case 0:
			b.WriteString(eol) // a blank line
			continue
		case 1: // a short row
			b.WriteString("1,2" + eol)
			continue
		}
		for c := 0; c < 3; c++ {
			if c > 0 {
				b.WriteString(",")
			}
			b.WriteString(cells[rng.IntN(len(cells))])
		}
		b.WriteString(eol)
	}
	if rng.IntN(3) == 0 {
		b.WriteString(eol)
	}
	s := b.String()
	if rng.IntN(3) == 0 && len(s) > 0 && strings.HasSuffix(s, eol) { // no final line end
		s = strings.TrimSuffix(s, eol)
	}
	return []byte(s)
}

// TestSplitCSVMatchesEachRow: on random CSVs, reading the chunks of
// SplitCSV one after the other gives EachRow's rows, line numbers and
// first error, for 1 to 9 chunks.
func TestSplitCSVMatchesEachRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	for trial := 0; trial < 400; trial++ {
		body := randomCSV(rng)
		compareChunked(t, body)
	}
	// Errors: a bare quote, a caller's error, a short row, each in the
	// middle of the data.
	for _, body := range []string{
		"a,b\n1,2\n3,4\n5,x\"y\n7,8\n9,10\n",
		"a,b\n1,2\n3,4\nstop,1\n7,8\n\"9\n\",10\n",
		"a,b\n1,2\n\"3\n\",4\n5\n7,8\n9,10\n",
		"a,b\r\n1,2\r\n3,\"4\"x\r\n7,8\r\n",
	} {
		_, _, _, msg := serialRows([]byte(body))
		if msg == "" {
			t.Fatalf("%q: no error", body)
		}
		compareChunked(t, []byte(body))
	}
}

func compareChunked(t *testing.T, body []byte) {
	t.Helper()
	want, start, ncols, wantErr := serialRows(body)
	if strings.HasPrefix(wantErr, "header: ") {
		return
	}
	for parts := 1; parts <= 9; parts++ {
		got, gotErr := chunkedRows(t, body, start, ncols, parts)
		if gotErr != wantErr {
			t.Fatalf("%q, %d parts: error %q, EachRow's %q", body, parts, gotErr, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q, %d parts: %d rows, EachRow %d", body, parts, len(got), len(want))
		}
		for i := range got {
			if got[i].line != want[i].line || !slices.Equal(got[i].rec, want[i].rec) {
				t.Fatalf("%q, %d parts: row %d is %v, EachRow's %v", body, parts, i, got[i], want[i])
			}
		}
	}
}

// FuzzSplitCSV: any input read in chunks gives the rows, lines and error of
// the serial reader.
func FuzzSplitCSV(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 8 {
		f.Add(randomCSV(rng))
	}
	f.Add([]byte("a,b\n1,2\n3,x\"y\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		compareChunked(t, body)
	})
}
