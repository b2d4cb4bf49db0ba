package vendi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// monotoneOrders are the orders of the monotonicity test.
var monotoneOrders = []Order{0, 0.1, 0.5, 1, 2, 5, OrderInf}

// monoTol is the slack of "non-increasing": VS_q of neighbouring orders may
// coincide (a flat spectrum), so rounding of ~1e-13 must not fail the test.
const monoTol = 1e-9

// checkNonIncreasing fails unless vs[i+1] <= vs[i] (relative monoTol).
func checkNonIncreasing(t *testing.T, what string, vs []float64) {
	t.Helper()
	for i := 1; i < len(vs); i++ {
		if vs[i] > vs[i-1]*(1+monoTol) {
			t.Errorf("%s: VS_%s = %.15g > VS_%s = %.15g (VS_q must not increase with q)",
				what, monotoneOrders[i].String(), vs[i], monotoneOrders[i-1].String(), vs[i-1])
		}
	}
}

// randomIndefinite returns a symmetric n x n kernel with unit diagonal and
// off-diagonal entries uniform in [-s, s]: indefinite for s large enough.
func randomIndefinite(rng *rand.Rand, n int, s float64) *mat.SymDense {
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			K.SetSym(i, j, s*(2*rng.Float64()-1))
		}
	}
	return K
}

// TestOrder2IndefiniteExample is the indefinite-kernel example: [[1, 1.5], [1.5, 1]]
// has eigenvalues 2.5 and -0.5; clipped, one eigenvalue remains, so VS_q = 1
// for every q. The old closed form gave VS_2 = (tr K)²/‖K‖²_F = 4/6.5.
func TestOrder2IndefiniteExample(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 1.5, 1.5, 1})
	const tol = 1e-12 // 2 x 2 eigenproblem, values of order 1
	for _, q := range monotoneOrders {
		v, err := Score(K, q)
		if err != nil || math.Abs(v-1) > tol {
			t.Errorf("Score(q = %s) = %v, %v; want 1", q.String(), v, err)
		}
		if v := ScoreFromEigenvalues([]float64{2.5, -0.5}, q); math.Abs(v-1) > tol {
			t.Errorf("ScoreFromEigenvalues(q = %s) = %v, want 1", q.String(), v)
		}
		if v, err := scoreSet(DenseKernel(K), []int{0, 1}, q); err != nil || math.Abs(v-1) > tol {
			t.Errorf("ScoreSet(q = %s) = %v, %v; want 1", q.String(), v, err)
		}
		res, err := Greedy(GreedyProblem{Kernel: DenseKernel(K), Quality: []float64{1, 1}, Prefix: []int{0}, K: 1, Q: q})
		if err != nil || len(res.Scores) != 1 || math.Abs(res.Scores[0]-1) > tol {
			t.Errorf("Greedy(q = %s) = %+v, %v; want score 1", q.String(), res, err)
		}
	}
}

// TestVSNonIncreasingInQ checks VS_q non-increasing in q on random
// indefinite kernels through every vendi entry point: Score,
// ScoreFromEigenvalues, scoreSet (dense and sparse kNN kernels) and the
// greedy's running values (each candidate's value from the secular
// equation, and the best value of a step, a maximum of non-increasing
// functions of q).
func TestVSNonIncreasingInQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	indefinite := 0
	for trial := 0; trial < 20; trial++ {
		n := 3 + trial%8
		K := randomIndefinite(rng, n, 0.3+0.1*float64(trial%7))
		eig, err := Eigenvalues(K)
		if err != nil {
			t.Fatal(err)
		}
		if eig[0] < -1e-3 {
			indefinite++
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		var score, fromEig, set []float64
		for _, q := range monotoneOrders {
			v, err := Score(K, q)
			if err != nil {
				t.Fatal(err)
			}
			score = append(score, v)
			fromEig = append(fromEig, ScoreFromEigenvalues(eig, q))
			s, err := scoreSet(DenseKernel(K), idx, q)
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, s)
		}
		checkNonIncreasing(t, "Score", score)
		checkNonIncreasing(t, "ScoreFromEigenvalues", fromEig)
		checkNonIncreasing(t, "ScoreSet", set)

		// Greedy: prefix = all but the last two items; one candidate at a
		// time (the secular-equation value of that set), then both (best).
		prefix := idx[:n-2]
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		for _, cands := range [][]int{{n - 2}, {n - 1}, {n - 2, n - 1}} {
			var run []float64
			for _, q := range monotoneOrders {
				res, err := Greedy(GreedyProblem{Kernel: DenseKernel(K), Quality: ones, Prefix: prefix, Candidates: cands, K: 1, Q: q})
				if err != nil {
					t.Fatal(err)
				}
				run = append(run, res.Scores[0])
			}
			checkNonIncreasing(t, "Greedy running value", run)
		}
	}
	if indefinite < 10 {
		t.Fatalf("only %d of 20 kernels are indefinite: the test does not test", indefinite)
	}
	// Sparse kNN kernels (indefinite in general), through scoreSet and the
	// greedy's running values over several picks.
	for trial := 0; trial < 4; trial++ {
		sk := randomKNN(rng, 40, 2, 4)
		set := make([]float64, 0, len(monotoneOrders))
		best := make([]float64, 0, len(monotoneOrders))
		prefix := []int{0, 2, 3, 5, 7, 11, 13}
		for _, q := range monotoneOrders {
			v, err := scoreSet(sk, prefix, q)
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, v)
			res, err := Greedy(GreedyProblem{Kernel: sk, Quality: onesN(40), Prefix: prefix, K: 1, Q: q})
			if err != nil {
				t.Fatal(err)
			}
			best = append(best, res.Scores[0])
		}
		checkNonIncreasing(t, "ScoreSet (kNN)", set)
		checkNonIncreasing(t, "Greedy best value (kNN)", best)
	}
}

func onesN(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestGreedyKnownPSDOrder2 checks the closed-form path: on a PSD kernel
// declared PSD, q = 2 gives the same picks and values as the clipped
// spectrum path (and as brute force).
func TestGreedyKnownPSDOrder2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	for trial := 0; trial < 4; trial++ {
		n := 12 + 3*trial
		K := randomPSD(rng, n, 2+trial)
		qual := make([]float64, n)
		for i := range qual {
			qual[i] = rng.Float64()
		}
		p := GreedyProblem{Kernel: DenseKernel(K), Quality: qual, Prefix: []int{0}, K: 5, Q: 2}
		eigPath, err := Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		p.KnownPSD = true
		closed, err := Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteGreedy(t, p)
		const tol = 1e-9 // the oracle tolerance of TestGreedyMatchesBruteForce
		for i := range want.Picks {
			if eigPath.Picks[i] != want.Picks[i] || closed.Picks[i] != want.Picks[i] {
				t.Fatalf("trial %d pick %d: eigen %v, closed form %v, brute force %v", trial, i, eigPath.Picks, closed.Picks, want.Picks)
			}
			if !near(eigPath.Scores[i], want.Scores[i], tol) || !near(closed.Scores[i], want.Scores[i], tol) {
				t.Errorf("trial %d pick %d: scores %v, %v; want %v", trial, i, eigPath.Scores[i], closed.Scores[i], want.Scores[i])
			}
		}
	}
}
