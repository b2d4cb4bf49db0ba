package bayesopt

import (
	"iter"
	"math"
	"slices"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// The centres of every iteration are chosen over every successful
// evaluation before it, so replaying a history of n evaluations (suggest on
// a long file, a campaign resumed from its records) chooses centres about
// n/batch times. Choosing them from scratch costs O(n log n) (a sort by
// value) or O(n) qVS scores each time, O(n²) in all. The structures here
// give the same centres, bit for bit, at a cost that grows with what the
// new evaluations change:
//
//   - valueOrder keeps the evaluations sorted by value as they arrive, so
//     TuRBO's top M, ROBOT's rank-ordered scan and the authors' branch and
//     bound read them in order without sorting;
//   - centreMemo keeps the last qVS greedy's picks and tie windows: while
//     the min-max scaling is the same, the greedy over the old evaluations
//     and the new ones is the greedy over the old windows and the new ones
//     (see qvsGreedy), a problem of a few items instead of n.
//
// Settings that change nothing: straightCentres (tests) switches both off.

// straightCentres makes the centre choice sort and score every evaluation
// afresh each time (the straightforward path the tests compare against).
var straightCentres bool

// valueOrder holds item indices 0, 1, 2, ... (added in that order) sorted
// by decreasing value, ties by increasing index (descending's order). main
// and recent are both sorted; an item is inserted into recent, which is
// merged into main when it outgrows about sqrt(len(main)), so n additions
// cost O(n^1.5) element moves in all and a full walk O(n).
type valueOrder struct {
	vals         []float64
	main, recent []int32
	scratch      []int32
}

// before reports whether item a comes before item b.
func (o *valueOrder) before(a, b int32) bool {
	va, vb := o.vals[a], o.vals[b]
	return va > vb || (va == vb && a < b)
}

// add appends the next item, of value v (not NaN).
func (o *valueOrder) add(v float64) {
	i := int32(len(o.vals))
	o.vals = append(o.vals, v)
	at, _ := slices.BinarySearchFunc(o.recent, i, func(e, t int32) int {
		if o.before(e, t) {
			return -1
		}
		return 1
	})
	o.recent = slices.Insert(o.recent, at, i)
	if len(o.recent)*len(o.recent) > 64*64+4*len(o.main) {
		o.merge()
	}
}

// merge moves recent into main.
func (o *valueOrder) merge() {
	out := o.scratch[:0]
	a, b := o.main, o.recent
	for len(a) > 0 && len(b) > 0 {
		if o.before(b[0], a[0]) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(append(out, a...), b...)
	o.scratch, o.main, o.recent = o.main[:0], out, o.recent[:0]
}

// all yields the items in order.
func (o *valueOrder) all() iter.Seq[int] {
	return func(yield func(int) bool) {
		a, b := o.main, o.recent
		for len(a) > 0 || len(b) > 0 {
			var i int32
			if len(a) == 0 || (len(b) > 0 && o.before(b[0], a[0])) {
				i, b = b[0], b[1:]
			} else {
				i, a = a[0], a[1:]
			}
			if !yield(int(i)) {
				return
			}
		}
	}
}

// byValue yields the successful evaluations by decreasing value (ties:
// earlier first): rankByValue's order.
func (r *runner) byValue() iter.Seq[int] {
	if straightCentres {
		return slices.Values(r.rankByValue())
	}
	return r.order.all()
}

// centreMemo is the last qVS centre greedy (runner.qvsGreedy): its problem
// (order, size, floor, the min-max scaling's bounds), the evaluations it
// saw (r.H[:n]), its picks and each pick's tie window (vendi.GreedyResult.Tied:
// its record holders by index, see greedyOver).
type centreMemo struct {
	q      vendi.Order
	k      int
	floor  bool
	lo, hi float64
	n      int
	picks  []int
	tied   [][]int
}

// matches reports whether the memo's problem is this one.
func (m *centreMemo) matches(q vendi.Order, k int, floor bool, lo, hi float64) bool {
	return m != nil && m.q == q && m.k == k && m.floor == floor && m.tied != nil &&
		math.Float64bits(m.lo) == math.Float64bits(lo) && math.Float64bits(m.hi) == math.Float64bits(hi)
}

// incremental returns the greedy over r.H from the memo's: the greedy
// restricted to the memo's tie windows and the evaluations added since,
// when that provably equals the greedy over every evaluation; ok false
// otherwise.
//
// Why it is exact: with the same quality scaling, an old evaluation's qVS
// at pick t depends only on the picks before t. If they are the memo's, the
// old evaluations' best value is the memo's and every old evaluation within
// the tie window of the new best (which is at least the old best, so its
// window lies inside the old one) was in the memo's window of pick t; the
// lowest index among them is one of the memo's record holders (a lower
// index with a qVS at least its own would be in the window too), and so is
// the old best. The new evaluations are all candidates. So the restricted
// greedy has the same best value and the same pick (the lowest index in
// the window; the restriction keeps the order of indices), and its
// window's record holders are the full window's. It is checked pick
// by pick: the picks before the last (or before a floor stop) must be the
// memo's; else ok is false and the caller runs the full greedy.
func (m *centreMemo) incremental(r *runner, n int) (picks []int, tied [][]int, ok bool, err error) {
	if n == m.n {
		return m.picks, m.tied, true, nil
	}
	var items []int
	for _, w := range m.tied {
		items = append(items, w...)
	}
	items = append(items, m.picks...)
	slices.Sort(items)
	items = slices.Compact(items)
	for i := m.n; i < n; i++ {
		items = append(items, i)
	}
	if len(items) < m.k {
		return nil, nil, false, nil
	}
	picks, tied, err = r.greedyOver(items, m.q, m.k, m.floor)
	if err != nil || tied == nil {
		return nil, nil, false, err
	}
	same := len(picks) - 1 // the prefix that must be the memo's
	if len(picks) < m.k {
		same = len(picks) // stopped at the floor: that pick's prefix too
	}
	if same > len(m.picks) || !slices.Equal(picks[:same], m.picks[:same]) {
		return nil, nil, false, nil
	}
	return picks, tied, true, nil
}

// minMaxScale is x scaled by (x - lo) / (hi - lo), 1 when hi = lo
// (minMaxQuality's formula).
func minMaxScale(x, lo, hi float64) float64 {
	if hi > lo {
		return (x - lo) / (hi - lo)
	}
	return 1
}

// greedyOver is the qVS_q greedy of size k over the successful evaluations
// items (increasing indices; nil: all of them), quality the value min-max
// scaled over every successful evaluation, similarity exp(-d²/2). It
// returns the picks and tie windows as evaluation indices.
func (r *runner) greedyOver(items []int, q vendi.Order, k int, floor bool) ([]int, [][]int, error) {
	n := len(r.H)
	at := func(a int) int { return a }
	if items != nil {
		n = len(items)
		at = func(a int) int { return items[a] }
	}
	quality := make([]float64, n)
	for a := range quality {
		quality[a] = minMaxScale(r.H[at(a)].Value, r.vlo, r.vhi)
	}
	var minVS func(int) float64
	if floor {
		minVS = func(size int) float64 { return tauFloorVS(size, r.s.Tau, q) }
	}
	res, err := vendi.Greedy(vendi.GreedyProblem{
		Kernel:  vendi.FuncKernel(n, func(a, b int) float64 { return similarity(r.distance(at(a), at(b))) }),
		Quality: quality,
		K:       k,
		Q:       q,
		Workers: 1, // the distance cache is not safe for concurrent use
		MinVS:   minVS,
	})
	if err != nil {
		return nil, nil, err
	}
	picks := make([]int, len(res.Picks))
	for t, p := range res.Picks {
		picks[t] = at(p)
	}
	var tied [][]int
	if res.Tied != nil {
		tied = make([][]int, len(res.Tied))
		for t, w := range res.Tied {
			// Only the window's record holders: each has a greater qVS
			// than every lower index in the window (the first one
			// included). Another member y is never picked while a lower
			// index x with qVS(x) >= qVS(y) is in the window, and x stays
			// in it as long as y does.
			best := math.Inf(-1)
			for i, a := range w {
				if v := res.TiedValues[t][i]; v > best || i == 0 {
					tied[t], best = append(tied[t], at(a)), v
				}
			}
		}
	}
	return picks, tied, nil
}

// maxDistanceCache bounds the distance cache (entries): the centre
// choices of a long history would otherwise keep a distance from every
// past centre to every evaluation. Dropping it changes no result.
const maxDistanceCache = 1 << 21
