package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadRecords: a run's record file (runs/KEY.csv, read when a campaign
// resumes) never panics the reader; a damaged file or a foreign header is an
// error naming it, and accepted rows have the header's width.
func FuzzReadRecords(f *testing.F) {
	header := []string{"iteration", "region", "x0", "value", "seconds"}
	f.Add([]byte("iteration,region,x0,value,seconds\n0,-1,0.5,1,0.01\n"))
	f.Add([]byte("iteration,region,x0,value,seconds\n0,-1,0.5\n"))
	f.Add([]byte("iteration,batch,index\n\"0\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "k.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readRecords(p, header)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("row %v for header %v", r, header)
			}
		}
	})
}
