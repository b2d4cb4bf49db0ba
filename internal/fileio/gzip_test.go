package fileio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gzipBytes compresses data as the gzip command does (one member).
func gzipBytes(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A gzip-compressed CSV reads as the CSV it holds, whatever its name, a
// byte-order mark inside included, and a stream of two members (gzip a b >
// c) as their concatenation.
func TestGzipCSVReadsAsPlain(t *testing.T) {
	dir := t.TempDir()
	text := "\ufeffid,x,y\na,1,2\nb,3,4.5\n\nc,5,6\n"
	plain := filepath.Join(dir, "t.csv")
	gz := filepath.Join(dir, "t.csv.gz")
	odd := filepath.Join(dir, "t.dat")
	os.WriteFile(plain, []byte(text), 0o644)
	os.WriteFile(gz, gzipBytes(t, []byte(text)), 0o644)
	os.WriteFile(odd, gzipBytes(t, []byte(text)), 0o644)
	want, wantIDs, err := SplitIDColumn(plain, "id")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{gz, odd} {
		got, ids, err := SplitIDColumn(p, "id")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got.Path = want.Path
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(ids, wantIDs) {
			t.Errorf("%s: %+v %v, want %+v %v", p, got, ids, want, wantIDs)
		}
	}
	two := append(gzipBytes(t, []byte("1,2\n3,4\n")), gzipBytes(t, []byte("5,6\n"))...)
	os.WriteFile(gz, two, 0o644)
	tb, err := ReadTable(gz, false)
	if err != nil || tb.Rows != 3 || tb.At(2, 1) != 6 {
		t.Errorf("two members: %+v, %v", tb, err)
	}
	// Errors inside the compressed text name the line as in the plain file.
	os.WriteFile(gz, gzipBytes(t, []byte("x,y\n1,2\n3,oops\n")), 0o644)
	if _, err := ReadTable(gz, false); err == nil || !strings.HasPrefix(err.Error(), gz) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("bad cell: %v", err)
	}
}

// A corrupt or truncated stream, or one that is not gzip after the magic
// bytes, is an error that names the file and says gzip; a stream expanding
// beyond the bound stops there.
func TestGzipCSVErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv.gz")
	full := gzipBytes(t, []byte(strings.Repeat("1,2,3\n", 5000)))
	corrupt := bytes.Clone(full)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 trailer
	for name, data := range map[string][]byte{
		"truncated":  full[:len(full)/2],
		"corrupt":    corrupt,
		"not gzip":   []byte("\x1f\x8bhello,world\n"),
		"magic only": []byte("\x1f\x8b"),
	} {
		os.WriteFile(p, data, 0o644)
		_, err := ReadTable(p, false)
		if err == nil || !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), "gzip") {
			t.Errorf("%s: %v", name, err)
		}
	}
	defer func(r, s int64) { gzipMaxRatio, gzipSlack = r, s }(gzipMaxRatio, gzipSlack)
	gzipMaxRatio, gzipSlack = 10, 1000
	os.WriteFile(p, gzipBytes(t, []byte(strings.Repeat("0,0\n", 100000))), 0o644)
	if _, err := ReadTable(p, false); err == nil || !strings.Contains(err.Error(), "expands to more than 10 times") {
		t.Errorf("bomb: %v", err)
	}
	// Text that compresses within the bound reads.
	gzipMaxRatio = 1000
	if tb, err := ReadTable(p, false); err != nil || tb.Rows != 100000 {
		t.Errorf("within the bound: %v", err)
	}
}

// gunzipped is data decompressed when it is gzip (within the readers'
// bound), else data itself: what the CSV readers parse.
func gunzipped(data []byte) []byte {
	if !IsGzip(data) {
		return data
	}
	var out bytes.Buffer
	z, err := gunzipText(bufioReader(data))
	if err != nil {
		return nil
	}
	_, _ = out.ReadFrom(z)
	return out.Bytes()
}

// FuzzGzipCSV: a CSV compressed with gzip reads exactly as the plain file
// (the same table, ids and strings, or the same error with the file's name
// changed), and raw bytes that start like gzip never make a reader panic.
func FuzzGzipCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s), false)
	}
	f.Add(gzipBytes(f, []byte("x,y\n1,2\n")), true)
	f.Add(gzipBytes(f, []byte("x,y\n1,2\n"))[:12], true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, raw bool) {
		if raw {
			p := fuzzFile(t, dir, "raw.csv", data)
			if _, err := ReadTable(p, false); err != nil && !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			_, _ = ReadStrings(p)
			return
		}
		if IsGzip(data) {
			return // a gzip inside gzip is read once, not unwrapped twice
		}
		plain := fuzzFile(t, dir, "p.csv", data)
		gz := fuzzFile(t, dir, "p.csv.gz", gzipBytes(t, data))
		same := func(what string, a, b any, ea, eb error) {
			if (ea == nil) != (eb == nil) {
				t.Fatalf("%s: plain error %v, gzip error %v", what, ea, eb)
			}
			if ea != nil {
				if strings.ReplaceAll(eb.Error(), gz, plain) != ea.Error() {
					t.Fatalf("%s: plain error %q, gzip error %q", what, ea, eb)
				}
				return
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: plain %+v, gzip %+v", what, a, b)
			}
		}
		ta, ea := ReadTable(plain, false)
		tb, eb := ReadTable(gz, false)
		if ea == nil && eb == nil {
			tb.Path = ta.Path
		}
		same("ReadTable", ta, tb, ea, eb)
		sa, ea := ReadStrings(plain)
		sb, eb := ReadStrings(gz)
		same("ReadStrings", sa, sb, ea, eb)
	})
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
