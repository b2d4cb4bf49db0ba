package fileio

import (
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

func TestReadTableCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	os.WriteFile(p, []byte("x,y\n1, 2\n\n3,4.5\n"), 0o644)
	tb, err := ReadTable(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows != 2 || tb.Cols != 2 || tb.At(1, 1) != 4.5 || strings.Join(tb.Header, ",") != "x,y" {
		t.Errorf("table %+v", tb)
	}
	// A header-less file: the first row is data.
	os.WriteFile(p, []byte("1,2\n3,4\n"), 0o644)
	if tb, _ := ReadTable(p, false); tb.Rows != 2 || tb.Header != nil {
		t.Errorf("no header: %+v", tb)
	}
	// Non-finite values: allowed only on request.
	os.WriteFile(p, []byte("1,nan\n"), 0o644)
	if _, err := ReadTable(p, false); err == nil || !strings.Contains(err.Error(), "row 1, column 2") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := ReadTable(p, true); err != nil {
		t.Errorf("NaN allowed: %v", err)
	}
}

func TestReadTableNPY(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.npy")
	f, _ := os.Create(p)
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	if err := npyio.Write(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tb, err := ReadTable(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows != 2 || tb.Cols != 3 || tb.At(1, 0) != 4 || tb.At(0, 2) != 3 {
		t.Errorf("npy table %+v", tb)
	}
	// int32 1-D arrays become one float column.
	p1 := filepath.Join(dir, "v.npy")
	f, _ = os.Create(p1)
	npyio.Write(f, []int32{3, -1, 7})
	f.Close()
	v, err := ReadVector(p1)
	if err != nil || len(v) != 3 || v[1] != -1 {
		t.Errorf("vector %v %v", v, err)
	}
	os.WriteFile(p, []byte("not numpy"), 0o644)
	if _, err := ReadTable(p, false); err == nil || !strings.Contains(err.Error(), "m.npy") {
		t.Errorf("bad npy: %v", err)
	}
}

func TestWriteAtomicKeepsOldOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := WriteCSVAtomic(p, []string{"a"}, [][]string{{"1"}}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteAtomicFunc(p, func(w io.Writer) error {
		w.Write([]byte("half a resu"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want the writer's error, got %v", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "a\n1\n" {
		t.Errorf("old file damaged: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp file left behind: %v", entries)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestSplitIDColumnAndStrings(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.csv")
	os.WriteFile(p, []byte("f1,name,f2\n1,a,2\n3,b,4\n"), 0o644)
	tb, ids, err := SplitIDColumn(p, "name")
	if err != nil || tb.Rows != 2 || tb.Cols != 2 || tb.At(1, 1) != 4 || ids[1] != "b" {
		t.Errorf("%+v %v %v", tb, ids, err)
	}
	if _, _, err := SplitIDColumn(p, "nope"); err == nil || !strings.Contains(err.Error(), `no column named "nope" in header "f1,name,f2"`) {
		t.Errorf("missing id column: %v", err)
	}
	// A header-less file's first data row was once called the header ("no column named \"name\" in header [1 a 2]").
	os.WriteFile(p, []byte("1,a,2\n3,b,4\n"), 0o644)
	if _, _, err := SplitIDColumn(p, "name"); err == nil || !strings.Contains(err.Error(), `needs a header row naming the columns, but line 1 "1,a,2" holds numbers`) {
		t.Errorf("header-less file: %v", err)
	}
	for body, want := range map[string]string{"": "empty file", "f1,name\n": "no data rows"} {
		os.WriteFile(p, []byte(body), 0o644)
		if _, _, err := SplitIDColumn(p, "name"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
	os.WriteFile(p, []byte("id\nx\ny\n"), 0o644)
	if s, err := ReadStrings(p); err != nil || len(s) != 2 || s[0] != "x" {
		t.Errorf("ReadStrings %v %v", s, err)
	}
}

// TestEachRowLineNumbers checks that EachRow names the file's own line, not
// the record count: blank lines and a quoted cell spanning two lines used to
// shift every later line number.
func TestEachRowLineNumbers(t *testing.T) {
	// line 1 header, 2 blank, 3 a, 4 blank, 5-6 quoted two-line cell, 7 bad row
	const in = "id,v\n\na,1\n\n\"b\nb\",2\nc,3,4\n"
	cr := csv.NewReader(strings.NewReader(in))
	cr.FieldsPerRecord = -1
	if _, err := cr.Read(); err != nil {
		t.Fatal(err)
	}
	var lines []int
	err := EachRow(cr, "x.csv", 2, func(line int, _ []string) error {
		lines = append(lines, line)
		return nil
	})
	if want := []int{3, 5}; !slices.Equal(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
	if err == nil || !strings.Contains(err.Error(), "x.csv: line 7: ") {
		t.Errorf("error %v, want one naming x.csv line 7", err)
	}
}

// TestCSVByteOrderMark: a spreadsheet's "CSV UTF-8" export starts with a
// byte-order mark; it must not become part of the first header cell (the
// audit saw "kernel must be square, got 1 rows x 2 columns" for a 2 x 2
// kernel and "no column id" for a file whose header began with id).
func TestCSVByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	kernel := filepath.Join(dir, "k.csv")
	if err := os.WriteFile(kernel, []byte("\ufeffa,b\n1,0.5\n0.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(kernel, false)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 2 || tab.Cols != 2 || tab.Data[1] != 0.5 {
		t.Errorf("ReadTable with a BOM: %d x %d %v, want the 2 x 2 kernel", tab.Rows, tab.Cols, tab.Data)
	}
	withID := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(withID, []byte("\ufeffid,x\np,1\nq,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, ids, err := SplitIDColumn(withID, "id")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"p", "q"}) || tab.Rows != 2 {
		t.Errorf("SplitIDColumn with a BOM: ids %v rows %d", ids, tab.Rows)
	}
	// A BOM-less file and one whose only content is the BOM still behave.
	rec, err := NewCSVReader(strings.NewReader("\ufeff")).Read()
	if err != io.EOF {
		t.Errorf("BOM-only input: %v, %v; want io.EOF", rec, err)
	}
	rec, err = NewCSVReader(strings.NewReader("\ufefe,x\n")).Read()
	if err != nil || rec[0] != "\ufefe" {
		t.Errorf("a different leading rune is kept: %q, %v", rec, err)
	}
}

// TestCSVReadersRefuseBinary: a .npy array under another name, an .npz
// (zip) archive or UTF-16 text given where CSV is read is an error naming
// the file and what it looks like; it used to be a parse error quoting raw
// bytes ("line 2, column 1: \"\x00\x00...\" is not a number").
func TestCSVReadersRefuseBinary(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"kernel.dat", "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n" + strings.Repeat("\x00", 32), "a NumPy .npy array, not CSV text"},
		{"kernel.csv", "PK\x03\x04\x14\x00\x00\x00\x00\x00K.npy", "a zip archive (NumPy's .npz?)"},
		{"ids.csv", "\xff\xfei\x00d\x00\n\x00a\x00", "binary data (a NUL byte at offset 3)"},
		{"late-nul.csv", "1,2\n3,4\n\x00", "binary data (a NUL byte at offset 8)"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(what string, err error) {
			t.Helper()
			if err == nil || !strings.Contains(err.Error(), c.name+": "+c.want) {
				t.Errorf("%s(%s): %v, want an error naming the file and %q", what, c.name, err, c.want)
			}
		}
		_, err := ReadTable(p, false)
		check("ReadTable", err)
		_, err = ReadStrings(p)
		check("ReadStrings", err)
		_, _, err = SplitIDColumn(p, "id")
		check("SplitIDColumn", err)
	}
	// Text with no NUL in its first 512 bytes still reads.
	rec, err := NewCSVReader(strings.NewReader("a,b\n")).Read()
	if err != nil || !slices.Equal(rec, []string{"a", "b"}) {
		t.Errorf("text: %q, %v", rec, err)
	}
}

// TestSeparatorHint: only cells holding ';' or a tab get the hint.
func TestSeparatorHint(t *testing.T) {
	for _, c := range []struct {
		cells []string
		want  string
	}{
		{[]string{"0.5;1;0"}, "a cell holds a ';': qvs reads comma-separated values"},
		{[]string{"id", "x\ty"}, "a cell holds a tab: qvs reads comma-separated values"},
		{[]string{"abc", "1e"}, ""},
		{nil, ""},
	} {
		got := SeparatorHint(c.cells...)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("SeparatorHint(%q) = %q, want %q", c.cells, got, c.want)
		}
	}
}
