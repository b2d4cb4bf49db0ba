package bayesopt

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// line is a 1-d domain [0, 1] with Euclidean distance, for hand-built
// histories.
type line struct{}

func (line) Name() string                                             { return "line" }
func (line) Dim() int                                                 { return 1 }
func (line) Bounds() ([]float64, []float64)                           { return []float64{0}, []float64{1} }
func (line) Distance(a, b []float64) float64                          { return math.Abs(a[0] - b[0]) }
func (line) Evaluate(_ context.Context, x []float64) (float64, error) { return -x[0], nil }
func authorsSettings(tau float64) Settings {
	return Settings{Method: MethodQVS, Mode: modeAuthors, Q: 1, Init: 3, Batch: 10, Regions: 2, Tau: tau,
		Candidates: 50, MaxTrain: 40, FitIterations: 10, FailureTolerance: 5, FailurePerPoint: true}
}

// tellPoints tells an engine iteration 0 made of points xs with values vs.
func tellPoints(t *testing.T, e *Engine, xs, vs []float64) {
	t.Helper()
	evs := make([]Evaluation, len(xs))
	for i := range xs {
		evs[i] = Evaluation{Iteration: 0, Region: -1, X: []float64{xs[i]}, Value: vs[i]}
	}
	if err := e.Tell(evs); err != nil {
		t.Fatal(err)
	}
}

// directAuthorsGreedy follows robot.py's sequential_greedy_maximize_qvs
// step by step: every candidate's gram matrix with the picks so far is
// scored by a full eigendecomposition (vendi.Score), quality = raw scores,
// a candidate whose VS_q is below q_taus[ix] (VS_1 of ix+1 points tau apart,
// built here as an explicit matrix) scores -Inf, and when every candidate
// does, a random not-yet-picked point (rng.IntN over them in index order, the
// rule authorsGreedy documents) joins the picks as invalid.
func directAuthorsGreedy(t *testing.T, sim [][]float64, score []float64, q vendi.Order, tau float64, k int, rng *rand.Rand) ([]int, []bool) {
	t.Helper()
	n := len(score)
	c := math.Exp(-tau * tau / 2)
	var picks []int
	var valid []bool
	for ix := 0; ix < k; ix++ {
		F := mat.NewSymDense(ix+1, nil)
		for a := 0; a <= ix; a++ {
			for b := a; b <= ix; b++ {
				F.SetSym(a, b, c)
			}
			F.SetSym(a, a, 1)
		}
		floor, err := vendi.Score(F, 1)
		if err != nil {
			t.Fatal(err)
		}
		best, arg := math.Inf(-1), -1
		for cand := 0; cand < n; cand++ {
			if slices.Contains(picks, cand) {
				continue
			}
			set := append(append([]int(nil), picks...), cand)
			K := mat.NewSymDense(len(set), nil)
			sum := 0.0
			for a, i := range set {
				sum += score[i]
				for b, j := range set {
					K.SetSym(a, b, sim[i][j])
				}
			}
			vs, err := vendi.Score(K, q)
			if err != nil {
				t.Fatal(err)
			}
			v := sum / float64(len(set)) * vs
			if vs < floor*(1-1e-12) {
				v = math.Inf(-1)
			}
			if v > best+vendi.TieTol*math.Abs(best) || (arg < 0 && !math.IsInf(v, -1)) {
				best, arg = v, cand
			}
		}
		if arg >= 0 {
			picks, valid = append(picks, arg), append(valid, true)
			continue
		}
		var rest []int
		for i := 0; i < n; i++ {
			if !slices.Contains(picks, i) {
				rest = append(rest, i)
			}
		}
		picks, valid = append(picks, rest[rng.IntN(len(rest))]), append(valid, false)
	}
	return picks, valid
}

// TestAuthorsGreedyMatchesDirect: authorsGreedy (branch and bound) makes
// the same picks, valid flags included, as the direct step-by-step
// transcription that scores every candidate, on random
// 2-d point sets with mostly negative raw scores, for q below, at and above
// 1 and thresholds from permissive to rejecting.
func TestAuthorsGreedyMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 13))
	invalid := 0
	for trial := 0; trial < 12; trial++ {
		n := 8 + trial%5
		pts := make([][2]float64, n)
		score := make([]float64, n)
		for i := range pts {
			pts[i] = [2]float64{rng.Float64(), rng.Float64()}
			score[i] = 4*rng.Float64() - 3
		}
		sim := make([][]float64, n)
		for i := range sim {
			sim[i] = make([]float64, n)
			for j := range sim[i] {
				d := math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1])
				sim[i][j] = similarity(d)
			}
		}
		for _, q := range []vendi.Order{0.5, 1, 2, vendi.OrderInf} {
			for _, tau := range []float64{0.1, 0.5, 0.9} {
				k := 4
				seed := uint64(trial*100) + uint64(tau*10)
				got, gotValid, err := authorsGreedy(n, func(i, j int) float64 { return sim[i][j] }, score, slices.Values(descending(score)), q, k, func(s int) float64 { return authorsFloorVS(s, tau) }, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				want, wantValid := directAuthorsGreedy(t, sim, score, q, tau, k, rand.New(rand.NewPCG(seed, 1)))
				if !slices.Equal(got, want) || !slices.Equal(gotValid, wantValid) {
					t.Errorf("trial %d q=%v tau=%v: picks %v valid %v, direct %v %v", trial, q, tau, got, gotValid, want, wantValid)
				}
				for _, v := range wantValid {
					if !v {
						invalid++
					}
				}
			}
		}
	}
	if invalid == 0 {
		t.Error("no invalid pick in any case: the rejection path was not exercised")
	}
}

// TestAuthorsFloorVS: the floor is VS_1 of points tau apart whatever the
// run's q; two points: eigenvalues (1 ± c)/2, c = exp(-tau²/2).
func TestAuthorsFloorVS(t *testing.T) {
	const tol = 1e-12 // closed form vs eigendecomposition of a 2 x 2 matrix
	c := math.Exp(-0.15 * 0.15 / 2)
	a, b := (1+c)/2, (1-c)/2
	want := math.Exp(-a*math.Log(a) - b*math.Log(b))
	if got := authorsFloorVS(2, 0.15); math.Abs(got-want) > tol*want {
		t.Errorf("AuthorsFloorVS(2, 0.15) = %v, want %v", got, want)
	}
	if got := authorsFloorVS(1, 0.15); math.Abs(got-1) > tol {
		t.Errorf("one point: %v, want 1", got)
	}
}

// TestAuthorsCentresRawQuality: on a hand-built history the authors' mode
// picks its second centre with raw (negative) values, the paper mode with
// min-max scaled ones, and they differ. Points 0, 0.01, 0.8 with values -1,
// -1.5, -1.4 (tau tiny, so the floor passes): raw, the far point scores
// -1.2 x VS(0.8) = -1.2 x 1.49 against the near one's -1.25 x 1.00005, so
// the near point wins; scaled (1, 0, 0.2) the far point's 0.6 x 1.49 beats
// 0.5 x 1.00005.
func TestAuthorsCentresRawQuality(t *testing.T) {
	xs, vs := []float64{0, 0.01, 0.8}, []float64{-1, -1.5, -1.4}
	for _, tc := range []struct {
		mode string
		want []int
	}{{modeAuthors, []int{0, 1}}, {ModePaper, []int{0, 2}}} {
		s := authorsSettings(1e-3)
		s.Mode = tc.mode
		e, err := NewEngine(line{}, s, RunID{Seed: 1, Key: "raw"})
		if err != nil {
			t.Fatal(err)
		}
		tellPoints(t, e, xs, vs)
		var got []int
		cs, err := e.centres()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			got = append(got, c.index)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: centres %v, want %v", tc.mode, got, tc.want)
		}
	}
}

// TestAuthorsRandomCentreEvaluated: with every evaluated point within 0.2
// of the best and tau = 0.9, the second centre fails the floor, so region 1
// gets a random centre at distance >= tau from centre 0 (x = 0), which Ask
// returns first, in region 1's share (10 points: 5 + 4 Thompson points + the
// centre). Tell recentres region 1 on the centre's value, and with
// FailurePerPoint and tolerance 5 one failed batch of 5 halves each region.
// A second engine told the same history without asking agrees (resume).
func TestAuthorsRandomCentreEvaluated(t *testing.T) {
	s := authorsSettings(0.9)
	id := RunID{Seed: 2, Key: "rc"}
	e, err := NewEngine(line{}, s, id)
	if err != nil {
		t.Fatal(err)
	}
	xs, vs := []float64{0, 0.1, 0.2}, []float64{-1, -2, -3}
	tellPoints(t, e, xs, vs)
	batch, err := e.Ask(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, ev := range batch {
		count[ev.Region]++
	}
	if len(batch) != 10 || count[0] != 5 || count[1] != 5 {
		t.Fatalf("batch of %d, per region %v: want 5 and 5", len(batch), count)
	}
	centre := batch[0]
	if centre.Region != 1 || centre.X[0] < 0.9 {
		t.Fatalf("first point %+v: want region 1's random centre at distance >= 0.9 from x = 0", centre)
	}
	// Values: the centre 10, every Thompson point below its region's centre.
	for i := range batch {
		batch[i].Value = -5
	}
	batch[0].Value = 10
	if err := e.Tell(batch); err != nil {
		t.Fatal(err)
	}
	trs := e.TrustRegions()
	if trs[1].Best != 10 {
		t.Errorf("region 1 best %v: want its random centre's value 10", trs[1].Best)
	}
	if trs[0].Best != -1 {
		t.Errorf("region 0 best %v: want its centre's value -1", trs[0].Best)
	}
	for m, tr := range trs {
		if tr.Length != 0.4 || tr.FailureCount != 0 {
			t.Errorf("region %d: length %v, failures %d: one failed batch of 5 should halve 0.8", m, tr.Length, tr.FailureCount)
		}
	}
	replay, err := NewEngine(line{}, s, id)
	if err != nil {
		t.Fatal(err)
	}
	tellPoints(t, replay, xs, vs)
	if err := replay.Tell(batch); err != nil {
		t.Fatal(err)
	}
	if got := replay.TrustRegions(); !slices.Equal(got, trs) {
		t.Errorf("replayed regions %+v, asked %+v", got, trs)
	}
}

// TestAuthorsModeRun: a whole authors'-mode run spends exactly its budget,
// is deterministic and resumes exactly from its records, with either
// Thompson sampler; the two samplers give different runs.
func TestAuthorsModeRun(t *testing.T) {
	var runs []*Result
	for _, sampler := range []string{SamplerExact, SamplerPathwise} {
		s := smallSettings(MethodQVS)
		s.Mode, s.Tau, s.Q, s.Sampler = modeAuthors, 1.2, 2, sampler
		s.FailureTolerance, s.FailurePerPoint = 4, true
		id := RunID{Seed: 4, Key: "auth"}
		full, recs := runAll(t, &bumps{d: 2}, s, id, nil)
		if len(full.Evaluations) != s.Budget {
			t.Fatalf("%s: %d evaluations, budget %d", sampler, len(full.Evaluations), s.Budget)
		}
		var prior []Evaluation
		for _, r := range recs[:3] {
			prior = append(prior, r...)
		}
		resumed, _ := runAll(t, &bumps{d: 2}, s, id, prior)
		if !sameRun(full, resumed) {
			t.Errorf("%s: resumed run differs from the uninterrupted one", sampler)
		}
		runs = append(runs, full)
	}
	if sameRun(runs[0], runs[1]) {
		t.Error("exact and pathwise samplers gave the same run: the sampler setting is not used")
	}
}

// TestAuthorsSettingsValidate: the authors' mode needs tau > 0 and refuses
// qvs_floor (it has its own floor); an unknown mode is refused.
func TestAuthorsSettingsValidate(t *testing.T) {
	for name, mod := range map[string]func(*Settings){
		"unknown mode":   func(s *Settings) { s.Mode = "author" },
		"floor too":      func(s *Settings) { s.TauFloor = true },
		"no tau":         func(s *Settings) { s.Tau = 0 },
		"neg. tolerance": func(s *Settings) { s.FailureTolerance = -1 },
		"bad sampler":    func(s *Settings) { s.Sampler = "rff" },
	} {
		s := authorsSettings(0.5)
		s.Budget = 10
		mod(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	s := authorsSettings(0.5)
	s.Budget = 10
	if err := s.Validate(); err != nil {
		t.Errorf("valid authors' settings: %v", err)
	}
}

// TestAuthorsBatchIsPlainThompson: in the authors' mode qVS picks only the
// centres; each region's share of the batch is its plain Thompson picks
// (the argmax of each of its joint samples, without replacement), rebuilt
// here from the region's model, where the paper mode's batch is a qVS
// greedy over one sample per region.
func TestAuthorsBatchIsPlainThompson(t *testing.T) {
	s := smallSettings(MethodQVS)
	s.Mode, s.Tau = modeAuthors, 0.3
	e := engineAfterInit(t, &bumps{d: 2}, s, RunID{Seed: 6, Key: "plain"})
	batch, err := e.Ask(context.Background(), s.Batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := e.centres()
	if err != nil {
		t.Fatal(err)
	}
	counts := splitBatch(s.Batch, s.Regions)
	var want [][]float64
	for m, c := range cs {
		if c.index < 0 {
			t.Skip("a random centre: pick a seed whose centres are all valid")
		}
		gp, err := e.r.fit(e.r.trainingSet(c.u))
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.r.model(e.Iteration(), m, c, gp, counts[m], nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range thompsonPicks(mod.samples, nil) {
			want = append(want, e.r.unitToX(mod.cand.RawRowView(i)))
		}
	}
	if len(batch) != len(want) {
		t.Fatalf("batch of %d, plain Thompson picks %d", len(batch), len(want))
	}
	for i := range batch {
		if !slices.Equal(batch[i].X, want[i]) {
			t.Fatalf("point %d: %v, plain Thompson pick %v", i, batch[i].X, want[i])
		}
	}
}

// engineAfterInit returns an engine told its evaluated initial design.
func engineAfterInit(tb testing.TB, obj Objective, s Settings, id RunID) *Engine {
	tb.Helper()
	e, err := NewEngine(obj, s, id)
	if err != nil {
		tb.Fatal(err)
	}
	init := e.InitialDesign()
	for i := range init {
		v, err := obj.Evaluate(context.Background(), init[i].X)
		if err != nil {
			tb.Fatal(err)
		}
		init[i].Value = v
	}
	if err := e.Tell(init); err != nil {
		tb.Fatal(err)
	}
	return e
}
