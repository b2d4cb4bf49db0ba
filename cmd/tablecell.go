package cmd

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// tableCell is how the aligned tables printed for people (the default
// --format of score, select, as suggest and bayesopt suggest) show a text
// cell from the user's files, an id or a group name: as it is when every
// character is printable, else Go-quoted ("a\x1b[31m", "two\nlines"), so
// a terminal escape sequence in an id never reaches the terminal and a
// newline or tab never breaks the table. --format csv and json keep the
// text exact.
func tableCell(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// tableCells is tableCell of every cell of a row.
func tableCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = tableCell(c)
	}
	return out
}
