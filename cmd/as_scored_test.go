package cmd

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// bitPoolCSV is a pool of 40 items with ids m00..m39 and 16 bit columns
// (--metric tanimoto: read as fingerprints, the GP's Tanimoto kernel), and the score
// of every item: the number of bits set among the first four, plus a
// little noise.
func bitPoolCSV() (string, []float64) {
	rng := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("id")
	for j := 0; j < 16; j++ {
		fmt.Fprintf(&b, ",b%d", j)
	}
	b.WriteString("\n")
	score := make([]float64, 40)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "m%02d", i)
		for j := 0; j < 16; j++ {
			bit := rng.IntN(3) == 0
			fmt.Fprintf(&b, ",%d", b2i(bit))
			if bit && j < 4 {
				score[i]++
			}
		}
		score[i] += 0.1 * rng.Float64()
		b.WriteString("\n")
	}
	return b.String(), score
}

// scoresCSV writes the scores of items as an id,value file (negated if neg).
func scoresCSV(items []int, score []float64, neg bool) string {
	var b strings.Builder
	b.WriteString("id,value\n")
	for _, i := range items {
		v := score[i]
		if neg {
			v = -v
		}
		fmt.Fprintf(&b, "m%02d,%s\n", i, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String()
}

func scoredRows(t *testing.T, out, head string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 || strings.Join(recs[0], ",") != head {
		t.Fatalf("output %q (%v), want header %s", out, err, head)
	}
	return recs[1:]
}

func TestASSuggestScored(t *testing.T) {
	dir := t.TempDir()
	body, score := bitPoolCSV()
	pool := asWriteFile(t, dir, "pool.csv", body)
	items := []int{0, 3, 5, 8, 12, 17, 20, 22, 25, 31}
	obs := asWriteFile(t, dir, "obs.csv", scoresCSV(items, score, false))
	neg := asWriteFile(t, dir, "neg.csv", scoresCSV(items, score, true))
	pending := asWriteFile(t, dir, "pending.csv", "id\nm01\n")
	suggest := func(args ...string) (int, string, string) {
		t.Helper()
		return runQVS(t, append([]string{"as", "suggest", "--pool", pool, "--id-column", "id", "--metric", "tanimoto", "--batch", "4", "--format", "csv"}, args...)...)
	}
	code, out, stderr := suggest("--observed", obs, "--pending", pending)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := scoredRows(t, out, "rank,index,id,ucb,mean,sd,quality,qvs")
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	var picks []string
	for _, r := range rows {
		idx, _ := strconv.Atoi(r[1])
		if slices.Contains(items, idx) || idx == 1 {
			t.Errorf("scored or pending item %d suggested", idx)
		}
		if r[2] != fmt.Sprintf("m%02d", idx) {
			t.Errorf("row %v: id does not match the index", r)
		}
		picks = append(picks, r[1])
	}
	if !strings.Contains(stderr, "GP: tanimoto kernel, exact posterior on 10 of 10 scores (0 failed, left out)") {
		t.Errorf("stderr %q does not describe the GP", stderr)
	}
	// --minimize on the negated scores: the same batch, means negated.
	code, out2, stderr := suggest("--observed", neg, "--pending", pending, "--minimize")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows2 := scoredRows(t, out2, "rank,index,id,ucb,mean,sd,quality,qvs")
	for k, r := range rows2 {
		m1, _ := strconv.ParseFloat(rows[k][4], 64)
		m2, _ := strconv.ParseFloat(r[4], 64)
		if r[1] != picks[k] || m1 != -m2 || r[5] != rows[k][5] {
			t.Errorf("--minimize row %v, maximising row %v", r, rows[k])
		}
	}
	// Failed rows: empty, nan, failed, a status column; never suggested.
	failed := asWriteFile(t, dir, "failed.csv", "id,value,status\nm00,1,ok\nm02,,\nm04,NaN,\nm06,FAILED,\nm07,3,failed\nm09,2,\n")
	code, out, stderr = suggest("--observed", failed, "--batch", "30", "--method", "greedy")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "on 2 of 2 scores (4 failed, left out)") {
		t.Errorf("stderr %q does not count the failed rows", stderr)
	}
	for _, r := range scoredRows(t, out, "rank,index,id,ucb,mean,sd") {
		if slices.Contains([]string{"m00", "m02", "m04", "m06", "m07", "m09"}, r[2]) {
			t.Errorf("scored or failed item %s suggested", r[2])
		}
	}
	// JSON says what was fitted.
	code, out, _ = suggest("--observed", obs, "--format", "json", "--method", "top", "--acquisition", "phit", "--hit-threshold", "2")
	if code != 0 || !strings.Contains(out, `"acquisition":"phit"`) || !strings.Contains(out, `"hit_threshold":2,`) || !strings.Contains(out, `"kernel":"tanimoto"`) || !strings.Contains(out, `"columns":["rank","index","id","phit","mean","sd"]`) {
		t.Errorf("json (exit %d): %s", code, out)
	}
}

// Bad scored input: exit 1 (file contents) or 2 (command line), stdout
// empty, the message naming the file, line and column.
func TestASSuggestScoredBadInput(t *testing.T) {
	dir := t.TempDir()
	body, _ := bitPoolCSV()
	pool := asWriteFile(t, dir, "pool.csv", body)
	ok := asWriteFile(t, dir, "ok.csv", "index,value\n0,1\n1,2\n")
	for _, c := range []struct {
		name, file string
		args       []string
		code       int
		want       string
	}{
		{"non-numeric", "index,value\n0,1\n1,abc\n", nil, 1, "line 3 column 2 (value): \"abc\": expected a finite number"},
		{"infinite", "index,score\n0,inf\n", nil, 1, "line 2 column 2 (score)"},
		{"value and label", "id,label,value\nm00,1,2\n", nil, 1, "line 1: columns 3 (value) and 2 (label)"},
		{"unknown id", "id,value\nm00,1\nzz,2\n", nil, 1, "line 3: id \"zz\" is not in pool pool"},
		{"twice", "index,value\n4,1\n5,2\n4,3\n", nil, 1, "line 4: item 4 (4) is listed twice"},
		{"no item column", "name,value\nm00,1\n", nil, 1, "expected columns index,value or id,value"},
		{"label method", "index,value\n0,1\n", []string{"--method", "ens"}, 2, "--method \"ens\": with scores"},
		{"label flag", "index,value\n0,1\n", []string{"--prior", "0.1"}, 2, "--prior applies only with 0/1 labels"},
		{"both hit flags", "index,value\n0,1\n", []string{"--hit-threshold", "1", "--hit-top-fraction", "0.1"}, 2, "not both"},
		{"graph pool", "index,value\n0,1\n", []string{"--kernel", ok}, 2, "scores are fitted by a GP on the pool's features"},
	} {
		f := asWriteFile(t, dir, "obs.csv", c.file)
		args := append([]string{"as", "suggest", "--observed", f, "--batch", "2"}, c.args...)
		if !slices.Contains(c.args, "--kernel") {
			args = append(args, "--pool", pool, "--id-column", "id", "--metric", "tanimoto")
		}
		code, out, stderr := runQVS(t, args...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, code, out, stderr, c.code, c.want)
		}
		if c.code == 1 && !strings.Contains(stderr, f) {
			t.Errorf("%s: stderr %q does not name the file", c.name, stderr)
		}
	}
	// A scored-only flag with labels is a usage error.
	lab := asWriteFile(t, dir, "lab.csv", "index,label\n0,1\n")
	if code, out, stderr := runQVS(t, "as", "suggest", "--observed", lab, "--batch", "2", "--pool", pool, "--id-column", "id", "--metric", "tanimoto", "--minimize"); code != 2 || out != "" || !strings.Contains(stderr, "--minimize applies only with scores") {
		t.Errorf("--minimize with labels: exit %d, %q, %q", code, out, stderr)
	}
	// The pending file's header is checked before the pool is read.
	bad := asWriteFile(t, dir, "pending.csv", "name\nm01\n")
	code, out, stderr := runQVS(t, "as", "suggest", "--observed", ok, "--pending", bad, "--batch", "2", "--pool", pool, "--id-column", "id", "--metric", "tanimoto")
	if code != 1 || out != "" || !strings.Contains(stderr, bad) || strings.Contains(stderr, "loading pool") {
		t.Errorf("bad pending header: exit %d, %q, %q", code, out, stderr)
	}
	// A pending item that is also scored.
	both := asWriteFile(t, dir, "both.csv", "index\n1\n")
	if code, out, stderr := runQVS(t, "as", "suggest", "--observed", ok, "--pending", both, "--batch", "2", "--pool", pool, "--id-column", "id", "--metric", "tanimoto"); code != 1 || out != "" || !strings.Contains(stderr, "line 2: item 1 (1) is also scored in "+ok) {
		t.Errorf("pending and scored: exit %d, %q, %q", code, out, stderr)
	}
}

// The pool's --k (its kNN graph's neighbours) does not apply to scores,
// whose GP reads the features only: a 6-row pool with the default k of 20
// takes scores, while 0/1 labels (the kNN model) still refuse it.
func TestASSuggestScoredIgnoresGraphK(t *testing.T) {
	dir := t.TempDir()
	pool := asWriteFile(t, dir, "pool.csv", "id,x,y\na,0,0\nb,1,0\nc,0,1\nd,1,1\ne,2,2\nf,3,1\n")
	scores := asWriteFile(t, dir, "scores.csv", "id,value\na,1.0\nb,2.0\nc,0.5\n")
	code, out, stderr := runQVS(t, "as", "suggest", "--pool", pool, "--id-column", "id", "--observed", scores, "--batch", "2", "--format", "csv")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 {
		t.Errorf("scores on a 6-row pool: exit %d, %q, %q", code, out, stderr)
	}
	labels := asWriteFile(t, dir, "labels.csv", "id,label\na,1\nb,0\n")
	if code, out, stderr := runQVS(t, "as", "suggest", "--pool", pool, "--id-column", "id", "--observed", labels, "--batch", "2"); code == 0 || out != "" || !strings.Contains(stderr, "k") || !strings.Contains(stderr, "6 rows") {
		t.Errorf("labels on a 6-row pool with k 20: exit %d, %q, %q", code, out, stderr)
	}
}
