package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay folder's table: one row per method (qvs per q, random first),
// a column per round's hits in summary order, then VS_1 and the seconds a
// round; cells are the mean and standard error over repeats, computed here
// by hand; the kind comes from config.yaml, or from hits_total without it.
func TestReplayTable(t *testing.T) {
	dir := t.TempDir()
	summary := "key,method,q,params,repeat,hits_r0,hits_r1,hits_r2,hits,hits_total,vs_q1,seconds,seconds_per_round,cpu_seconds_per_round\n" +
		"qvs-q1-r00,qvs,1,,0,3,10,20,20,115,12.5,4,2,1.5\n" +
		"greedy-r00,greedy,,,0,3,8,14,14,115,9,2,1,0.5\n" +
		"random-r00,random,,,0,3,4,5,5,115,4,0,0,0\n" +
		"qvs-q1-r01,qvs,1,,1,1,7,16,16,115,11.5,6,3,2.5\n" +
		"greedy-r01,greedy,,,1,1,9,12,12,115,8,2,1,0.5\n" +
		"random-r01,random,,,1,1,2,3,3,115,2,0,0,0\n"
	os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(summary), 0o644)
	for _, cfg := range []string{"task: lib\nkind: replay\n", ""} {
		os.Remove(filepath.Join(dir, "config.yaml"))
		if cfg != "" {
			os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644)
		}
		c, err := LoadCampaign(dir)
		if err != nil || c.Kind != KindReplay {
			t.Fatalf("kind %v, %v", c.Kind, err)
		}
		tb := TableOf(c)
		var keys []string
		for _, col := range tb.Columns {
			keys = append(keys, col.Key)
		}
		if got := strings.Join(keys, ","); got != "hits_r0,hits_r1,hits_r2,vs_q1,seconds_per_round,cpu_seconds_per_round" {
			t.Fatalf("columns %s", got)
		}
		var labels []string
		for _, r := range tb.Rows {
			labels = append(labels, r.Label())
		}
		if got := strings.Join(labels, "; "); got != "random; GP greedy (top mean); GP + qVS, q = 1" {
			t.Fatalf("rows %s", got)
		}
		qvs := tb.Rows[2].Cells
		// hits_r2 of qvs: 20 and 16, mean 18, SE = sd/sqrt(2) = 2.
		if c := qvs[2]; c.Mean != 18 || math.Abs(c.SE-2) > 1e-12 || c.N != 2 || !c.Bold {
			t.Errorf("qvs hits_r2 %+v", c)
		}
		// Seconds: lower is better, random's 0 in bold.
		if c := tb.Rows[0].Cells[4]; c.Mean != 0 || !c.Bold || qvs[4].Bold {
			t.Errorf("seconds: random %+v, qvs %+v", c, qvs[4])
		}
		if !strings.Contains(tb.Title, "115 top-scored items") || !strings.Contains(tb.Title, "2 repeats") {
			t.Errorf("title %q", tb.Title)
		}
	}
}

// A round's seconds print with significant digits: a small library's
// rounds take milliseconds, and two decimals showed every method's
// 0.0013 s and 0.0021 s as a bold 0.00 (0.00).
func TestReplayTableSecondsDigits(t *testing.T) {
	dir := t.TempDir()
	summary := "key,method,q,params,repeat,hits_r0,hits,hits_total,vs_q1,seconds,seconds_per_round,cpu_seconds_per_round\n" +
		"qvs-q1-r00,qvs,1,,0,3,3,10,2,0.01,0.0021,0.0027\n" +
		"greedy-r00,greedy,,,0,3,3,10,2,0.01,0.0013,0.0018\n"
	os.WriteFile(filepath.Join(dir, "summary.csv"), []byte(summary), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("task: lib\nkind: replay\n"), 0o644)
	c, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb := TableOf(c)
	want := map[string][2]string{ // key: greedy's text, qvs's text
		"seconds_per_round":     {"0.00130 (n/a)", "0.00210 (n/a)"},
		"cpu_seconds_per_round": {"0.00180 (n/a)", "0.00270 (n/a)"},
	}
	for j, col := range tb.Columns {
		w, ok := want[col.Key]
		if !ok {
			continue
		}
		g, q := tb.Rows[0].Cells[j], tb.Rows[1].Cells[j]
		if g.Text() != w[0] || q.Text() != w[1] || !g.Bold || q.Bold {
			t.Errorf("%s: greedy %q (bold %v), qvs %q (bold %v); want %q in bold, %q", col.Key, g.Text(), g.Bold, q.Text(), q.Bold, w[0], w[1])
		}
	}
}
