package cmd

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// asWriteGzip writes body gzip-compressed to dir/name and returns the path.
func asWriteGzip(t *testing.T, dir, name, body string) string {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(body))
	z.Close()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The commands that read a CSV pool or table read its .csv.gz as the CSV
// itself: the same stdout (as suggest's batch, score's table, graph's
// edges, a kernel from a table); a corrupt file fails with exit 1, empty
// stdout and an error that names the file and says gzip.
func TestGzipCSVInputs(t *testing.T) {
	dir := t.TempDir()
	body := linePoolCSV(false)
	plain := asWriteFile(t, dir, "pool.csv", body)
	gz := asWriteGzip(t, dir, "pool.csv.gz", body)
	obs := asWriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	emb := "x,y\n1,0\n0,1\n1,1\n0.5,0.2\n"
	embPlain := asWriteFile(t, dir, "emb.csv", emb)
	embGz := asWriteGzip(t, dir, "emb.csv.gz", emb)
	cache := filepath.Join(dir, "cache")
	cases := []struct {
		name        string
		plain, gzip []string
	}{
		{"as suggest", []string{"as", "suggest", "--cache-dir", cache, "--observed", obs, "--batch", "3", "--format", "csv", "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--pool", plain},
			[]string{"as", "suggest", "--cache-dir", cache, "--observed", obs, "--batch", "3", "--format", "csv", "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--pool", gz}},
		{"score", []string{"score", "--embeddings", embPlain, "--q", "1,inf", "--format", "csv"}, []string{"score", "--embeddings", embGz, "--q", "1,inf", "--format", "csv"}},
	}
	for _, c := range cases {
		code, want, errs := runQVS(t, c.plain...)
		if code != 0 || want == "" {
			t.Fatalf("%s plain: exit %d: %s", c.name, code, errs)
		}
		code, got, errs := runQVS(t, c.gzip...)
		if code != 0 || got != want {
			t.Errorf("%s gzip: exit %d (%s)\n%s\nwant\n%s", c.name, code, errs, got, want)
		}
	}
	raw, _ := os.ReadFile(gz)
	bad := asWriteFile(t, dir, "bad.csv.gz", string(raw[:len(raw)/2]))
	code, out, errs := runQVS(t, "as", "suggest", "--cache-dir", cache, "--observed", obs, "--batch", "3", "--id-column", "id", "--feature-prefix", "x", "--k", "2", "--pool", bad)
	if code != 1 || out != "" || !strings.Contains(errs, bad) || !strings.Contains(errs, "gzip") {
		t.Errorf("truncated gzip: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
