package eval

import "testing"

func TestBitRow(t *testing.T) {
	b := [][]uint64{{1 | 1<<63, 0}, {0, 1 << 2}}
	row, d := bitRow(b)
	if d != 128 {
		t.Fatalf("d = %d, want 128", d)
	}
	dst := make([]float64, d)
	row(1, dst)
	row(0, dst) // must clear row 1's bits
	for j, v := range dst {
		want := 0.0
		if j == 0 || j == 63 {
			want = 1
		}
		if v != want {
			t.Fatalf("row 0 feature %d = %v, want %v", j, v, want)
		}
	}
}
