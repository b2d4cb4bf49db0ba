package search

import (
	"fmt"
	"math"
	"strconv"

	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ECI is expected coverage improvement (Malkomes et al. 2021), as the
// authors run it on a kNN graph. The neighbourhood of an
// item x is x itself plus the neighbours j in x's own kNN list with
// similarity w(x, j) > Threshold (strictly, as the authors' code: a
// neighbour exactly at the threshold is out; about 2 % of photoswitch edges
// sit exactly at 0.75). Every item in the neighbourhood of a
// labelled item is covered. The score of an unlabelled candidate x is the
// summed probability of the uncovered, unlabelled items of its neighbourhood:
//
//	ECI(x) = Σ_{j ∈ N(x), j uncovered, unlabelled} Pr(y_j = 1 | D).
//
// A batch is built greedily: after each pick its label is fantasised
// (Fantasy) and the pick covers its neighbourhood.
//
// Deviation from the authors' code, on purpose: their reverse index is
// filled with 0 instead of -1, so a labelled neighbour is read as the
// probability of the first unlabelled item. Here a labelled neighbour
// contributes 0. Their nearest-neighbour lists start with the item itself;
// our graphs omit self, so x is added explicitly.
type ECI struct {
	Threshold float64
	Fantasy   Fantasy
}

func (ECI) Name() string { return "eci" }

func (e ECI) Params() string {
	return "threshold=" + strconv.FormatFloat(e.Threshold, 'g', -1, 64) + " fantasy=" + e.Fantasy.String()
}

// Batch picks b items greedily under fantasised labels.
//
// Computation: every item's open mass (its probability, or 0 once it is
// labelled or covered) is kept in one array, and a candidate's score sums
// the open masses of its neighbourhood in the order x, then x's neighbour
// list. After a pick only the items whose open mass changed (bitwise) are
// followed, and each candidate whose neighbourhood holds one of them is
// rescored once, by the same sum as the full pass, so the scores are
// bitwise those of a full recomputation.
func (e ECI) Batch(st *State, b int) ([]int, error) {
	return e.batch(st, b, nil)
}

// batch is Batch; check, if not nil, sees the fantasised model and the
// scores before every pick (tests compare them with a full recomputation).
func (e ECI) batch(st *State, b int, check func(fm *Model, score []float64)) ([]int, error) {
	if math.IsNaN(e.Threshold) {
		return nil, fmt.Errorf("search: ECI threshold is NaN")
	}
	if err := st.checkBatch(b); err != nil {
		return nil, err
	}
	// Pending items are fantasised as the batch's first picks; the memo
	// is of batches without them.
	fm := st.fantasyModel(e.Fantasy)
	carry := st.Carry
	if len(st.Pending) > 0 {
		carry = nil
	}
	covered := e.Covered(fm)
	open := openMass(fm, covered)
	n := fm.Len()
	score := make([]float64, n)
	mark := make([]int32, n) // mark[y] = stamp once y is queued for rescoring
	var rescore []int32
	memo, _ := carry.get().(*eciMemo)
	if memo.fits(fm, e.Threshold) {
		// Since the last batch's first pick, only the items whose open mass
		// or label changed can change a score.
		copy(score, memo.score)
		for j := range n {
			if math.Float64bits(open[j]) != math.Float64bits(memo.open[j]) {
				rescore = e.queue(fm, int32(j), mark, 1, rescore)
			} else if fm.Observed(j) != memo.observed[j] && mark[j] != 1 {
				mark[j] = 1
				rescore = append(rescore, int32(j))
			}
		}
		for _, y := range rescore {
			e.scoreOne(fm, open, score, int(y))
		}
	} else {
		e.scores(fm, open, score, st.Workers)
		memo = &eciMemo{}
		carry.set(memo)
	}
	if carry != nil {
		memo.save(fm, e.Threshold, open, score)
	}
	picks := make([]int, 0, b)
	var changed []int32
	for len(picks) < b {
		if check != nil {
			check(fm, score)
		}
		x, err := argmaxUnobserved(score, fm)
		if err != nil {
			return nil, err
		}
		picks = append(picks, x)
		if len(picks) == b {
			break
		}
		stamp := int32(len(picks) + 1)
		fm.Observe(x, bool(e.Fantasy))
		e.cover(fm, x, covered)
		// The fantasy changes the open mass of x (labelled), of its reverse
		// neighbours (probability) and of its close neighbours (covered).
		changed = append(changed[:0], int32(x))
		rev, _ := fm.g.rev.Of(x)
		changed = append(changed, rev...)
		nbr, w := fm.Neighbors(x)
		for t, j := range nbr {
			if w[t] > e.Threshold {
				changed = append(changed, j)
			}
		}
		score[x] = math.Inf(-1)
		mark[x] = stamp
		rescore = rescore[:0]
		for _, j := range changed {
			v := 0.0
			if !covered[j] && !fm.Observed(int(j)) {
				v = fm.Probability(int(j))
			}
			if math.Float64bits(v) != math.Float64bits(open[j]) {
				open[j] = v
				rescore = e.queue(fm, j, mark, stamp, rescore)
			}
		}
		for _, y := range rescore {
			e.scoreOne(fm, open, score, int(y))
		}
	}
	return picks, nil
}

// queue appends to rescore, once per stamp, the candidates whose
// neighbourhood holds j: j itself and the items listing j as a neighbour
// with similarity above the threshold.
func (e ECI) queue(m *Model, j int32, mark []int32, stamp int32, rescore []int32) []int32 {
	if mark[j] != stamp {
		mark[j] = stamp
		rescore = append(rescore, j)
	}
	rev, at := m.Influenced(int(j))
	for u, y := range rev {
		if m.InfluenceWeight(y, at.At(u)) > e.Threshold && mark[y] != stamp {
			mark[y] = stamp
			rescore = append(rescore, y)
		}
	}
	return rescore
}

// eciMemo is what ECI carries from one batch of a run to the next: the
// labels, open masses and scores before the previous batch's first pick.
// A score depends only on the graph, the threshold, the candidate's label
// and the open masses of its neighbourhood, so the next batch rescores only
// the candidates where one of these changed.
type eciMemo struct {
	g         *graph
	threshold float64
	observed  []bool
	open      []float64
	score     []float64
}

// fits reports whether the memo was saved for m's graph and threshold.
func (c *eciMemo) fits(m *Model, threshold float64) bool {
	return c != nil && c.g == m.g && c.threshold == threshold && len(c.score) == m.Len()
}

func (c *eciMemo) save(m *Model, threshold float64, open, score []float64) {
	c.g, c.threshold = m.g, threshold
	c.observed = append(c.observed[:0], m.observed...)
	c.open = append(c.open[:0], open...)
	c.score = append(c.score[:0], score...)
}

// Scores returns ECI(x) for every item under the current model (labelled
// items get -Inf), the first step of Batch.
func (e ECI) Scores(m *Model, workers int) []float64 {
	open := openMass(m, e.Covered(m))
	score := make([]float64, m.Len())
	e.scores(m, open, score, workers)
	return score
}

// Covered marks the items in the neighbourhood of some labelled item.
func (e ECI) Covered(m *Model) []bool {
	covered := make([]bool, m.Len())
	for l := range covered {
		if m.Observed(l) {
			e.cover(m, l, covered)
		}
	}
	return covered
}

// openMass returns every item's open mass: its probability, or 0 if it is
// labelled or covered.
func openMass(m *Model, covered []bool) []float64 {
	open := m.Probabilities(nil)
	for j := range open {
		if covered[j] || m.Observed(j) {
			open[j] = 0
		}
	}
	return open
}

func (e ECI) cover(m *Model, l int, covered []bool) {
	covered[l] = true
	nbr, w := m.Neighbors(l)
	for t, j := range nbr {
		if w[t] > e.Threshold {
			covered[j] = true
		}
	}
}

func (e ECI) scores(m *Model, open, score []float64, workers int) {
	parallel.Split(len(score), workers, minChunk, func(lo, hi int) {
		for x := lo; x < hi; x++ {
			e.scoreOne(m, open, score, x)
		}
	})
}

// scoreOne sets score[x]: -Inf if x is labelled, else the open probability
// mass of its neighbourhood, summed in the order x, then x's neighbour list
// (open[j] is p_j, or 0 if j is labelled or covered).
func (e ECI) scoreOne(m *Model, open, score []float64, x int) {
	if m.Observed(x) {
		score[x] = math.Inf(-1)
		return
	}
	s := open[x]
	nbr, w := m.Neighbors(x)
	for t, j := range nbr {
		if w[t] > e.Threshold {
			s += open[j]
		}
	}
	score[x] = s
}

// eciMethod is ECI in a campaign: one run per threshold of eci.thresholds,
// each with eci.fantasy.
var eciMethod = Method{
	Name: "eci",
	Grid: []string{"eci.thresholds"},
	New:  func(s PolicySettings, _ vendi.Kernel) Policy { return ECI{Threshold: s.Threshold, Fantasy: s.Fantasy} },
	Settings: func(p Protocol) ([]Setting, error) {
		fan, err := ParseFantasy(p.ECI.Fantasy)
		if err != nil {
			return nil, fmt.Errorf("eci.fantasy: %w", err)
		}
		if len(p.ECI.Thresholds) == 0 {
			return nil, fmt.Errorf("method eci needs eci.thresholds")
		}
		var out []Setting
		for _, t := range p.ECI.Thresholds {
			if err := CheckThreshold(t); err != nil {
				return nil, fmt.Errorf("eci.thresholds: %w", err)
			}
			out = append(out, Setting{Labels: []string{"t" + num(t), fan.String()}, Settings: PolicySettings{Threshold: t, Fantasy: fan}})
		}
		return out, nil
	},
}
