package fileio

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzLineLimiter: the line bound of NewCSVReader passes any input whose
// lines are all within it through unchanged, whatever the read sizes, and
// otherwise fails naming the first line that is too long (counted by brute
// force here).
func FuzzLineLimiter(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), uint8(4))
	f.Add([]byte("abcdef\nxy\n"), uint8(3))
	f.Add([]byte(""), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		m := int(max%16) + 1
		got, err := io.ReadAll(&lineLimiter{r: iotest.HalfReader(bytes.NewReader(in)), max: m})
		bad := 0
		for i, line := range strings.Split(string(in), "\n") {
			if len(line) > m {
				bad = i + 1
				break
			}
		}
		if bad == 0 {
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("lines within %d: got %q, %v", m, got, err)
			}
			return
		}
		if err == nil || !strings.HasPrefix(err.Error(), "line "+itoa(bad)+" is longer than") {
			t.Fatalf("line %d longer than %d: error %v", bad, m, err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
