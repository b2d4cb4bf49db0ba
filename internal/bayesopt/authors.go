package bayesopt

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// qvs modes (Settings.Mode).
const (
	// ModePaper is qVS-BayesOpt as the paper describes it (Algorithm 1):
	// quality = the objective min-max scaled to [0, 1], centres = the greedy
	// qVS_q set (optionally with Settings.TauFloor at the run's q), and each
	// batch the greedy qVS_q maximiser over the regions' Thompson samples.
	ModePaper = "paper"
	// modeAuthors is qVS-BayesOpt as the authors' code runs it
	// (vertaix/Quality-Weighted-Vendi-Score, diverse_bayesopt/robot/robot.py,
	// mode "qVS"):
	//   - centres: the greedy qVS_q maximiser over all evaluations with
	//     quality = the raw objective values (no scaling; negative values
	//     make a low-diversity set score higher, as in their code);
	//   - a diversity floor that is always on: the i-th centre is valid only
	//     if the VS_q of the centres so far plus it is at least the VS_1 of i
	//     points pairwise Tau apart (the floor is computed at q = 1 whatever
	//     the run's q: robot.py lines 71-75 and 139-146). When no candidate
	//     passes, their tie-break over the all -Inf scores adds a uniformly
	//     random evaluated point to the greedy set (we draw it among the points
	//     not yet in it; they may redraw one already in it) and that region
	//     gets a uniformly random centre at task distance >= Tau from the
	//     centres before it, which is evaluated (randomly_sample_feasible_center):
	//     Ask returns such centres at the head of the batch, each taking one of
	//     its region's points, and Tell recentres the region on its value;
	//   - batches: qVS chooses only the centres; each region proposes its
	//     share of the batch as plain TuRBO Thompson points (no qVS batch step,
	//     no diversity filter).
	// ROBOT's trust-region rules (Settings.FailureTolerance 32 with
	// FailurePerPoint) and its sizes (32 points per region, 1,024 initial
	// points, min(5000, max(2000, 200 d)) candidates) are separate settings:
	// configs/rover-authors.yaml and configs/lunar-authors.yaml set them.
	modeAuthors = "authors"
)

// authors reports whether s runs qVS-BayesOpt in the authors' mode.
func (s Settings) authors() bool { return s.Method == MethodQVS && s.Mode == modeAuthors }

// authorsFloorVS is the floor of the authors' mode for a set of size points:
// the VS_1 of size points pairwise at task distance tau (robot.py q_taus).
func authorsFloorVS(size int, tau float64) float64 { return tauFloorVS(size, tau, 1) }

// authorsGreedy is the centre choice of the authors' code
// (sequential_greedy_maximize_qvs) over n points with similarity sim: k
// sequential picks, each maximising mean(quality) × VS_q of the set so far
// plus the pick, among points whose VS_q reaches floor(set size). When no
// point reaches it, a point drawn uniformly (rng) among those not yet picked
// joins the set as an invalid pick: it counts in later picks' mean quality
// and VS, but its region gets a random centre. It returns the picks in order
// and whether each was valid. k must not exceed n. Ties: the lowest index
// within vendi.TieTol of the best.
//
// Branch and bound keeps the number of similarities (task distances) small:
// since 1 <= VS_q <= s for a set of s points, a candidate whose set has
// quality sum T scores at most T if T >= 0 and T/s otherwise, a bound that
// grows with the candidate's quality; candidates are scored in decreasing
// quality and the search stops once the bound falls below the best score.
// Each candidate's VS_q is a full eigendecomposition of its s x s kernel
// (s <= k, the number of regions). order yields the n points by
// decreasing quality, ties by increasing index (descending's order); the
// search reads it only as far as the bound requires, so a caller that keeps
// the points sorted (runner.byValue) pays for the candidates scored, not for
// n.
func authorsGreedy(n int, sim func(i, j int) float64, quality []float64, order iter.Seq[int], q vendi.Order, k int, floor func(size int) float64, rng *rand.Rand) ([]int, []bool, error) {
	var picks []int
	var valid []bool
	inSet := func(c int) bool { return slices.Contains(picks, c) }
	sum := 0.0
	for ix := 0; ix < k; ix++ {
		size := ix + 1
		fl := floor(size)
		K := mat.NewSymDense(size, nil)
		for a := range picks {
			K.SetSym(a, a, 1)
			for b := a + 1; b < len(picks); b++ {
				K.SetSym(a, b, sim(picks[a], picks[b]))
			}
		}
		K.SetSym(ix, ix, 1)
		best := math.Inf(-1)
		var cands []int
		var vals []float64
		for c := range order {
			if inSet(c) {
				continue
			}
			tot := sum + quality[c]
			bound := tot / float64(size)
			if tot >= 0 {
				bound = tot
			}
			if len(cands) > 0 && bound < best-vendi.TieTol*math.Abs(best) {
				break
			}
			for a, p := range picks {
				K.SetSym(a, ix, sim(p, c))
			}
			vs, err := vendi.Score(K, q)
			if err != nil {
				return nil, nil, err
			}
			if vs < fl*(1-1e-12) {
				continue
			}
			v := tot / float64(size) * vs
			cands, vals = append(cands, c), append(vals, v)
			best = math.Max(best, v)
		}
		pick, ok := -1, len(cands) > 0
		if ok {
			thr := best - vendi.TieTol*math.Abs(best)
			for a, c := range cands {
				if vals[a] >= thr && (pick < 0 || c < pick) {
					pick = c
				}
			}
		} else {
			// Every remaining point fails the floor: the j-th point not
			// yet picked, in index order.
			pick = rng.IntN(n - len(picks))
			sorted := slices.Sorted(slices.Values(picks))
			for _, p := range sorted {
				if p <= pick {
					pick++
				}
			}
		}
		picks, valid = append(picks, pick), append(valid, ok)
		sum += quality[pick]
	}
	return picks, valid, nil
}

// authorsCentres returns the centres of the authors' mode in rank order.
// Live (during the run), an invalid pick's region gets a random centre
// (index -1, to be evaluated by Ask); for the final solutions (live = false)
// invalid picks are left out, so a run may end with fewer than M solutions.
// Draws come from rng.New(seed, key, it, "authors") (invalid picks) and
// (seed, key, it, "centres") (random centres).
func (r *runner) authorsCentres(it int, live bool) ([]centre, error) {
	n := len(r.H)
	v := r.order.vals // the values of H, in order
	tau := r.s.Tau
	picks, valid, err := authorsGreedy(n,
		func(i, j int) float64 { return similarity(r.distance(i, j)) },
		v, r.byValue(), r.s.Q, min(r.s.Regions, n),
		func(size int) float64 { return authorsFloorVS(size, tau) },
		rng.New(r.id.Seed, r.id.Key, it, "authors"))
	if err != nil {
		return nil, fmt.Errorf("authors' qVS centres: %w", err)
	}
	rng := rng.New(r.id.Seed, r.id.Key, it, "centres")
	cs := make([]centre, 0, r.s.Regions)
	for a, i := range picks {
		switch {
		case valid[a]:
			cs = append(cs, centre{index: i, u: r.U[i], value: r.H[i].Value})
		case live:
			cs = append(cs, r.randomCentresFrom(rng, cs, 1)...)
		}
	}
	if live && len(cs) < r.s.Regions { // fewer evaluations than regions
		cs = append(cs, r.randomCentresFrom(rng, cs, r.s.Regions-len(cs))...)
	}
	return cs, nil
}
