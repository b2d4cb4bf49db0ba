package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// field is a top-level field of a --format json document besides
// command, columns and rows.
type field struct {
	Key   string
	Value any
}

// appendJSON appends the --format json form of t (its CSV form: Head,
// Rows) to buf as one JSON document (docs/json.md):
//
//	{"command": "as suggest", "columns": ["rank", ...], "rows": [{"rank": 1, ...}, ...], ...extra}
//
// Each row is an object with the columns in header order. A column named
// id, or holding a cell that is not a number, has strings; the others have
// JSON numbers with the value the CSV prints (float64, round-trip exact),
// except non-finite values, written as the strings "inf", "-inf" and
// "nan" (JSON has no such numbers), and empty cells, written as null. A
// cell that is not valid UTF-8 (an id in Latin-1) is an error naming its
// row and column: JSON strings are Unicode, and the encoder would write
// U+FFFD in its place. Ids are kept verbatim: no spreadsheet opens JSON.
func (t *table) appendJSON(buf *bytes.Buffer) error {
	numeric := make([]bool, len(t.Head))
	for j, h := range t.Head {
		numeric[j] = h != "id"
		for _, r := range t.Rows {
			if !numeric[j] {
				break
			}
			if _, err := strconv.ParseFloat(r[j], 64); err != nil && r[j] != "" {
				numeric[j] = false
			}
		}
	}
	buf.WriteString("{\"command\":")
	writeJSONValue(buf, t.Command)
	buf.WriteString(",\"columns\":")
	writeJSONValue(buf, t.Head)
	buf.WriteString(",\"rows\":[")
	for i, r := range t.Rows {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n{")
		for j, h := range t.Head {
			if j > 0 {
				buf.WriteByte(',')
			}
			if !utf8.ValidString(r[j]) {
				// encoding/json would write U+FFFD for each bad byte: two
				// ids could become one, and neither would read back.
				return fmt.Errorf("--format json: row %d, column %q: %s is not valid UTF-8, which JSON cannot hold (it would read back as another id); use --format csv", i+1, h, fileio.Excerpt(r[j]))
			}
			writeJSONValue(buf, h)
			buf.WriteByte(':')
			writeJSONValue(buf, jsonCell(r[j], numeric[j]))
		}
		buf.WriteByte('}')
	}
	buf.WriteString("]")
	for _, f := range t.Extra {
		buf.WriteString(",\n")
		writeJSONValue(buf, f.Key)
		buf.WriteByte(':')
		writeJSONValue(buf, f.Value)
	}
	buf.WriteString("}\n")
	return nil
}

// jsonCell is a cell's JSON value (see appendJSON).
func jsonCell(s string, numeric bool) any {
	if !numeric {
		return s
	}
	if s == "" {
		return nil
	}
	v, _ := strconv.ParseFloat(s, 64)
	return jsonNumber(v)
}

// jsonNumber is v, or "inf", "-inf", "nan" when it is not finite.
func jsonNumber(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Float(v)
	}
	return v
}

// writeJSONValue appends the JSON encoding of v (strings, numbers, string
// slices: never fails) without HTML escaping.
func writeJSONValue(buf *bytes.Buffer, v any) {
	e := json.NewEncoder(buf)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// writeIndentedJSON writes v to w as one indented JSON document (score's).
func writeIndentedJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
