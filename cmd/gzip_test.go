package cmd

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
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
