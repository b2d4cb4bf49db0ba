package fileio

import (
	"fmt"
	"strconv"
	"strings"
)

// ReadError is an error in the contents of a file at one line, and at one
// column when a cell is to blame, as encoding/csv's ParseError is:
//
//	FILE: line L: what is wrong
//	FILE: line L, column "NAME": what is wrong
//	FILE: line L, column C: what is wrong
//	FILE: line L, column C (NAME): what is wrong
//
// Lines count from 1, the header included (a CSV's first data row is line
// 2); columns count from 1. errors.As finds it under any wrapping, so a
// caller can tell where a file is wrong without parsing the message, and
// errors.Is and errors.As see through it to Err.
type ReadError struct {
	File   string // the file as the user named it; "" when the message names it elsewhere
	Line   int    // 1-based line of the file
	Column int    // 1-based column; 0 when the column is named by Field alone, or none is to blame
	Field  string // the column's name in the header; "" when none is given
	Err    error  // what is wrong
}

// Error is the message of the forms above: Field is quoted (cut when
// long, as Excerpt does) when it names the column alone, and written as it
// is after the column's number unless it is longer than an excerpt (then
// quoted and cut).
func (e *ReadError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	b.WriteString("line ")
	b.WriteString(strconv.Itoa(e.Line))
	switch {
	case e.Column > 0 && e.Field != "" && len(e.Field) <= maxExcerpt:
		fmt.Fprintf(&b, ", column %d (%s)", e.Column, e.Field)
	case e.Column > 0 && e.Field != "":
		fmt.Fprintf(&b, ", column %d (%s)", e.Column, Excerpt(e.Field))
	case e.Column > 0:
		fmt.Fprintf(&b, ", column %d", e.Column)
	case e.Field != "":
		b.WriteString(", column ")
		b.WriteString(Excerpt(e.Field))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns Err.
func (e *ReadError) Unwrap() error { return e.Err }

// LineErrorf is a ReadError at line of file, no column to blame, with the
// message fmt.Errorf(format, args...) (%w wraps as usual).
func LineErrorf(file string, line int, format string, args ...any) error {
	return &ReadError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// FieldErrorf is a ReadError at line of file in the column named field.
func FieldErrorf(file string, line int, field, format string, args ...any) error {
	return &ReadError{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}

// ColumnError is a column a setting names that the header of File lacks:
// no column called Value, or, with Prefix, none whose name starts with
// Value. Setting is what named it: a config key ("pool.csv.label_column"),
// or a flag ("--exclude-columns") for a setting that is a flag alone. It
// names a key neutrally; the command line, which knows whether the user
// typed the key's flag, names the flag with NameFlag (through
// configkeys.Table.Name), as it does for a configkeys.SettingError:
//
//	FILE: pool.csv.label_column = "class": no such column in the header "x,label"
//	FILE: --label-column (key pool.csv.label_column) = "class": no such column in the header "x,label"
//	FILE: --exclude-columns: no column "e2" in the header "e1"
type ColumnError struct {
	File    string
	Setting string   // the config key, or a flag ("--NAME")
	Value   string   // the column name or prefix the setting gives
	Prefix  bool     // Value is a prefix no column name starts with
	Header  []string // the header, shown cut (ExcerptCells)
	Flag    string   // the flag (without "--") the user typed for the key Setting; "" = none
}

// Error is the message of the forms above.
func (e *ColumnError) Error() string {
	head := ExcerptCells(e.Header)
	if strings.HasPrefix(e.Setting, "-") {
		if e.Prefix {
			return fmt.Sprintf("%s: %s: no column name starts with %q in the header %s", e.File, e.Setting, e.Value, head)
		}
		return fmt.Sprintf("%s: %s: no column %q in the header %s%s", e.File, e.Setting, e.Value, head, SeparatorHint(e.Header...))
	}
	name := e.Setting
	if e.Flag != "" {
		name = "--" + e.Flag + " (key " + e.Setting + ")"
	}
	v := strconv.Quote(e.Value)
	if len(e.Value) > maxSettingValue {
		v = Excerpt(e.Value)
	}
	if e.Prefix {
		return fmt.Sprintf("%s: %s = %s: no column name starts with it in the header %s", e.File, name, v, head)
	}
	return fmt.Sprintf("%s: %s = %s: no such column in the header %s%s", e.File, name, v, head, SeparatorHint(e.Header...))
}

// maxSettingValue is the longest value a ColumnError quotes whole, as
// configkeys.SettingError does; a longer one is cut (Excerpt).
const maxSettingValue = 4096

// SettingKey is the setting that named the column.
func (e *ColumnError) SettingKey() string { return e.Setting }

// NameFlag names flag (without "--") as the one the user typed for the
// key, unless a flag is named already.
func (e *ColumnError) NameFlag(flag string) {
	if e.Flag == "" {
		e.Flag = flag
	}
}
