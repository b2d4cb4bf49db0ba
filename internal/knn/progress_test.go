package knn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// countingSpace counts the distances an approxSpace measures: work and
// exact one each, workMany one per item, split splitCost per item (its
// projections or distances, which the wrapped space computes itself).
type countingSpace struct {
	approxSpace
	count *atomic.Int64
	works *atomic.Int64 // calls of work alone
}

func (s countingSpace) work(i, j int32) float32 {
	s.count.Add(1)
	s.works.Add(1)
	return s.approxSpace.work(i, j)
}

func (s countingSpace) workMany(i int32, js []int32, out []float32) {
	s.count.Add(int64(len(js)))
	s.approxSpace.workMany(i, js, out)
}

func (s countingSpace) exact(i, j int) float64 {
	s.count.Add(1)
	return s.approxSpace.exact(i, j)
}

func (s countingSpace) split(items []int32, rng *rand.Rand, proj []float32) int {
	s.count.Add(int64(len(items)) * s.approxSpace.splitCost())
	return s.approxSpace.split(items, rng, proj)
}

func (s countingSpace) permuted(perm []int32) approxSpace {
	return countingSpace{s.approxSpace.permuted(perm), s.count, s.works}
}

// phaseLog records a build's progress calls and the counted distances at
// each phase's start and end.
type phaseLog struct {
	mu     sync.Mutex
	count  *atomic.Int64
	works  *atomic.Int64
	phases []phaseRecord
}

type phaseRecord struct {
	name, unit       string
	total, maxDone   int64
	lastDone         int64
	countAtStart     int64
	countAtEnd       int64
	worksAtStart     int64
	worksAtEnd       int64
	starts, finishes int
}

func (l *phaseLog) report(phase, unit string, done, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.phases) == 0 || l.phases[len(l.phases)-1].name != phase {
		l.phases = append(l.phases, phaseRecord{name: phase, unit: unit, total: total, countAtStart: l.count.Load(), worksAtStart: l.works.Load()})
	}
	p := &l.phases[len(l.phases)-1]
	if p.total != total || p.unit != unit {
		panic(fmt.Sprintf("phase %q: total %d %s, then %d %s", phase, p.total, p.unit, total, unit))
	}
	p.maxDone, p.lastDone = max(p.maxDone, done), done
	if done == 0 {
		p.starts++
	}
	if done == total {
		p.finishes++
		p.countAtEnd, p.worksAtEnd = l.count.Load(), l.works.Load()
	}
}

// TestApproxKNNProgressCountsTheWork: each phase of the approximate build
// is announced once with its total, in order (trees, recall sample, the
// rounds, re-rank, recall), counts its work up to exactly that total (the
// finish call repeats it), never reports more, and the total is the distances the phase measured (counted by
// wrapping the space, independently of the phase's own arithmetic; in the
// trees, each leaf pair, measured by work, counts leafPairSteps). So the
// work left, total - done, is exact in each phase's unit. The graph is
// the one built without progress.
func TestApproxKNNProgressCountsTheWork(t *testing.T) {
	pools := []struct {
		name  string
		space func() approxSpace
		k     int
		opt   ApproxOptions
	}{
		{"dense", func() approxSpace {
			sp, err := newDenseSpace(testutil.ClusteredGaussian(1500, 8, 12, 3), MetricEuclidean)
			if err != nil {
				t.Fatal(err)
			}
			return sp
		}, 10, ApproxOptions{Seed: 5, Workers: 3, RecallRows: 50}},
		{"dense, reverse lists in chunks", func() approxSpace {
			sp, err := newDenseSpace(testutil.ClusteredGaussian(1500, 8, 12, 3), MetricEuclidean)
			if err != nil {
				t.Fatal(err)
			}
			return sp
		}, 10, ApproxOptions{Seed: 5, Workers: 3, RecallRows: 50, revChunks: 3}},
		{"bits", func() approxSpace { return newBitsSpace(fpLikeBits(1200, 4)) }, 8, ApproxOptions{Seed: 2, Workers: 2, Trees: 3, LeafSize: 30, Extra: 20, RecallRows: 40}},
	}
	for _, pc := range pools {
		t.Run(pc.name, func(t *testing.T) {
			plain, plainSt, err := approxKNN(pc.space(), pc.k, "m", pc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var count, works atomic.Int64
			log := &phaseLog{count: &count, works: &works}
			opt := pc.opt
			opt.Progress = log.report
			g, st, err := approxKNN(countingSpace{pc.space(), &count, &works}, pc.k, "m", opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g.Index, plain.Index) || !slices.Equal(g.Distance, plain.Distance) || st != plainSt {
				t.Fatal("the graph with progress differs from the one without")
			}
			var names []string
			for _, p := range log.phases {
				names = append(names, p.name)
			}
			want := []string{"kNN graph: trees", "kNN graph: recall sample"}
			for r := 1; r <= st.Rounds; r++ {
				want = append(want, fmt.Sprintf("kNN graph: round %d (at most 15)", r))
			}
			want = append(want, "kNN graph: re-rank", "kNN graph: recall")
			if !slices.Equal(names, want) {
				t.Fatalf("phases\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
			}
			for _, p := range log.phases {
				// Two calls at the total: the work counted as it was done
				// reached it, then finish said so.
				if p.starts != 1 || p.finishes != 2 || p.lastDone != p.total || p.maxDone != p.total || p.total <= 0 {
					t.Errorf("%s: %d starts, %d calls at the total, last done %d, most done %d, total %d: want one start, the work counted up to the total, and the last call at it", p.name, p.starts, p.finishes, p.lastDone, p.maxDone, p.total)
				}
				measured := p.countAtEnd - p.countAtStart
				if p.name == "kNN graph: trees" {
					measured += (leafPairSteps - 1) * (p.worksAtEnd - p.worksAtStart)
				}
				if measured != p.total {
					t.Errorf("%s: total %d %s, but %d distances were measured", p.name, p.total, p.unit, measured)
				}
			}
		})
	}
}

// TestRPTreeWork: rpTreeWork's closed form against a tree built
// (buildRPTree), its split items counted as they are made and its leaf
// pairs summed from the leaves.
func TestRPTreeWork(t *testing.T) {
	x := testutil.ClusteredGaussian(3000, 4, 5, 1)
	for _, c := range []struct{ n, leaf int }{{1, 48}, {48, 48}, {49, 48}, {97, 48}, {1000, 48}, {3000, 48}, {2999, 7}} {
		sp, err := newDenseSpace(x[:c.n], MetricEuclidean)
		if err != nil {
			t.Fatal(err)
		}
		items := make([]int32, c.n)
		for i := range items {
			items[i] = int32(i)
		}
		var count, works atomic.Int64
		log := &phaseLog{count: &count, works: &works}
		pc := StartPhase(log.report, "tree", "distances", 1<<40)
		leaves := buildRPTree(countingSpace{sp, &count, &works}, items, c.leaf, 9, 3, pc)
		var pairs int64
		for _, l := range leaves {
			pairs += int64(len(l)) * int64(len(l)-1) / 2
		}
		split, leafPairs := rpTreeWork(c.n, c.leaf)
		if split != count.Load() || leafPairs != pairs || log.phases[0].maxDone != split {
			t.Errorf("n %d, leaves of %d: rpTreeWork %d split items, %d leaf pairs; the tree: %d (reported %d), %d", c.n, c.leaf, split, leafPairs, count.Load(), log.phases[0].maxDone, pairs)
		}
	}
}

// BenchmarkSampleKth: the stopping rule's recall sample (50 rows against
// 100,000 x 32 items) after the items are renumbered (a random order, as a
// tree's leaves give): reading every item through the renumbering
// (permuted space, the way before) or in the original order (perm given,
// as localJoinRounds does now); the same k-th distances either way
// (TestSampleKthPerm).
func BenchmarkSampleKth(b *testing.B) {
	x := benchPool(100_000)
	orig, sp, perm, err := permutedPair(x, 3)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("through=perm", func(b *testing.B) {
		for b.Loop() {
			sampleKth(len(x), 20, sp.exact, nil, 50, 1, 1, nil)
		}
	})
	b.Run("through=original-order", func(b *testing.B) {
		for b.Loop() {
			sampleKth(len(x), 20, orig.exact, perm, 50, 1, 1, nil)
		}
	})
}

// TestSampleKthPerm: the recall sample read in the original order gives
// the k-th distances of reading it through the renumbering, bit for bit.
func TestSampleKthPerm(t *testing.T) {
	x := testutil.ClusteredGaussian(700, 5, 6, 2)
	orig, sp, perm, err := permutedPair(x, 4)
	if err != nil {
		t.Fatal(err)
	}
	s1, k1 := sampleKth(len(x), 7, sp.exact, nil, 40, 9, 2, nil)
	s2, k2 := sampleKth(len(x), 7, orig.exact, perm, 40, 9, 2, nil)
	if !slices.Equal(s1, s2) || !slices.Equal(k1, k2) {
		t.Errorf("samples %v / %v, k-th distances %v / %v", s1, s2, k1, k2)
	}
}

// permutedPair returns the dense space of x (Euclidean; only its exact
// distances stay usable) and the space renumbered by a random perm drawn
// from seed, with perm.
func permutedPair(x [][]float64, seed uint64) (orig, sp approxSpace, perm []int32, err error) {
	perm = make([]int32, len(x))
	for i, p := range rand.New(rand.NewPCG(seed, seed)).Perm(len(x)) {
		perm[i] = int32(p)
	}
	o, err := newDenseSpace(x, MetricEuclidean)
	if err != nil {
		return nil, nil, nil, err
	}
	return o, o.permuted(perm), perm, nil
}
