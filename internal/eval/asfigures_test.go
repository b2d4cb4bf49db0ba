package eval

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

func groupOf(method, q string, vs1 map[int]string) *group {
	g := &group{Method: method, Q: q}
	for r := 0; r < 20; r++ {
		if v, ok := vs1[r]; ok {
			g.Runs = append(g.Runs, map[string]string{"repeat": strconv.Itoa(r), "vs_q1": v})
		}
	}
	return g
}

// TestMedianGainRepeat: the Figure 2 analogue draws the repeat whose VS_1
// gain of qVS-AS over one-step is the median, not repeat 0 (on bmg repeat 0
// was the one repeat where qVS-AS lost, against the means).
func TestMedianGainRepeat(t *testing.T) {
	tests := []struct {
		name        string
		blind, ours map[int]string
		want        string
		gain        float64
		n           int
	}{
		// Gains: r0 -2 (the misleading first repeat), r1 +5, r2 +9, r3
		// +3, r4 +7; sorted -2, 3, 5, 7, 9: the median +5 is repeat 1.
		{"odd", map[int]string{0: "28", 1: "20", 2: "21", 3: "22", 4: "23"}, map[int]string{0: "26", 1: "25", 2: "30", 3: "25", 4: "30"}, "1", 5, 5},
		// Gains r0 1, r1 4, r2 2, r3 3: sorted 1, 2, 3, 4; the lower middle
		// one (2, repeat 2) is drawn: a repeat that exists.
		{"even", map[int]string{0: "10", 1: "10", 2: "10", 3: "10"}, map[int]string{0: "11", 1: "14", 2: "12", 3: "13"}, "2", 2, 4},
		// Equal gains are ordered by repeat number: 1, 1, 1 -> repeat 3
		// is the middle of repeats 2, 3, 7.
		{"ties", map[int]string{2: "1", 3: "1", 7: "1"}, map[int]string{2: "2", 3: "2", 7: "2"}, "3", 1, 3},
		// Only shared repeats with finite values count: r1 NaN, r5 not run
		// by one-step; gains r0 +1, r2 +10, r3 +4 -> repeat 3.
		{"shared finite only", map[int]string{0: "1", 1: "1", 2: "1", 3: "1"}, map[int]string{0: "2", 1: "NaN", 2: "11", 3: "5", 5: "100"}, "3", 4, 3},
		{"one repeat", map[int]string{4: "3"}, map[int]string{4: "2.5"}, "4", -0.5, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := medianGainRepeat(groupOf("one-step", "", tc.blind), groupOf("qvs", "1", tc.ours))
			if err != nil {
				t.Fatal(err)
			}
			if got.Repeat != tc.want || math.Abs(got.Gain-tc.gain) > 1e-12 || got.Repeats != tc.n {
				t.Errorf("got %+v, want repeat %s gain %v of %d", got, tc.want, tc.gain, tc.n)
			}
		})
	}
	if _, err := medianGainRepeat(groupOf("one-step", "", map[int]string{0: "1"}), groupOf("qvs", "1", map[int]string{1: "2"})); err == nil {
		t.Error("no shared repeat: no error")
	}
}

func bandOf(means ...float64) Band {
	b := Band{}
	for i, m := range means {
		b.X = append(b.X, float64(i))
		b.Stat = append(b.Stat, Stat{Mean: m, SE: m / 10, N: 3})
	}
	return b
}

// TestMergeIdenticalCurves: identical curves are drawn once with a combined
// label, so no curve hides another; near but different curves stay apart.
func TestMergeIdenticalCurves(t *testing.T) {
	ss := []series{
		{label: "random search", method: "random"},
		{label: "qVS-AS q=0", method: "qvs", q: "0"},
		{label: "qVS-AS q=1", method: "qvs", q: "1"},
		{label: "qVS-AS q=2", method: "qvs", q: "2"},
		{label: "qVS-AS q=inf", method: "qvs", q: "inf"},
		{label: "one-step", method: "one-step"},
		{label: "ENS", method: "ens"},
	}
	bands := []Band{
		bandOf(1, 2, 3),
		bandOf(1, 1.5, 2),
		bandOf(1, 3, 5),
		bandOf(1, 3, 5),
		bandOf(1, 3, 5+1e-13), // rounding of a mean: still identical
		bandOf(1, 1.5, 2),
		bandOf(1, 1.5, 2.001), // close to one-step, but a different curve
	}
	lines := mergeIdenticalCurves(bands, ss)
	var labels []string
	for _, l := range lines {
		labels = append(labels, l.label())
	}
	want := []string{"random search", "qVS-AS q=0 = one-step", "qVS-AS q=1, 2, inf", "ENS"}
	if len(labels) != len(want) {
		t.Fatalf("labels %q, want %q", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, labels[i], want[i])
		}
	}
	// Different grids or repeat counts never merge.
	a, b := bandOf(1, 2), bandOf(1, 2)
	b.Stat[1].N = 2
	if sameBand(a, b) || sameBand(bandOf(1, 2), bandOf(1, 2, 3)) {
		t.Error("bands with different counts or lengths merged")
	}
	// Every line gets a distinct (colour, dashes, marker) combination, with
	// random grey and the line holding q = 1 vermillion.
	styles := curveStyles(lines)
	if styles[0].color != curveGrey || styles[2].color != vermillion || styles[2].dashes != nil || styles[0].dashes == nil {
		t.Errorf("styles %+v", styles)
	}
	// With eleven different curves (more than the palette's six colours),
	// no two lines share colour and dash pattern.
	var many []curveLine
	for _, m := range []struct{ method, q string }{{"random", ""}, {"eci", ""}, {"select", ""}, {"qvs", "0"}, {"qvs", "0.1"},
		{"qvs", "0.5"}, {"qvs", "1"}, {"qvs", "2"}, {"qvs", "inf"}, {"one-step", ""}, {"ens", ""}} {
		many = append(many, curveLine{series: []series{{method: m.method, q: m.q}}})
	}
	seen := map[string]int{}
	for i, st := range curveStyles(many) {
		r, g, b, _ := st.color.RGBA()
		k := fmt.Sprint(r>>8, g>>8, b>>8, st.dashes)
		if j, dup := seen[k]; dup {
			t.Errorf("lines %d and %d share colour and dashes", j, i)
		}
		seen[k] = i
	}
}
