package fileio

import (
	"bufio"
	"encoding/csv"
	"io"
)

// utf8BOM is the byte-order mark spreadsheet programs (Excel's "CSV UTF-8")
// put before the first header cell.
const utf8BOM = "\ufeff"

// NewCSVReader returns a csv.Reader over r that ignores a leading UTF-8
// byte-order mark, so a spreadsheet's export reads its first header cell as
// "id", not "\ufeffid". Every reader of a user's CSV file goes through it.
func NewCSVReader(r io.Reader) *csv.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM))
	}
	return csv.NewReader(br)
}
