package knn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// fpLikeBits is scripts/fp_pool.py's pool in Go: 2,048-bit fingerprints
// like folded ECFP4 ones (skewed bit popularity, n/2000 scaffold families
// of 60 core bits, n/50 series of a family's core plus 50 bits, a molecule
// its series' bits kept with probability 0.85 plus Poisson(L) substituent
// bits, L uniform in [40, 200)). Its Tanimoto neighbours lie close
// together (the 20 nearest within ~0.05 of each other), the hard case for
// NN-descent.
func fpLikeBits(n int, seed uint64) [][]uint64 {
	const nbits, words = 2048, 32
	rng := rand.New(rand.NewPCG(seed, 11))
	cum := make([]float64, nbits)
	s := 0.0
	for b, r := range rng.Perm(nbits) {
		s += 1 / math.Pow(float64(r)+10, 0.8)
		cum[b] = s
	}
	draw := func(row []uint64, count int) {
		for range count {
			b := sort.SearchFloat64s(cum, rng.Float64()*s)
			row[b/64] |= 1 << (b % 64)
		}
	}
	keep := func(row []uint64, p float64) {
		for b := range nbits {
			if row[b/64]>>(b%64)&1 == 1 && rng.Float64() >= p {
				row[b/64] &^= 1 << (b % 64)
			}
		}
	}
	families := make([][]uint64, max(n/2000, 10))
	for f := range families {
		families[f] = make([]uint64, words)
		draw(families[f], 60)
	}
	series := make([][]uint64, max(n/50, 20))
	for c := range series {
		series[c] = slices.Clone(families[rng.IntN(len(families))])
		keep(series[c], 0.9)
		draw(series[c], 50)
	}
	x := make([][]uint64, n)
	for i := range x {
		x[i] = slices.Clone(series[rng.IntN(len(series))])
		keep(x[i], 0.85)
		lambda := 40 + 160*rng.Float64()
		// Poisson(lambda) by its normal approximation (lambda >= 40).
		draw(x[i], max(0, int(math.Round(lambda+math.Sqrt(lambda)*rng.NormFloat64()))))
	}
	return x
}

// TestApproxBitsKNNRecallRule: a weak initial graph (one tree, leaves of
// 24) and a Delta that stops the rounds after
// the first, the recall rule keeps them going while the estimated recall
// is below stopRecall and rising, up to the target; without a recall
// sample (RecallRows < 0) the Delta rule alone stops after one round.
func TestApproxBitsKNNRecallRule(t *testing.T) {
	b := fpLikeBits(6000, 3)
	ex, err := BitsKNN(b, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	g0, st0, err := ApproxBitsKNN(b, 20, ApproxOptions{Seed: 1, Trees: 1, LeafSize: 24, Delta: 10, RecallRows: -1})
	if err != nil {
		t.Fatal(err)
	}
	if st0.Rounds != 1 {
		t.Fatalf("Delta rule alone: %d rounds, want 1", st0.Rounds)
	}
	r0 := trueRecall(g0, ex)
	g, st, err := ApproxBitsKNN(b, 20, ApproxOptions{Seed: 1, Trees: 1, LeafSize: 24, Delta: 10, RecallRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	r := trueRecall(g, ex)
	t.Logf("one round: recall %.4f; recall rule: %d rounds, recall %.4f (sampled %.4f)", r0, st.Rounds, r, st.Recall)
	if r0 >= MinApproxRecall {
		t.Fatalf("one round already reaches recall %.4f: the test needs a harder pool", r0)
	}
	if st.Rounds < 2 || r < MinApproxRecall {
		t.Errorf("recall rule: %d rounds, recall %.4f, want > 1 round and >= %.2f", st.Rounds, r, MinApproxRecall)
	}
	// The same options on 1 and 3 workers: the same graph and rounds.
	g1, st1, _ := ApproxBitsKNN(b, 20, ApproxOptions{Seed: 1, Trees: 1, LeafSize: 24, Delta: 10, RecallRows: 300, Workers: 1})
	if !slices.Equal(g1.Index, g.Index) || !slices.Equal(g1.Distance, g.Distance) || st1 != st {
		t.Errorf("graph or stats depend on the workers: %+v vs %+v", st1, st)
	}
}

// TestApproxBitsKNNClustered: the default options reach the target recall
// on the fingerprint-like pool (against BitsKNN on every row).
func TestApproxBitsKNNClustered(t *testing.T) {
	b := fpLikeBits(8000, 5)
	ex, err := BitsKNN(b, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, st, err := ApproxBitsKNN(b, 20, ApproxOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkApproxRows(t, g, newBitsSpace(b).exact)
	r := trueRecall(g, ex)
	t.Logf("%d rounds, recall %.4f (sampled %.4f)", st.Rounds, r, st.Recall)
	if r < MinApproxRecall {
		t.Errorf("recall %.4f, want >= %.2f", r, MinApproxRecall)
	}
}

// TestSampleInto: lists of at most m members are kept whole; longer ones
// give m distinct members, the same for the same (seed, round, v), each
// member drawn about equally often over many rows.
func TestSampleInto(t *testing.T) {
	list := []int32{3, 1, 4, 15, 9, 2, 6, 5, 35, 8}
	if got := sampleInto(nil, list[:4], 4, 1, 0, 0); !slices.Equal(got, list[:4]) {
		t.Errorf("short list: %v", got)
	}
	count := map[int32]int{}
	const rows, m = 20000, 3
	for v := range rows {
		got := sampleInto(nil, list, m, 7, 2, v)
		if len(got) != m {
			t.Fatalf("row %d: %d members, want %d", v, len(got), m)
		}
		if again := sampleInto(make([]int32, 0, 1), list, m, 7, 2, v); !slices.Equal(got, again) {
			t.Fatalf("row %d: %v then %v", v, got, again)
		}
		for a, u := range got {
			if !slices.Contains(list, u) || slices.Contains(got[:a], u) {
				t.Fatalf("row %d: %v is not %d distinct members of %v", v, got, m, list)
			}
			count[u]++
		}
	}
	want := float64(rows*m) / float64(len(list)) // 6,000, sd ~ 65
	for _, u := range list {
		if c := float64(count[u]); math.Abs(c-want) > 400 {
			t.Errorf("member %d drawn %v times, want ~%v", u, c, want)
		}
	}
	if slices.Equal(sampleInto(nil, list, m, 7, 2, 0), sampleInto(nil, list, m, 7, 3, 0)) &&
		slices.Equal(sampleInto(nil, list, m, 7, 2, 1), sampleInto(nil, list, m, 7, 3, 1)) {
		t.Error("the draw does not depend on the round")
	}
}

// TestCSRListsBuild: the reverse lists of random front and back forward
// lists sharing each row's stride, against maps, built several times into
// the same buffers.
func TestCSRListsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var r csrLists
	for _, n := range []int{1, 7, 300, 50, 400} {
		const stride = 5
		f := make([]int32, n*stride)
		for e := range f {
			f[e] = -7 // never read: outside both lists
		}
		front := make([]uint8, n)
		back := make([]uint8, n)
		want := make([][]int32, 2*n)
		for v := range n {
			front[v] = uint8(rng.IntN(stride + 1))
			back[v] = uint8(rng.IntN(stride + 1 - int(front[v])))
			for e := range int(front[v]) {
				u := int32(rng.IntN(n))
				f[v*stride+e] = u
				want[2*u] = append(want[2*u], int32(v))
			}
			for e := range int(back[v]) {
				u := int32(rng.IntN(n))
				f[(v+1)*stride-1-e] = u
				want[2*u+1] = append(want[2*u+1], int32(v))
			}
		}
		r.build(n, stride, f, front, back, 0, n)
		for row := range 2 * n {
			if got := r.of(row); !slices.Equal(got, want[row]) && len(got)+len(want[row]) > 0 {
				t.Fatalf("n = %d: reverse list %d is %v, want %v", n, row, got, want[row])
			}
		}
		// The lists of one chunk of targets [lo, hi) at a time, in the
		// same buffers.
		for c := range 3 {
			lo, hi := c*n/3, (c+1)*n/3
			r.build(n, stride, f, front, back, lo, hi)
			for u := lo; u < hi; u++ {
				for b := range 2 {
					if got := r.of(2*(u-lo) + b); !slices.Equal(got, want[2*u+b]) && len(got)+len(want[2*u+b]) > 0 {
						t.Fatalf("n = %d, targets [%d, %d): reverse list %d is %v, want %v", n, lo, hi, 2*u+b, got, want[2*u+b])
					}
				}
			}
			if len(r.start) != 2*(hi-lo)+1 {
				t.Fatalf("n = %d, targets [%d, %d): %d row starts, want %d", n, lo, hi, len(r.start), 2*(hi-lo)+1)
			}
		}
	}
}
