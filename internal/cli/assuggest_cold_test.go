package cli

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// coldNPY writes a pool of 24 random points in the plane as X.npy in dir
// and returns the diversity kernel of its default kNN graph (k = 20,
// Gaussian weights), (W + Wᵀ)/2 with unit diagonal, built by brute force.
func coldNPY(t *testing.T, dir string) *mat.SymDense {
	t.Helper()
	const n, d, k = 24, 2, 20 // k: the --k default
	rng := rand.New(rand.NewPCG(21, 1))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	writeNPY32(t, dir, "X.npy", n, d, x)
	nbr, w := bruteKNNGaussian(x, n, d, k)
	K := mat.NewSymDense(n, nil)
	for i := range n {
		K.SetSym(i, i, 1)
		for e, j := range nbr[i] {
			K.SetSym(i, j, K.At(i, j)+w[i][e]/2)
		}
	}
	return K
}

// checkGreedyVS checks that picks (after prefix) are a greedy maximisation
// of VS_1 on K by brute force: each pick's VS_1 with the items before it
// is the largest over the items left (relative tol: the float32 features
// give the same graph weights to 1e-12). It returns how many picks were
// the only maximiser (by a margin of 1e-6), which tells a test of the
// greedy from a test of ties.
func checkGreedyVS(t *testing.T, K *mat.SymDense, prefix, picks []int) (unique int) {
	t.Helper()
	const tol, margin = 1e-9, 1e-6
	set := slices.Clone(prefix)
	for r, x := range picks {
		vals := testutil.BruteVSAdded(K, set, 1)
		if x < 0 || x >= len(vals) || math.IsNaN(vals[x]) {
			t.Fatalf("pick %d: item %d is not a candidate after %v", r, x, set)
		}
		best, second := math.Inf(-1), math.Inf(-1)
		for _, v := range vals {
			if v > best {
				best, second = v, best
			} else if v > second {
				second = v
			}
		}
		if vals[x] < best*(1-tol) {
			t.Errorf("pick %d: item %d adds VS_1 %.12g, the best after %v is %.12g", r, x, vals[x], set, best)
		}
		if second < best*(1-margin) {
			unique++
		}
		set = append(set, x)
	}
	return unique
}

// tableRows parses as suggest's table: rank, index, id, probability, qvs.
func tableRows(t *testing.T, out string) (picks []int, prob, qvs []float64) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || strings.Join(strings.Fields(lines[0]), ",") != "rank,index,id,probability,qVS_1" {
		t.Fatalf("table %q", out)
	}
	for r, l := range lines[1:] {
		f := strings.Fields(l)
		i, err := strconv.Atoi(f[1])
		p, err2 := strconv.ParseFloat(f[3], 64)
		v, err3 := strconv.ParseFloat(f[4], 64)
		if len(f) != 5 || f[0] != strconv.Itoa(r+1) || f[2] != f[1] || err != nil || err2 != nil || err3 != nil {
			t.Fatalf("row %q: want rank %d, index = id (the row index), numbers", l, r+1)
		}
		picks, prob, qvs = append(picks, i), append(prob, p), append(qvs, v)
	}
	return picks, prob, qvs
}

// TestASSuggestColdStart runs the issue's call as written, `qvs as suggest
// --pool X.npy` (no labels, every default), on a .npy written here: the
// batch is the brute-force greedy maximisation of VS_1 over the
// symmetrised kNN kernel (the first pick ties over the whole pool: the
// seed's order breaks it), every probability is the prior 1/2 and the qvs
// column a1 x VS_1. The header alone in --observed is the same call;
// --prior scales the columns, not the batch; other methods return the same
// batch; pending items come first; JSON says cold_start; errors leave
// stdout empty.
func TestASSuggestColdStart(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	K := coldNPY(t, dir)

	code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"prior a1 = 0.5: no labels to estimate it from", "cold start (no labels)", "the most diverse under the kNN kernel (greedy on VS_1)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	picks, prob, qvs := tableRows(t, out)
	if len(picks) != 5 { // the --batch default
		t.Fatalf("%d picks, want 5", len(picks))
	}
	if u := checkGreedyVS(t, K, nil, picks); u < 4 {
		t.Errorf("only %d of the 4 picks after the first had one maximiser: the test checks ties, not the greedy", u)
	}
	for r := range picks {
		sub := mat.NewSymDense(r+1, nil)
		for a, i := range picks[:r+1] {
			for b, j := range picks[:r+1] {
				sub.SetSym(a, b, K.At(i, j))
			}
		}
		if vs := 0.5 * testutil.BruteVS(sub, 1); prob[r] != 0.5 || math.Abs(qvs[r]-vs) > 5e-5 { // %.4f
			t.Errorf("rank %d: probability %g, qvs %g; want 0.5 and a1 x VS_1 = %g", r+1, prob[r], qvs[r], vs)
		}
	}

	header := testutil.WriteFile(t, dir, "labels.csv", "id,label\n")
	if code, again, _ := exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Observed = header
	})); code != 0 || again != out {
		t.Errorf("--observed with its header alone: exit %d, %q; want %q", code, again, out)
	}
	code, given, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, p *search.Protocol) {
		o.Labels.Prior, o.Labels.PriorGiven = "0.1", true
		o.LabelFlags = []string{"prior"}
		p.Prior = "0.1"
	}))
	if p, pr, _ := tableRows(t, given); code != 0 || !slices.Equal(p, picks) || pr[0] != 0.1 || !strings.Contains(stderr, "prior a1 = 0.1 (given)") {
		t.Errorf("--prior 0.1: exit %d, %v %v; want %v at 0.1 (%s)", code, p, pr, picks, stderr)
	}

	// q = 0: VS_0 counts items, every batch ties, stderr says so.
	if code, _, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Q, o.QGiven = 0, true
		o.Method = "eci"
	})); code != 0 || !strings.Contains(stderr, "VS_0 counts items, so every batch ties") {
		t.Errorf("--q 0: exit %d, stderr %q", code, stderr)
	}

	// The seed breaks the first pick's tie; a seed gives one batch.
	firsts := map[int]bool{}
	for seed := range 6 {
		// --pool X.npy --seed SEED --quiet --format json [--method M]
		suggest := func(method string) (int, string, string) {
			return exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, p *search.Protocol) {
				o.Format.Value, p.Seed = FormatJSON, uint64(seed)
				if method != "" {
					o.Method = method
				}
			}), beQuiet, func(e *Env) { e.Seed, e.SeedSet = uint64(seed), true })
		}
		code, a, _ := suggest("")
		_, b, _ := suggest("one-step")
		var doc struct {
			Rows []struct {
				Index int
				ID    string
			}
			Method            string
			PickedBy          string `json:"picked_by"`
			ColdStart         bool   `json:"cold_start"`
			Labelled, Pending int
			PriorA1           float64 `json:"prior_a1"`
		}
		if err := json.Unmarshal([]byte(a), &doc); code != 0 || err != nil || !doc.ColdStart || doc.PickedBy != "qvs" || doc.Labelled != 0 || doc.PriorA1 != 0.5 || len(doc.Rows) != 5 {
			t.Fatalf("seed %d: exit %d, %v, %+v", seed, code, err, doc)
		}
		var idx []int
		for _, r := range doc.Rows {
			idx = append(idx, r.Index)
		}
		checkGreedyVS(t, K, nil, idx)
		firsts[idx[0]] = true
		var other struct {
			Rows      json.RawMessage
			Method    string
			PickedBy  string `json:"picked_by"`
			ColdStart bool   `json:"cold_start"`
		}
		if err := json.Unmarshal([]byte(b), &other); err != nil || other.Method != "one-step" || other.PickedBy != "qvs" || !other.ColdStart ||
			!strings.Contains(a, string(other.Rows)) {
			t.Errorf("seed %d: one-step %s, want qvs's rows %s", seed, b, a)
		}
		if _, again, _ := suggest(""); again != a {
			t.Errorf("seed %d twice: %s then %s", seed, a, again)
		}
	}
	if len(firsts) < 2 { // 6 seeds over 24 tied items all alike: 24^-5
		t.Errorf("6 seeds broke the first pick's tie towards %v only", firsts)
	}

	// Pending items: never suggested, the greedy continues after them.
	pending := testutil.WriteFile(t, dir, "pending.csv", "id\n3\n9\n")
	code, out, stderr = exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Pending = pending
		o.Batch = 3
	}), beQuiet)
	if code != 0 {
		t.Fatalf("--pending: exit %d: %s", code, stderr)
	}
	picks, _, _ = tableRows(t, out)
	if len(picks) != 3 || slices.Contains(picks, 3) || slices.Contains(picks, 9) {
		t.Errorf("--pending 3, 9: %v", picks)
	}
	if u := checkGreedyVS(t, K, []int{3, 9}, picks); u < 3 {
		t.Errorf("pending: %d unique maximisers of 3", u)
	}

	for _, c := range []struct {
		name string
		set  func(*ASSuggestOptions)
		code int
		want string
	}{
		{"--batch 0", func(o *ASSuggestOptions) { o.Batch = 0 }, 2, "--batch 0: expected 1 to 500"},
		{"--batch 25", func(o *ASSuggestOptions) { o.Batch = 25 }, 1, "--batch 25: pool X has 24 items, 0 labelled and 0 pending: ask for at most 24"},
		{"--pending, --batch 23", func(o *ASSuggestOptions) { o.Pending, o.Batch = pending, 23 }, 1, "--batch 23: pool X has 24 items, 0 labelled and 2 pending: ask for at most 22"},
		{"--observed unknown.csv", func(o *ASSuggestOptions) { o.Observed = testutil.WriteFile(t, dir, "unknown.csv", "id,label\n24,1\n") }, 1, `unknown.csv: line 2, column 1 (id): id "24" is not in pool X`},
		{"--observed empty.csv", func(o *ASSuggestOptions) { o.Observed = testutil.WriteFile(t, dir, "empty.csv", "") }, 1, "empty.csv: empty file; expected a header index,label or id,label"},
		{"--method best", func(o *ASSuggestOptions) { o.Method = "best" }, 2, `--method "best"`},
	} {
		code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool("X.npy"), func(o *ASSuggestOptions, _ *search.Protocol) { c.set(o) }))
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q", c.name, code, out, stderr, c.code, c.want)
		}
	}
}
