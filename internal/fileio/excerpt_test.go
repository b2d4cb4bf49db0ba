package fileio

import (
	"strings"
	"testing"
)

// TestExcerpt: short text is quoted whole; long text is cut at maxExcerpt
// bytes (never inside a character) and followed by its length or cell
// count, so a 100 MB cell gives a message under 100 bytes.
func TestExcerpt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", `"abc"`},
		{strings.Repeat("x", 60), `"` + strings.Repeat("x", 60) + `"`},
		{strings.Repeat("x", 61), `"` + strings.Repeat("x", 60) + `"... (61 bytes)`},
		// 59 x then a 2-byte é: cutting at 60 would split it.
		{strings.Repeat("x", 59) + "é" + "yy", `"` + strings.Repeat("x", 59) + `"... (63 bytes)`},
	} {
		if got := Excerpt(c.in); got != c.want {
			t.Errorf("Excerpt(%.70q) = %s, want %s", c.in, got, c.want)
		}
	}
	big := strings.Repeat("1234567890", 10<<20)
	if got := Excerpt(big); len(got) > 100 || !strings.HasSuffix(got, "(104857600 bytes)") {
		t.Errorf("Excerpt of 100 MiB = %.200s", got)
	}
	if got := ExcerptCells([]string{"id", "a", "b"}); got != `"id,a,b"` {
		t.Errorf("ExcerptCells short = %s", got)
	}
	cells := strings.Split(strings.Repeat("c123,", 1000)+"end", ",")
	got := ExcerptCells(cells)
	want := `"` + strings.Repeat("c123,", 12) + `"... (1001 cells)`
	if got != want {
		t.Errorf("ExcerptCells long = %s, want %s", got, want)
	}
	if got := ExcerptCells([]string{big, "x"}); len(got) > 100 {
		t.Errorf("ExcerptCells of a 100 MiB cell = %.200s", got)
	}
}
