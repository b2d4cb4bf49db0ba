package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

func TestMeasureClosedForms(t *testing.T) {
	// Items 0, 1 with similarity s = 0.6, item 2 unrelated: the kernel of
	// {0, 1, 2} has eigenvalues 1+s, 1-s, 1 (sum 3).
	const s = 0.6
	kernel := vendi.DenseKernel(mat.NewSymDense(3, []float64{1, s, 0, s, 1, 0, 0, 0, 1}))
	pts := [][]float64{{0, 0}, {3, 4}, {1, 1}}
	dist := func(i, j int) float64 { return math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]) }
	m, err := measure(kernel, []int{0, 1, 2}, dist)
	if err != nil {
		t.Fatal(err)
	}
	lam := []float64{1.6 / 3, 0.4 / 3, 1.0 / 3}
	h, sq, sh, sp := 0.0, 0.0, 0.0, 0.0
	for _, l := range lam {
		h -= l * math.Log(l)
		sq += l * l
		sh += math.Sqrt(l)
		sp += math.Pow(l, 0.1)
	}
	want := []float64{3, math.Pow(sp, 1/0.9), sh * sh, math.Exp(h), 1 / sq, 3 / 1.6}
	const tol = 1e-12 // 3x3 eigenproblem, values of order 1
	for i, q := range metricOrders {
		if math.Abs(m.VS[i]-want[i]) > tol {
			t.Errorf("VS_%s = %.15g, want %.15g", q.String(), m.VS[i], want[i])
		}
	}
	if m.Positives != 3 || m.MaxPairwiseDistance != 5 {
		t.Errorf("positives %d, max distance %g; want 3, 5", m.Positives, m.MaxPairwiseDistance)
	}
	if math.Abs(m.KernelDet-(1-s*s)) > tol || math.Abs(m.KernelLogDet-math.Log(1-s*s)) > tol {
		t.Errorf("det %g, logdet %g; want %g, %g", m.KernelDet, m.KernelLogDet, 1-s*s, math.Log(1-s*s))
	}
	// Per-item det: the geometric mean of the eigenvalues 1+s, 1-s, 1.
	if want := math.Cbrt((1 + s) * (1 - s) * 1); math.Abs(m.KernelDetPerItem-want) > tol {
		t.Errorf("det per item %g, want %g", m.KernelDetPerItem, want)
	}

	// Duplicates: det 0, VS_0 = rank 1.
	dup := vendi.FuncKernel(2, func(i, j int) float64 { return 1 })
	m, err = measure(dup, []int{0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.VS[0] != 1 || m.KernelDet != 0 || !math.IsInf(m.KernelLogDet, -1) || m.KernelDetPerItem != 0 {
		t.Errorf("duplicates: VS_0 %g, det %g, logdet %g; want 1, 0, -Inf", m.VS[0], m.KernelDet, m.KernelLogDet)
	}
	// One positive: every VS is 1, det 1, distance 0.
	m, err = measure(kernel, []int{2}, dist)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range m.VS {
		if v != 1 {
			t.Errorf("single positive: VS_%s = %g, want 1", metricOrders[i].String(), v)
		}
	}
	if m.KernelDet != 1 || m.KernelDetPerItem != 1 || m.MaxPairwiseDistance != 0 {
		t.Errorf("single positive: det %g, distance %g; want 1, 0", m.KernelDet, m.MaxPairwiseDistance)
	}
	// A NaN distance is an error, not a silent maximum.
	if _, err := measure(kernel, []int{0, 1}, func(i, j int) float64 { return math.NaN() }); err == nil {
		t.Error("NaN distance accepted")
	}
}

// testPool builds a random pool with ~20% positives.
func testPool(seed uint64, n int) ([][]int32, [][]float64, []bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	nbr, w := randomGraph(rng, n, 6, false)
	labels := make([]bool, n)
	for i := range labels {
		labels[i] = rng.IntN(5) == 0
	}
	return nbr, w, labels
}

// testRun builds the identity search space of a random pool.
func testRun(t testing.TB, seed uint64, n int) (*Space, []bool) {
	nbr, w, labels := testPool(seed, n)
	sp, err := newSpace(nbr, w, labels, 0.8, 0.2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sp, labels
}

func noSeconds(qs []query) []query {
	out := slices.Clone(qs)
	for i := range out {
		out[i].Seconds = 0
	}
	return out
}

func equalQueries(a, b []query) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Iteration != y.Iteration || x.Batch != y.Batch || x.Index != y.Index || x.Positive != y.Positive ||
			!(x.Probability == y.Probability || math.IsNaN(x.Probability) && math.IsNaN(y.Probability)) {
			return false
		}
	}
	return true
}

func TestRunResumeEqualsUninterrupted(t *testing.T) {
	nbr, w, labels := testPool(3, 300)
	start, err := startPositive(labels, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	order := randomOrder(300, rand.New(rand.NewPCG(9, 9)))
	sp, err := newSpace(nbr, w, labels, 0.8, 0.2, order)
	if err != nil {
		t.Fatal(err)
	}
	policies := []Policy{random{}, oneStep{}, ECI{Threshold: 0.5}, SELECT{Beta: 1, Lambda: 0.5}, ens{}, QVS{Q: 1, Kernel: sp.Kernel}}
	for _, p := range policies {
		cfg := runConfig{Space: sp, Policy: p, Start: start, Budget: 23, Batch: 5, Seed: 7, Key: p.Name() + "-r00", Workers: 1}
		var emitted [][]query
		full, err := Run(context.Background(), cfg, nil, func(b []query) error { emitted = append(emitted, b); return nil })
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		// 1 start + 23 queries in batches 5,5,5,5,3.
		if len(full) != 24 || len(emitted) != 6 || len(emitted[5]) != 3 || full[23].Iteration != 23 || full[23].Batch != 5 {
			t.Fatalf("%s: %d queries in %d batches (last %d, iteration %d, batch %d)", p.Name(), len(full), len(emitted), len(emitted[len(emitted)-1]), full[23].Iteration, full[23].Batch)
		}
		if full[0].Index != start || !full[0].Positive {
			t.Fatalf("%s: first query %+v is not the start %d", p.Name(), full[0], start)
		}
		// Resume from every batch boundary: the result is the same.
		cut := 0
		for _, b := range emitted[:len(emitted)-1] {
			cut += len(b)
			resumed, err := Run(context.Background(), cfg, full[:cut], func([]query) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !equalQueries(resumed, full) {
				t.Fatalf("%s: resumed after %d queries:\n%v\nuninterrupted:\n%v", p.Name(), cut, noSeconds(resumed), noSeconds(full))
			}
		}
	}
}

func TestRunStopsOnCancelAndExhaustion(t *testing.T) {
	sp, labels := testRun(t, 4, 40)
	start, _ := startPositive(labels, 1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	batches := 0
	cfg := runConfig{Space: sp, Policy: oneStep{}, Start: start, Budget: 30, Batch: 5, Key: "k"}
	got, err := Run(ctx, cfg, nil, func([]query) error {
		batches++
		if batches == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(got) != 11 {
		t.Fatalf("cancelled after 3 emits: %d queries, err %v; want 11, context.Canceled", len(got), err)
	}
	cfg.Budget = 100 // more than the 39 unlabelled items
	got, err = Run(context.Background(), cfg, nil, func([]query) error { return nil })
	if err != nil || len(got) != 40 {
		t.Fatalf("exhausting the pool: %d queries, err %v; want 40, nil", len(got), err)
	}
}

func TestReplayRejectsForeignRecords(t *testing.T) {
	sp, labels := testRun(t, 5, 60)
	start, _ := startPositive(labels, 1, 0)
	cfg := runConfig{Space: sp, Policy: oneStep{}, Start: start, Budget: 10, Batch: 5, Key: "k"}
	full, err := Run(context.Background(), cfg, nil, func([]query) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	mutate := map[string]func(q []query){
		"label":     func(q []query) { q[3].Positive = !q[3].Positive },
		"start":     func(q []query) { q[0].Index = (start + 1) % 60 },
		"repeat":    func(q []query) { q[4].Index = q[2].Index },
		"iteration": func(q []query) { q[2].Iteration = 7 },
		"range":     func(q []query) { q[2].Index = 60 },
	}
	for name, f := range mutate {
		bad := slices.Clone(full[:8])
		f(bad)
		if _, err := Run(context.Background(), cfg, bad, func([]query) error { return nil }); err == nil {
			t.Errorf("%s: corrupted record accepted", name)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	qs := []query{
		{Index: 4, Positive: true, Probability: math.NaN()},
		{Iteration: 1, Batch: 1, Index: 9, Probability: 0.1234567890123456789, Seconds: 0.25},
	}
	var rows [][]string
	for _, q := range qs {
		rows = append(rows, q.Record([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}))
	}
	if rows[1][3] != "j" || rows[0][5] != "" || rows[0][4] != "1" {
		t.Fatalf("records %v", rows)
	}
	got, err := parseRecords("x.csv", rows)
	if err != nil {
		t.Fatal(err)
	}
	if !equalQueries(got, qs) || got[1].Seconds != 0.25 {
		t.Fatalf("round trip %+v, want %+v", got, qs)
	}
	for _, bad := range [][]string{
		{"1", "1", "9", "j", "2", "0.5", "0"},
		{"1", "1", "nine", "j", "1", "0.5", "0"},
		{"1", "1", "9", "j", "1", "half", "0"},
		{"1", "1", "9", "j", "1"},
	} {
		if _, err := parseRecords("x.csv", [][]string{bad}); err == nil || !strings.Contains(err.Error(), "x.csv: record 1") {
			t.Errorf("record %v: error %v, want one naming x.csv record 1", bad, err)
		}
	}
}

func TestStartPositive(t *testing.T) {
	labels := make([]bool, 100)
	for i := 0; i < 100; i += 7 {
		labels[i] = true
	}
	seen := map[int]bool{}
	for r := 0; r < 20; r++ {
		a, err := startPositive(labels, 42, r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := startPositive(labels, 42, r)
		if a != b || !labels[a] {
			t.Fatalf("repeat %d: starts %d, %d (positive %v)", r, a, b, labels[a])
		}
		seen[a] = true
	}
	if len(seen) < 5 { // 20 draws from 15 positives
		t.Errorf("only %d distinct starts over 20 repeats", len(seen))
	}
	if _, err := startPositive(make([]bool, 5), 1, 0); err == nil {
		t.Error("a pool without positives gave a start")
	}
}

func TestCurve(t *testing.T) {
	kernel := vendi.FuncKernel(10, func(i, j int) float64 { return b2f(i == j) }) // identity: VS_1 = count
	qs := []query{
		{Index: 0, Positive: true},
		{Iteration: 1, Batch: 1, Index: 1, Positive: true}, {Iteration: 2, Batch: 1, Index: 2},
		{Iteration: 3, Batch: 2, Index: 3}, {Iteration: 4, Batch: 2, Index: 4, Positive: true},
	}
	got, err := curve(kernel, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := []curvePoint{{0, 0, 1, 1}, {1, 2, 2, 2}, {2, 4, 3, 3}}
	if len(got) != len(want) {
		t.Fatalf("curve %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Batch != want[i].Batch || got[i].Queries != want[i].Queries || got[i].Positives != want[i].Positives || math.Abs(got[i].VS1-want[i].VS1) > 1e-12 {
			t.Errorf("curve[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestSpaceRelabelling checks a relabelled space against a pool physically
// permuted by hand: the runs make the same queries (in original indices),
// and the permutation decides ties.
func TestSpaceRelabelling(t *testing.T) {
	nbr, w, labels := testPool(6, 200)
	n := len(labels)
	order := randomOrder(n, rand.New(rand.NewPCG(2, 2)))
	sp, err := newSpace(nbr, w, labels, 0.8, 0.2, order)
	if err != nil {
		t.Fatal(err)
	}
	// The hand-permuted pool: item v is original item order[v].
	pos := make([]int, n)
	for v, i := range order {
		pos[i] = v
	}
	pn := make([][]int32, n)
	pw := make([][]float64, n)
	pl := make([]bool, n)
	for v, i := range order {
		for t, j := range nbr[i] {
			pn[v] = append(pn[v], int32(pos[j]))
			pw[v] = append(pw[v], w[i][t])
		}
		pl[v] = labels[i]
	}
	hand, err := newSpace(pn, pw, pl, 0.8, 0.2, nil)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := startPositive(labels, 3, 0)
	for _, mk := range []func(*Space) Policy{
		func(*Space) Policy { return oneStep{} },
		func(*Space) Policy { return ens{} },
		func(s *Space) Policy { return QVS{Q: 0.5, Kernel: s.Kernel} },
	} {
		a, err := Run(context.Background(), runConfig{Space: sp, Policy: mk(sp), Start: start, Budget: 20, Batch: 5, Key: "k"}, nil, func([]query) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(context.Background(), runConfig{Space: hand, Policy: mk(hand), Start: pos[start], Budget: 20, Batch: 5, Key: "k"}, nil, func([]query) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for i := range b {
			b[i].Index = order[b[i].Index]
		}
		if !equalQueries(a, b) {
			t.Fatalf("%s: relabelled space %v, hand-permuted pool %v", mk(sp).Name(), noSeconds(a), noSeconds(b))
		}
	}
	// On a pool without edges every probability ties: the first batch is
	// the lowest view indices, i.e. order[1..] (order[0] being the start).
	empty := make([][]int32, 10)
	ew := make([][]float64, 10)
	lab := make([]bool, 10)
	lab[order10[0]] = true
	esp, err := newSpace(empty, ew, lab, 0.8, 0.2, order10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), runConfig{Space: esp, Policy: oneStep{}, Start: order10[0], Budget: 3, Batch: 3, Key: "k"}, nil, func([]query) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got[1].Index != order10[1] || got[2].Index != order10[2] || got[3].Index != order10[3] {
		t.Errorf("ties went to %v, want the order %v", got, order10[1:4])
	}
	if _, err := newSpace(empty, ew, lab, 0.8, 0.2, []int{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}); err == nil {
		t.Error("a non-permutation order was accepted")
	}
}

var order10 = []int{7, 3, 9, 0, 5, 1, 8, 2, 6, 4}

// TestMeasureVSNonIncreasingInQ checks the active-search metrics: the
// symmetrised kNN kernel is indefinite in general, and the
// reported VS_q must still fall with q (VS_2 used to take the unclipped
// closed form and could drop below VS_inf).
func TestMeasureVSNonIncreasingInQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 3))
	for trial := 0; trial < 10; trial++ {
		const n = 40
		nbr, w := randomGraph(rng, n, 6, trial%2 == 0)
		kernel, err := vendi.SymmetrizeKNN(n, nbr, w)
		if err != nil {
			t.Fatal(err)
		}
		pos := rng.Perm(n)[:12]
		m, err := measure(kernel, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(m.VS); i++ {
			if m.VS[i] > m.VS[i-1]*(1+1e-9) { // 1e-9: rounding of equal values
				t.Errorf("trial %d: VS_%s = %.12g > VS_%s = %.12g", trial, metricOrders[i].String(), m.VS[i], metricOrders[i-1].String(), m.VS[i-1])
			}
		}
	}
	// The indefinite-kernel example as a two-positive pool: VS_2 = 1, not 0.615;
	// det = 1 - 2.25 = -1.25, so the per-item det is sqrt(1.25).
	m, err := measure(vendi.DenseKernel(mat.NewSymDense(2, []float64{1, 1.5, 1.5, 1})), []int{0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(1.25); math.Abs(m.KernelDetPerItem-want) > 1e-12 || m.KernelDet > -1.25+1e-12 {
		t.Errorf("det %v, per item %v; want -1.25, %v", m.KernelDet, m.KernelDetPerItem, want)
	}
	for i, v := range m.VS {
		if math.Abs(v-1) > 1e-12 { // 2 x 2 eigenproblem
			t.Errorf("VS_%s = %v, want 1", metricOrders[i].String(), v)
		}
	}
}

// workersSpy records the Workers each batch of a policy is given.
type workersSpy struct {
	Policy
	seen *[]int
}

func (w workersSpy) Batch(st *State, b int) ([]int, error) {
	*w.seen = append(*w.seen, st.Workers)
	return w.Policy.Batch(st, b)
}

// TestRunWorkersNow: a campaign's tail hands idle cores to the last runs
// through runConfig.WorkersNow, asked before every batch; the queries of
// every policy are those of a serial run.
func TestRunWorkersNow(t *testing.T) {
	nbr, w, labels := testPool(3, 300)
	start, err := startPositive(labels, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := newSpace(nbr, w, labels, 0.8, 0.2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{oneStep{}, ECI{Threshold: 0.5}, ens{}, QVS{Q: 1, Kernel: sp.Kernel}, QVS{Q: 0.1, Kernel: sp.Kernel}} {
		cfg := runConfig{Space: sp, Policy: p, Start: start, Budget: 20, Batch: 5, Seed: 7, Key: "k", Workers: 1}
		serial, err := Run(context.Background(), cfg, nil, func([]query) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		var seen []int
		calls := 0
		cfg.Policy = workersSpy{p, &seen}
		cfg.WorkersNow = func() int { calls++; return 1 + calls%3 }
		par, err := Run(context.Background(), cfg, nil, func([]query) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !equalQueries(par, serial) {
			t.Errorf("%s: queries with 1-3 workers differ from serial:\n%v\n%v", p.Name(), noSeconds(par), noSeconds(serial))
		}
		if len(seen) != 4 || seen[0] != 2 || seen[1] != 3 || seen[2] != 1 {
			t.Errorf("%s: batches got workers %v, want 2, 3, 1, 2", p.Name(), seen)
		}
	}
}

// TestRunReestimatesPrior: with runConfig.PriorA1 (prior: estimate) every
// batch's recorded probabilities are those of the model whose a1 is
// FitPrior of the labels before that batch (rebuilt from scratch in pool
// indices), a1 changes over the run, and a resumed run equals the
// uninterrupted one.
func TestRunReestimatesPrior(t *testing.T) {
	nbr, w, labels := testPool(5, 300)
	start, err := startPositive(labels, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := newSpace(nbr, w, labels, 1.0/3, 2.0/3, randomOrder(300, rand.New(rand.NewPCG(3, 3))))
	if err != nil {
		t.Fatal(err)
	}
	fit := func(m *Model) float64 { return FitPrior(m).A1 }
	for _, p := range []Policy{oneStep{}, QVS{Q: 1, Kernel: sp.Kernel}, ECI{Threshold: 0.5}} {
		cfg := runConfig{Space: sp, Policy: p, Start: start, Budget: 30, Batch: 5, Seed: 7, Key: p.Name(), Workers: 1, PriorA1: fit}
		var emitted [][]query
		full, err := Run(context.Background(), cfg, nil, func(b []query) error { emitted = append(emitted, b); return nil })
		if err != nil {
			t.Fatal(err)
		}
		a1s := map[float64]bool{}
		m, _ := NewModel(nbr, w, 0.5, 0.5)
		for _, b := range emitted {
			if b[0].Batch > 0 {
				a1 := FitPrior(m).A1
				a1s[a1] = true
				m.Alpha0, m.Alpha1 = 1-a1, a1
				for _, q := range b {
					if want := directProbability(m, q.Index); math.Abs(q.Probability-want) > 1e-15 {
						t.Fatalf("%s batch %d: item %d recorded probability %.17g, want %.17g (a1 = %g)", p.Name(), q.Batch, q.Index, q.Probability, want, a1)
					}
				}
			}
			for _, q := range b {
				m.Observe(q.Index, q.Positive)
			}
		}
		if len(a1s) < 3 {
			t.Errorf("%s: a1 took %d values over 6 batches: %v", p.Name(), len(a1s), a1s)
		}
		cut := len(emitted[0]) + len(emitted[1]) + len(emitted[2])
		resumed, err := Run(context.Background(), cfg, full[:cut], func([]query) error { return nil })
		if err != nil || !equalQueries(resumed, full) {
			t.Errorf("%s: resumed run differs (%v)", p.Name(), err)
		}
	}
}

// TestSpaceLayout: a relabelled space's rows (one backing array for all
// of them) and its lazily built kernel equal the hand-permuted graph's
// rows and SymmetrizeKNN of it, bit for bit, on random graphs, n = 1, rows
// listing a neighbour several times and rows listing every other item
// (k >= n - 1); appending to a row never changes the next.
func TestSpaceLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	type graph struct {
		nbr [][]int32
		w   [][]float64
	}
	var cases []graph
	for _, c := range [][2]int{{1, 0}, {2, 1}, {6, 5}, {60, 7}, {500, 20}} {
		nbr, w := randomGraph(rng, c[0], c[1], true)
		cases = append(cases, graph{nbr, w})
	}
	cases = append(cases, graph{[][]int32{{1, 1, 2}, {2, 2, 0, 2}, {1, 0, 1}}, [][]float64{{0.5, 0.25, 0.125}, {0.1, 0.7, 1, 0.3}, {0.2, 0.9, 0.6}}})
	for _, c := range cases {
		n := len(c.nbr)
		labels := make([]bool, n)
		order := randomOrder(n, rng)
		sp, err := newSpace(c.nbr, c.w, labels, 0.8, 0.2, order)
		if err != nil {
			t.Fatal(err)
		}
		pos := make([]int32, n)
		for v, i := range order {
			pos[i] = int32(v)
		}
		pn, pw := make([][]int32, n), make([][]float64, n)
		for v, i := range order {
			for e, j := range c.nbr[i] {
				pn[v] = append(pn[v], pos[j])
				pw[v] = append(pw[v], c.w[i][e])
			}
		}
		want, err := vendi.SymmetrizeKNN(n, pn, pw)
		if err != nil {
			t.Fatal(err)
		}
		for v := range n {
			nb, ws := sp.Prior.Neighbors(v)
			if !slices.Equal(nb, pn[v]) || !slices.Equal(ws, pw[v]) {
				t.Fatalf("n %d: view row %d %v %v, want %v %v", n, v, nb, ws, pn[v], pw[v])
			}
			gc, gv := sp.Kernel.Row(v)
			wc, wv := want.Row(v)
			if !slices.Equal(gc, wc) || !slices.Equal(gv, wv) {
				t.Fatalf("n %d: kernel row %d %v %v, want %v %v", n, v, gc, gv, wc, wv)
			}
			if v+1 < n {
				next := slices.Clone(pn[v+1])
				_ = append(nb, -1)
				if nb2, _ := sp.Prior.Neighbors(v + 1); !slices.Equal(nb2, next) {
					t.Fatalf("n %d: appending to view row %d changed row %d", n, v, v+1)
				}
			}
		}
		// newSpaceInPlace: the same space from the graph itself (a copy of
		// it, rows in one block as a pool holds them), which it takes over.
		for i := range labels {
			labels[i] = rng.IntN(2) == 0
		}
		in, iw := make([][]int32, n), make([][]float64, n)
		for i := range n {
			in[i], iw[i] = slices.Clone(c.nbr[i]), slices.Clone(c.w[i])
		}
		for _, ord := range [][]int{order, nil} {
			cn, cw := slices.Clone(in), slices.Clone(iw)
			for i := range n {
				cn[i], cw[i] = slices.Clone(in[i]), slices.Clone(iw[i])
			}
			ref, err := newSpace(in, iw, labels, 0.8, 0.2, ord)
			if err != nil {
				t.Fatal(err)
			}
			got, err := newSpaceInPlace(cn, cw, labels, 0.8, 0.2, ord)
			if err != nil {
				t.Fatal(err)
			}
			for v := range n {
				rn, rw := ref.Prior.Neighbors(v)
				gn, gw := got.Prior.Neighbors(v)
				if !slices.Equal(gn, rn) || !slices.Equal(gw, rw) || got.Labels[v] != ref.Labels[v] || got.Orig(v) != ref.Orig(v) || got.View(v) != ref.View(v) {
					t.Fatalf("n %d, order %v: in place, view row %d %v %v (label %v), want %v %v (%v)", n, ord != nil, v, gn, gw, got.Labels[v], rn, rw, ref.Labels[v])
				}
				gc, gv := got.Kernel.Row(v)
				rc, rv := ref.Kernel.Row(v)
				if !slices.Equal(gc, rc) || !slices.Equal(gv, rv) {
					t.Fatalf("n %d: in place, kernel row %d %v %v, want %v %v", n, v, gc, gv, rc, rv)
				}
			}
		}
	}
}
