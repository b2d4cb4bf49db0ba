package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// scoredOptions are as suggest's options on the pool CSV at pool (ids in
// column id, bit columns compared by Tanimoto) with observed: a batch of 4
// as CSV.
func scoredOptions(pool, observed string) *ASSuggestOptions {
	o := suggestOptions(pool)
	o.Observed, o.Batch = observed, 4
	o.Resolve = func() (datasets.Config, search.Protocol, error) {
		c := datasets.DefaultConfig(datasets.KindCSV)
		c.CSV.File, c.CSV.IDColumn, c.CSV.Metric, c.CSV.Similarity = pool, "id", knn.MetricTanimoto, knn.SimilarityNative
		return c, search.PaperProtocol(), nil
	}
	return o
}

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
			if bit {
				b.WriteString(",1")
			} else {
				b.WriteString(",0")
			}
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
	pool := testutil.WriteFile(t, dir, "pool.csv", body)
	items := []int{0, 3, 5, 8, 12, 17, 20, 22, 25, 31}
	obs := testutil.WriteFile(t, dir, "obs.csv", scoresCSV(items, score, false))
	neg := testutil.WriteFile(t, dir, "neg.csv", scoresCSV(items, score, true))
	pending := testutil.WriteFile(t, dir, "pending.csv", "id\nm01\n")
	suggest := func(observed, pending string, set func(o *ASSuggestOptions)) (error, string, string) {
		t.Helper()
		o := scoredOptions(pool, observed)
		o.Pending = pending
		if set != nil {
			set(o)
		}
		return runCmd(t, RunASSuggest, o)
	}
	err, out, stderr := suggest(obs, pending, nil)
	if err != nil {
		t.Fatal(err)
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
	err, out2, _ := suggest(neg, pending, func(o *ASSuggestOptions) { o.Scores.Minimize = true })
	if err != nil {
		t.Fatal(err)
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
	failed := testutil.WriteFile(t, dir, "failed.csv", "id,value,status\nm00,1,ok\nm02,,\nm04,NaN,\nm06,FAILED,\nm07,3,failed\nm09,2,\n")
	err, out, stderr = suggest(failed, "", func(o *ASSuggestOptions) { o.Batch, o.Method = 30, "greedy" })
	if err != nil {
		t.Fatal(err)
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
	err, out, _ = suggest(obs, "", func(o *ASSuggestOptions) {
		o.Format.Value, o.Method, o.Scores.Acquisition, o.Scores.HitThreshold = FormatJSON, "top", "phit", ptr(2.0)
	})
	if err != nil || !strings.Contains(out, `"acquisition":"phit"`) || !strings.Contains(out, `"hit_threshold":2,`) || !strings.Contains(out, `"kernel":"tanimoto"`) || !strings.Contains(out, `"columns":["rank","index","id","phit","mean","sd"]`) {
		t.Errorf("json (%v): %s", err, out)
	}
}

// --history and --hit-power reach surrogate.Request: the batch is
// surrogate.Suggest's on the same pool, scores and settings, which differs
// from the batch without them.
func TestASSuggestScoredHistory(t *testing.T) {
	pool, obs, items, score := historyFixture(t)
	o := scoredOptions(pool, obs)
	cfg, proto, err := o.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	p, err := datasets.LoadWith(cfg, "", "", knn.GraphOptions{FeaturesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	direct := func(history string, hp float64) []string {
		req := surrogate.Request{Batch: o.Batch, Seed: proto.Seed, History: history, HitPower: hp, Workers: 1}
		if hp == 0 {
			req.HitPower = surrogate.NoHitPower
		}
		for _, i := range items {
			req.Observed, req.Values = append(req.Observed, i), append(req.Values, score[i])
		}
		res, err := surrogate.Suggest(context.Background(), p, req)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, i := range res.Picks {
			out = append(out, strconv.Itoa(i))
		}
		return out
	}
	for _, c := range []struct {
		history string
		hp      float64
	}{{"expected", 2}, {"gain", 0}} {
		want := direct(c.history, c.hp)
		if slices.Equal(want, direct("none", 0)) || slices.Equal(want, direct(c.history, 0.5)) {
			t.Fatalf("%s: the batch does not depend on the history or the hit power here: the test cannot fail", c.history)
		}
		got := scoredBatch(t, pool, obs, func(o *ASSuggestOptions) {
			o.Scores.History, o.Scores.HitPower = c.history, ptr(c.hp)
		})
		if !slices.Equal(got, want) {
			t.Errorf("--history %s --hit-power %v: batch %v, surrogate.Suggest %v", c.history, c.hp, got, want)
		}
	}
}

// --acquisition mean: the acquisition is the posterior mean, so the
// output has one mean column (CSV and JSON used to have two, a JSON row
// object with the key "mean" twice), whose values are the top means, with
// the quality and qvs columns after it as usual.
func TestASSuggestScoredMeanAcquisition(t *testing.T) {
	dir := t.TempDir()
	body, score := bitPoolCSV()
	pool := testutil.WriteFile(t, dir, "pool.csv", body)
	obs := testutil.WriteFile(t, dir, "obs.csv", scoresCSV([]int{0, 3, 5, 8, 12, 17, 20, 22, 25, 31}, score, false))
	o := scoredOptions(pool, obs)
	o.Scores.Acquisition = "mean"
	err, out, _ := runCmd(t, RunASSuggest, o)
	if err != nil {
		t.Fatal(err)
	}
	rows := scoredRows(t, out, "rank,index,id,mean,sd,quality,qvs")
	for _, r := range rows {
		if len(r) != 7 {
			t.Errorf("row %v: %d cells, want 7", r, len(r))
		}
	}
	o.Format.Value = FormatJSON
	err, out, _ = runCmd(t, RunASSuggest, o)
	if err != nil || !strings.Contains(out, `"columns":["rank","index","id","mean","sd","quality","qvs"]`) || strings.Count(out, `"mean":`) != len(rows)+1 {
		t.Errorf("json (%v): %s", err, out)
	}
}

// Bad scored input: exit 1 (file contents) or 2 (command line), stdout
// empty, the message naming the file, line and column.
func TestASSuggestScoredBadInput(t *testing.T) {
	dir := t.TempDir()
	body, _ := bitPoolCSV()
	pool := testutil.WriteFile(t, dir, "pool.csv", body)
	ok := testutil.WriteFile(t, dir, "ok.csv", "index,value\n0,1\n1,2\n")
	for _, c := range []struct {
		name, file string
		set        func(o *ASSuggestOptions)
		code       int
		want       string
	}{
		{"non-numeric", "index,value\n0,1\n1,abc\n", nil, 1, "line 3, column 2 (value): \"abc\": expected a finite number"},
		{"infinite", "index,score\n0,inf\n", nil, 1, "line 2, column 2 (score)"},
		{"value and label", "id,label,value\nm00,1,2\n", nil, 1, "line 1: columns 3 (value) and 2 (label)"},
		{"unknown id", "id,value\nm00,1\nzz,2\n", nil, 1, "line 3, column 1 (id): id \"zz\" is not in pool pool"},
		{"twice", "index,value\n4,1\n5,2\n4,3\n", nil, 1, "line 4, column 1 (index): item 4 (4) is listed twice"},
		{"no item column", "name,value\nm00,1\n", nil, 1, "expected columns index,value or id,value"},
		{"label method", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Method = "ens" }, 2, "--method \"ens\": with scores"},
		{"score method with labels", "index,label\n0,1\n", func(o *ASSuggestOptions) { o.Method = "greedy" }, 2, "--method \"greedy\" applies only with scores (a value column in --observed); with 0/1 labels expected one of"},
		{"label flag", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.LabelFlags = []string{"prior"} }, 2, "--prior applies only with 0/1 labels"},
		{"both hit flags", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitThreshold, o.Scores.HitTopFraction = ptr(1.0), 0.1 }, 2, "not both"},
		{"graph pool", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.OwnGraph = true }, 2, "scores are fitted by a GP on the pool's features"},
		{"unknown history", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.History = "some" }, 2, "--history \"some\": expected one of none, hits, all, expected, gain"},
		{"history q 1", "index,value\n0,1\n", func(o *ASSuggestOptions) {
			o.Scores.History, o.Q, o.QGiven = "expected", 1, true
		}, 2, "--history expected: needs --q 2 and --diversity dense"},
		{"history knn", "index,value\n0,1\n", func(o *ASSuggestOptions) {
			o.Scores.History, o.Scores.Diversity = "gain", "knn"
		}, 2, "--history gain: needs"},
		{"negative hit power", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitPower = ptr(-1.0) }, 2, "--hit-power -1: expected a finite number >= 0"},
		// a history or hit power the batch does not use
		{"history greedy", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.History, o.Method = "expected", "greedy" }, 2, "--history expected applies only to the method qvs"},
		{"history random", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.History, o.Method = "hits", "random" }, 2, "--history hits applies only to the method qvs"},
		{"hit power top", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitPower, o.Method = ptr(2.0), "top" }, 2, "--hit-power 2 applies only with --history expected or gain"},
		{"hit power history none", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitPower, o.Scores.History = ptr(0.0), "hits" }, 2, "--hit-power 0 applies only with"},
		{"hit power q 1", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitPower, o.Q, o.QGiven = ptr(2.0), 1, true }, 2, "--hit-power 2 applies only with"},
		{"ucb-beta with ei", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.UCBBeta, o.Scores.Acquisition = 4, "ei" }, 2, "--ucb-beta 4 applies only with --acquisition ucb or thompson (its candidates), not ei"},
		{"candidates greedy", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.Candidates, o.Method = 40, "greedy" }, 2, "--candidates 40 applies only to the methods qvs and top"},
		{"hit power knn", "index,value\n0,1\n", func(o *ASSuggestOptions) { o.Scores.HitPower, o.Scores.Diversity = ptr(2.0), "knn" }, 2, "--hit-power 2 applies only with"},
	} {
		f := testutil.WriteFile(t, dir, "obs.csv", c.file)
		o := scoredOptions(pool, f)
		o.Batch = 2
		if c.set != nil {
			c.set(o)
		}
		err, out, _ := runCmd(t, RunASSuggest, o)
		if ExitCode(err) != c.code || err == nil || out != "" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit %d, stdout %q, error %v; want exit %d and %q", c.name, ExitCode(err), out, err, c.code, c.want)
		}
		if c.code == 1 && !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
	}
	// A scored-only flag with labels is a usage error.
	lab := scoredOptions(pool, testutil.WriteFile(t, dir, "lab.csv", "index,label\n0,1\n"))
	lab.ScoreFlags = []string{"minimize"}
	if err, out, _ := runCmd(t, RunASSuggest, lab); ExitCode(err) != 2 || out != "" || !strings.Contains(err.Error(), "--minimize applies only with scores") {
		t.Errorf("--minimize with labels: %v, %q", err, out)
	}
	// The pending file's header is checked before the pool is read.
	o := scoredOptions(pool, ok)
	o.Pending = testutil.WriteFile(t, dir, "pending.csv", "name\nm01\n")
	if err, out, stderr := runCmd(t, RunASSuggest, o); ExitCode(err) != 1 || out != "" || !strings.Contains(err.Error(), o.Pending) || strings.Contains(stderr, "loading pool") {
		t.Errorf("bad pending header: %v, %q, %q", err, out, stderr)
	}
	// A pending item that is also scored.
	o.Pending = testutil.WriteFile(t, dir, "both.csv", "index\n1\n")
	if err, out, _ := runCmd(t, RunASSuggest, o); ExitCode(err) != 1 || out != "" || !strings.Contains(err.Error(), "line 2: item 1 (1) is also scored in "+ok) {
		t.Errorf("pending and scored: %v, %q", err, out)
	}
}

// Without --history the scored batch takes surrogate's default, which
// applies to q = 2 on the dense kernel only: --q 1 and --diversity knn run
// (no usage error) with History none. (--hit-power 0: TestASSuggestScoredHistory.)
func TestASSuggestScoredHistoryDefault(t *testing.T) {
	pool, obs, _, _ := historyFixture(t)
	batch := func(set func(*ASSuggestOptions)) []string { return scoredBatch(t, pool, obs, set) }
	given := func(h string, hp float64) func(*ASSuggestOptions) {
		return func(o *ASSuggestOptions) {
			o.Scores.History = h
			if h != "none" { // a hit power is refused where no history uses it
				o.Scores.HitPower = ptr(hp)
			}
		}
	}
	def := batch(func(*ASSuggestOptions) {})
	if want := batch(given(surrogate.DefaultHistory, surrogate.DefaultHitPower)); !slices.Equal(def, want) {
		t.Errorf("default batch %v, --history %s --hit-power %v %v", def, surrogate.DefaultHistory, surrogate.DefaultHitPower, want)
	}
	if none := batch(given("none", surrogate.DefaultHitPower)); slices.Equal(def, none) {
		t.Errorf("default batch %v is --history none's: the test cannot tell them apart", def)
	}
	q1 := func(o *ASSuggestOptions) { o.Q, o.QGiven = 1, true }
	if a, b := batch(q1), batch(func(o *ASSuggestOptions) { q1(o); given("none", surrogate.DefaultHitPower)(o) }); !slices.Equal(a, b) {
		t.Errorf("--q 1: batch %v, with --history none %v", a, b)
	}
	knn := func(o *ASSuggestOptions) { o.Scores.Diversity = "knn" }
	if a, b := batch(knn), batch(func(o *ASSuggestOptions) { knn(o); given("none", surrogate.DefaultHitPower)(o) }); !slices.Equal(a, b) {
		t.Errorf("--diversity knn: batch %v, with --history none %v", a, b)
	}
}

// scoredBatch is the index column of as suggest's scored batch on pool and
// the scores obs, with the options set changes.
func scoredBatch(t *testing.T, pool, obs string, set func(*ASSuggestOptions)) []string {
	t.Helper()
	o := scoredOptions(pool, obs)
	set(o)
	err, out, _ := runCmd(t, RunASSuggest, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range scoredRows(t, out, "rank,index,id,ucb,mean,sd,quality,qvs") {
		got = append(got, r[1])
	}
	return got
}

// The aligned table rounds the quality and qvs columns to 4 significant
// digits, as the posterior's: under the default history a quality is the
// acquisition's times (p/p_max)^a, tiny for the picks whose hit
// probability is below the best one's under a large hit power a (1,000
// here), and 4 decimals printed 0.0000 for them.
func TestASSuggestScoredTableSmallQualities(t *testing.T) {
	dir := t.TempDir()
	body, score := bitPoolCSV()
	pool := testutil.WriteFile(t, dir, "pool.csv", body)
	obs := testutil.WriteFile(t, dir, "obs.csv", scoresCSV([]int{0, 3, 5, 8, 12, 17, 20, 22, 25, 31}, score, false))
	run := func(format string) string {
		o := scoredOptions(pool, obs)
		o.Scores.HitThreshold, o.Scores.HitPower = ptr(1.9), ptr(1000.0)
		o.Format.Value = format
		err, out, _ := runCmd(t, RunASSuggest, o)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	exact := scoredRows(t, run(FormatCSV), "rank,index,id,ucb,mean,sd,quality,qvs")
	lines := strings.Split(strings.TrimSpace(run(FormatTable)), "\n")
	if len(lines) != len(exact)+1 || strings.Join(strings.Fields(lines[0]), ",") != "rank,index,id,ucb,mean,sd,quality,qVS_2" {
		t.Fatalf("table %q, want a header and %d rows", lines, len(exact))
	}
	tiny := 0
	for k, r := range exact {
		cells := strings.Fields(lines[k+1])
		for _, c := range []int{6, 7} {
			want, _ := strconv.ParseFloat(r[c], 64)
			got, err := strconv.ParseFloat(cells[c], 64)
			if want > 0 && want < 1e-4 {
				tiny++
			}
			if err != nil || math.Abs(got-want) > 5e-4*want || len(strings.TrimLeft(strings.Split(cells[c], "e")[0], "0.")) > 5 {
				t.Errorf("row %d column %d: table %q, exact %v: want 4 significant digits", k, c, cells[c], want)
			}
		}
	}
	if tiny == 0 {
		t.Fatalf("no quality or qvs below 1e-4 (%v): the test cannot tell", exact)
	}
}

// Every item scored (or pending): the message says nothing is left, not
// "ask for at most 0"; one left: "ask for at most 1".
func TestASSuggestScoredNothingLeft(t *testing.T) {
	dir := t.TempDir()
	body, score := bitPoolCSV()
	pool := testutil.WriteFile(t, dir, "pool.csv", body)
	all := make([]int, len(score))
	for i := range all {
		all[i] = i
	}
	for _, c := range []struct {
		items []int
		want  string
	}{
		{all, "every item is scored or pending, nothing is left to suggest"},
		{all[1:], "ask for at most 1"},
	} {
		o := scoredOptions(pool, testutil.WriteFile(t, dir, "obs.csv", scoresCSV(c.items, score, false)))
		o.Batch = 2
		err, out, _ := runCmd(t, RunASSuggest, o)
		if err == nil || !strings.Contains(err.Error(), c.want) || out != "" || ExitCode(err) != 1 {
			t.Errorf("%d of %d scored: error %v, stdout %q; want exit 1 and %q", len(c.items), len(score), err, out, c.want)
		}
	}
}

// historyFixture writes bitPoolCSV's pool and the scores of 12 of its
// items (the history tests' fixture).
func historyFixture(t *testing.T) (pool, obs string, items []int, score []float64) {
	t.Helper()
	dir := t.TempDir()
	body, score := bitPoolCSV()
	pool = testutil.WriteFile(t, dir, "pool.csv", body)
	items = []int{0, 3, 5, 8, 12, 17, 20, 22, 25, 31, 33, 36}
	return pool, testutil.WriteFile(t, dir, "obs.csv", scoresCSV(items, score, false)), items, score
}
