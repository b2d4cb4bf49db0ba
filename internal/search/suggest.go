package search

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/rng"
)

// SuggestRequest is what `qvs as suggest` asks for: the next batch of a
// policy given the labels observed so far.
type SuggestRequest struct {
	Observed []Observation // the labels the user has, in pool indices
	// Pending are items chosen earlier whose labels are not known yet
	// (experiments still running), in pool indices, in the order they were
	// chosen: never suggested, not labelled, and treated by the policy as
	// the first picks of this batch (State.Pending). Disjoint from
	// Observed.
	Pending []int
	Prior   Prior // the kNN model's prior a1
	// Ties breaks exact ties between candidates as a campaign does:
	// "random" searches the pool relabelled in the random order drawn from
	// (Seed, "suggest-order") (see Space), "index" to the lowest pool index.
	Ties      string
	Seed      uint64
	Method    string // one of Methods
	Settings  PolicySettings
	Batch     int // items to suggest
	Remaining int // ENS: queries left, this batch included
	Workers   int
	// ConsumeGraph lets Suggest relabel the pool's kNN graph in place
	// (NewSpaceInPlace) instead of copying it: the pool's Neighbors and
	// Weights are nil afterwards (its ids, labels and size stay).
	ConsumeGraph bool
}

// Suggestion is a suggested batch, in the order the policy picked it.
type Suggestion struct {
	// ColdStart is true when no label was observed (see Suggest); PickedBy
	// is the method whose policy picked the batch: the one asked for, or
	// coldStartMethod of it on a cold start.
	ColdStart     bool
	PickedBy      string
	A0, A1        float64   // the kNN model's pseudo-counts used
	Fit           PriorFit  // FitPrior of the observed labels (A1 under PriorEstimate)
	Picks         []int     // pool indices
	Probabilities []float64 // the kNN model's Pr(y = 1) of each pick given the observed labels
	// Values are eq. 7's qVS_q (q = Settings.Q) of the observed positives
	// (quality 1) plus the pending items and the picks up to and including
	// this one (quality = probability).
	Values []float64
}

// Suggest returns the next batch of r.Method on pool given r.Observed. Only
// the observed labels are used (and the pool's labels when r.Prior is
// PriorPrevalence, the authors' rule); the pool may be Unlabeled. The random
// method and random tie-breaking draw from r.Seed, so a suggestion is
// reproducible.
//
// A cold start (no observed label, the first batch of a search) gives every
// item the same Pr(y = 1 | D) = a1, the prior. qVS-AS's objective (eq. 7,
// mean quality times VS_q) is then a1 · VS_q of the batch, so its greedy is
// the greedy maximisation of VS_q alone on the diversity kernel, whatever
// a1 (pending items first, with quality a1 too): the most diverse batch
// under the symmetrised kNN kernel, exact ties in the tie order. One-step,
// ECI, SELECT and ENS have nothing to rank on (every score ties at the first
// pick; one-step's at every pick), so they get the same batch
// (coldStartMethod), and every method's first batch is one common design,
// as the paper's campaigns start every method from one common positive.
// Random stays random.
func Suggest(pool *Pool, r SuggestRequest) (*Suggestion, error) {
	// A pool of millions: the greedy's per-candidate arrays are garbage
	// after each pick.
	defer knn.LowGCSlack(pool.Len())()
	observed := make(map[int]bool, len(r.Observed))
	for _, o := range r.Observed {
		observed[o.Index] = true
	}
	for _, x := range r.Pending {
		if x < 0 || x >= pool.Len() {
			return nil, fmt.Errorf("pending item %d: expected an index in [0, %d)", x, pool.Len())
		}
		if observed[x] {
			return nil, fmt.Errorf("item %d is both labelled and pending", x)
		}
	}
	if free := pool.Len() - len(r.Observed) - len(r.Pending); r.Batch > free {
		if len(r.Pending) > 0 {
			return nil, fmt.Errorf("batch %d: only %d items are neither labelled nor pending", r.Batch, free)
		}
		return nil, fmt.Errorf("batch %d: only %d items are unlabelled", r.Batch, free)
	}
	var order []int
	switch r.Ties {
	case "random":
		order = randomOrder(pool.Len(), rng.New(r.Seed, "suggest-order"))
	case "index":
	default:
		return nil, fmt.Errorf("ties: %q, expected random or index", r.Ties)
	}
	// The pseudo-counts are set once the labels are observed (FitPrior
	// reads them).
	space := pool.Space
	if r.ConsumeGraph {
		space = pool.spaceInPlace
	}
	sp, err := space(order, 0.5, 0.5)
	if err != nil {
		return nil, err
	}
	m := sp.Prior.Clone()
	for _, o := range r.Observed {
		m.Observe(sp.View(o.Index), o.Positive)
	}
	a0, a1, err := pool.PseudoCounts(r.Prior, m)
	if err != nil {
		return nil, err
	}
	m.Alpha0, m.Alpha1 = a0, a1
	cold := len(r.Observed) == 0
	method := r.Method
	if cold {
		method = coldStartMethod(method)
	}
	policy, err := newPolicy(method, r.Settings, sp.Kernel)
	if err != nil {
		return nil, err
	}
	pending := make([]int, len(r.Pending))
	for t, x := range r.Pending {
		pending[t] = sp.View(x)
	}
	st := &State{Model: m, Remaining: max(r.Remaining, r.Batch), RNG: rngFor(r.Seed, "suggest", m.NumObserved()), Workers: r.Workers, Pending: pending}
	picks, err := policy.Batch(st, r.Batch)
	if err != nil {
		return nil, err
	}
	values, err := batchValues(sp.Kernel, m, append(pending, picks...), r.Settings.Q)
	if err != nil {
		return nil, err
	}
	values = values[len(pending):]
	s := &Suggestion{ColdStart: cold, PickedBy: method, A0: a0, A1: a1, Fit: FitPrior(m), Values: values}
	for _, v := range picks {
		s.Picks = append(s.Picks, sp.Orig(v))
		s.Probabilities = append(s.Probabilities, m.Probability(v))
	}
	return s, nil
}

// coldStartMethod is the method whose policy picks a cold-start batch (no
// label observed) asked of method: random for random, else qvs (qVS-AS,
// whose batch is then the greedy maximisation of VS_q; see Suggest).
func coldStartMethod(method string) string {
	if method == "random" {
		return method
	}
	return "qvs"
}
