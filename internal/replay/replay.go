package replay

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Methods are the methods a replay runs: surrogate.Suggest's (qvs: greedy
// qVS over the GP's most promising items; greedy: the top posterior
// means; top: the top acquisitions; random).
var Methods = surrogate.Methods

// Protocol is what a replay campaign runs. The struct tags are the keys of
// its config file (and of DIR/config.yaml); every field changes results.
type Protocol struct {
	Methods []string `yaml:"methods"`
	// Q are the orders of the qvs runs (one run per order and repeat).
	Q       vendi.OrderList `yaml:"q"`
	Repeats int             `yaml:"repeats"`
	// Init is the initial batch, drawn at random from (seed, "init",
	// repeat): the same items for every method of a repeat.
	Init Amount `yaml:"init"`
	// Batch is the size of every later batch; Budget the items acquired
	// after the initial batch (the last batch is smaller when Batch does
	// not divide it).
	Batch  Amount `yaml:"batch"`
	Budget Amount `yaml:"budget"`
	// Top defines the hits: the library's Top best scores, every item tied
	// with the Top-th best included (HitSet).
	Top Amount `yaml:"top"`
	// Minimize: lower scores are better (docking scores).
	Minimize bool   `yaml:"minimize"`
	Seed     uint64 `yaml:"seed"`
}

// DefaultProtocol is the protocol of the screening benchmark of
// docs/results.md: 1 % of the library at random, five batches of 1 %, hits
// the top 1 %, 3 repeats of qvs (at scored suggestions' default order,
// surrogate.DefaultQ), greedy and random.
func DefaultProtocol() Protocol {
	return Protocol{
		Methods: []string{surrogate.MethodQVS, surrogate.MethodGreedy, surrogate.MethodRandom},
		Q:       vendi.NewOrderList(surrogate.DefaultQ),
		Repeats: 3,
		Init:    mustAmount("0.01"), Batch: mustAmount("0.01"), Budget: mustAmount("0.05"), Top: mustAmount("0.01"),
	}
}

// GrowableKeys are the keys a rerun into a replay's folder may grow:
// more repeats, methods or orders only add runs.
var GrowableKeys = []string{"repeats", "methods", "q"}

// Campaign is a planned replay: its runs.
type Campaign struct {
	Protocol Protocol
	Runs     []campaign.Run // repeat-major; keys METHOD[-qQ]-rRR
	// Request holds the scored settings (acquisition, kernel, diversity,
	// history, hits, candidates) every round's surrogate.Request starts
	// from; its Observed, Values, Pending, Minimize, Batch, Method, Q,
	// Seed and Workers are the replay's own. The zero Request is
	// surrogate's defaults.
	Request surrogate.Request
	orders  map[string]vendi.Order
}

// Plan checks p and lists its runs: per repeat, one run per method (qvs
// once per order). Errors are configkeys.SettingErrors naming the key.
func Plan(p Protocol) (*Campaign, error) {
	if p.Repeats < 1 {
		return nil, configkeys.Invalid("repeats", p.Repeats, "expected at least 1")
	}
	for k, a := range []Amount{p.Init, p.Batch, p.Budget, p.Top} {
		if a.IsZero() {
			return nil, configkeys.Invalid([]string{"init", "batch", "budget", "top"}[k], nil, "missing: expected a fraction in (0, 1) or a whole count of at least 1")
		}
	}
	if len(p.Methods) == 0 {
		return nil, configkeys.Invalid("methods", nil, "none: expected some of %s", strings.Join(Methods, ","))
	}
	if err := configkeys.Unique("methods", p.Methods); err != nil {
		return nil, err
	}
	c := &Campaign{Protocol: p, orders: map[string]vendi.Order{}}
	type setting struct {
		method, q string
		order     vendi.Order
	}
	var settings []setting
	for _, m := range p.Methods {
		if !slices.Contains(Methods, m) {
			return nil, configkeys.Invalid("methods", m, "unknown method: expected some of %s", strings.Join(Methods, ","))
		}
		if m != surrogate.MethodQVS {
			settings = append(settings, setting{method: m})
			continue
		}
		if p.Q.Len() == 0 {
			return nil, configkeys.Invalid("q", nil, "method qvs needs orders q")
		}
		if err := configkeys.Unique("q", p.Q.Canonical().Text()); err != nil {
			return nil, err
		}
		for _, q := range p.Q.Orders() {
			settings = append(settings, setting{method: m, q: q.String(), order: q})
		}
	}
	for r := range p.Repeats {
		for _, s := range settings {
			run := campaign.Run{Key: campaign.RunKey(s.method, s.q, r), Method: s.method, Q: s.q, Repeat: r}
			c.Runs = append(c.Runs, run)
			c.orders[run.Key] = s.order
		}
	}
	return c, nil
}

// Sizes are a protocol's counts on a library of n items.
type Sizes struct {
	N, Init, Batch, Budget, Top int
	Rounds                      int // batches after the initial one
}

// Sizes resolves p's amounts on a library of n items (Amount.Of; a
// fractional budget that is a whole number r of fractional batches is r
// batches); an error when the initial batch and the budget need more items
// than the library holds.
func (p Protocol) Sizes(n int) (Sizes, error) {
	s := Sizes{N: n, Init: p.Init.Of(n), Batch: p.Batch.Of(n), Budget: p.Budget.Of(n), Top: p.Top.Of(n)}
	// A fractional budget that is a whole number of fractional batches
	// (0.05 in batches of 0.01) is that many batches, whatever the rounding
	// of each fraction of n.
	if p.Budget.IsFraction() && p.Batch.IsFraction() {
		if r := math.Round(p.Budget.v / p.Batch.v); r >= 1 && math.Abs(p.Budget.v/p.Batch.v-r) < 1e-9 {
			s.Budget = int(r) * s.Batch
		}
	}
	s.Rounds = (s.Budget + s.Batch - 1) / s.Batch
	if s.Init > n {
		return s, configkeys.Invalid("init", p.Init.String(), "an initial batch of %d items asked of a library of %d", s.Init, n)
	}
	if s.Init+s.Budget > n {
		return s, configkeys.Invalid("budget", p.Budget.String(), "the initial batch (%d) and the budget (%d) need %d items; the library has %d", s.Init, s.Budget, s.Init+s.Budget, n)
	}
	if s.Top > n {
		return s, configkeys.Invalid("top", p.Top.String(), "%d hits asked of a library of %d items", s.Top, n)
	}
	return s, nil
}

// RoundsText says the rounds after the initial batch: "5 rounds of 10",
// or "5 rounds of 10 (the last 2)" when the budget is no whole number of
// batches.
func (s Sizes) RoundsText() string {
	t := fmt.Sprintf("%d rounds of %d", s.Rounds, s.Batch)
	if last := s.BatchSize(s.Rounds); s.Rounds > 0 && last != s.Batch {
		t += fmt.Sprintf(" (the last %d)", last)
	}
	return t
}

// BatchSize is the size of batch round (1-based) of s.
func (s Sizes) BatchSize(round int) int { return min(s.Batch, s.Budget-(round-1)*s.Batch) }

// Acquired is the number of items acquired after round rounds.
func (s Sizes) Acquired(round int) int { return s.Init + min(s.Budget, round*s.Batch) }

// HitSet marks the hits of a library: the top best scores (lower is better
// under minimize), every score equal to the top-th best included, so ties
// never depend on the items' order. It returns the marks and their count.
func HitSet(scores []float64, top int, minimize bool) ([]bool, int) {
	sorted := slices.Clone(scores)
	sort.Float64s(sorted)
	var cut float64
	if minimize {
		cut = sorted[top-1]
	} else {
		cut = sorted[len(sorted)-top]
	}
	hit := make([]bool, len(scores))
	count := 0
	for i, v := range scores {
		if (minimize && v <= cut) || (!minimize && v >= cut) {
			hit[i] = true
			count++
		}
	}
	return hit, count
}

// Library is a fully scored pool: the features Suggest models and the
// score of every item.
type Library struct {
	Pool   *datasets.Pool
	Scores []float64 // by pool index, as measured
}

// RecordHeader is the header of runs/KEY.csv: one row per acquired item,
// in acquisition order. round 0 is the initial batch; seconds and
// cpu_seconds are the round's wall and CPU time (Suggest's call), on the
// round's first row (0 on the others).
var RecordHeader = []string{"round", "index", "id", "score", "hit", "seconds", "cpu_seconds"}

// curveHeader is the header of runs/KEY.curve.csv: after every round, the
// items acquired, the hits among them, VS_1 of those hits (Similarity) and
// the round's wall and CPU seconds.
var curveHeader = []string{"round", "acquired", "hits", "vs_q1", "seconds", "cpu_seconds"}

// similarity is the similarity under which a replay measures the
// diversity of the hits it found (VS_1): Tanimoto of fingerprints (a pool
// of bits), else the cosine similarity of the feature vectors (a positive
// semi-definite kernel with unit diagonal; an all-zero vector has
// similarity 1 with itself and 0 with the others).
func similarity(p *datasets.Pool) func(i, j int) float64 {
	if p.Bits != nil {
		return func(i, j int) float64 { return surrogate.Tanimoto(p.Bits[i], p.Bits[j]) }
	}
	row := func(i int) []float64 {
		if p.Dense != nil {
			return p.Dense[i]
		}
		r32 := p.Dense32.Row(i)
		r := make([]float64, len(r32))
		for k, v := range r32 {
			r[k] = float64(v)
		}
		return r
	}
	return func(i, j int) float64 {
		if i == j {
			return 1
		}
		a, b := row(i), row(j)
		var ab, aa, bb float64
		for k := range a {
			ab += a[k] * b[k]
			aa += a[k] * a[k]
			bb += b[k] * b[k]
		}
		if aa == 0 || bb == 0 {
			return 0
		}
		return ab / math.Sqrt(aa*bb)
	}
}

// vs1 is VS_1 of items under sim (0 for no item).
func vs1(items []int, sim func(i, j int) float64) (float64, error) {
	if len(items) == 0 {
		return 0, nil
	}
	return vendi.ScoreSamples(items, sim, vendi.Order(1))
}

// RunFunc binds c to lib and returns the function campaign.Execute calls
// for each run; dir is the results directory (errors name the record
// file). Repeat r's initial batch is the first Init items of a random
// permutation drawn from (seed, "init", r), shared by every method. Round
// t asks surrogate.Suggest for the next batch given every score acquired
// so far, with the seed (seed, run key, t), so a resumed run makes the
// records of an uninterrupted one; each round is one atomic append of its
// records. The run then writes runs/KEY.curve.csv and returns the summary
// fields after key, method, q, params, repeat: hits_r0 ... hits_rR (hits
// acquired after each round), hits, hits_total (the library's), vs_q1 (of
// the hits found, Similarity), seconds (wall, summed over rounds) and
// seconds_per_round and cpu_seconds_per_round (means over the batches
// after the initial one). CPU time is the process's: exact when runs
// execute one at a time (campaign.Spec.Workers 1), as the replay command
// runs them, each with every worker inside.
func (c *Campaign) RunFunc(lib Library, dir string, workers int) (campaign.RunFunc, error) {
	p := c.Protocol
	n := lib.Pool.Len()
	if len(lib.Scores) != n {
		return nil, fmt.Errorf("replay: %d scores for the %d items of pool %s", len(lib.Scores), n, lib.Pool.Name)
	}
	sz, err := p.Sizes(n)
	if err != nil {
		return nil, err
	}
	hit, total := HitSet(lib.Scores, sz.Top, p.Minimize)
	sim := similarity(lib.Pool)
	id := func(i int) string {
		if lib.Pool.IDs != nil {
			return lib.Pool.IDs[i]
		}
		return strconv.Itoa(i)
	}
	return func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		path := filepath.Join(dir, "runs", run.Key+".csv")
		order, ok := c.orders[run.Key]
		if !ok {
			return nil, fmt.Errorf("run %s is not in the campaign", run.Key)
		}
		// Replay the complete rounds of an interrupted attempt.
		prior, err := parseRecords(path, rec.Rows(), n, id)
		if err != nil {
			return nil, err
		}
		init := rng.New(p.Seed, "init", run.Repeat).Perm(n)[:sz.Init]
		var acquired []int
		var wall, cpu []float64 // by round
		keep := 0
		for round := 0; round <= sz.Rounds; round++ {
			size := sz.Init
			if round > 0 {
				size = sz.BatchSize(round)
			}
			if keep+size > len(prior) {
				break
			}
			for _, r := range prior[keep : keep+size] {
				if r.round != round {
					return nil, fileio.LineErrorf(path, r.line, "round %d, expected %d (the records of round %d hold %d items)", r.round, round, round, size)
				}
				acquired = append(acquired, r.index)
			}
			if round == 0 && !slices.Equal(acquired, init) {
				return nil, fmt.Errorf("%s: the initial batch differs from the one seed %d draws: the records belong to another campaign", path, p.Seed)
			}
			wall, cpu = append(wall, prior[keep].seconds), append(cpu, prior[keep].cpu)
			keep += size
		}
		rec.Keep(keep)
		taken := make([]bool, n)
		for _, i := range acquired {
			if taken[i] {
				return nil, fmt.Errorf("%s: item %d (%s) is acquired twice", path, i, id(i))
			}
			taken[i] = true
		}
		rows := func(round int, items []int, seconds, cpuSec float64) [][]string {
			out := make([][]string, len(items))
			for k, i := range items {
				s, cs := "0", "0"
				if k == 0 {
					s, cs = num(seconds), num(cpuSec)
				}
				out[k] = []string{strconv.Itoa(round), strconv.Itoa(i), id(i), num(lib.Scores[i]), b01(hit[i]), s, cs}
			}
			return out
		}
		if len(wall) == 0 {
			if err := rec.Append(rows(0, init, 0, 0)...); err != nil {
				return nil, err
			}
			acquired, wall, cpu = slices.Clone(init), []float64{0}, []float64{0}
		}
		for round := len(wall); round <= sz.Rounds; round++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			values := make([]float64, len(acquired))
			for k, i := range acquired {
				values[k] = lib.Scores[i]
			}
			t0, c0 := time.Now(), parallel.CPUSeconds()
			req := c.Request
			req.Observed, req.Values, req.Pending, req.Minimize = acquired, values, nil, p.Minimize
			req.Batch, req.Method, req.Q = sz.BatchSize(round), run.Method, order
			req.Seed, req.Workers = rng.Seed(p.Seed, run.Key, round), workers
			res, err := surrogate.Suggest(ctx, lib.Pool, req)
			if err != nil {
				return nil, fmt.Errorf("round %d: %w", round, err)
			}
			secs, cs := time.Since(t0).Seconds(), parallel.CPUSeconds()-c0
			if len(res.Picks) != sz.BatchSize(round) {
				return nil, fmt.Errorf("round %d: %d items suggested, expected %d", round, len(res.Picks), sz.BatchSize(round))
			}
			if err := rec.Append(rows(round, res.Picks, secs, cs)...); err != nil {
				return nil, err
			}
			acquired = append(acquired, res.Picks...)
			wall, cpu = append(wall, secs), append(cpu, cs)
		}
		// The curve and the summary.
		var fields []campaign.Field
		var curve [][]string
		var found []int
		for round := 0; round <= sz.Rounds; round++ {
			lo, hi := 0, sz.Acquired(round)
			if round > 0 {
				lo = sz.Acquired(round - 1)
			}
			for _, i := range acquired[lo:hi] {
				if hit[i] {
					found = append(found, i)
				}
			}
			vs, err := vs1(found, sim)
			if err != nil {
				return nil, err
			}
			curve = append(curve, []string{strconv.Itoa(round), strconv.Itoa(hi), strconv.Itoa(len(found)), num(vs), num(wall[round]), num(cpu[round])})
			fields = append(fields, campaign.I(fmt.Sprintf("hits_r%d", round), len(found)))
		}
		if err := rec.WriteFile("curve", curveHeader, curve); err != nil {
			return nil, err
		}
		vs, _ := strconv.ParseFloat(curve[len(curve)-1][3], 64)
		var sumWall, sumCPU float64
		for r := 1; r <= sz.Rounds; r++ {
			sumWall += wall[r]
			sumCPU += cpu[r]
		}
		rounds := float64(max(sz.Rounds, 1))
		return append(fields,
			campaign.I("hits", len(found)), campaign.I("hits_total", total),
			campaign.F("vs_q1", vs),
			campaign.F("seconds", sumWall),
			campaign.F("seconds_per_round", sumWall/rounds),
			campaign.F("cpu_seconds_per_round", sumCPU/rounds)), nil
	}, nil
}

// record is one parsed row of runs/KEY.csv.
type record struct {
	line, round, index int
	seconds, cpu       float64
}

// parseRecords checks the rows an interrupted attempt left: rounds that
// never decrease, indices of the pool under their ids.
func parseRecords(path string, rows [][]string, n int, id func(int) string) ([]record, error) {
	out := make([]record, len(rows))
	for k, r := range rows {
		line := k + 2
		if len(r) != len(RecordHeader) {
			return nil, fileio.LineErrorf(path, line, "%d cells, expected %d (%s)", len(r), len(RecordHeader), strings.Join(RecordHeader, ","))
		}
		round, err1 := strconv.Atoi(r[0])
		index, err2 := strconv.Atoi(r[1])
		secs, err3 := strconv.ParseFloat(r[5], 64)
		cpu, err4 := strconv.ParseFloat(r[6], 64)
		switch {
		case err1 != nil || round < 0 || (k > 0 && round < out[k-1].round):
			return nil, fileio.LineErrorf(path, line, "round %q, expected a round number not below the previous line's", r[0])
		case err2 != nil || index < 0 || index >= n:
			return nil, fileio.LineErrorf(path, line, "index %q, expected an item in [0, %d)", r[1], n)
		case r[2] != id(index):
			return nil, fileio.LineErrorf(path, line, "item %d has id %q in the pool, not %q: the records belong to another pool", index, id(index), r[2])
		case err3 != nil || err4 != nil:
			return nil, fileio.LineErrorf(path, line, "seconds %q, cpu_seconds %q: expected numbers", r[5], r[6])
		}
		out[k] = record{line: line, round: round, index: index, seconds: secs, cpu: cpu}
	}
	return out, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
