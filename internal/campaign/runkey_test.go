package campaign

import "testing"

// TestRunKey: the keys of every campaign kind, as their records have
// always been named (results/*/runs/KEY.csv of the paper campaigns).
func TestRunKey(t *testing.T) {
	for _, c := range []struct {
		method, q string
		repeat    int
		labels    []string
		want      string
	}{
		{"random", "", 3, nil, "random-r03"},
		{"qvs", "0.5", 0, nil, "qvs-q0.5-r00"},
		{"qvs", "inf", 1, []string{"floor"}, "qvs-qinf-floor-r01"},
		{"qvs", "1", 12, []string{"authors"}, "qvs-q1-authors-r12"},
		{"eci", "", 2, []string{"t0.5", "pessimistic"}, "eci-t0.5-pessimistic-r02"},
		{"select", "", 0, []string{"b1", "l0.5", "optimistic"}, "select-b1-l0.5-optimistic-r00"},
		{"ucb", "", 100, nil, "ucb-r100"},
	} {
		if got := RunKey(c.method, c.q, c.repeat, c.labels...); got != c.want {
			t.Errorf("RunKey(%q, %q, %d, %q) = %q, want %q", c.method, c.q, c.repeat, c.labels, got, c.want)
		}
	}
}

// TestInnerWorkers: runs in parallel first, the rest shared; at least 1.
func TestInnerWorkers(t *testing.T) {
	for _, c := range []struct{ workers, runs, want int }{
		{8, 2, 4}, {8, 3, 2}, {8, 8, 1}, {8, 100, 1}, {1, 5, 1}, {4, 0, 4}, {0, 3, 1},
	} {
		if got := InnerWorkers(c.workers, c.runs); got != c.want {
			t.Errorf("InnerWorkers(%d, %d) = %d, want %d", c.workers, c.runs, got, c.want)
		}
	}
}
