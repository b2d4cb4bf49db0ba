package cli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// The output formats of the commands that print rows (--format).
const (
	FormatTable = "table" // aligned columns for people, numbers rounded
	FormatCSV   = "csv"   // full precision (Float), ids spreadsheet-safe
	FormatJSON  = "json"  // one document (docs/json.md)
)

// Format is the value of a command's --format flag: one of the formats
// the command allows (configkeys.Choice), checked when the flag is parsed,
// so a bad word is a flag error (exit 2) that lists them. Commands bind it
// through their settings table (configkeys.BindValue).
type Format struct{ configkeys.Choice }

// formats is a --format of default def among allowed (table, csv and json
// when none is given).
func formats(def string, allowed ...string) Format {
	if len(allowed) == 0 {
		allowed = []string{FormatTable, FormatCSV, FormatJSON}
	}
	return Format{configkeys.Choice{Value: def, Choices: allowed}}
}

// table is a command's rows as every format prints them: Head and Rows
// hold the CSV form (numbers at full precision, Float); JSON writes the
// same cells (WriteJSON); the aligned table may show its own header
// (TableHead) and rounds each row first (Round).
type table struct {
	Command string // the JSON document's "command"
	Head    []string
	Rows    [][]string
	// Extra are the JSON document's fields after the rows.
	Extra []field
	// SafeIDs: in CSV, the column named id goes through
	// fileio.SpreadsheetSafe (an id a spreadsheet would run as a formula
	// gets a leading '; --raw-ids turns it off).
	SafeIDs bool
	// TableHead, if not nil, is the aligned table's header.
	TableHead []string
	// Round, if not nil, rewrites a row's cells for the aligned table.
	Round func(row []string)
	// Right aligns the table's columns right, every cell ended by a tab
	// (score's tables).
	Right bool
}

// Write writes t to w in format f in one write, so an error leaves w
// untouched: CSV, JSON (WriteJSON) or an aligned table whose text cells
// are quoted when unprintable (tableCell).
func (t *table) Write(w io.Writer, f string) error {
	var buf bytes.Buffer
	switch f {
	case FormatJSON:
		if err := t.appendJSON(&buf); err != nil {
			return err
		}
	case FormatCSV:
		id := slices.Index(t.Head, "id")
		cw := csv.NewWriter(&buf)
		_ = cw.Write(t.Head)
		for _, r := range t.Rows {
			if t.SafeIDs && id >= 0 {
				r = slices.Clone(r)
				r[id] = fileio.SpreadsheetSafe(r[id])
			}
			_ = cw.Write(r)
		}
		cw.Flush()
	default:
		flags, end := uint(0), "\n"
		if t.Right {
			flags, end = tabwriter.AlignRight, "\t\n"
		}
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', flags)
		head := t.Head
		if t.TableHead != nil {
			head = t.TableHead
		}
		fmt.Fprint(tw, strings.Join(head, "\t")+end)
		for _, r := range t.Rows {
			r = slices.Clone(r)
			if t.Round != nil {
				t.Round(r)
			}
			for i, c := range r {
				r[i] = tableCell(c)
			}
			fmt.Fprint(tw, strings.Join(r, "\t")+end)
		}
		tw.Flush()
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// roundColumns is a Table.Round that rewrites the non-empty cells of
// columns cols with format (Fixed or Rounded) of the cell's value.
func roundColumns(format func(float64) string, cols ...int) func([]string) {
	return func(r []string) {
		for _, k := range cols {
			if k < len(r) && r[k] != "" {
				v, _ := strconv.ParseFloat(r[k], 64)
				r[k] = format(v)
			}
		}
	}
}

// tableCell is how the aligned tables printed for people show a text cell
// from the user's files, an id or a group name: as it is when every
// character is printable, else Go-quoted ("a\x1b[31m", "two\nlines"), so
// a terminal escape sequence in an id never reaches the terminal and a
// newline or tab never breaks the table. CSV and JSON keep the text exact.
func tableCell(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
