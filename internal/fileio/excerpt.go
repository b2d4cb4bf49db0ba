package fileio

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxExcerpt is how many bytes of a cell, header or line an error message
// quotes: enough to recognise the text, never the whole of a 100 MB line.
const maxExcerpt = 60

// Excerpt quotes s (Go syntax, like %q) for an error message, cut to its
// first maxExcerpt bytes when longer, followed by its length, e.g.
// "\"1,2,3,4,5...\" (104857600 bytes)". Every message that quotes a cell, a
// header or a line of outside input goes through it (or ExcerptCells), so
// a single-line file of 100 MB gives a message of one line.
func Excerpt(s string) string {
	if len(s) <= maxExcerpt {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cutRune(s, maxExcerpt)]), len(s))
}

// ExcerptCells is Excerpt for a row of cells, shown comma-separated as in
// the file; a long row is cut and followed by its number of cells.
func ExcerptCells(cells []string) string {
	b := make([]byte, 0, maxExcerpt+1)
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c[:min(len(c), maxExcerpt+1-len(b))]...)
		if len(b) > maxExcerpt {
			s := string(b)
			return fmt.Sprintf("%s... (%d cells)", strconv.Quote(s[:cutRune(s, maxExcerpt)]), len(cells))
		}
	}
	return strconv.Quote(string(b))
}

// cutRune is the largest index <= n at which s can be cut without
// splitting a UTF-8 character.
func cutRune(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
