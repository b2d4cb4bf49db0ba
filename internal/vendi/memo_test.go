package vendi

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGreedyMemoBitwise: a search's batches, each a Greedy call whose
// prefix grows by some of the last call's picks, give bit for bit the
// picks and scores of calls without a memo, while the memo saves secular
// solves. The prefix grows in index order (as qVS-AS's observed positives)
// in some trials and in a shuffled order in others, where blocks of the
// same items come back in another order (their content differs, and their
// roots must not be read).
func TestGreedyMemoBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 9))
	orders := []Order{0.5, 1, 2, OrderInf}
	saved, reused := 0, 0
	for trial := 0; trial < 40; trial++ {
		n := 60 + rng.IntN(60)
		k := randomKNN(rng, n, 2+trial%3, 3+trial%4)
		q := orders[trial%len(orders)]
		quality := make([]float64, n)
		for i := range quality {
			quality[i] = rng.Float64()
		}
		shuffled := trial%2 == 1
		prefix := []int{rng.IntN(n)}
		observed := map[int]bool{prefix[0]: true}
		memo := &GreedyMemo{}
		solvedMemo, solvedPlain := 0, 0
		for batch := 0; batch < 8; batch++ {
			var cand []int
			for i := 0; i < n; i++ {
				if !observed[i] {
					cand = append(cand, i)
				}
			}
			p := GreedyProblem{Kernel: k, Quality: quality, Prefix: slices.Clone(prefix), Candidates: cand, K: 4, Q: q, Workers: 1 + batch%2}
			plain, err := Greedy(p)
			if err != nil {
				t.Fatal(err)
			}
			p.Memo = memo
			reused += checkSeeds(t, p)
			got, err := Greedy(p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Picks, plain.Picks) {
				t.Fatalf("trial %d q=%s batch %d: picks %v with the memo, %v without", trial, q, batch, got.Picks, plain.Picks)
			}
			for i := range got.Scores {
				if math.Float64bits(got.Scores[i]) != math.Float64bits(plain.Scores[i]) {
					t.Fatalf("trial %d q=%s batch %d: score %d is %v with the memo, %v without", trial, q, batch, i, got.Scores[i], plain.Scores[i])
				}
			}
			solvedMemo += got.Solved
			solvedPlain += plain.Solved
			// Observe the picks; about half are "positive" and join the prefix.
			var add []int
			for _, c := range got.Picks {
				observed[c] = true
				if rng.IntN(2) == 0 {
					add = append(add, c)
				}
			}
			if shuffled {
				rng.Shuffle(len(add), func(i, j int) { add[i], add[j] = add[j], add[i] })
				prefix = append(prefix, add...)
				rng.Shuffle(len(prefix), func(i, j int) { prefix[i], prefix[j] = prefix[j], prefix[i] })
			} else {
				prefix = append(prefix, add...)
				slices.Sort(prefix)
			}
		}
		if solvedMemo > solvedPlain {
			t.Fatalf("trial %d: %d solves with the memo, %d without", trial, solvedMemo, solvedPlain)
		}
		saved += solvedPlain - solvedMemo
	}
	if saved == 0 || reused == 0 {
		t.Fatalf("the memo saved %d secular solves, seeded %d", saved, reused)
	}
}

// checkSeeds builds p's greedy state with the roots seeded from p.Memo (a
// copy of the memo: Greedy then runs on the original) and checks every
// seeded candidate's roots bit for bit against solving its secular
// equation now; it returns the number of seeded candidates.
func checkSeeds(t *testing.T, p GreedyProblem) int {
	t.Helper()
	m := *p.Memo
	m.roots = slices.Clone(m.roots)
	p.Memo = &m
	g, err := newGreedyState(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.memoContent == nil {
		return 0
	}
	g.seedFromMemo()
	cands, lists := g.touchLists()
	mark := make([]int32, len(g.blocks))
	ws := &secularWork{}
	seeded := 0
	for k, c := range cands {
		cc := g.cache.peek(c)
		if cc.blocks == nil {
			continue
		}
		seeded++
		tb := g.touchedBlocks(lists[k], mark, int32(k+1), nil)
		if !sameBlocks(cc.blocks, tb) {
			continue // not read: score solves it
		}
		d, z := g.project(lists[k], tb, ws)
		var mus []float64
		arrowhead(d, z, p.Kernel.At(c, c), ws, func(mu float64) { mus = append(mus, mu) })
		if len(mus) != len(cc.mus) {
			t.Fatalf("candidate %d: %d seeded roots, %d solved", c, len(cc.mus), len(mus))
		}
		for i := range mus {
			if math.Float64bits(mus[i]) != math.Float64bits(cc.mus[i]) {
				t.Fatalf("candidate %d root %d: seeded %v, solved %v", c, i, cc.mus[i], mus[i])
			}
		}
	}
	return seeded
}

// TestGreedyMemoOtherKernel: a memo filled on one kernel is emptied, not
// read, when the next call is on another kernel of the same size.
func TestGreedyMemoOtherKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 50
	k1, k2 := randomKNN(rng, n, 2, 4), randomKNN(rng, n, 2, 4)
	quality := make([]float64, n)
	for i := range quality {
		quality[i] = 0.1 + rng.Float64()
	}
	memo := &GreedyMemo{}
	p := GreedyProblem{Kernel: k1, Quality: quality, Prefix: []int{3, 7, 20}, K: 3, Q: 1, Memo: memo}
	if _, err := Greedy(p); err != nil {
		t.Fatal(err)
	}
	p.Kernel = k2
	got, err := Greedy(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Memo = nil
	want, err := Greedy(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Picks, want.Picks) || got.Solved != want.Solved {
		t.Fatalf("second kernel: picks %v (%d solves) with the first kernel's memo, %v (%d solves) without", got.Picks, got.Solved, want.Picks, want.Solved)
	}
	for i := range got.Scores {
		if math.Float64bits(got.Scores[i]) != math.Float64bits(want.Scores[i]) {
			t.Fatalf("second kernel: score %d is %v with the first kernel's memo, %v without", i, got.Scores[i], want.Scores[i])
		}
	}
}
