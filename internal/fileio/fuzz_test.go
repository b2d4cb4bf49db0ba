package fileio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzFile writes data to a file named name in a per-target folder and
// returns its path (the readers under test take paths).
func fuzzFile(t *testing.T, dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// csvSeeds are small real inputs of the CSV matrix, vector and id readers.
var csvSeeds = []string{
	"x,y\n1, 2\n\n3,4.5\n",
	"1,0.9,0\n0.9,1,0\n0,0,1\n",
	"f1,name,f2\n1,a,2\n3,b,4\n",
	"id\nx\ny\n",
	"1,nan\n",
	"a,\"b\nc\",1\n",
	"1,2\n3\n",
}

// FuzzReadTable: ReadTable never panics; a table it returns is rectangular,
// its values finite when asked, and never holds more values than the file
// has bytes (each value needs at least one character and a separator).
func FuzzReadTable(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, dir, "m.csv", data)
		tb, err := ReadTable(p, false)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if tb.Rows < 1 || tb.Cols < 1 || len(tb.Data) != tb.Rows*tb.Cols || len(tb.Data) > len(gunzipped(data)) {
			t.Fatalf("%d x %d table with %d values from %d bytes", tb.Rows, tb.Cols, len(tb.Data), len(data))
		}
		for _, v := range tb.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v accepted", v)
			}
		}
		if v, err := ReadVector(p); err == nil && (tb.Cols != 1 || len(v) != tb.Rows) {
			t.Fatalf("vector of %d from a %d x %d table", len(v), tb.Rows, tb.Cols)
		}
	})
}

// FuzzReadStrings: ReadStrings never panics and returns at most one id per
// line.
func FuzzReadStrings(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, dir, "ids.csv", data)
		ids, err := ReadStrings(p)
		text := gunzipped(data)
		if err == nil && (len(ids) == 0 || len(ids) > bytes.Count(text, []byte("\n"))+1) {
			t.Fatalf("%d ids from %d lines", len(ids), bytes.Count(text, []byte("\n"))+1)
		}
	})
}

// FuzzSplitIDColumn: SplitIDColumn never panics; its table and ids agree.
func FuzzSplitIDColumn(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s), "name")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, col string) {
		p := fuzzFile(t, dir, "x.csv", data)
		tb, ids, err := SplitIDColumn(p, col)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(ids) != tb.Rows || len(tb.Data) != tb.Rows*tb.Cols || len(tb.Header) != tb.Cols {
			t.Fatalf("%d ids, %d x %d table, %d values, header %v", len(ids), tb.Rows, tb.Cols, len(tb.Data), tb.Header)
		}
	})
}

// FuzzReadPromised: never more bytes than asked, an error when fewer exist.
func FuzzReadPromised(f *testing.F) {
	f.Add([]byte("abc"), int64(2))
	f.Add([]byte("abc"), int64(1<<40))
	f.Fuzz(func(t *testing.T, data []byte, n int64) {
		if n < 0 {
			return
		}
		b, err := ReadPromised(bytes.NewReader(data), n)
		if (err == nil) != (n <= int64(len(data))) || (err == nil && int64(len(b)) != n) {
			t.Fatalf("n=%d from %d bytes: %d bytes, %v", n, len(data), len(b), err)
		}
	})
}

// FuzzReadColumnsCSV: the role-aware CSV reader never panics, its errors
// name the file, and what it returns is consistent: one id, quality and
// fingerprint per row when those columns exist, a rectangular feature
// table of finite numbers, and no unnamed or label-like column among the
// features (the default selection).
func FuzzReadColumnsCSV(f *testing.F) {
	for _, s := range []string{",e1,e2,target\n0,1.0,0.0,1\n1,0.0,1.0,0\n", "id,e1,quality\na,1,0.5\nb,2,1\n", "Unnamed: 0,x\nq,1\nr,2\n", "1,2\n3,4\n", ",x\n0,1\n0,2\n", "a,y\n1,2\n"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, withRoles bool) {
		p := fuzzFile(t, dir, "c.csv", data)
		spec := ColumnSpec{IDFlag: "--id-column", QualityFlag: "--quality-column", FeaturesFlag: "--feature-columns", PrefixFlag: "--feature-prefix", ExcludeFlag: "--exclude-columns"}
		if withRoles {
			spec.ID, spec.Quality = "id", "quality"
		}
		d, ok, err := ReadColumnsCSV(p, spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) && !strings.Contains(err.Error(), "c.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if !ok {
			return
		}
		ft := d.Features
		if ft == nil || ft.Rows < 1 || len(ft.Data) != ft.Rows*ft.Cols || len(ft.Header) != ft.Cols || len(d.Lines) != ft.Rows {
			t.Fatalf("inconsistent table %+v", d)
		}
		if (d.IDs != nil && len(d.IDs) != ft.Rows) || (d.Quality != nil && len(d.Quality) != ft.Rows) {
			t.Fatalf("%d ids, %d qualities for %d rows", len(d.IDs), len(d.Quality), ft.Rows)
		}
		for _, v := range ft.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite feature %v", v)
			}
		}
		for _, h := range ft.Header {
			if UnnamedColumn(h) || LabelLikeColumn(h, ft.Header) && !(strings.TrimSpace(strings.ToLower(h)) == "y") {
				t.Fatalf("column %q became a feature", h)
			}
		}
	})
}
