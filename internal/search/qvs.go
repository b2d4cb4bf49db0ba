package search

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// QVS is qVS-AS, the paper's Algorithm 2: the batch X greedily maximises
// eq. 7,
//
//	qVS(D+ ∪ X; k, p) = (Σ_{x ∈ D+ ∪ X} s(x) / |D+ ∪ X|) · VS_q(D+ ∪ X; k),
//
// with quality s = 1 for the observed positives D+ (a fixed prefix: they
// count in the score but are not picked) and s = Pr(y = 1 | D) for the
// unlabelled candidates. The diversity kernel k is the symmetrised kNN graph
// (W + Wᵀ)/2 with unit diagonal, as in the authors' code. Each greedy step is
// vendi.Greedy's exact evaluation (secular equation), ties within
// vendi.TieTol to the lowest index.
//
// q = 0 is the traditional, diversity-blind search: VS_0 counts items, so
// the batch is the top-b probabilities (as in the authors' code); it is
// computed that way rather than through Greedy, whose numerical rank would
// only differ for exactly duplicated items.
//
// AuthorsShortcut replaces the exact greedy step by the authors' rule
// (vertaix/Quality-Weighted-Vendi-Score, diverse_search/batch_policies.py,
// BatchVendiActiveSearch): every candidate whose own directed kNN row has no
// edge to the positives and picks so far is "masked", and all masked
// candidates take the qVS of the first masked one, its probability
// included, although the symmetrised kernel may still link them to the
// chosen set (through the chosen items' rows) and their probabilities
// differ. The other candidates are scored exactly; ties go to the lowest
// index, and the first masked candidate is the lowest-index one, so a
// masked win picks it (under ties: random, the pool order is random, as the
// authors' random tie-breaking among the equal masked values). The
// shortcut reproduces the paper's q = ∞ row of Table 1 (the authors' code
// at k = 100 gives 21 positives, VS_∞ 15.9), which exact greedy does not
// (13-15 positives).
type QVS struct {
	Q               vendi.Order  // order of VS
	Kernel          vendi.Kernel // diversity kernel over the pool's items
	AuthorsShortcut bool         // the authors' shared value for masked candidates (see above)
}

func (QVS) Name() string { return "qvs" }

func (v QVS) Params() string {
	if v.AuthorsShortcut {
		return "authors_shortcut=true"
	}
	return ""
}

func (v QVS) Batch(st *State, b int) ([]int, error) {
	res, err := v.batch(st, b)
	return res.Picks, err
}

func (v QVS) batch(st *State, b int) (vendi.GreedyResult, error) {
	m := st.Model
	if err := st.checkBatch(b); err != nil {
		return vendi.GreedyResult{}, err
	}
	if v.Q == 0 {
		picks, err := topProbabilities(st, b)
		return vendi.GreedyResult{Picks: picks}, err
	}
	if v.Kernel == nil || v.Kernel.Len() != m.Len() {
		return vendi.GreedyResult{}, fmt.Errorf("search: qVS-AS needs a diversity kernel over the %d pool items", m.Len())
	}
	quality := m.Probabilities(nil)
	pending := make([]bool, m.Len())
	for _, x := range st.Pending {
		pending[x] = true
	}
	var prefix []int
	cand := make([]int, 0, m.Len()-m.NumObserved()) // grown once
	for i := range quality {
		switch {
		case pending[i]:
			// in the set after the positives, quality = probability
		case !m.Observed(i):
			cand = append(cand, i)
		case m.Positive(i):
			prefix = append(prefix, i)
			quality[i] = 1
		default:
			quality[i] = 0 // observed negatives are neither prefix nor candidates
		}
	}
	prefix = append(prefix, st.Pending...)
	// The greedy's memo carries exact work (block spectra, secular roots)
	// to the next batch of the run; the picks are the same without it.
	memo, _ := st.Carry.get().(*vendi.GreedyMemo)
	if memo == nil && (st.Carry != nil || v.AuthorsShortcut) {
		memo = &vendi.GreedyMemo{}
		st.Carry.set(memo)
	}
	if v.AuthorsShortcut {
		return v.authorsBatch(st, b, quality, prefix, cand, memo)
	}
	return vendi.Greedy(vendi.GreedyProblem{
		Kernel: v.Kernel, Quality: quality, Prefix: prefix, Candidates: cand,
		K: b, Q: v.Q, Workers: st.Workers, Memo: memo,
	})
}

// authorsBatch is the batch under AuthorsShortcut: each step runs the exact
// greedy step over the unmasked candidates plus the first (lowest-index)
// masked one, which stands for every masked candidate: they all share its
// value, and among equal values the lowest index, that one, wins. cand is
// ascending. Each step's Greedy call passes memo to the next.
func (v QVS) authorsBatch(st *State, b int, quality []float64, prefix, cand []int, memo *vendi.GreedyMemo) (vendi.GreedyResult, error) {
	m := st.Model
	chosen := append([]int(nil), prefix...)
	inChosen := make([]bool, m.Len())
	for _, i := range prefix {
		inChosen[i] = true
	}
	var res vendi.GreedyResult
	step := make([]int, 0, len(cand))
	for t := 0; t < b; t++ {
		step = step[:0]
		firstMasked := true
		for _, c := range cand {
			if inChosen[c] {
				continue
			}
			if ownRowHits(m, c, inChosen) {
				step = append(step, c)
			} else if firstMasked {
				step = append(step, c)
				firstMasked = false
			}
		}
		r, err := vendi.Greedy(vendi.GreedyProblem{
			Kernel: v.Kernel, Quality: quality, Prefix: chosen, Candidates: step,
			K: 1, Q: v.Q, Workers: st.Workers, Memo: memo,
		})
		if err != nil {
			return res, err
		}
		pick := r.Picks[0]
		chosen = append(chosen, pick)
		inChosen[pick] = true
		res.Picks = append(res.Picks, pick)
		res.Scores = append(res.Scores, r.Scores[0])
	}
	return res, nil
}

// ownRowHits reports whether item c's own directed kNN row has an edge to a
// chosen item (the authors' mask is its negation).
func ownRowHits(m *Model, c int, chosen []bool) bool {
	nbr, w := m.Neighbors(c)
	for k, j := range nbr {
		if w[k] != 0 && chosen[j] {
			return true
		}
	}
	return false
}

// qvsMethod is qVS-AS in a campaign: one run per order of q (the
// protocol's orders, a growable key of every campaign), keyed -authors
// under the authors' shortcut.
var qvsMethod = Method{
	Name: "qvs",
	New: func(s PolicySettings, kernel vendi.Kernel) Policy {
		return QVS{Q: s.Q, Kernel: kernel, AuthorsShortcut: s.AuthorsShortcut}
	},
	Settings: func(p Protocol) ([]Setting, error) {
		if p.Q.Len() == 0 {
			return nil, fmt.Errorf("method qvs needs orders q")
		}
		for _, q := range p.Q.Orders() {
			if err := q.Validate(); err != nil { // an Order set in Go code
				return nil, configkeys.Invalid("q", q.String(), "%v", err)
			}
		}
		if err := configkeys.Unique("q", p.Q.Canonical().Text()); err != nil {
			return nil, err // an order given twice, as 1 and 1.0 say
		}
		var out []Setting
		for _, q := range p.Q.Orders() {
			var labels []string
			if p.AuthorsShortcut {
				labels = []string{"authors"} // a folder never mixes the two rules under one key
			}
			out = append(out, Setting{Q: q.String(), Labels: labels, Settings: PolicySettings{Q: q, AuthorsShortcut: p.AuthorsShortcut}})
		}
		return out, nil
	},
}
