package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// TestReadErrorMessages: each form of the message, written out, and the
// chain seen through (errors.As finds the ReadError under a wrapper,
// errors.Is the wrapped cause).
func TestReadErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{LineErrorf("a.csv", 3, "item %d is listed twice", 4), `a.csv: line 3: item 4 is listed twice`},
		{FieldErrorf("a.csv", 2, "value", "%q is not a finite number", "x"), `a.csv: line 2, column "value": "x" is not a finite number`},
		{&ReadError{File: "s.csv", Line: 3, Column: 7, Field: "vs_q0", Err: errors.New("bad")}, `s.csv: line 3, column 7 (vs_q0): bad`},
		{&ReadError{File: "m.csv", Line: 2, Column: 1, Err: errors.New("bad")}, `m.csv: line 2, column 1: bad`},
		{&ReadError{Line: 5, Err: errors.New("no value cell")}, `line 5: no value cell`},
		{FieldErrorf("w.csv", 2, strings.Repeat("n", 70), "bad"), `w.csv: line 2, column "` + strings.Repeat("n", 60) + `"... (70 bytes): bad`},
		{&ReadError{File: "w.csv", Line: 2, Column: 4, Field: strings.Repeat("n", 70), Err: errors.New("bad")}, `w.csv: line 2, column 4 ("` + strings.Repeat("n", 60) + `"... (70 bytes)): bad`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	err := fmt.Errorf("loading: %w", LineErrorf("b.csv", 9, "cannot open: %w", fs.ErrNotExist))
	var re *ReadError
	if !errors.As(err, &re) || re.File != "b.csv" || re.Line != 9 {
		t.Errorf("errors.As: %+v", re)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("errors.Is does not see the wrapped cause")
	}
}

// TestColumnErrorMessages: a column a key names, before and after the
// command line names the flag (once), a prefix, and one a flag names.
func TestColumnErrorMessages(t *testing.T) {
	head := []string{"x", "label"}
	e := &ColumnError{File: "p.csv", Setting: "pool.csv.label_column", Value: "class", Header: head}
	if got, want := e.Error(), `p.csv: pool.csv.label_column = "class": no such column in the header "x,label"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	e.NameFlag("label-column")
	e.NameFlag("other")
	if got, want := e.Error(), `p.csv: --label-column (key pool.csv.label_column) = "class": no such column in the header "x,label"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	p := &ColumnError{File: "p.csv", Setting: "pool.csv.feature_prefix", Value: "z", Prefix: true, Header: head}
	if got, want := p.Error(), `p.csv: pool.csv.feature_prefix = "z": no column name starts with it in the header "x,label"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	f := &ColumnError{File: "p.csv", Setting: "--exclude-columns", Value: "e2", Header: head}
	if got, want := f.Error(), `p.csv: --exclude-columns: no column "e2" in the header "x,label"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if f.SettingKey() != "--exclude-columns" {
		t.Errorf("SettingKey %q", f.SettingKey())
	}
}
