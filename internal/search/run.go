package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/rng"
)

// query is one labelled item of a run.
type query struct {
	Iteration int  // query number, 1..budget; 0 for the start
	Batch     int  // batch number, 1..; 0 for the start
	Index     int  // item index in the pool
	Positive  bool // the oracle's label
	// Probability is Pr(y = 1 | D) under the kNN model when the batch was
	// chosen (before any fantasy); NaN for the start.
	Probability float64
	// Seconds is the wall time the policy took to choose the batch (the
	// same for every query of a batch; 0 for the start).
	Seconds float64
}

// runConfig describes one search run.
type runConfig struct {
	// Space is the pool as this run sees it (its model is cloned, never
	// modified). Items are relabelled inside the space; Start and every
	// query use the pool's original indices.
	Space *Space
	// Policy chooses batches in view indices (a QVS policy must use
	// Space.Kernel).
	Policy Policy
	Start  int // the initial labelled item (a positive in the paper's setting)
	Budget int // queries after the start
	Batch  int // batch size b; the last batch is smaller if b does not divide the budget
	// Randomness of batch t (1-based) comes from rng.New(Seed, Key, t)
	// alone, so a resumed run draws exactly as an uninterrupted one.
	Seed    uint64
	Key     string
	Workers int
	// PriorA1, if set, re-estimates the kNN model's prior a1 (a0 = 1 - a1)
	// from the labels so far before every batch, as a user's suggest loop
	// does (prior: estimate sets FitPrior). Nil keeps the Space's.
	PriorA1 func(m *Model) float64
	// WorkersNow, if set, is asked before each batch and overrides Workers:
	// a campaign gives the cores of finished runs to the runs still going
	// (the tail of every campaign). Policies' results do not depend on it.
	WorkersNow func() int
}

// startPositive draws repeat r's starting item: a uniformly random positive,
// from (seed, r) alone so that every method of a repeat shares it.
func startPositive(labels []bool, seed uint64, repeat int) (int, error) {
	var pos []int
	for i, y := range labels {
		if y {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 {
		return -1, fmt.Errorf("the pool has no positive item to start from")
	}
	return pos[rng.New(seed, "start", repeat).IntN(len(pos))], nil
}

// Run executes a search run. prior holds the queries of an interrupted
// attempt (nil on a fresh start), which are replayed without calling the
// policy; emit receives each batch of new queries (the start is emitted as
// its own batch 0) and records them (campaign.Recorder.Append). Run returns every query,
// replayed and new. It stops early with ctx's error when ctx is cancelled
// between batches, and when the pool runs out of unlabelled items.
func Run(ctx context.Context, cfg runConfig, prior []query, emit func([]query) error) ([]query, error) {
	if cfg.Space == nil || cfg.Policy == nil {
		return nil, fmt.Errorf("search: run needs a search space and a policy")
	}
	sp := cfg.Space
	n := sp.Len()
	if sp.Prior.NumObserved() != 0 {
		return nil, fmt.Errorf("search: the prior model already has observations")
	}
	if cfg.Start < 0 || cfg.Start >= n {
		return nil, fmt.Errorf("search: start item %d out of range [0, %d)", cfg.Start, n)
	}
	if cfg.Budget < 0 || cfg.Batch < 1 {
		return nil, fmt.Errorf("search: budget %d must be >= 0 and batch %d >= 1", cfg.Budget, cfg.Batch)
	}
	m := sp.Prior.Clone()
	var all []query
	if len(prior) == 0 {
		v := sp.View(cfg.Start)
		q := query{Index: cfg.Start, Positive: sp.Labels[v], Probability: math.NaN()}
		m.Observe(v, q.Positive)
		all = append(all, q)
		if err := emit([]query{q}); err != nil {
			return all, err
		}
	} else {
		keep, err := completeBatches("the records", prior, cfg.Batch, cfg.Budget, n)
		if err != nil {
			return nil, err
		}
		if keep < len(prior) {
			return nil, fmt.Errorf("the records end inside batch %d (%d of its queries): resume from the complete batches (CompleteBatches)", prior[keep].Batch, len(prior)-keep)
		}
		if err := replay(m, cfg, prior); err != nil {
			return nil, err
		}
		all = append(all, prior...)
	}
	done := len(all) - 1
	batchNo := all[len(all)-1].Batch
	carry := &Carry{}
	for done < cfg.Budget {
		if err := ctx.Err(); err != nil {
			return all, err
		}
		b := min(cfg.Batch, cfg.Budget-done, n-m.NumObserved())
		if b == 0 {
			break // every item is labelled
		}
		batchNo++
		if cfg.PriorA1 != nil {
			a1 := cfg.PriorA1(m)
			m.Alpha0, m.Alpha1 = 1-a1, a1
		}
		st := &State{
			Model: m, Remaining: cfg.Budget - done,
			RNG: rng.New(cfg.Seed, cfg.Key, batchNo), Workers: max(cfg.Workers, 1), Carry: carry,
		}
		if cfg.WorkersNow != nil {
			st.Workers = max(cfg.WorkersNow(), 1)
		}
		t0 := time.Now()
		picks, err := cfg.Policy.Batch(st, b)
		if err != nil {
			return all, fmt.Errorf("batch %d: %w", batchNo, err)
		}
		secs := time.Since(t0).Seconds()
		if err := checkPicks(m, picks, b); err != nil {
			return all, fmt.Errorf("batch %d: policy %s: %w", batchNo, cfg.Policy.Name(), err)
		}
		batch := make([]query, len(picks))
		for t, x := range picks {
			batch[t] = query{Iteration: done + t + 1, Batch: batchNo, Index: sp.Orig(x), Probability: m.Probability(x), Seconds: secs}
		}
		for t, x := range picks {
			batch[t].Positive = sp.Labels[x]
			m.Observe(x, sp.Labels[x])
		}
		all = append(all, batch...)
		done += len(batch)
		if err := emit(batch); err != nil {
			return all, err
		}
	}
	return all, nil
}

func checkPicks(m *Model, picks []int, b int) error {
	if len(picks) != b {
		return fmt.Errorf("returned %d items for a batch of %d", len(picks), b)
	}
	seen := map[int]bool{}
	for _, x := range picks {
		if x < 0 || x >= m.Len() || m.Observed(x) || seen[x] {
			return fmt.Errorf("returned item %d, which is out of range, labelled or repeated", x)
		}
		seen[x] = true
	}
	return nil
}

// completeBatches checks the batch structure of an interrupted attempt's
// records (prior, in record order) against the run's batch size, budget
// and pool size n, and returns how many of them form complete batches.
// Batch 0 is the start alone; batch t >= 1 holds min(batch, budget - done,
// n - 1 - done) queries, done being the queries before it, exactly as Run
// makes them. Records that stop inside the last batch (a file cut by hand;
// qvs writes whole batches) are not a prefix Run could have stopped at: the
// caller drops them and Run recomputes that batch from the same seed, so
// the resumed run equals the uninterrupted one. Any other deviation (a
// batch too large, a short batch followed by another, batch numbers out of
// order) is an error naming name and the file line of the record (the
// header is line 1).
func completeBatches(name string, prior []query, batch, budget, n int) (int, error) {
	at := func(k int, format string, args ...any) error { return fileio.LineErrorf(name, k+2, format, args...) }
	if len(prior) == 0 {
		return 0, nil
	}
	if prior[0].Batch != 0 {
		return 0, at(0, "the start is in batch %d, expected batch 0", prior[0].Batch)
	}
	done, k := 0, 1
	for k < len(prior) {
		b := prior[k].Batch
		want := prior[k-1].Batch + 1
		if b != want {
			return 0, at(k, "batch %d, expected %d (batches are numbered 0, 1, 2, ... in order)", b, want)
		}
		size := min(batch, budget-done, n-1-done)
		if size <= 0 {
			return 0, at(k, "batch %d is beyond the budget of %d queries", b, budget)
		}
		end := k
		for end < len(prior) && prior[end].Batch == b {
			end++
		}
		switch got := end - k; {
		case got > size:
			return 0, at(k+size, "batch %d has %d queries, expected %d (batch size %d, budget %d)", b, got, size, batch, budget)
		case got < size && end < len(prior):
			return 0, at(end, "batch %d starts after %d queries of batch %d, expected %d (batch size %d, budget %d)", b+1, got, b, size, batch, budget)
		case got < size:
			return k, nil // the last batch is cut: drop it
		}
		done += size
		k = end
	}
	return len(prior), nil
}

// checkRecordIDs checks that each record's id column names the item its
// index column points at (ids: the pool's ids, nil when items are named by
// index), so a hand-edited index (or id) is refused instead of replayed as
// another item: the error names the file, line and both values.
func checkRecordIDs(name string, rows [][]string, ids []string) error {
	for k, row := range rows {
		if len(row) != len(RecordHeader) {
			continue // parseRecords reports it
		}
		i, err := strconv.Atoi(row[2])
		if err != nil {
			continue
		}
		want := row[2]
		if ids != nil {
			if i < 0 || i >= len(ids) {
				return fileio.LineErrorf(name, k+2, "index %d is outside the pool's %d items", i, len(ids))
			}
			want = ids[i]
		}
		if row[3] != want {
			return fileio.LineErrorf(name, k+2, "index %d is item %q but the record's id is %q (an edited index or id?); delete the file to restart this run", i, want, row[3])
		}
	}
	return nil
}

// replay re-observes the queries of an interrupted attempt (original
// indices), checking that they belong to this run.
func replay(m *Model, cfg runConfig, prior []query) error {
	sp := cfg.Space
	for k, q := range prior {
		where := fmt.Sprintf("query %d (iteration %d)", k, q.Iteration)
		if q.Iteration != k {
			return fmt.Errorf("%s: iterations must run 0, 1, 2, ... in order", where)
		}
		if k == 0 && q.Index != cfg.Start {
			return fmt.Errorf("%s: the start is item %d but this run starts at item %d (different seed or pool?)", where, q.Index, cfg.Start)
		}
		if k > 0 && (q.Batch < prior[k-1].Batch || q.Batch > prior[k-1].Batch+1 || q.Batch < 1) {
			return fmt.Errorf("%s: batch number %d does not follow %d", where, q.Batch, prior[k-1].Batch)
		}
		if q.Index < 0 || q.Index >= m.Len() {
			return fmt.Errorf("%s: item %d out of range [0, %d)", where, q.Index, m.Len())
		}
		v := sp.View(q.Index)
		if m.Observed(v) {
			return fmt.Errorf("%s: item %d queried twice", where, q.Index)
		}
		if q.Positive != sp.Labels[v] {
			return fmt.Errorf("%s: item %d is recorded with label %v but the pool says %v (the pool changed?)", where, q.Index, q.Positive, sp.Labels[v])
		}
		m.Observe(v, q.Positive)
	}
	if len(prior)-1 > cfg.Budget {
		return fmt.Errorf("%d recorded queries exceed the budget of %d", len(prior)-1, cfg.Budget)
	}
	return nil
}

// RecordHeader is the header of a run's query CSV.
var RecordHeader = []string{"iteration", "batch", "index", "id", "label", "probability", "seconds"}

// Record formats q as a CSV row under RecordHeader (id: the item's
// identifier, or its index when ids is nil). The start's probability is empty.
func (q query) Record(ids []string) []string {
	id := strconv.Itoa(q.Index)
	if ids != nil {
		id = ids[q.Index]
	}
	label := "0"
	if q.Positive {
		label = "1"
	}
	prob := ""
	if !math.IsNaN(q.Probability) {
		prob = strconv.FormatFloat(q.Probability, 'g', -1, 64)
	}
	return []string{
		strconv.Itoa(q.Iteration), strconv.Itoa(q.Batch), strconv.Itoa(q.Index), id, label, prob,
		strconv.FormatFloat(q.Seconds, 'g', -1, 64),
	}
}

// parseRecords reads rows written by Record (without the header). name is
// used in errors.
func parseRecords(name string, rows [][]string) ([]query, error) {
	out := make([]query, len(rows))
	for r, row := range rows {
		where := fmt.Sprintf("%s: record %d", name, r+1)
		if len(row) != len(RecordHeader) {
			return nil, fmt.Errorf("%s: %d fields, expected %d (%v)", where, len(row), len(RecordHeader), RecordHeader)
		}
		var q query
		var err error
		ints := []*int{&q.Iteration, &q.Batch, &q.Index}
		for c, dst := range ints {
			if *dst, err = strconv.Atoi(row[c]); err != nil {
				return nil, fmt.Errorf("%s: %s %q is not an integer", where, RecordHeader[c], row[c])
			}
		}
		switch row[4] {
		case "1":
			q.Positive = true
		case "0":
		default:
			return nil, fmt.Errorf("%s: label %q, expected 0 or 1", where, row[4])
		}
		q.Probability = math.NaN()
		if row[5] != "" {
			if q.Probability, err = strconv.ParseFloat(row[5], 64); err != nil {
				return nil, fmt.Errorf("%s: probability %q is not a number", where, row[5])
			}
		}
		if q.Seconds, err = strconv.ParseFloat(row[6], 64); err != nil {
			return nil, fmt.Errorf("%s: seconds %q is not a number", where, row[6])
		}
		out[r] = q
	}
	return out, nil
}

// rngFor returns the generator of batch t of a run (exposed for tests and
// for `qvs as suggest`, which has no run key).
func rngFor(seed uint64, key string, batch int) *rand.Rand { return rng.New(seed, key, batch) }
