package search

import (
	"fmt"

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
// (W + Wᵀ)/2 with unit diagonal (reference notes §2). Each greedy step is
// vendi.Greedy's exact evaluation (secular equation), ties within
// vendi.TieTol to the lowest index.
//
// q = 0 is the traditional, diversity-blind search: VS_0 counts items, so
// the batch is the top-b probabilities (as in the authors' code); it is
// computed that way rather than through Greedy, whose numerical rank would
// only differ for exactly duplicated items.
type QVS struct {
	Q      float64      // order of VS (math.Inf(1) for ∞)
	Kernel vendi.Kernel // diversity kernel over the pool's items
}

func (QVS) Name() string   { return "qvs" }
func (QVS) Params() string { return "" }

func (v QVS) Batch(st *State, b int) ([]int, error) {
	res, err := v.batch(st, b)
	return res.Picks, err
}

func (v QVS) batch(st *State, b int) (vendi.GreedyResult, error) {
	m := st.Model
	if err := checkBatch(b, m.Len()-m.NumObserved()); err != nil {
		return vendi.GreedyResult{}, err
	}
	if err := vendi.CheckOrder(v.Q); err != nil {
		return vendi.GreedyResult{}, fmt.Errorf("search: qVS-AS: %w", err)
	}
	if v.Q == 0 {
		picks, err := topProbabilities(m, b)
		return vendi.GreedyResult{Picks: picks}, err
	}
	if v.Kernel == nil || v.Kernel.Len() != m.Len() {
		return vendi.GreedyResult{}, fmt.Errorf("search: qVS-AS needs a diversity kernel over the %d pool items", m.Len())
	}
	quality := m.Probabilities(nil)
	var prefix, cand []int
	for i := range quality {
		switch {
		case !m.Observed(i):
			cand = append(cand, i)
		case m.Positive(i):
			prefix = append(prefix, i)
			quality[i] = 1
		default:
			quality[i] = 0 // observed negatives are neither prefix nor candidates
		}
	}
	return vendi.Greedy(vendi.GreedyProblem{
		Kernel: v.Kernel, Quality: quality, Prefix: prefix, Candidates: cand,
		K: b, Q: v.Q, Workers: st.Workers,
	})
}
