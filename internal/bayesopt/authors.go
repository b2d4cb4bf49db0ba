package bayesopt

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// qvs modes (Settings.Mode).
const (
	// ModePaper is qVS-BayesOpt as the paper describes it (Algorithm 1):
	// quality = the objective min-max scaled to [0, 1], centres = the greedy
	// qVS_q set (optionally with Settings.TauFloor at the run's q), and each
	// batch the greedy qVS_q maximiser over the regions' Thompson samples.
	ModePaper = "paper"
	// ModeAuthors is qVS-BayesOpt as the authors' code runs it
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
	//     Ask returns it first among the region's points, in the region's share;
	//   - batches: qVS chooses only the centres; each region proposes its
	//     share of the batch as plain TuRBO Thompson points (no qVS batch step,
	//     no diversity filter).
	// ROBOT's trust-region rules (Settings.FailureTolerance 32 with
	// FailurePerPoint) and its sizes (32 points per region, 1,024 initial
	// points, min(5000, max(2000, 200 d)) candidates) are separate settings:
	// configs/rover-authors.yaml and configs/lunar-authors.yaml set them.
	ModeAuthors = "authors"
)

// authors reports whether s runs qVS-BayesOpt in the authors' mode.
func (s Settings) authors() bool { return s.Method == MethodQVS && s.Mode == ModeAuthors }

// AuthorsFloorVS is the floor of the authors' mode for a set of size points:
// the VS_1 of size points pairwise at task distance tau (robot.py q_taus).
func AuthorsFloorVS(size int, tau float64) float64 { return TauFloorVS(size, tau, 1) }

// authorsGreedy is the centre choice of the authors' code
// (sequential_greedy_maximize_qvs): k sequential picks, each maximising
// mean(quality) × VS_q of the set so far plus the pick, among points whose
// VS_q reaches floor(set size). When no point reaches it, a point drawn
// uniformly (rng) among those not yet picked joins the set as an invalid
// pick: it counts in later picks' mean quality and VS, but its region gets
// a random centre. It returns the picks in order and whether each was valid.
// k must not exceed the kernel's size.
func authorsGreedy(kern vendi.Kernel, quality []float64, q float64, k int, floor func(size int) float64, rng *rand.Rand) ([]int, []bool, error) {
	var picks []int
	var valid []bool
	for len(picks) < k {
		res, err := vendi.Greedy(vendi.GreedyProblem{
			Kernel: kern, Quality: quality, SignedQuality: true, Prefix: picks,
			K: k - len(picks), Q: q, MinVS: floor, Workers: 1,
		})
		if err != nil {
			return nil, nil, err
		}
		for _, p := range res.Picks {
			picks = append(picks, p)
			valid = append(valid, true)
		}
		if len(picks) == k {
			break
		}
		// Every remaining point fails the floor.
		var rest []int
		for i := 0; i < kern.Len(); i++ {
			if !slices.Contains(picks, i) {
				rest = append(rest, i)
			}
		}
		picks = append(picks, rest[rng.IntN(len(rest))])
		valid = append(valid, false)
	}
	return picks, valid, nil
}

// authorsCentres returns the centres of the authors' mode in rank order.
// Live (during the run), an invalid pick's region gets a random centre
// (index -1, to be evaluated by Ask); for the final solutions (live = false)
// invalid picks are left out, so a run may end with fewer than M solutions.
// Draws come from campaign.RNG(seed, key, it, "authors") (invalid picks) and
// (seed, key, it, "centres") (random centres).
func (r *runner) authorsCentres(it int, live bool) []centre {
	n := len(r.H)
	v := make([]float64, n)
	for i, e := range r.H {
		v[i] = e.Value
	}
	tau := r.s.Tau
	picks, valid, err := authorsGreedy(
		vendi.FuncKernel(n, func(i, j int) float64 { return similarity(r.distance(i, j)) }),
		v, r.s.Q, min(r.s.Regions, n),
		func(size int) float64 { return AuthorsFloorVS(size, tau) },
		campaign.RNG(r.id.Seed, r.id.Key, it, "authors"))
	if err != nil { // only on invalid input, which Validate excludes
		panic(fmt.Sprintf("bayesopt: authors' qVS centres: %v", err))
	}
	rng := campaign.RNG(r.id.Seed, r.id.Key, it, "centres")
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
	return cs
}
