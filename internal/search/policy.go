package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// State is what a policy sees when it chooses the next batch.
type State struct {
	// Model is the kNN model conditioned on every label observed so far.
	// Policies must not modify it (they fantasise on a Clone).
	Model *Model
	// Remaining is the number of queries left in the budget, this batch
	// included (ENS looks ahead over it).
	Remaining int
	// RNG is the randomness of this iteration only (random search), derived
	// from (seed, run, iteration) so that a resumed run draws the same.
	RNG *rand.Rand
	// Workers bounds the goroutines a policy may use for scoring (>= 1).
	Workers int
	// Carry, if not nil, is what a policy keeps from one batch of a run to
	// the next (Run passes one per run). A policy returns the same batch
	// with or without it; it only saves work.
	Carry *Carry
	// Pending are items already chosen for this batch whose labels are
	// not known yet (experiments still running), in the order they were
	// chosen. A policy never picks them and treats them as the first picks
	// of the batch it continues: qVS-AS counts them in the set with their
	// probability as quality, ECI, SELECT and ENS fantasise their labels as
	// they fantasise their own picks, one-step and random skip them. So a
	// batch of b asked with Pending = the first j picks of a batch of j + b
	// is the rest of that batch (ENS: with Remaining reduced by j). Nil in
	// campaigns.
	Pending []int
}

// checkBatch checks State.Pending (in range, not observed, listed once)
// and that b items are left to pick besides the observed and pending ones.
func (st *State) checkBatch(b int) error {
	m := st.Model
	seen := make(map[int]bool, len(st.Pending))
	for _, x := range st.Pending {
		if x < 0 || x >= m.Len() {
			return fmt.Errorf("search: pending item %d out of range [0, %d)", x, m.Len())
		}
		if m.Observed(x) {
			return fmt.Errorf("search: pending item %d is labelled", x)
		}
		if seen[x] {
			return fmt.Errorf("search: pending item %d listed twice", x)
		}
		seen[x] = true
	}
	return checkBatch(b, m.Len()-m.NumObserved()-len(st.Pending))
}

// fantasyModel is a clone of st.Model with every pending item observed with
// the label f, in order: the model a batch policy holds after fantasising
// its own first picks.
func (st *State) fantasyModel(f Fantasy) *Model {
	fm := st.Model.Clone()
	for _, x := range st.Pending {
		fm.Observe(x, bool(f))
	}
	return fm
}

// Carry holds a policy's memory between the batches of one run (see
// State.Carry). The zero value is empty; a nil *Carry keeps nothing.
type Carry struct{ memo any }

func (c *Carry) get() any {
	if c == nil {
		return nil
	}
	return c.memo
}

func (c *Carry) set(memo any) {
	if c != nil {
		c.memo = memo
	}
}

// Policy chooses a batch of unlabelled items to query.
type Policy interface {
	// Name is the method name used in results ("random", "eci", ...).
	Name() string
	// Params describes the hyperparameters ("threshold=0.25 fantasy=pessimistic"),
	// "" when there are none.
	Params() string
	// Batch returns b distinct unlabelled items in the order chosen
	// (b <= the number of unlabelled items).
	Batch(st *State, b int) ([]int, error)
}

// random queries b unlabelled items uniformly at random without replacement.
type random struct{}

func (random) Name() string   { return "random" }
func (random) Params() string { return "" }

// Batch draws by a partial Fisher–Yates shuffle of the unlabelled items,
// pending ones included, keeping the first b that are not pending: the
// shuffle's prefix does not depend on how far it runs, so pending items
// drawn by the same RNG as the first picks of a batch leave its rest.
func (random) Batch(st *State, b int) ([]int, error) {
	if err := st.checkBatch(b); err != nil {
		return nil, err
	}
	if st.RNG == nil {
		return nil, fmt.Errorf("search: random policy needs State.RNG")
	}
	pending := make(map[int]bool, len(st.Pending))
	for _, x := range st.Pending {
		pending[x] = true
	}
	cand := st.Model.Unobserved()
	picks := make([]int, 0, b)
	for i := 0; len(picks) < b; i++ {
		j := i + st.RNG.IntN(len(cand)-i)
		cand[i], cand[j] = cand[j], cand[i]
		if !pending[cand[i]] {
			picks = append(picks, cand[i])
		}
	}
	return picks, nil
}

// oneStep is the one-step (greedy) policy of Garnett et al. 2012: the b
// unlabelled items of highest probability, ties to the lowest index. It is
// also qVS-AS with q = 0 (Section 3.1: VS_0 is the count).
type oneStep struct{}

func (oneStep) Name() string   { return "one-step" }
func (oneStep) Params() string { return "" }

// Batch returns the top b; pending items are skipped (one-step does not
// fantasise, so they change no probability).
func (oneStep) Batch(st *State, b int) ([]int, error) {
	return topProbabilities(st, b)
}

// topProbabilities returns the b unlabelled, not pending items of highest
// probability under st.Model, ties to the lowest index.
func topProbabilities(st *State, b int) ([]int, error) {
	if err := st.checkBatch(b); err != nil {
		return nil, err
	}
	m := st.Model
	if len(st.Pending) > 0 {
		// Pending items rank as observed ones: never.
		m = m.Clone()
		for _, x := range st.Pending {
			m.observed[x] = true
		}
	}
	p := m.Probabilities(nil)
	for i := range p {
		if m.Observed(i) {
			p[i] = math.Inf(-1)
		}
	}
	return topScores(p, m, b)
}

func checkBatch(b, unlabelled int) error {
	if b < 1 {
		return fmt.Errorf("search: batch size %d must be at least 1", b)
	}
	if b > unlabelled {
		return fmt.Errorf("search: batch size %d exceeds the %d unlabelled items", b, unlabelled)
	}
	return nil
}

// topScores returns the b unobserved items of largest score, best first,
// ties broken towards the lowest index. NaN scores are an error.
func topScores(score []float64, m *Model, b int) ([]int, error) {
	top := make([]int, 0, b+1)
	better := func(i, j int) bool { // i ranks above j
		return score[i] > score[j] || (score[i] == score[j] && i < j)
	}
	for i, s := range score {
		if m.Observed(i) {
			continue
		}
		if math.IsNaN(s) {
			return nil, fmt.Errorf("search: score of item %d is NaN", i)
		}
		if len(top) == b && !better(i, top[b-1]) {
			continue
		}
		// Insert keeping top sorted best first; scanning in increasing index
		// order makes an equal score rank below the earlier item.
		k := sort.Search(len(top), func(t int) bool { return better(i, top[t]) })
		top = append(top, 0)
		copy(top[k+1:], top[k:])
		top[k] = i
		if len(top) > b {
			top = top[:b]
		}
	}
	if len(top) < b {
		return nil, fmt.Errorf("search: only %d of %d items could be chosen", len(top), b)
	}
	return top, nil
}

// argmaxUnobserved returns the unobserved item of largest score, lowest index
// on ties.
func argmaxUnobserved(score []float64, m *Model) (int, error) {
	t, err := topScores(score, m, 1)
	if err != nil {
		return -1, err
	}
	return t[0], nil
}

// minChunk is the fewest candidates a goroutine scores in the baselines'
// parallel loops (parallel.Split): below it, starting the goroutine costs
// more than its share of the work.
const minChunk = 2048

// Fantasy is how batch policies label a pick before choosing the next one
// (Section 3.1 baselines; authors' code): pessimistic = negative, optimistic
// = positive.
type Fantasy bool

const (
	pessimistic Fantasy = false
	optimistic  Fantasy = true
)

func (f Fantasy) String() string {
	if f {
		return "optimistic"
	}
	return "pessimistic"
}

// ParseFantasy parses "pessimistic" or "optimistic".
func ParseFantasy(s string) (Fantasy, error) {
	switch s {
	case "pessimistic", "":
		return pessimistic, nil
	case "optimistic":
		return optimistic, nil
	}
	return pessimistic, fmt.Errorf("fantasy %q: expected pessimistic or optimistic", s)
}

// randomMethod is Random in a campaign: no hyperparameters.
var randomMethod = Method{Name: "random", New: func(PolicySettings, vendi.Kernel) Policy { return random{} }}

// oneStepMethod is oneStep in a campaign: no hyperparameters.
var oneStepMethod = Method{Name: "one-step", New: func(PolicySettings, vendi.Kernel) Policy { return oneStep{} }}
