package replay

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// syntheticLibrary is a scored library of n 128-bit fingerprints in 8
// series (a series' core bits plus random substituents) whose score is
// minus the number of bits shared with a hidden motif plus noise, so
// fingerprints predict it and the best items gather in a few series.
// Scores take 0.5 steps, so the top-k cut has ties. Lower is better.
func syntheticLibrary(n int, seed uint64) Library {
	rng := rand.New(rand.NewPCG(seed, 3))
	const words = 2
	var cores [8][words]uint64
	for s := range cores {
		for w := range words {
			cores[s][w] = rng.Uint64() & rng.Uint64() & rng.Uint64()
		}
	}
	motif := [words]uint64{rng.Uint64() & rng.Uint64(), rng.Uint64() & rng.Uint64()}
	p := &datasets.Pool{Name: "synthetic-scored", Metric: knn.MetricTanimoto, Labels: make([]bool, n), IDs: make([]string, n)}
	scores := make([]float64, n)
	for i := range n {
		s := rng.IntN(len(cores))
		row := make([]uint64, words)
		shared := 0
		for w := range words {
			row[w] = cores[s][w] | (rng.Uint64() & rng.Uint64() & rng.Uint64() & rng.Uint64())
			shared += bits.OnesCount64(row[w] & motif[w])
		}
		p.Bits = append(p.Bits, row)
		p.IDs[i] = fmt.Sprintf("mol%03d", i)
		scores[i] = math.Round(2*(-float64(shared)+rng.NormFloat64())) / 2
	}
	return Library{Pool: p, Scores: scores}
}

func testProtocol() Protocol {
	p := DefaultProtocol()
	p.Repeats = 2
	p.Init, p.Batch, p.Budget, p.Top = mustAmount("12"), mustAmount("10"), mustAmount("25"), mustAmount("0.05")
	p.Minimize = true
	p.Seed = 7
	return p
}

// runReplay executes p on lib into dir and returns the campaign.
func runReplay(t *testing.T, p Protocol, lib Library, dir string) *Campaign {
	t.Helper()
	c, err := Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := c.RunFunc(lib, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := campaign.Spec{Dir: dir, Header: RecordHeader, Runs: c.Runs, Steps: 1, Workers: 1, Quiet: true, Config: p, Growable: GrowableKeys, Version: "test"}
	rep, err := campaign.Execute(context.Background(), spec, fn)
	if err != nil || len(rep.Failed) > 0 {
		t.Fatalf("%v %v", err, rep.Failed)
	}
	return c
}

func readRows(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// bruteHit: item i is a hit when fewer than k items score strictly better
// (the top k, ties with the k-th included).
func bruteHit(scores []float64, i, k int, minimize bool) bool {
	better := 0
	for _, v := range scores {
		if (minimize && v < scores[i]) || (!minimize && v > scores[i]) {
			better++
		}
	}
	return better < k
}

func TestHitSetTies(t *testing.T) {
	scores := []float64{-9.9, -9.5, -9.5, -8, -9.5, -7}
	hit, n := HitSet(scores, 2, true)
	if want := []bool{true, true, true, false, true, false}; !slices.Equal(hit, want) || n != 4 {
		t.Errorf("minimize top 2: %v %d, want %v 4", hit, n, want)
	}
	hit, n = HitSet(scores, 1, false)
	if want := []bool{false, false, false, false, false, true}; !slices.Equal(hit, want) || n != 1 {
		t.Errorf("maximize top 1: %v %d", hit, n)
	}
	lib := syntheticLibrary(200, 1)
	for _, k := range []int{1, 7, 10, 33} {
		for _, minimize := range []bool{false, true} {
			hit, count := HitSet(lib.Scores, k, minimize)
			c := 0
			for i := range hit {
				if hit[i] != bruteHit(lib.Scores, i, k, minimize) {
					t.Fatalf("k %d minimize %v: item %d", k, minimize, i)
				}
				if hit[i] {
					c++
				}
			}
			if c != count || count < k {
				t.Errorf("k %d: count %d, brute %d", k, count, c)
			}
		}
	}
}

func TestAmount(t *testing.T) {
	for s, want := range map[string]int{"0.01": 10, "0.0004": 1, "104": 104, "1": 1, "2e1": 20, "0.5": 500} {
		a, err := parseAmount(s)
		if err != nil || a.Of(1000) != want {
			t.Errorf("%s: %d, %v, want %d", s, a.Of(1000), err, want)
		}
	}
	for _, s := range []string{"0", "-1", "1.5", "nan", "inf", "x", "", "1e12"} {
		if _, err := parseAmount(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// The replay records the initial batch and every round, the same initial
// batch for every method of a repeat; its hits per round are those a brute
// force counts in the records; VS_1 is that of the hits found, computed
// from their Tanimoto matrix; the GP methods find more hits than random.
func TestReplayCampaign(t *testing.T) {
	lib := syntheticLibrary(300, 2)
	p := testProtocol()
	dir := t.TempDir()
	c := runReplay(t, p, lib, dir)
	sz, _ := p.Sizes(300)
	if sz.Init != 12 || sz.Rounds != 3 || sz.BatchSize(3) != 5 || sz.Top != 15 {
		t.Fatalf("sizes %+v", sz)
	}
	sum := readRows(t, filepath.Join(dir, "summary.csv"))
	col := map[string]int{}
	for j, h := range sum[0] {
		col[h] = j
	}
	total := 0
	for i := range lib.Scores {
		if bruteHit(lib.Scores, i, sz.Top, true) {
			total++
		}
	}
	inits := map[int][]string{}
	meanHits := map[string]float64{}
	for _, run := range c.Runs {
		recs := readRows(t, filepath.Join(dir, "runs", run.Key+".csv"))[1:]
		if len(recs) != 12+25 {
			t.Fatalf("%s: %d records", run.Key, len(recs))
		}
		var init []string
		seen := map[string]bool{}
		hits := make([]int, sz.Rounds+1)
		var found []int
		for _, r := range recs {
			round, _ := strconv.Atoi(r[0])
			i, _ := strconv.Atoi(r[1])
			if round == 0 {
				init = append(init, r[1])
			}
			if seen[r[1]] || r[2] != lib.Pool.IDs[i] {
				t.Fatalf("%s: record %v repeated or misnamed", run.Key, r)
			}
			seen[r[1]] = true
			if bruteHit(lib.Scores, i, sz.Top, true) {
				found = append(found, i)
				for k := round; k <= sz.Rounds; k++ {
					hits[k]++
				}
				if r[4] != "1" {
					t.Errorf("%s: hit %d recorded as %s", run.Key, i, r[4])
				}
			}
		}
		if prev, ok := inits[run.Repeat]; ok && !slices.Equal(prev, init) {
			t.Errorf("%s: initial batch differs from the repeat's other methods", run.Key)
		}
		inits[run.Repeat] = init
		var row []string
		for _, r := range sum[1:] {
			if r[col["key"]] == run.Key {
				row = r
			}
		}
		for k, h := range hits {
			if row[col[fmt.Sprintf("hits_r%d", k)]] != strconv.Itoa(h) {
				t.Errorf("%s: hits_r%d %s, brute force %d", run.Key, k, row[col[fmt.Sprintf("hits_r%d", k)]], h)
			}
		}
		if row[col["hits_total"]] != strconv.Itoa(total) {
			t.Errorf("hits_total %s, want %d", row[col["hits_total"]], total)
		}
		// VS_1 from the eigenvalues of the hits' Tanimoto matrix / n.
		tanimoto := func(a, b int) float64 {
			inter, union := 0, 0
			for w := range lib.Pool.Bits[a] {
				inter += bits.OnesCount64(lib.Pool.Bits[a][w] & lib.Pool.Bits[b][w])
				union += bits.OnesCount64(lib.Pool.Bits[a][w] | lib.Pool.Bits[b][w])
			}
			return float64(inter) / float64(union)
		}
		want := 0.0
		if len(found) > 0 {
			eig, err := vendi.Eigenvalues(vendi.SampleKernel(found, tanimoto))
			if err != nil {
				t.Fatal(err)
			}
			h := 0.0
			for _, l := range eig {
				if l /= float64(len(found)); l > 1e-15 {
					h -= l * math.Log(l)
				}
			}
			want = math.Exp(h)
		}
		if got, _ := strconv.ParseFloat(row[col["vs_q1"]], 64); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: vs_q1 %v, want %v", run.Key, got, want)
		}
		meanHits[run.Method] += float64(hits[sz.Rounds]) / float64(p.Repeats)
		t.Logf("%s: hits by round %v", run.Key, hits)
	}
	if !(meanHits["qvs"] > meanHits["random"] && meanHits["greedy"] > meanHits["random"]) {
		t.Errorf("mean hits %v: the GP methods should beat random on a learnable library", meanHits)
	}
}

// A run interrupted after some rounds (its records cut to them, no
// summary) resumes to the records, curve and summary of an uninterrupted
// run, timings aside; records of another campaign are refused.
func TestReplayResume(t *testing.T) {
	lib := syntheticLibrary(300, 2)
	p := testProtocol()
	full, cut := t.TempDir(), t.TempDir()
	runReplay(t, p, lib, full)
	runReplay(t, p, lib, cut)
	key := campaign.RunKey(surrogate.MethodQVS, p.Q.Orders()[0].String(), 1)
	recPath := filepath.Join(cut, "runs", key+".csv")
	b, _ := os.ReadFile(recPath)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(recPath, []byte(strings.Join(lines[:1+12+10+3], "")), 0o644) // round 2 half written
	for _, f := range []string{key + ".summary.csv", key + ".curve.csv"} {
		os.Remove(filepath.Join(cut, "runs", f))
	}
	os.Remove(filepath.Join(cut, "summary.csv"))
	runReplay(t, p, lib, cut)
	untimed := func(rows [][]string, drop ...string) [][]string {
		var idx []int
		for j, h := range rows[0] {
			if slices.Contains(drop, h) {
				idx = append(idx, j)
			}
		}
		for _, r := range rows {
			for _, j := range idx {
				r[j] = ""
			}
		}
		return rows
	}
	for _, f := range []string{"runs/" + key + ".csv", "runs/" + key + ".curve.csv", "summary.csv"} {
		a := untimed(readRows(t, filepath.Join(full, f)), "seconds", "cpu_seconds", "seconds_per_round", "cpu_seconds_per_round")
		b := untimed(readRows(t, filepath.Join(cut, f)), "seconds", "cpu_seconds", "seconds_per_round", "cpu_seconds_per_round")
		if !slices.EqualFunc(a, b, slices.Equal[[]string]) {
			t.Errorf("%s differs after the resume:\n%v\n%v", f, a, b)
		}
	}
	// Records of another seed's initial batch are refused.
	other := p
	other.Seed = 8
	fresh := t.TempDir()
	os.MkdirAll(filepath.Join(fresh, "runs"), 0o755)
	os.WriteFile(filepath.Join(fresh, "runs", key+".csv"), []byte(strings.Join(lines[:1+12], "")), 0o644)
	c, _ := Plan(other)
	fn, _ := c.RunFunc(lib, fresh, 1)
	spec := campaign.Spec{Dir: fresh, Header: RecordHeader, Runs: c.Runs, Steps: 1, Workers: 1, Quiet: true, Config: other, Version: "test"}
	rep, _ := campaign.Execute(context.Background(), spec, fn)
	if len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0], "initial batch differs") {
		t.Errorf("another seed's records: %v", rep.Failed)
	}
}

func TestPlanErrors(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*Protocol)
		want string
	}{
		"repeats":   {func(p *Protocol) { p.Repeats = 0 }, "repeats"},
		"no init":   {func(p *Protocol) { p.Init = Amount{} }, "init"},
		"method":    {func(p *Protocol) { p.Methods = []string{"qvs", "ucb"} }, `"ucb"`},
		"twice":     {func(p *Protocol) { p.Methods = []string{"random", "random"} }, "listed twice"},
		"no orders": {func(p *Protocol) { p.Q = vendi.OrderList{} }, "needs orders"},
	} {
		p := testProtocol()
		c.edit(&p)
		if _, err := Plan(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := testProtocol()
	p.Batch, p.Budget = mustAmount("0.01"), mustAmount("0.05")
	if sz, err := p.Sizes(1919); err != nil || sz.Batch != 19 || sz.Budget != 95 || sz.Rounds != 5 {
		t.Errorf("0.05 in batches of 0.01 of 1919: %+v, %v", sz, err)
	}
	p.Budget = mustAmount("0.049")
	if sz, _ := p.Sizes(1919); sz.Budget != 94 || sz.Rounds != 5 || sz.BatchSize(5) != 18 || sz.RoundsText() != "5 rounds of 19 (the last 18)" {
		t.Errorf("0.049 in batches of 0.01 of 1919: %+v, %q", sz, sz.RoundsText())
	}
	p.Budget = mustAmount("0.05")
	if sz, _ := p.Sizes(1919); sz.RoundsText() != "5 rounds of 19" {
		t.Errorf("0.05 in batches of 0.01 of 1919: %q", sz.RoundsText())
	}
	p.Budget = mustAmount("290")
	if _, err := p.Sizes(300); err == nil || !strings.Contains(err.Error(), "need 302 items") {
		t.Errorf("budget beyond the library: %v", err)
	}
	// An initial batch beyond the library is init's fault, not the budget's
	// (--init 500 on 418 items was reported as budget = "0.05").
	p.Init, p.Budget = mustAmount("500"), mustAmount("0.05")
	var se *configkeys.SettingError
	if _, err := p.Sizes(418); !errors.As(err, &se) || se.Key != "init" || !strings.Contains(err.Error(), "an initial batch of 500 items asked of a library of 418") {
		t.Errorf("init beyond the library: %v", err)
	}
}
