package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// denseSymmetrized builds (W + Wᵀ)/2 with unit diagonal directly from the
// graph (qVS-AS's diversity kernel), independently of vendi.SymmetrizeKNN.
func denseSymmetrized(nbr [][]int32, w [][]float64) *mat.SymDense {
	n := len(nbr)
	W := mat.NewDense(n, n, nil)
	for i, row := range nbr {
		for t, j := range row {
			W.Set(i, int(j), W.At(i, int(j))+w[i][t])
		}
	}
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			K.SetSym(i, j, (W.At(i, j)+W.At(j, i))/2)
		}
	}
	return K
}

// bruteQVS is eq. 7 evaluated from scratch: mean quality times VS_q of the
// kernel restricted to items.
func bruteQVS(t *testing.T, K *mat.SymDense, items []int, quality []float64, q vendi.Order) float64 {
	sub := mat.NewSymDense(len(items), nil)
	for a, i := range items {
		for b, j := range items {
			if b >= a {
				sub.SetSym(a, b, K.At(i, j))
			}
		}
	}
	vs, err := vendi.Score(sub, q)
	if err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for _, v := range quality {
		s += v
	}
	return s / float64(len(items)) * vs
}

// bruteGreedy is Algorithm 2 by brute force: every step scores every
// unlabelled candidate by bruteQVS of positives ∪ picks ∪ {c} and keeps the
// best, treating values within vendi.TieTol (relative) as tied and taking
// the lowest index among them (vendi.Greedy's documented tie rule).
func bruteGreedy(t *testing.T, K *mat.SymDense, m *Model, b int, q vendi.Order) ([]int, []float64) {
	var items []int
	var quality []float64
	for i := 0; i < m.Len(); i++ {
		if m.Observed(i) && m.Positive(i) {
			items = append(items, i)
			quality = append(quality, 1)
		}
	}
	chosen := map[int]bool{}
	var picks []int
	var values []float64
	for len(picks) < b {
		vals := map[int]float64{}
		best := math.Inf(-1)
		for c := 0; c < m.Len(); c++ {
			if m.Observed(c) || chosen[c] {
				continue
			}
			v := bruteQVS(t, K, append(slices.Clone(items), c), append(slices.Clone(quality), m.Probability(c)), q)
			vals[c] = v
			best = max(best, v)
		}
		arg := -1
		for c := 0; c < m.Len(); c++ {
			if v, ok := vals[c]; ok && v >= best-vendi.TieTol*math.Abs(best) {
				arg = c
				break
			}
		}
		picks = append(picks, arg)
		values = append(values, vals[arg])
		chosen[arg] = true
		items = append(items, arg)
		quality = append(quality, m.Probability(arg))
	}
	return picks, values
}

// smallQVSPool draws a 25-39 item pool: a random kNN graph with 1..maxK
// neighbours per row (coarse weights for ties), a model with minObs to
// minObs+7 random labels, the sparse diversity kernel and its dense copy.
func smallQVSPool(t *testing.T, rng *rand.Rand, maxK, minObs int, coarse bool) ([][]int32, [][]float64, *Model, *vendi.Sparse, *mat.SymDense) {
	t.Helper()
	n := 25 + rng.IntN(15)
	nbr, w := randomGraph(rng, n, 1+rng.IntN(maxK), coarse)
	m, err := NewModel(nbr, w, 0.8, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range rng.Perm(n)[:minObs+rng.IntN(8)] {
		m.Observe(i, rng.IntN(2) == 0)
	}
	kernel, err := vendi.SymmetrizeKNN(n, nbr, w)
	if err != nil {
		t.Fatal(err)
	}
	return nbr, w, m, kernel, denseSymmetrized(nbr, w)
}

func TestQVSMatchesBruteForceGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	orders := []vendi.Order{0.1, 0.5, 1, 2, vendi.OrderInf}
	const valueTol = 1e-9 // secular-equation vs dense eigenvalues, relative
	for trial := 0; trial < 15; trial++ {
		_, _, m, kernel, K := smallQVSPool(t, rng, 4, 2, trial%3 == 0)
		q := orders[trial%len(orders)]
		v := QVS{Q: q, Kernel: kernel}
		res, err := v.batch(&State{Model: m, Workers: 1 + trial%2}, 4)
		if err != nil {
			t.Fatal(err)
		}
		want, wantVals := bruteGreedy(t, K, m, 4, q)
		if !slices.Equal(res.Picks, want) {
			t.Fatalf("trial %d q=%g: qVS-AS picks %v, brute-force greedy %v (values %v)", trial, q, res.Picks, want, wantVals)
		}
		for i := range wantVals {
			if math.Abs(res.Scores[i]-wantVals[i]) > valueTol*max(1, wantVals[i]) {
				t.Errorf("trial %d q=%g: qVS after pick %d = %.15g, brute force %.15g", trial, q, i, res.Scores[i], wantVals[i])
			}
		}
		// batchValues (used by `qvs as suggest` for every policy) agrees too.
		bv, err := batchValues(kernel, m, res.Picks, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range bv {
			if math.Abs(bv[i]-wantVals[i]) > valueTol*max(1, wantVals[i]) {
				t.Errorf("trial %d q=%g: BatchValues[%d] = %g, brute force %g", trial, q, i, bv[i], wantVals[i])
			}
		}
	}
}

// TestQVSPrunedGreedyMatchesBruteForce: on pools whose observed positives
// form a linked block larger than the greedy's pruning threshold (so most
// candidates are bounded and never solved), qVS-AS still picks exactly what
// the brute-force greedy picks, for every order.
func TestQVSPrunedGreedyMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const valueTol = 1e-9
	var stats vendi.PruneStats
	for trial, q := range []vendi.Order{0.1, 0.5, 1, 2, 5, vendi.OrderInf} {
		const n = 110
		nbr, w := randomGraph(rng, n, 4, trial%2 == 0)
		m, err := NewModel(nbr, w, 0.8, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range rng.Perm(n)[:50] {
			m.Observe(i, rng.IntN(5) > 0) // about 40 positives
		}
		kernel, err := vendi.SymmetrizeKNN(n, nbr, w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := QVS{Q: q, Kernel: kernel}.batch(&State{Model: m, Workers: 1 + trial%2}, 4)
		if err != nil {
			t.Fatal(err)
		}
		stats.Bounded += res.Stats.Bounded
		stats.Pruned += res.Stats.Pruned
		want, wantVals := bruteGreedy(t, denseSymmetrized(nbr, w), m, 4, q)
		if !slices.Equal(res.Picks, want) {
			t.Fatalf("q=%g: qVS-AS picks %v, brute-force greedy %v (values %v)", q, res.Picks, want, wantVals)
		}
		for i := range wantVals {
			if math.Abs(res.Scores[i]-wantVals[i]) > valueTol*max(1, wantVals[i]) {
				t.Errorf("q=%g: qVS after pick %d = %.15g, brute force %.15g", q, i, res.Scores[i], wantVals[i])
			}
		}
	}
	t.Logf("bounded %d, pruned %d", stats.Bounded, stats.Pruned)
	if stats.Pruned < stats.Bounded/2 {
		t.Errorf("pruned %d of %d bounded candidates: the pools do not exercise the pruning", stats.Pruned, stats.Bounded)
	}
}

func TestQVSOrderZeroIsTopProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 50, 4, 8, false)
	got, err := QVS{Q: 0}.Batch(&State{Model: m}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := oneStep{}.Batch(&State{Model: m}, 5)
	if !slices.Equal(got, want) {
		t.Fatalf("qVS-AS q=0 = %v, one-step %v", got, want)
	}
}

func TestQVSNeedsMatchingKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomModel(t, rng, 10, 2, 2, false)
	small := vendi.FuncKernel(5, func(i, j int) float64 { return b2f(i == j) })
	for _, k := range []vendi.Kernel{nil, small} {
		if _, err := (QVS{Q: 1, Kernel: k}).Batch(&State{Model: m}, 2); err == nil {
			t.Errorf("kernel %v accepted for a 10-item pool", k)
		}
	}
	if _, err := (QVS{Q: -1, Kernel: small}).Batch(&State{Model: m}, 2); err == nil {
		t.Error("order -1 accepted")
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// directAuthorsBatch is the authors' BatchVendiActiveSearch step rule
// (diverse_search/batch_policies.py) written out literally on dense
// matrices: candidates in ascending order; a candidate whose own row of the
// directed weight matrix W sums to 0 over the chosen set (positives and
// picks) is masked; the first masked one is scored by brute force and every
// later masked one copies its value (probability included); the others are
// scored by brute force. The authors break ties at random; here the lowest
// index within vendi.TieTol wins, as in qvs.
func directAuthorsBatch(t *testing.T, K *mat.SymDense, nbr [][]int32, w [][]float64, m *Model, b int, q vendi.Order) []int {
	n := m.Len()
	W := mat.NewDense(n, n, nil)
	for i, row := range nbr {
		for k, j := range row {
			W.Set(i, int(j), W.At(i, int(j))+w[i][k])
		}
	}
	var items []int
	var quality []float64
	for i := 0; i < n; i++ {
		if m.Observed(i) && m.Positive(i) {
			items = append(items, i)
			quality = append(quality, 1)
		}
	}
	chosen := map[int]bool{}
	var picks []int
	for len(picks) < b {
		var cands []int
		var vals []float64
		priorComputed, prior := false, 0.0
		for c := 0; c < n; c++ {
			if m.Observed(c) || chosen[c] {
				continue
			}
			rowSum := 0.0
			for _, j := range items {
				rowSum += W.At(c, j)
			}
			masked := rowSum == 0
			var v float64
			if masked && priorComputed {
				v = prior
			} else {
				v = bruteQVS(t, K, append(slices.Clone(items), c), append(slices.Clone(quality), m.Probability(c)), q)
				if masked {
					prior, priorComputed = v, true
				}
			}
			cands = append(cands, c)
			vals = append(vals, v)
		}
		best := slices.Max(vals)
		arg := -1
		for k, c := range cands {
			if vals[k] >= best-vendi.TieTol*math.Abs(best) {
				arg = c
				break
			}
		}
		picks = append(picks, arg)
		chosen[arg] = true
		items = append(items, arg)
		quality = append(quality, m.Probability(arg))
	}
	return picks
}

// TestQVSAuthorsShortcutMatchesDirect checks AuthorsShortcut against the
// literal rule on small random pools, and that the rule is not the exact
// greedy (some trials pick differently), so the option changes something.
func TestQVSAuthorsShortcutMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 5))
	orders := []vendi.Order{0.5, 1, 2, vendi.OrderInf}
	differ := 0
	for trial := 0; trial < 24; trial++ {
		nbr, w, m, kernel, K := smallQVSPool(t, rng, 3, 3, trial%3 == 0)
		q := orders[trial%len(orders)]
		got, err := QVS{Q: q, Kernel: kernel, AuthorsShortcut: true}.Batch(&State{Model: m, Workers: 1 + trial%2}, 4)
		if err != nil {
			t.Fatal(err)
		}
		if want := directAuthorsBatch(t, K, nbr, w, m, 4, q); !slices.Equal(got, want) {
			t.Fatalf("trial %d q=%g: shortcut picks %v, direct authors' rule %v", trial, q, got, want)
		}
		if exact, _ := bruteGreedy(t, K, m, 4, q); !slices.Equal(got, exact) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the shortcut picked as the exact greedy in every trial: the test cannot tell them apart")
	}
	t.Logf("%d of 24 trials pick differently from the exact greedy", differ)
}

// TestQVSCarryMemoSamePicks: qVS-AS batches that share a greedy memo
// through State.Carry (as a run's batches do) pick the same items with the
// same scores, bit for bit, as batches without one, exact greedy and
// authors' shortcut alike, coarse weights (many ties) included; and the
// memo saves secular solves over the runs.
func TestQVSCarryMemoSamePicks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	orders := []vendi.Order{0.5, 1, 2, vendi.OrderInf}
	withMemo, without := 0, 0
	for trial := 0; trial < 12; trial++ {
		n := 80 + rng.IntN(40)
		nbr, w := randomGraph(rng, n, 3+trial%4, trial%3 == 0)
		m, err := NewModel(nbr, w, 0.8, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		labels := make([]bool, n)
		for i := range labels {
			labels[i] = rng.IntN(3) == 0
		}
		m.Observe(0, true)
		kernel, err := vendi.SymmetrizeKNN(n, nbr, w)
		if err != nil {
			t.Fatal(err)
		}
		v := QVS{Q: orders[trial%len(orders)], Kernel: kernel, AuthorsShortcut: trial%4 == 3}
		carry := &Carry{}
		for batch := 0; batch < 6; batch++ {
			st := &State{Model: m, Workers: 1 + batch%2}
			plain, err := v.batch(st, 4)
			if err != nil {
				t.Fatal(err)
			}
			st.Carry = carry
			got, err := v.batch(st, 4)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Picks, plain.Picks) {
				t.Fatalf("trial %d batch %d: picks %v with the carried memo, %v without", trial, batch, got.Picks, plain.Picks)
			}
			for i := range got.Scores {
				if math.Float64bits(got.Scores[i]) != math.Float64bits(plain.Scores[i]) {
					t.Fatalf("trial %d batch %d: score %d %v with the carried memo, %v without", trial, batch, i, got.Scores[i], plain.Scores[i])
				}
			}
			if !v.AuthorsShortcut {
				withMemo += got.Solved
				without += plain.Solved
			}
			for _, x := range got.Picks {
				m.Observe(x, labels[x])
			}
		}
	}
	if withMemo >= without {
		t.Fatalf("%d secular solves with the carried memo, %d without", withMemo, without)
	}
}
