package surrogate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Methods of Suggest.
const (
	MethodQVS    = "qvs"    // greedy qVS_q over the top candidates by acquisition (Algorithm 3)
	MethodGreedy = "greedy" // the top posterior means: the plain GP greedy
	MethodTop    = "top"    // the top acquisitions: diversity-blind BayesOpt (qVS with q = 0)
	MethodRandom = "random" // uniform over the items neither scored nor pending
)

// Methods lists the methods in help order.
var Methods = []string{MethodQVS, MethodGreedy, MethodTop, MethodRandom}

// Acquisitions (qualities of MethodQVS).
const (
	acqUCB  = "ucb"  // mu + sqrt(beta)·sd
	acqEI   = "ei"   // expected improvement over the best score
	acqPHit = "phit" // Pr(f beyond the hit threshold)
	acqMean = "mean" // posterior mean
	// acqThompson: one joint draw of f from the GP posterior over the
	// candidates (the top items by ucb, Request.Beta) and the pending
	// items, exact (a Cholesky factor of their posterior covariance; see
	// Model.Sample), seeded by Request.Seed and the number of scored
	// items, so a replay draws the same values.
	acqThompson = "thompson"
)

// AcquisitionThompson is acqThompson, for the commands' checks.
const AcquisitionThompson = acqThompson

// Acquisitions lists the acquisitions in help order.
var Acquisitions = []string{acqUCB, acqEI, acqPHit, acqMean, acqThompson}

// Histories of Request.History.
const (
	historyNone = "none"
	historyHits = "hits"
	historyAll  = "all"
)

// Histories lists Request.History's values in help order (HistoryExpected
// and HistoryGain: hitdiv.go).
var Histories = []string{historyNone, historyHits, historyAll, HistoryExpected, HistoryGain}

// Defaults chosen by measurement (doc.go).
const (
	defaultMethod      = MethodQVS
	DefaultAcquisition = acqUCB
	DefaultBeta        = 1.0
	DefaultQ           = vendi.Order(2)
	DefaultDiversity   = diversityDense
	// DefaultCandidateFactor: MethodQVS's greedy runs over the
	// DefaultCandidateFactor·batch items of highest acquisition (at least
	// MinCandidates, at most MaxCandidates).
	DefaultCandidateFactor = 4
	MinCandidates          = 100
	MaxCandidates          = 4000
	// DefaultHitTopFraction is the fraction of the scored items whose
	// values count as hits when no threshold is given (phit's threshold).
	DefaultHitTopFraction = 0.05
	// defaultQualityPower: see Request.QualityPower.
	defaultQualityPower = 1.0
	// DefaultHistory and DefaultHitPower: MethodQVS's batch is greedy
	// qVS_2 of the expected hit set with qualities times (p/p_max)^4 (hitdiv.go).
	// Against History none on the tuning sets (photoswitch lambda-max,
	// Enamine 10k logP and QED; docs/results.md) it finds as many hits
	// (within one over 10 seeds; more on all three over seeds 1-3) and
	// aims the batch at the diversity of the hits.
	DefaultHistory  = HistoryExpected
	DefaultHitPower = 4.0
	// NoHitPower is the HitPower of no hit-probability factor.
	NoHitPower = -1.0
)

// Request is one round of a scored search: the items scored so far, the
// ones pending, and what to pick. Zero values take the defaults above.
type Request struct {
	Observed []int     // pool indices of the scored items
	Values   []float64 // their scores (NaN: a failed measurement, never suggested, not fitted)
	Minimize bool      // lower values are better (docking scores); Values are as measured
	Pending  []int     // items whose scores are not known yet: never suggested, first members of the qVS set

	Batch       int
	Method      string      // Methods ("" = qvs)
	Acquisition string      // Acquisitions ("" = ucb)
	Beta        float64     // UCB weight: mu + sqrt(Beta)·sd (0 = DefaultBeta; use a tiny value for none)
	Q           vendi.Order // order of qVS (0 = DefaultQ; methodTop is the q = 0 batch)
	Seed        uint64

	// What counts as a hit (phit's threshold, Result.Hits): HitThreshold
	// in the values' units (beyond = larger, or smaller under Minimize)
	// when HasHitThreshold, else the top HitTopFraction of the successful
	// values (0 = DefaultHitTopFraction).
	HitThreshold    float64
	HasHitThreshold bool
	HitTopFraction  float64

	Kernel     string // Kernels or "" (auto)
	Diversity  string // Diversities ("" = DefaultDiversity)
	DiversityK int    // neighbours of DiversityKNN (0 = defaultDiversityK)
	Candidates int    // MethodQVS's candidates (0 = by batch, see DefaultCandidateFactor)
	// QualityPower p: ucb and mean qualities are min-max^p (or rank^p
	// under QualityRank); 0 = defaultQualityPower.
	QualityPower float64
	QualityRank  bool
	// History: scored items in the diversity term of MethodQVS (q = 2,
	// dense): historyNone, historyHits (the scored hits) or historyAll;
	// or the diversity of the expected hit set, HistoryExpected or
	// HistoryGain. "" = DefaultHistory where it applies (MethodQVS with
	// q = 2 on the dense kernel), none elsewhere.
	History string
	// HitPower a: under HistoryExpected and HistoryGain, each quality
	// times (p/p_max)^a, p the item's hit probability, p_max the largest
	// among the members (hitdiv.go). 0 = DefaultHitPower;
	// NoHitPower (any negative value): the acquisition's quality alone.
	HitPower  float64
	history   []int
	MaxExact  int // 0 = defaultMaxExact
	Inducing  int // 0 = defaultInducing
	FitSubset int // 0 = defaultFitSubset
	Workers   int
}

// Result is the suggested batch, in pick order, with the posterior of each
// pick in the values' units (sign as measured: under Minimize a lower mean
// is better).
type Result struct {
	Picks       []int
	Acquisition []float64 // ucb and mean in value units, ei in value units, phit a probability
	Quality     []float64 // the non-negative qVS quality of each pick (qvs and top; nil otherwise)
	Mean, SD    []float64 // posterior mean and sd of the latent score
	Values      []float64 // qVS_q of the pending items and the picks up to this one (MethodQVS; J of HistoryExpected under HistoryExpected and HistoryGain)

	Method, AcquisitionName string
	Q                       vendi.Order // the order used
	ColdStart               bool        // fewer than one successful score: no GP, the most diverse of a random sample
	Hyper                   Hyper
	Kernel, Form            string
	Active                  int // labels the posterior conditions on (all, or the inducing ones)
	Scored, Failed, Pending int
	HitThreshold            float64 // in value units
	Hits                    int     // scored items beyond HitThreshold
	Candidates              int     // MethodQVS: the items the greedy ran over
	Evaluated               int     // items whose posterior sd was computed
}

// Suggest returns the next batch of a scored search on pool.
func Suggest(ctx context.Context, pool *datasets.Pool, req Request) (*Result, error) {
	n := pool.Len()
	if err := req.defaults(); err != nil {
		return nil, err
	}
	if len(req.Values) != len(req.Observed) {
		return nil, fmt.Errorf("surrogate: %d observed items but %d values", len(req.Observed), len(req.Values))
	}
	taken := make([]bool, n)
	var obs []int
	var y []float64
	failed := 0
	for k, i := range req.Observed {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("surrogate: observed item %d: expected an index in [0, %d)", i, n)
		}
		if taken[i] {
			return nil, fmt.Errorf("surrogate: item %d is observed twice", i)
		}
		taken[i] = true
		v := req.Values[k]
		switch {
		case math.IsNaN(v):
			failed++
		case math.IsInf(v, 0):
			return nil, fmt.Errorf("surrogate: item %d: value %v", i, v)
		default:
			if req.Minimize {
				v = -v
			}
			obs = append(obs, i)
			y = append(y, v)
		}
	}
	for _, i := range req.Pending {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("surrogate: pending item %d: expected an index in [0, %d)", i, n)
		}
		if taken[i] {
			return nil, fmt.Errorf("surrogate: item %d is both scored and pending, or pending twice", i)
		}
		taken[i] = true
	}
	var free []int
	for i := 0; i < n; i++ {
		if !taken[i] {
			free = append(free, i)
		}
	}
	if req.Batch < 1 {
		return nil, fmt.Errorf("surrogate: batch %d: expected at least 1", req.Batch)
	}
	if req.Batch > len(free) {
		return nil, fmt.Errorf("surrogate: batch %d: only %d items are neither scored nor pending", req.Batch, len(free))
	}
	kern, err := chooseKernel(pool, req.Kernel)
	if err != nil {
		return nil, err
	}
	res := &Result{Method: req.Method, AcquisitionName: req.Acquisition, Q: req.Q, Kernel: kern.Name(), Scored: len(obs), Failed: failed, Pending: len(req.Pending), HitThreshold: math.NaN()}
	rng := rand.New(rand.NewPCG(req.Seed, uint64(len(req.Observed))))
	if req.Method == MethodRandom {
		perm := rng.Perm(len(free))[:req.Batch]
		for _, p := range perm {
			res.Picks = append(res.Picks, free[p])
		}
	}
	if len(obs) == 0 {
		res.ColdStart = true
		if req.Method != MethodRandom {
			if err := coldStart(kern, free, req, rng, res); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	model, err := fit(ctx, kern, obs, y, fitOptions{maxExact: req.MaxExact, inducing: min(req.Inducing, len(obs)), fitSubset: req.FitSubset, seed: req.Seed, workers: req.Workers})
	if err != nil {
		return nil, err
	}
	res.Hyper, res.Form, res.Active = model.Hyper, model.Form, len(model.Active)
	// hit threshold in the larger-is-better convention, standardised
	tau := hitThreshold(y, req)
	res.HitThreshold = tau
	if req.Minimize {
		res.HitThreshold = -tau
	}
	for t, v := range y {
		if v >= tau {
			res.Hits++
			if req.History == historyHits || req.History == HistoryExpected || req.History == HistoryGain {
				req.history = append(req.history, obs[t])
			}
		}
	}
	if req.History == historyAll {
		req.history = obs
	}
	a := acquirer{kind: req.Acquisition, seed: req.Seed ^ uint64(len(req.Observed))<<32, power: req.QualityPower, rank: req.QualityRank, sqrtBeta: math.Sqrt(req.Beta), tau: (tau - model.YMean) / model.YScale, best: (maxOf(y) - model.YMean) / model.YScale, sdMax: math.Sqrt(model.Hyper.SignalVar)}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch req.Method {
	case MethodGreedy:
		mu := make([]float64, len(free))
		model.Predict(free, mu, nil)
		res.Evaluated = 0
		top := topK(free, mu, req.Batch)
		res.Picks = top
	case MethodQVS, MethodTop:
		if err := qvsBatch(ctx, model, &a, free, req, res); err != nil {
			return nil, err
		}
	}
	// posterior and acquisition of the picks, in value units
	k := len(res.Picks)
	mu, sd := make([]float64, k), make([]float64, k)
	model.Predict(res.Picks, mu, sd)
	res.Mean, res.SD, res.Acquisition = make([]float64, k), make([]float64, k), make([]float64, k)
	sign := 1.0
	if req.Minimize {
		sign = -1
	}
	for t := range res.Picks {
		res.Mean[t] = sign * (model.YMean + model.YScale*mu[t])
		res.SD[t] = model.YScale * sd[t]
		v := a.value(mu[t], sd[t])
		if a.kind == acqThompson {
			v = a.draws[res.Picks[t]]
		}
		switch req.Acquisition {
		case acqUCB, acqMean, acqThompson:
			v = sign * (model.YMean + model.YScale*v)
		case acqEI:
			v *= model.YScale
		}
		res.Acquisition[t] = v
	}
	return res, nil
}

func (req *Request) defaults() error {
	orDefault(&req.Method, defaultMethod)
	orDefault(&req.Acquisition, DefaultAcquisition)
	orDefault(&req.Diversity, DefaultDiversity)
	orDefault(&req.DiversityK, defaultDiversityK)
	orDefault(&req.Q, DefaultQ)
	orDefault(&req.Beta, DefaultBeta)
	orDefault(&req.MaxExact, defaultMaxExact)
	orDefault(&req.Inducing, defaultInducing)
	orDefault(&req.FitSubset, defaultFitSubset)
	orDefault(&req.HitTopFraction, DefaultHitTopFraction)
	orDefault(&req.QualityPower, defaultQualityPower)
	orDefault(&req.HitPower, DefaultHitPower)
	if req.HitPower < 0 {
		req.HitPower = 0
	}
	if req.History == "" {
		req.History = historyNone
		if req.Method == MethodQVS && req.Q == 2 && req.Diversity == diversityDense {
			req.History = DefaultHistory
		}
	}
	req.Workers = max(req.Workers, 1)
	switch req.Method {
	case MethodQVS, MethodGreedy, MethodTop, MethodRandom:
	default:
		return fmt.Errorf("surrogate: unknown method %q, expected qvs, greedy, top or random", req.Method)
	}
	switch req.Acquisition {
	case acqUCB, acqEI, acqPHit, acqMean, acqThompson:
	default:
		return fmt.Errorf("surrogate: unknown acquisition %q, expected ucb, ei, phit, mean or thompson", req.Acquisition)
	}
	switch req.History {
	case "", historyNone, historyHits, historyAll:
	case HistoryExpected, HistoryGain:
		if req.Method == MethodQVS && (req.Q != 2 || req.Diversity != diversityDense) {
			return fmt.Errorf("surrogate: history %q needs q = 2 and the dense diversity kernel", req.History)
		}
	default:
		return fmt.Errorf("surrogate: unknown history %q, expected one of %s", req.History, strings.Join(Histories, ", "))
	}
	switch {
	case !(req.Beta > 0) || math.IsInf(req.Beta, 0):
		return fmt.Errorf("surrogate: beta %v: expected a finite positive number", req.Beta)
	case math.IsNaN(req.HitPower) || math.IsInf(req.HitPower, 0):
		return fmt.Errorf("surrogate: hit power %v: expected a finite number", req.HitPower)
	case !(req.HitTopFraction > 0 && req.HitTopFraction <= 1):
		return fmt.Errorf("surrogate: hit top fraction %v: expected a number in (0, 1]", req.HitTopFraction)
	case req.HasHitThreshold && (math.IsNaN(req.HitThreshold) || math.IsInf(req.HitThreshold, 0)):
		return fmt.Errorf("surrogate: hit threshold %v: expected a finite number", req.HitThreshold)
	case req.MaxExact < 1 || req.Inducing < 1 || req.FitSubset < 2:
		return errors.New("surrogate: MaxExact, Inducing must be positive and FitSubset at least 2")
	}
	return req.Q.Validate()
}

// orDefault sets *v to d when it is the zero value.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

// hitThreshold is the hit threshold in the larger-is-better convention:
// the user's (negated under Minimize), else the value of the
// ceil(f·n)-th best successful score.
func hitThreshold(y []float64, req Request) float64 {
	if req.HasHitThreshold {
		if req.Minimize {
			return -req.HitThreshold
		}
		return req.HitThreshold
	}
	s := append([]float64(nil), y...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	k := int(math.Ceil(req.HitTopFraction * float64(len(s))))
	return s[min(max(k, 1), len(s))-1]
}

func maxOf(y []float64) float64 {
	m := math.Inf(-1)
	for _, v := range y {
		m = math.Max(m, v)
	}
	return m
}

// acquirer evaluates an acquisition in standardised units.
type acquirer struct {
	kind      string
	power     float64 // quality exponent (ucb, mean)
	rank      bool    // ucb and mean qualities from ranks
	sqrtBeta  float64
	tau, best float64         // hit threshold and best score, standardised
	sdMax     float64         // prior sd: an upper bound of every posterior sd
	draws     map[int]float64 // thompson: the draw of f at each candidate and pending item
	seed      uint64          // thompson: the draw's seed
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func normPDF(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

// value is the acquisition at posterior mean mu and sd.
func (a acquirer) value(mu, sd float64) float64 {
	switch a.kind {
	case acqUCB:
		return mu + a.sqrtBeta*sd
	case acqEI:
		d := mu - a.best
		if sd <= 0 {
			return math.Max(d, 0)
		}
		u := d / sd
		return math.Max(d*normCDF(u)+sd*normPDF(u), 0)
	case acqPHit:
		if sd <= 0 {
			if mu >= a.tau {
				return 1
			}
			return 0
		}
		return normCDF((mu - a.tau) / sd)
	}
	return mu
}

// bound is an upper bound of value(mu, sd) over sd in [0, sdMax]: UCB and
// EI grow with sd, phit grows with sd below the threshold and is at most 1
// above it, the mean does not depend on sd.
func (a acquirer) bound(mu float64) float64 { return a.boundAt(mu, a.sdMax) }

// boundAt is an upper bound of value(mu, sd) over sd in [0, sdUB].
func (a acquirer) boundAt(mu, sdUB float64) float64 {
	if a.kind == acqPHit && mu >= a.tau {
		return 1
	}
	// widened by a relative 1e-12: ei's value can exceed its value at
	// sdUB by a rounding error where it is flat in sd
	b := a.value(mu, sdUB)
	return b + 1e-12*math.Abs(b)
}

// quality maps acquisition values to the non-negative qualities of qVS:
// phit and ei as they are (in [0, 1] and >= 0), ucb and the mean by
// min-max scaling over the set's members (qVS's eq. 2 mean quality needs
// qualities >= 0; min-max keeps the ranking, so q = 0 is the top
// acquisition), 1 for all when constant.
func (a acquirer) quality(v []float64) []float64 {
	if a.kind == acqPHit || a.kind == acqEI {
		return append([]float64(nil), v...)
	}
	var q []float64
	if a.rank {
		q = rankQuality(v)
	} else {
		q = discrete.QualityFromUCB(v)
	}
	if a.power > 0 && a.power != 1 {
		for i := range q {
			q[i] = math.Pow(q[i], a.power)
		}
	}
	return q
}

// rankQuality maps v to 1 - rank/(n-1) (the largest 1, the smallest 0;
// ties share the best rank), 1 for all when n = 1.
func rankQuality(v []float64) []float64 {
	n := len(v)
	q := make([]float64, n)
	if n < 2 {
		for i := range q {
			q[i] = 1
		}
		return q
	}
	ord := make([]int, n)
	for i := range ord {
		ord[i] = i
	}
	sort.SliceStable(ord, func(a, b int) bool { return v[ord[a]] > v[ord[b]] })
	r := 0
	for t, i := range ord {
		if t > 0 && v[i] != v[ord[t-1]] {
			r = t
		}
		q[i] = 1 - float64(r)/float64(n-1)
	}
	return q
}

// topK returns the k items with the largest score (score[t] of items[t]),
// ties to the lowest index, in decreasing score order.
func topK(items []int, score []float64, k int) []int {
	ord := make([]int, len(items))
	for t := range ord {
		ord[t] = t
	}
	sort.Slice(ord, func(a, b int) bool {
		sa, sb := score[ord[a]], score[ord[b]]
		if sa != sb {
			return sa > sb
		}
		return items[ord[a]] < items[ord[b]]
	})
	out := make([]int, k)
	for t := range out {
		out[t] = items[ord[t]]
	}
	return out
}

// candidateCount is the number of items MethodQVS's greedy runs over.
func (req Request) candidateCount(free int) int {
	c := req.Candidates
	if c == 0 {
		c = min(max(DefaultCandidateFactor*req.Batch, MinCandidates), MaxCandidates)
	}
	return min(max(c, req.Batch), free)
}

// qvsBatch picks the batch of MethodQVS: the certified top candidates by
// acquisition (shortlist), then vendi.Greedy with the pool kernel over the
// pending items (prefix) and the candidates.
func qvsBatch(ctx context.Context, model *Model, a *acquirer, free []int, req Request, res *Result) error {
	C := req.candidateCount(len(free))
	sa := *a
	if a.kind == acqThompson {
		// candidates by ucb (Request.Beta), then one joint draw
		sa.kind = acqUCB
	}
	cand, acq, evaluated := shortlist(model, sa, free, C, max(shortlistFactor*C, minShortlist))
	res.Evaluated = evaluated
	res.Candidates = len(cand)
	if err := ctx.Err(); err != nil {
		return err
	}
	P := len(req.Pending)
	members := append(append([]int(nil), req.Pending...), cand...)
	vals := make([]float64, len(members))
	if P > 0 {
		mu, sd := make([]float64, P), make([]float64, P)
		model.Predict(req.Pending, mu, sd)
		for t := range mu {
			vals[t] = a.value(mu[t], sd[t])
		}
	}
	copy(vals[P:], acq)
	if a.kind == acqThompson {
		members := append(append([]int(nil), req.Pending...), cand...)
		f, err := model.Sample(members, rand.New(rand.NewPCG(a.seed, 0x7407950)))
		if err != nil {
			return err
		}
		a.draws = make(map[int]float64, len(members))
		for t, i := range members {
			a.draws[i] = f[t]
		}
		copy(vals, f)
		copy(acq, f[P:])
	}
	quality := a.quality(vals)
	if req.Method == MethodTop {
		// VS_0 counts items: the batch is the top acquisitions.
		// (cand is in decreasing acquisition order, except under thompson:
		// ordered by ucb, ranked by the draw)
		pos := make(map[int]int, len(cand))
		for t, i := range cand {
			pos[i] = P + t
		}
		res.Picks = topK(cand, acq, req.Batch)
		for _, i := range res.Picks {
			res.Quality = append(res.Quality, quality[pos[i]])
		}
		return nil
	}
	if req.History == HistoryExpected || req.History == HistoryGain {
		expectedHitsBatch(model, a, members, quality, req, res)
		return nil
	}
	if req.Q == 2 && req.Diversity == diversityDense {
		picks, values := greedyQ2(model.kern, members, quality, P, req.Batch, req.history)
		for t, c := range picks {
			res.Picks = append(res.Picks, members[c])
			res.Quality = append(res.Quality, quality[c])
			res.Values = append(res.Values, values[t])
		}
		return nil
	}
	L := len(members)
	K, err := diversityKernel(req.Diversity, gram(model.kern, members, req.Workers), L, req.DiversityK)
	if err != nil {
		return err
	}
	prefix := make([]int, P)
	for t := range prefix {
		prefix[t] = t
	}
	cs := make([]int, len(cand))
	for t := range cs {
		cs[t] = P + t
	}
	// The GP kernels are positive semidefinite (Tanimoto, MinMax, RBF and
	// Matern-5/2 Gram matrices): q = 2 on the dense kernel takes Greedy's
	// closed form.
	psd := req.Diversity == diversityDense
	g, err := vendi.Greedy(vendi.GreedyProblem{Kernel: K, Quality: quality, Prefix: prefix, Candidates: cs, K: req.Batch, Q: req.Q, Workers: req.Workers, KnownPSD: psd})
	if err != nil {
		return err
	}
	for t, c := range g.Picks {
		res.Picks = append(res.Picks, members[c])
		res.Quality = append(res.Quality, quality[c])
		res.Values = append(res.Values, g.Scores[t])
	}
	return nil
}

// shortlistChunk is the number of items whose sd is computed per step of
// shortlist when its bound is the prior sd (DTC form); shortlistStep when
// it is the per-item bound of the exact form (first step: C items).
const (
	shortlistChunk = 2048
	shortlistStep  = 256
)

// shortlistFactor bounds the items whose posterior sd MethodQVS computes:
// at most max(shortlistFactor·C, minShortlist) for C candidates, in
// decreasing order of the acquisition's bound (see shortlist).
const (
	shortlistFactor = 4
	minShortlist    = 5000
)

// shortlist returns the C items of free with the largest acquisition (ties
// to the lowest index), in decreasing order, with their acquisition, and
// the number of items whose posterior sd was computed. The mean is
// computed for every item; the sd (the costly part: a triangular solve of
// the active set's size per item) only in decreasing order of an upper
// bound of the acquisition (acquirer.boundAt at an upper bound of the sd:
// Model.sdBound's, from the item's most similar labels, in the exact form;
// the prior sd in the DTC form), until the bound of the next item falls
// below the C-th best acquisition found (then the result is the exact top
// C: every item not evaluated has an acquisition below it) or limit items
// are done (then it is the top C of those: the items of highest bound).
func shortlist(model *Model, a acquirer, free []int, C, limit int) ([]int, []float64, int) {
	n := len(free)
	mu, sdUB := make([]float64, n), make([]float64, n)
	model.predictBound(free, mu, sdUB)
	ub := make([]float64, n)
	for t := range mu {
		ub[t] = a.boundAt(mu[t], sdUB[t])
	}
	step := shortlistChunk
	if model.Form == formExact {
		step = shortlistStep
	}
	ord := make([]int, n)
	for t := range ord {
		ord[t] = t
	}
	sort.Slice(ord, func(x, y int) bool {
		if ub[ord[x]] != ub[ord[y]] {
			return ub[ord[x]] > ub[ord[y]]
		}
		return ord[x] < ord[y]
	})
	var items []int
	var acq []float64
	done := 0
	thr := math.Inf(-1)
	for done < n && done < limit {
		if len(items) >= C && ub[ord[done]] < thr {
			break
		}
		hi := min(done+step, n)
		if done == 0 || step == shortlistChunk {
			hi = min(done+max(step, C), n)
		}
		chunk := make([]int, hi-done)
		for t := range chunk {
			chunk[t] = free[ord[done+t]]
		}
		cm, cs := make([]float64, len(chunk)), make([]float64, len(chunk))
		if a.kind == acqMean {
			for t := range chunk {
				cm[t] = mu[ord[done+t]]
			}
		} else {
			model.Predict(chunk, cm, cs)
			model.remember(chunk, cm, cs) // the picks' posterior, reported by Suggest
		}
		for t, i := range chunk {
			items = append(items, i)
			acq = append(acq, a.value(cm[t], cs[t]))
		}
		done = hi
		if len(items) >= C {
			s := append([]float64(nil), acq...)
			sort.Sort(sort.Reverse(sort.Float64Slice(s)))
			thr = s[C-1]
		}
	}
	top := topK(items, acq, C)
	pos := make(map[int]float64, len(items))
	for t, i := range items {
		pos[i] = acq[t]
	}
	out := make([]float64, C)
	for t, i := range top {
		out[t] = pos[i]
	}
	return top, out, done
}

// coldStart picks the batch without a score: the most diverse batch (greedy
// VS_q, quality 1) among Candidates items drawn at random.
func coldStart(kern featureKernel, free []int, req Request, rng *rand.Rand, res *Result) error {
	C := req.candidateCount(len(free))
	perm := rng.Perm(len(free))[:C]
	members := append([]int(nil), req.Pending...)
	for _, p := range perm {
		members = append(members, free[p])
	}
	P := len(req.Pending)
	quality := make([]float64, len(members))
	for i := range quality {
		quality[i] = 1
	}
	prefix := make([]int, P)
	for t := range prefix {
		prefix[t] = t
	}
	cs := make([]int, C)
	for t := range cs {
		cs[t] = P + t
	}
	K, err := diversityKernel(req.Diversity, gram(kern, members, req.Workers), len(members), req.DiversityK)
	if err != nil {
		return err
	}
	g, err := vendi.Greedy(vendi.GreedyProblem{Kernel: K, Quality: quality, Prefix: prefix, Candidates: cs, K: req.Batch, Q: req.Q, Workers: req.Workers})
	if err != nil {
		return err
	}
	for t, c := range g.Picks {
		res.Picks = append(res.Picks, members[c])
		res.Quality = append(res.Quality, 1)
		res.Values = append(res.Values, g.Scores[t])
	}
	return nil
}
