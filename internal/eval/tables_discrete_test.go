package eval

import "testing"

// TestDiscreteFurther: the caption of a discrete table names only the
// columns it has; a task: kernel campaign without metric_columns used to be
// promised "metrics of the best item" it did not show.
func TestDiscreteFurther(t *testing.T) {
	first := []Column{{Key: "best_value"}, {Key: "edc"}}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{nil, ""},
		{[]string{"good_found"}, "; further column: good items found"},
		{[]string{"good_found", "energy_penalty"}, "; further columns: good items found and metrics of the best item"},
		{[]string{"energy_penalty", "storage"}, "; further columns: metrics of the best item"},
	} {
		cols := append([]Column(nil), first...)
		for _, k := range tc.extra {
			cols = append(cols, Column{Key: k})
		}
		if got := discreteFurther(cols); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.extra, got, tc.want)
		}
	}
}
