package knn

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// kNN construction methods (config key pool.csv.knn, flag --knn).
const (
	// KNNAuto: exact below ApproxMinItems items (ApproxMinItemsTanimoto
	// for fingerprints), approximate from there.
	KNNAuto = "auto"
	// KNNExact: DenseKNN or BitsKNN, the brute-force definition.
	KNNExact = "exact"
	// KNNApprox: ApproxKNN (random-projection trees then NN-descent), recall
	// measured on a sample of rows.
	KNNApprox = "approx"
)

// KNNMethods lists the accepted construction methods.
var KNNMethods = []string{KNNAuto, KNNExact, KNNApprox}

// ApproxMinItems and ApproxMinItemsTanimoto are where KNNAuto switches to
// the approximate graph, for dense features (euclidean, cosine) and for
// fingerprints (tanimoto): about where the exact graph starts to cost more
// CPU than the approximate one. Measured (docs/performance.md, "Where
// --knn auto switches": `qvs graph --k 20`, CPU seconds of the whole
// command, exact against approximate): on clustered Gaussian 32-d float32
// features 0.50 against 0.83 at 10,000 items, 1.45 / 1.69 at 20,000,
// 2.98 / 2.80 at 30,000, 9.4 / 4.8 at 50,000 (the exact cost grows close
// to n^2); on the Enamine library's 2,048-bit Morgan fingerprints 0.73 /
// 1.20 at 5,000, 2.9 / 2.8 at 10,000, 10.6 / 5.8 at 20,000, 69 / 18 at
// 49,706 (atom-pair fingerprints alike): a Tanimoto distance is cheap and
// prunes nothing, so the n^2 pairs cost early. Below the switch the exact
// graph (recall 1) costs at most about as much as the approximate one.
// The paper's pools do not go through KNNAuto: their graphs stay exact.
const (
	ApproxMinItems         = 30_000
	ApproxMinItemsTanimoto = 10_000
)

// ResolveKNNMethod turns KNNAuto (or "") into KNNExact or KNNApprox for n
// items under metric (ApproxMinItemsTanimoto for MetricTanimoto,
// ApproxMinItems otherwise), and checks the name.
func ResolveKNNMethod(method string, n int, metric string) (string, error) {
	switch method {
	case "", KNNAuto:
		if n >= approxMinItems(metric) {
			return KNNApprox, nil
		}
		return KNNExact, nil
	case KNNExact, KNNApprox:
		return method, nil
	}
	return "", fmt.Errorf("kNN method %q is not one of %q, %q, %q", method, KNNAuto, KNNExact, KNNApprox)
}

// approxMinItems is KNNAuto's switch for metric.
func approxMinItems(metric string) int {
	if metric == MetricTanimoto {
		return ApproxMinItemsTanimoto
	}
	return ApproxMinItems
}

// MinApproxRecall is the recall@k an approximate kNN graph is built to
// reach (measured against brute force on sampled rows, ApproxStats.Recall);
// below it a pool loader warns.
const MinApproxRecall = 0.99

// ApproxOptions tunes ApproxKNN; zero values take the defaults.
type ApproxOptions struct {
	Workers  int    // goroutines (<= 0: GOMAXPROCS)
	Seed     uint64 // random projections and the recall sample
	Trees    int    // random-projection trees of the initial graph (default 8; fingerprints 4)
	LeafSize int    // items per tree leaf (default 48)
	Extra    int    // candidates kept per row beyond k (default 10; fingerprints 20)
	MaxIter  int    // NN-descent rounds at most (default 15)
	// Sample is the share ρ of a row's kc entries taken into the local
	// joins of a round, as new ones and as reverse lists (default 0.5;
	// fingerprints 1).
	Sample float64
	// Delta stops NN-descent once a round changes fewer than Delta*n*k
	// entries (default 0.0005).
	Delta float64
	// RecallRows is the size of the row sample whose exact neighbours are
	// computed by brute force to measure the recall, and of a second one
	// that steers the rounds' stopping rule (default 200; < 0: neither, the
	// rounds stop by Delta alone).
	RecallRows int
	// Progress, if set, is told the build's work phase by phase, each
	// phase's total known when it starts ("kNN graph: " and): "trees"
	// (steps: one per item projected by the trees' splits, two for a
	// fingerprint split, which measures two distances per item, and
	// leafPairSteps per pair within their leaves), "recall sample" (distances: the stopping rule's rows against
	// every item), "round r (at most MaxIter)" (pairs of its local joins,
	// plus the rows' recall estimate), "re-rank" (distances: every row's
	// candidates) and "recall" (distances: the measured rows against every
	// item).
	Progress ProgressFunc
	// onRound, if set (tests), is called after the initial graph (round 0)
	// and after each NN-descent round with the candidate rows (in the
	// renumbered order) and perm (item p is original item perm[p]).
	onRound func(round int, h *candHeap, perm []int32)
	// revChunks, if > 0 (tests), is the number of row chunks whose
	// reverse lists a round builds one after another (else 1, and
	// revChunksLarge from releaseMemoryItems items).
	revChunks int
}

func (o *ApproxOptions) defaults() {
	if o.Trees <= 0 {
		o.Trees = 8
	}
	if o.LeafSize <= 0 {
		o.LeafSize = 48
	}
	if o.Extra <= 0 {
		o.Extra = 10
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 15
	}
	if o.Sample <= 0 || o.Sample > 1 {
		o.Sample = 0.5
	}
	if o.Delta <= 0 {
		o.Delta = 0.0005
	}
	if o.RecallRows == 0 {
		o.RecallRows = 200
	}
	o.Workers = defaultWorkers(o.Workers)
}

// bitsDefaults sets the defaults of ApproxBitsKNN where they differ from
// the dense features' (defaults): Extra 20, Sample 1, Trees 4.
// Fingerprints' neighbours lie close together (docs/performance.md: on
// clustered 2,048-bit ones the 20 nearest within Tanimoto 0.05; on the
// Enamine library's Morgan fingerprints the 20th lies at a median distance
// of 0.60) and the trees barely help. With k + 10
// candidates rows settle in closed groups (recall@20 0.97 after 11 rounds
// at 10^6 generated rows); with k + 20 and half of each row's new entries
// joined a round (Sample 0.5) the rounds reach 0.999 on generated
// fingerprints but stall at 0.989 on the 49,706 Morgan fingerprints of the
// Enamine 50k library however many rounds run. Joining every new entry
// (Sample 1) reaches 0.996 there in 7 rounds instead of 9, and 4 trees
// instead of 8 pay for most of the larger joins (docs/performance.md,
// "Fingerprints of a real library").
func (o *ApproxOptions) bitsDefaults() {
	if o.Extra <= 0 {
		o.Extra = 20
	}
	if o.Sample <= 0 || o.Sample > 1 {
		o.Sample = 1
	}
	if o.Trees <= 0 {
		o.Trees = 4
	}
}

// ApproxStats describes an approximate graph: the NN-descent rounds run and
// the measured recall@k (-1 if not measured) over RecallRows sampled rows.
type ApproxStats struct {
	Rounds     int
	Recall     float64
	RecallRows int
}

// approxSpace is what ApproxKNN needs of the features: the number of
// items, a fast working distance (monotone in the metric, float32), the
// exact distance (that of datasets.Pool.Distance), and a random split of a
// set of items into two halves (one level of a random-projection tree).
type approxSpace interface {
	n() int
	work(i, j int32) float32
	// workMany sets out[m] = work(i, js[m]) for every m, measuring several
	// rows at once where that lets their memory reads overlap.
	workMany(i int32, js []int32, out []float32)
	exact(i, j int) float64
	split(items []int32, rng *rand.Rand, proj []float32) int
	// splitCost is the distances (or projections) split measures per item.
	splitCost() int64
	// permuted returns the space whose item p is item perm[p] of this one,
	// its working data laid out in that order.
	permuted(perm []int32) approxSpace
	// dropWorking frees what only work and split read: afterwards only n
	// and exact may be called.
	dropWorking()
	// restore, on the space permuted returned, puts back what permuted
	// moved in place (the features themselves, for float32 features that
	// serve as working rows) and drops the working data; afterwards only n
	// may be called on it, and the space permuted was called on is whole
	// again.
	restore()
}

// ApproxDenseKNN is the approximate counterpart of DenseKNN: same metrics,
// same row layout, distances computed from the original features (so they
// agree with datasets.Pool.Distance bit for bit), rows nearest first with
// ties to the lower index; a row may miss some of its exact neighbours (the recall is
// measured and returned). See ApproxKNN for the method.
func ApproxDenseKNN(x [][]float64, k int, metric string, opt ApproxOptions) (*KNNGraph, ApproxStats, error) {
	return approxDenseKNN(Dense{F64: x}, k, metric, opt)
}

// ApproxDenseKNN32 is ApproxDenseKNN on float32 features (the same graph
// as ApproxDenseKNN on the values widened to float64).
func ApproxDenseKNN32(x Rows32, k int, metric string, opt ApproxOptions) (*KNNGraph, ApproxStats, error) {
	return approxDenseKNN(Dense{F32: x}, k, metric, opt)
}

func approxDenseKNN(x Dense, k int, metric string, opt ApproxOptions) (*KNNGraph, ApproxStats, error) {
	n := x.n()
	if err := checkK(n, k); err != nil {
		return nil, ApproxStats{}, err
	}
	if metric != MetricEuclidean && metric != MetricCosine {
		return nil, ApproxStats{}, fmt.Errorf("kNN graph: metric %q is not one of %q, %q for dense features", metric, MetricEuclidean, MetricCosine)
	}
	sp, err := newDenseSpaceOf(x, metric)
	if err != nil {
		return nil, ApproxStats{}, err
	}
	return approxKNN(sp, k, metric, opt)
}

// ApproxBitsKNN is the approximate counterpart of BitsKNN (Tanimoto
// distance of fingerprints); trees split on the Tanimoto distance to two
// random pivots.
func ApproxBitsKNN(b [][]uint64, k int, opt ApproxOptions) (*KNNGraph, ApproxStats, error) {
	n := len(b)
	if err := checkK(n, k); err != nil {
		return nil, ApproxStats{}, err
	}
	for i, row := range b {
		if len(row) != len(b[0]) {
			return nil, ApproxStats{}, fmt.Errorf("kNN graph: fingerprint %d has %d words, expected %d like fingerprint 0", i, len(row), len(b[0]))
		}
	}
	opt.bitsDefaults()
	return approxKNN(newBitsSpace(b), k, MetricTanimoto, opt)
}

// approxKNN builds the graph in three steps.
//
//  1. Initial graph: opt.Trees random-projection trees, each splitting its
//     items in two halves by their projection on the difference of two
//     random items (the median, so leaves are balanced) until at most
//     LeafSize remain; every pair within a leaf is measured. Each row keeps
//     its k+Extra best candidates by the working distance (float32).
//  2. NN-descent (Dong, Moses & Li, WWW 2011) with local joins and
//     sampling (localJoinRounds): each round, every row's new neighbours
//     (forward and reverse, a share Sample of them) are measured against
//     each other and against its old ones, each pair offered to both rows;
//     the graph does not depend on scheduling. Rounds stop when fewer than
//     Delta*n*k entries change, unless a recall estimated on a second row
//     sample is still low and rising, or at MaxIter.
//  3. Each row's candidates are re-ranked by the exact distance (float64,
//     from the original features) with ties to the lower index; the first
//     k form the row.
//
// The recall@k is then measured on RecallRows rows drawn from Seed: their
// exact neighbours by brute force, a returned neighbour counting as found
// if its distance is at most the exact k-th distance (ties are not misses).
func approxKNN(orig approxSpace, k int, metric string, opt ApproxOptions) (*KNNGraph, ApproxStats, error) {
	opt.defaults()
	n := orig.n()
	if n > maxApproxItems {
		return nil, ApproxStats{}, fmt.Errorf("kNN graph: %d items, but the approximate graph takes at most %d (2^%d); the exact one has no such limit", n, maxApproxItems, candIndexBits)
	}
	kc := min(k+opt.Extra, n-1) // candidates kept per row
	h := newCandHeap(n, kc)
	splitItems, leafPairs := rpTreeWork(n, opt.LeafSize)
	trees := StartPhase(opt.Progress, "kNN graph: trees", "steps",
		int64(opt.Trees+1)*splitItems*orig.splitCost()+int64(opt.Trees)*leafPairs*leafPairSteps)
	// 0. Locality: the items are renumbered in the order of a first tree's
	// leaves, so that neighbours mostly lie close in memory (a million rows
	// no longer fit in the processor's cache, and every round reads the
	// rows of each row's neighbours). perm[p] is item p's original index.
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	buildRPTree(orig, perm, opt.LeafSize, rng.Uint64(), opt.Workers, trees)
	sp := orig.permuted(perm)
	orig.dropWorking() // the recall below reads its exact distances only (after sp.restore)
	// 1. Trees: built Workers at a time, one per goroutine (no serial top
	// levels), each from its own seed drawn in order; then their leaves
	// are measured one tree after another (pushLeaves).
	seeds := make([]uint64, opt.Trees)
	for t := range seeds {
		seeds[t] = rng.Uint64()
	}
	batch := make([][][]int32, 0, opt.Workers)
	for t0 := 0; t0 < opt.Trees; t0 += opt.Workers {
		batch = batch[:min(opt.Workers, opt.Trees-t0)]
		parallel.Blocks(len(batch), 1, opt.Workers, func(_, b, _ int) {
			items := make([]int32, n)
			for i := range items {
				items[i] = int32(i)
			}
			batch[b] = buildRPTree(sp, items, opt.LeafSize, seeds[t0+b], 1, trees)
		})
		for _, leaves := range batch {
			pushLeaves(sp, h, leaves, opt.Workers, trees)
		}
	}
	trees.Finish()
	// Rows the trees left short (k close to the leaf size, duplicates) get
	// random candidates: NN-descent only reaches neighbours of neighbours,
	// so a closed group of rows would stay closed.
	parallel.Blocks(n, 1024, opt.Workers, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			r := rand.New(rand.NewPCG(opt.Seed, uint64(p)+1))
			for try := 0; try < 4*kc && h.idx[(p+1)*kc-1] < 0; try++ {
				if j := int32(r.IntN(n)); int(j) != p {
					h.push(int32(p), j, sp.work(int32(p), j))
				}
			}
		}
	})
	if opt.onRound != nil {
		opt.onRound(0, h, perm)
	}
	ReleaseMemory(n) // the trees' garbage, before the rounds allocate their lists
	// 2. NN-descent.
	st := ApproxStats{Recall: -1}
	st.Rounds = localJoinRounds(sp, h, k, opt, perm, orig.exact)
	// 3. Exact re-ranking, back in the original numbering (ties to the
	// lower original index). The working rows are no longer read (dense
	// pools: their memory goes before the graph's is taken).
	sp.dropWorking()
	// Only the candidates' indices are read from here on: their working
	// distances and states go before the graph is allocated.
	h.stripStates(opt.Workers)
	h.dist = nil
	ReleaseMemory(n)
	g := &KNNGraph{N: n, K: k, Metric: metric, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	var rerank *Phase
	if opt.Progress != nil {
		rerank = StartPhase(opt.Progress, "kNN graph: re-rank", "distances", rerankWork(h, n, k, opt.Workers))
	}
	parallel.Blocks(n, 1024, opt.Workers, func(_, lo, hi int) {
		c := make([]candidate, 0, kc)
		var measured int64
		defer func() { rerank.Add(measured) }()
		for p := lo; p < hi; p++ {
			c = c[:0]
			for _, j := range h.idx[p*kc : (p+1)*kc] {
				if j >= 0 {
					c = append(c, candidate{sp.exact(p, int(j)), perm[j]})
				}
			}
			measured += int64(len(c))
			if len(c) < k { // not reached in practice: brute force for the row
				c = c[:0]
				for j := range n {
					if j != p {
						c = append(c, candidate{sp.exact(p, j), perm[j]})
					}
				}
				measured += int64(n - 1)
			}
			slices.SortFunc(c, byDistanceThenIndex)
			i := int(perm[p])
			for m := 0; m < k; m++ {
				g.Index[i*k+m] = c[m].j
				g.Distance[i*k+m] = c[m].v
			}
		}
	})
	rerank.Finish()
	sp.restore() // the features back in their order, for orig's exact distances
	h = nil
	ReleaseMemory(n) // the candidate rows, before the edge weights are allocated
	if opt.RecallRows > 0 {
		recall := StartPhase(opt.Progress, "kNN graph: recall", "distances", sampleKthWork(n, opt.RecallRows))
		st.Recall, st.RecallRows = measureRecall(g, orig.exact, opt.RecallRows, opt.Seed, opt.Workers, recall)
		recall.Finish()
	}
	return g, st, nil
}

// leafPairSteps is what a leaf pair counts in the trees' progress, where a
// split counts one step per projection or distance (splitCost per item):
// a pair's distance and its two insertions into candidate rows cost about
// four projections (CPU, 200,000 x 32 float32: 150-230 ns a pair, 40 ns an
// item split), so a step costs about the same time in both parts of the
// phase, which alternate, and the time left at the phase's rate holds.
const leafPairSteps = 4

// rpTreeWork is the work of one random-projection tree over n items with
// leaves of at most leafSize, as buildRPTree splits them (a node of m >
// leafSize items into halves of m/2 and m - m/2): the items projected,
// summed over its splits, and the pairs within its leaves (pushLeaves).
func rpTreeWork(n, leafSize int) (splitItems, leafPairs int64) {
	memo := map[int][2]int64{} // two sizes per level: O(log n) entries
	var rec func(m int) [2]int64
	rec = func(m int) [2]int64 {
		if m <= leafSize {
			return [2]int64{0, int64(m) * int64(m-1) / 2}
		}
		if w, ok := memo[m]; ok {
			return w
		}
		a, b := rec(m/2), rec(m-m/2)
		w := [2]int64{int64(m) + a[0] + b[0], a[1] + b[1]}
		memo[m] = w
		return w
	}
	w := rec(n)
	return w[0], w[1]
}

// rerankWork is the exact distances the re-ranking of approxKNN measures:
// every row's candidates, and n - 1 more for a row with fewer than k of
// them (brute force).
func rerankWork(h *candHeap, n, k, workers int) int64 {
	var total atomic.Int64
	parallel.Blocks(n, 4096, workers, func(_, lo, hi int) {
		var t int64
		for p := lo; p < hi; p++ {
			c := 0
			for _, j := range h.idx[p*h.kc : (p+1)*h.kc] { // h.dist may be freed
				if j >= 0 {
					c++
				}
			}
			if c < k {
				c += n - 1
			}
			t += int64(c)
		}
		total.Add(t)
	})
	return total.Load()
}

// sampleKthWork is the exact distances sampleKth measures for rows rows of
// n items.
func sampleKthWork(n, rows int) int64 {
	return int64(min(n, rows)) * int64(n-1)
}

// measureRecall returns the recall@k of g on rows sampled rows (all rows if
// n <= rows) against their brute-force neighbours under exact, and the
// number of rows used. A neighbour counts as found if its distance is at
// most the exact k-th distance of its row.
func measureRecall(g *KNNGraph, exact func(i, j int) float64, rows int, seed uint64, workers int, progress *Phase) (float64, int) {
	sample, kth := sampleKth(g.N, g.K, exact, nil, rows, seed, workers, progress)
	found := 0
	for s, i := range sample {
		for _, v := range g.Distances(i) {
			if v <= kth[s] {
				found++
			}
		}
	}
	return float64(found) / float64(len(sample)*g.K), len(sample)
}

// sampleKth draws rows rows of n from seed (all rows if n <= rows), in
// increasing order, and returns them with the exact distance of each one's
// k-th nearest neighbour (brute force under exact); each row's n - 1
// distances are added to progress. With perm, row p of the sample is item
// perm[p] of exact's numbering, measured against every item in that
// numbering (exact's order: the rows read one after another, not through
// perm, whose random order made this 6x slower at 10^5 x 32).
func sampleKth(n, k int, exact func(i, j int) float64, perm []int32, rows int, seed uint64, workers int, progress *Phase) ([]int, []float64) {
	var sample []int
	if n <= rows {
		sample = make([]int, n)
		for i := range sample {
			sample[i] = i
		}
	} else {
		rng := rand.New(rand.NewPCG(seed, 0xd1b54a32d192ed03))
		sample = rng.Perm(n)[:rows]
		slices.Sort(sample)
	}
	kth := make([]float64, len(sample))
	// One row of distances per worker, reused (a million items: 8 MB a
	// row, 1.6 GB of garbage over 200 rows otherwise).
	bufs := make([][]float64, workers)
	parallel.Blocks(len(sample), 1, workers, func(w, s, _ int) {
		i := sample[s]
		if perm != nil {
			i = int(perm[i])
		}
		if bufs[w] == nil {
			bufs[w] = make([]float64, 0, n-1)
		}
		d := bufs[w][:0]
		for j := 0; j < n; j++ {
			if j != i {
				d = append(d, exact(i, j))
			}
		}
		kth[s] = kthSmallest(d, k-1)
		progress.Add(int64(len(d)))
	})
	return sample, kth
}

// candHeap holds each row's kc best candidates, sorted by working distance
// (then index); empty slots are -1 with distance +Inf. An entry packs the
// candidate's index (bits 0-28: pools of at most maxApproxItems items) and
// its state (bits 29-30): whether it still has to be joined (entryNew,
// entryAdded) or was (entryOld), 4 bytes an entry where a state byte beside
// the index took 5 (30 bytes an item at kc = 30). candIndex and candState
// read an entry; stripStates leaves the indices alone once the rounds are
// over.
type candHeap struct {
	kc   int
	idx  []int32
	dist []float32
}

// Entry states of a candHeap: entryOld was taken into a local join;
// entryNew was not yet; entryAdded entered the row in the current round
// (and is new for the next).
const (
	entryOld uint8 = iota
	entryNew
	entryAdded
)

// candIndexBits is the width of a candidate's index in a candHeap entry.
const candIndexBits = 29

// maxApproxItems is the largest pool the approximate graph takes (indices
// below 2^candIndexBits beside the entry state).
const maxApproxItems = 1 << candIndexBits

// candEntry packs index j (>= 0) and state s.
func candEntry(j int32, s uint8) int32 { return j | int32(s)<<candIndexBits }

// candIndex is the index of entry e (-1 for an empty slot).
func candIndex(e int32) int32 {
	if e < 0 {
		return -1
	}
	return e & (1<<candIndexBits - 1)
}

// candState is the state of a non-empty entry e.
func candState(e int32) uint8 { return uint8(e >> candIndexBits) }

type candRow struct {
	idx  []int32
	dist []float32
}

func newCandHeap(n, kc int) *candHeap {
	h := &candHeap{kc: kc, idx: make([]int32, n*kc), dist: make([]float32, n*kc)}
	for e := range h.idx {
		h.idx[e] = -1
		h.dist[e] = float32(math.Inf(1))
	}
	return h
}

func (h *candHeap) row(i int) candRow {
	a, b := i*h.kc, (i+1)*h.kc
	return candRow{idx: h.idx[a:b], dist: h.dist[a:b]}
}

// stripStates leaves only the indices in the entries (for the readers
// after the rounds).
func (h *candHeap) stripStates(workers int) {
	parallel.Blocks(len(h.idx), 1<<16, workers, func(_, lo, hi int) {
		for e, v := range h.idx[lo:hi] {
			h.idx[lo+e] = candIndex(v)
		}
	})
}

// push offers j as a candidate of row i at working distance v; it returns
// whether the row changed (j was not there and beats the worst entry). The
// row after a set of pushes does not depend on their order: its kc best
// distinct candidates by (distance, index). j enters as entryAdded.
func (h *candHeap) push(i, j int32, v float32) bool {
	r := h.row(int(i))
	last := h.kc - 1
	if v > r.dist[last] || (v == r.dist[last] && r.idx[last] >= 0 && j > candIndex(r.idx[last])) {
		return false
	}
	pos := 0
	for pos < h.kc && (r.dist[pos] < v || (r.dist[pos] == v && r.idx[pos] >= 0 && candIndex(r.idx[pos]) < j)) {
		if candIndex(r.idx[pos]) == j {
			return false
		}
		pos++
	}
	for e := pos; e < h.kc; e++ {
		if candIndex(r.idx[e]) == j {
			return false
		}
	}
	copy(r.idx[pos+1:], r.idx[pos:last])
	copy(r.dist[pos+1:], r.dist[pos:last])
	r.idx[pos], r.dist[pos] = candEntry(j, entryAdded), v
	return true
}

// pushLeaves measures every pair within each leaf of one tree and offers
// it to both rows (each item is in exactly one leaf, so the leaves update
// disjoint rows in parallel); each leaf's pairs are added to progress.
func pushLeaves(sp approxSpace, h *candHeap, leaves [][]int32, workers int, progress *Phase) {
	parallel.Blocks(len(leaves), 1, workers, func(_, l, _ int) {
		leaf := leaves[l]
		for a := 0; a < len(leaf); a++ {
			for b := a + 1; b < len(leaf); b++ {
				v := sp.work(leaf[a], leaf[b])
				h.push(leaf[a], leaf[b], v)
				h.push(leaf[b], leaf[a], v)
			}
		}
		progress.Add(int64(len(leaf)) * int64(len(leaf)-1) / 2 * leafPairSteps)
	})
}

// buildRPTree returns the leaves of one random-projection tree over items
// (reordered in place; leaves are views into it). Each split adds its
// items times sp.splitCost() to progress.
func buildRPTree(sp approxSpace, items []int32, leafSize int, seed uint64, workers int, progress *Phase) [][]int32 {
	type task struct {
		items []int32
		seed  uint64
	}
	var mu sync.Mutex
	var leaves [][]int32
	var rec func(t task, proj []float32)
	rec = func(t task, proj []float32) {
		for len(t.items) > leafSize {
			rng := rand.New(rand.NewPCG(t.seed, uint64(len(t.items))))
			m := sp.split(t.items, rng, proj)
			progress.Add(int64(len(t.items)) * sp.splitCost())
			left := task{t.items[:m], rng.Uint64()}
			t = task{t.items[m:], rng.Uint64()}
			rec(left, proj)
		}
		mu.Lock()
		leaves = append(leaves, t.items)
		mu.Unlock()
	}
	// The top levels are split serially, then the subtrees in parallel.
	tasks := []task{{items, seed}}
	proj := make([]float32, len(items))
	for len(tasks) < 4*workers && len(tasks[0].items) > 2*leafSize {
		var next []task
		for _, t := range tasks {
			rng := rand.New(rand.NewPCG(t.seed, uint64(len(t.items))))
			m := sp.split(t.items, rng, proj)
			progress.Add(int64(len(t.items)) * sp.splitCost())
			next = append(next, task{t.items[:m], rng.Uint64()}, task{t.items[m:], rng.Uint64()})
		}
		tasks = next
	}
	parallel.Blocks(len(tasks), 1, workers, func(_, w, _ int) {
		rec(tasks[w], make([]float32, len(tasks[w].items)))
	})
	// Leaves in a fixed order, so the result does not depend on scheduling.
	slices.SortFunc(leaves, func(a, b []int32) int { return cmp.Compare(a[0], b[0]) })
	return leaves
}

// medianSplit reorders items (and key with them) so that the first half
// are the len/2 items of smallest key, ties to the lower index, and returns
// the half's size. The halves are found by selection (quickselect on the
// pairs (key, index), which are distinct), in place and in linear time; the
// order within each half is not sorted.
func medianSplit(items []int32, key []float32) int {
	key = key[:len(items)]
	for m, v := range key {
		if v != v { // NaN: ordered last
			key[m] = float32(math.Inf(1))
		}
	}
	m := len(items) / 2
	selectPairs(items, key, m)
	return m
}

// selectPairs reorders items and key together so that the pairs at
// positions below m are the m smallest by (key, item).
func selectPairs(items []int32, key []float32, m int) {
	less := func(ka float32, ia int32, kb float32, ib int32) bool {
		return ka < kb || ka == kb && ia < ib
	}
	swap := func(a, b int) {
		items[a], items[b] = items[b], items[a]
		key[a], key[b] = key[b], key[a]
	}
	lo, hi := 0, len(items) // the boundary m lies in [lo, hi]
	for rounds := 0; hi-lo > 12; rounds++ {
		if m == lo || m == hi {
			return
		}
		if rounds > 64 { // pathological pivots: sort what is left
			sortPairs(items[lo:hi], key[lo:hi])
			return
		}
		// Median of three as the pivot, moved to lo.
		mid := lo + (hi-lo)/2
		x, y, z := lo, mid, hi-1
		if less(key[y], items[y], key[x], items[x]) {
			x, y = y, x
		}
		if less(key[z], items[z], key[y], items[y]) {
			y = z
			if less(key[y], items[y], key[x], items[x]) {
				y = x
			}
		}
		swap(lo, y)
		pk, pi := key[lo], items[lo]
		// Hoare partition of (lo, hi): [lo+1, i) below the pivot, (j, hi)
		// above it.
		i, j := lo+1, hi-1
		for {
			for i <= j && less(key[i], items[i], pk, pi) {
				i++
			}
			for i <= j && less(pk, pi, key[j], items[j]) {
				j--
			}
			if i >= j {
				break
			}
			swap(i, j)
			i++
			j--
		}
		swap(lo, j) // the pivot at j: [lo, j) below, (j, hi) above
		switch {
		case m <= j:
			hi = j
		case m > j+1:
			lo = j + 1
		default:
			return
		}
	}
	sortPairs(items[lo:hi], key[lo:hi])
}

// sortPairs sorts items and key together by (key, item) (insertion sort
// for short runs, else through a slice of pairs).
func sortPairs(items []int32, key []float32) {
	if len(items) <= 32 {
		for a := 1; a < len(items); a++ {
			for b := a; b > 0 && (key[b] < key[b-1] || key[b] == key[b-1] && items[b] < items[b-1]); b-- {
				items[b], items[b-1] = items[b-1], items[b]
				key[b], key[b-1] = key[b-1], key[b]
			}
		}
		return
	}
	type kv struct {
		k float32
		i int32
	}
	pairs := make([]kv, len(items))
	for a, i := range items {
		pairs[a] = kv{key[a], i}
	}
	slices.SortFunc(pairs, func(a, b kv) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	for a, p := range pairs {
		items[a], key[a] = p.i, p.k
	}
}

// denseSpace: working rows are float32 and the working distance is their
// squared Euclidean distance. Cosine: rows scaled to unit length (the
// distance is half the squared Euclidean one of unit vectors), a copy.
// Euclidean: the features themselves when their mean lies within their
// spread (nearCentred), else centred (a copy), so that the rounding of
// |a|^2 + |b|^2 - 2 a.b stays small beside the distances; a float32 block
// of features then serves as the working rows without a copy (shared: see
// permuted). The exact distance reads the original features (src, float64
// or float32 as given): item p of a permuted space is item perm[p] of src.
type denseSpace struct {
	src    Dense
	perm   []int32 // nil: the identity
	d      int
	w      []float32
	norm2  []float32 // squared norms of the working rows
	cosine bool
	// shared: w is src.F32.Data itself. moved (of a space permuted from a
	// shared one): src's rows were moved into this space's order, restore
	// moves them back.
	shared bool
	moved  []int32
	blas   gonum.Implementation
}

func newDenseSpace(x [][]float64, metric string) (*denseSpace, error) {
	return newDenseSpaceOf(Dense{F64: x}, metric)
}

func newDenseSpaceOf(src Dense, metric string) (*denseSpace, error) {
	if err := src.Check(); err != nil {
		return nil, err
	}
	n, d := src.n(), src.d()
	sp := &denseSpace{src: src, d: d, cosine: metric == MetricCosine, norm2: make([]float32, n)}
	switch {
	case sp.cosine || !nearCentred(src):
		w, err := workingRows[float32](src, sp.cosine)
		if err != nil {
			return nil, err
		}
		sp.w = w
	case src.F32.Data != nil:
		sp.w, sp.shared = src.F32.Data, true
	default:
		sp.w = make([]float32, n*d)
		for i, row := range src.F64 {
			for c, v := range row {
				sp.w[i*d+c] = float32(v)
			}
		}
	}
	for i := range sp.norm2 {
		row := sp.w[i*d : (i+1)*d]
		sp.norm2[i] = sp.blas.Sdot(d, row, 1, row, 1)
	}
	return sp, nil
}

// nearCentred reports whether the features' mean m lies within their
// spread, |m|^2 <= mean |x - m|^2 (in float64): then the working rows need
// not be centred, the squared norms being at most about twice the centred
// ones on average.
func nearCentred(src Dense) bool {
	n, d := src.n(), src.d()
	buf := make([]float64, d)
	mean := make([]float64, d)
	for i := range n {
		for c, v := range src.row64(i, buf) {
			mean[c] += v
		}
	}
	var m2 float64
	for c := range mean {
		mean[c] /= float64(n)
		m2 += mean[c] * mean[c]
	}
	var spread float64
	for i := range n {
		for c, v := range src.row64(i, buf) {
			spread += (v - mean[c]) * (v - mean[c])
		}
	}
	return m2 <= spread/float64(n)
}

func (s *denseSpace) n() int { return len(s.norm2) }

func (s *denseSpace) dropWorking() { s.w, s.norm2 = nil, nil }

// permuted moves the working rows into the new order in place (following
// the permutation's cycles: no second copy of them) and hands them to the
// returned space; s keeps its exact distances only (as after dropWorking).
// When the working rows are the features themselves (shared), the
// features are moved: s's exact distances may then not be called until
// the returned space's restore, and the returned space reads its exact
// distances from the moved rows.
func (s *denseSpace) permuted(perm []int32) approxSpace {
	d, n := s.d, len(perm)
	moveRows(s.w, d, perm)
	norm2 := make([]float32, n)
	for p, i := range perm {
		norm2[p] = s.norm2[i]
	}
	t := &denseSpace{src: s.src, d: d, w: s.w, norm2: norm2, cosine: s.cosine}
	switch {
	case s.shared && s.perm == nil:
		t.moved = perm
	case s.perm != nil:
		t.perm = make([]int32, n)
		for p, i := range perm {
			t.perm[p] = s.perm[i]
		}
	default:
		t.perm = perm
	}
	s.w = nil
	return t
}

// restore moves the features back into their own order after permuted
// moved them (shared working rows); otherwise it does nothing. The space
// keeps only n afterwards.
func (s *denseSpace) restore() {
	if s.moved != nil {
		unmoveRows(s.src.F32.Data, s.d, s.moved)
		s.moved = nil
	}
	s.dropWorking()
}

// moveRows reorders the rows of w (d values each) in place so that row p
// receives row perm[p], along the permutation's cycles (one spare row and
// a bit per row).
func moveRows(w []float32, d int, perm []int32) {
	n := len(perm)
	done := make([]uint64, (n+63)/64)
	tmp := make([]float32, d)
	for start := range n {
		if done[start/64]&(1<<(start%64)) != 0 {
			continue
		}
		// Row p receives row perm[p], along the cycle through start.
		copy(tmp, w[start*d:(start+1)*d])
		p := start
		for {
			done[p/64] |= 1 << (p % 64)
			q := int(perm[p])
			if q == start {
				copy(w[p*d:(p+1)*d], tmp)
				break
			}
			copy(w[p*d:(p+1)*d], w[q*d:(q+1)*d])
			p = q
		}
	}
}

// unmoveRows undoes moveRows(w, d, perm): row perm[p] receives row p, in
// place (two spare rows and a bit per row).
func unmoveRows(w []float32, d int, perm []int32) {
	n := len(perm)
	done := make([]uint64, (n+63)/64)
	carry, next := make([]float32, d), make([]float32, d)
	for start := range n {
		if done[start/64]&(1<<(start%64)) != 0 {
			continue
		}
		// Along the cycle through start: the row at p goes to perm[p].
		copy(carry, w[start*d:(start+1)*d])
		p := start
		for {
			done[p/64] |= 1 << (p % 64)
			q := int(perm[p])
			if q == start {
				copy(w[q*d:(q+1)*d], carry)
				break
			}
			copy(next, w[q*d:(q+1)*d])
			copy(w[q*d:(q+1)*d], carry)
			carry, next = next, carry
			p = q
		}
	}
}

// work is |a|^2 + |b|^2 - 2 a.b in float32 (gonum's Sdot is vectorised:
// 3x the speed of a plain loop at d = 32), at least 0. Its rounding only
// affects which candidates are kept: rows are re-ranked exactly.
func (s *denseSpace) work(i, j int32) float32 {
	d := s.d
	dot := s.blas.Sdot(d, s.w[int(i)*d:int(i)*d+d], 1, s.w[int(j)*d:int(j)*d+d], 1)
	return max(s.norm2[i]+s.norm2[j]-2*dot, 0)
}

// workMany is work for each of js in turn (gonum's vectorised Sdot per
// pair; the rows are read in the order given). Measuring four rows at once
// in plain Go (as andCount4 does for fingerprints) was tried: 1.5x on rows
// drawn at random from 2,000,000, but 16 % more CPU in the rounds of the
// 1,000,000-item build, whose candidates lie mostly close in memory
// (docs/performance.md).
func (s *denseSpace) workMany(i int32, js []int32, out []float32) {
	for m, j := range js {
		out[m] = s.work(i, j)
	}
}

func (s *denseSpace) exact(i, j int) float64 {
	if s.perm != nil {
		i, j = int(s.perm[i]), int(s.perm[j])
	}
	return s.src.Dist(i, j, s.cosine)
}

func (s *denseSpace) splitCost() int64 { return 1 }

// split projects items on the difference of two random members (gonum's
// vectorised Sdot per item) and splits at the median.
func (s *denseSpace) split(items []int32, rng *rand.Rand, proj []float32) int {
	d := s.d
	a := int(items[rng.IntN(len(items))])
	b := int(items[rng.IntN(len(items))])
	dir := make([]float32, d)
	for c := range dir {
		dir[c] = s.w[a*d+c] - s.w[b*d+c]
	}
	if a == b || slices.Max(dir) == 0 && slices.Min(dir) == 0 {
		for c := range dir { // a random direction instead
			dir[c] = float32(rng.NormFloat64())
		}
	}
	key := proj[:len(items)]
	for m, i := range items {
		key[m] = s.blas.Sdot(d, s.w[int(i)*d:int(i)*d+d], 1, dir, 1)
	}
	return medianSplit(items, key)
}

// bitsSpace: fingerprints under the Tanimoto distance; the working distance
// is the exact one rounded to float32 (popcounts are cheap). The space of
// the input keeps its rows (b); a permuted space holds them in one block
// (flat, words per row), so that a row is found without reading a slice
// header and rows close in the order are close in memory.
type bitsSpace struct {
	b     [][]uint64
	flat  []uint64
	words int
	count []int32
}

func newBitsSpace(b [][]uint64) *bitsSpace {
	s := &bitsSpace{b: b, words: len(b[0]), count: make([]int32, len(b))}
	for i, row := range b {
		s.count[i] = int32(popcount(row))
	}
	return s
}

func (s *bitsSpace) n() int { return len(s.count) }

func (s *bitsSpace) row(i int) []uint64 {
	if s.flat != nil {
		return s.flat[i*s.words : (i+1)*s.words : (i+1)*s.words]
	}
	return s.b[i]
}

func (s *bitsSpace) dropWorking() {} // exact reads everything it holds

func (s *bitsSpace) restore() {} // permuted copied the rows

// permuted copies the fingerprints into one block in the new order.
func (s *bitsSpace) permuted(perm []int32) approxSpace {
	words := s.words
	t := &bitsSpace{flat: make([]uint64, len(perm)*words), words: words, count: make([]int32, len(perm))}
	for p, i := range perm {
		copy(t.flat[p*words:(p+1)*words], s.row(int(i)))
		t.count[p] = s.count[i]
	}
	return t
}

func (s *bitsSpace) work(i, j int32) float32 { return float32(s.exact(int(i), int(j))) }

// workMany measures js four at a time (andCount4), so that the reads of
// four candidate rows are in flight together.
func (s *bitsSpace) workMany(i int32, js []int32, out []float32) {
	a := s.row(int(i))
	ca := int(s.count[i])
	m := 0
	for ; m+4 <= len(js); m += 4 {
		j := js[m : m+4 : m+4]
		c := andCount4(a, s.row(int(j[0])), s.row(int(j[1])), s.row(int(j[2])), s.row(int(j[3])))
		for q := range 4 {
			out[m+q] = float32(tanimotoFromCounts(c[q], ca, int(s.count[j[q]])))
		}
	}
	for ; m < len(js); m++ {
		out[m] = s.work(i, js[m])
	}
}

func (s *bitsSpace) exact(i, j int) float64 {
	return tanimotoFromCounts(AndCount(s.row(i), s.row(j)), int(s.count[i]), int(s.count[j]))
}

func (s *bitsSpace) splitCost() int64 { return 2 }

// split orders items by the difference of their Tanimoto distances to two
// random members and splits at the median.
func (s *bitsSpace) split(items []int32, rng *rand.Rand, proj []float32) int {
	a := int(items[rng.IntN(len(items))])
	b := int(items[rng.IntN(len(items))])
	key := proj[:len(items)]
	for m, i := range items {
		key[m] = float32(s.exact(int(i), a) - s.exact(int(i), b))
	}
	if a == b {
		for m := range key {
			key[m] = float32(rng.Float64())
		}
	}
	return medianSplit(items, key)
}

func popcount(row []uint64) int {
	c := 0
	for _, x := range row {
		c += bits.OnesCount64(x)
	}
	return c
}

// AndCount is |a AND b|, the popcount of the words' intersection (b at
// least as long as a). Four independent sums let the processor overlap the
// popcounts: 1.3x a plain loop on 2,048-bit rows (BenchmarkAndCount).
func AndCount(a, b []uint64) int {
	b = b[:len(a)]
	var c0, c1, c2, c3 int
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		c0 += bits.OnesCount64(x[0] & y[0])
		c1 += bits.OnesCount64(x[1] & y[1])
		c2 += bits.OnesCount64(x[2] & y[2])
		c3 += bits.OnesCount64(x[3] & y[3])
	}
	for ; i < len(a); i++ {
		c0 += bits.OnesCount64(a[i] & b[i])
	}
	return c0 + c1 + c2 + c3
}

// andCount4 is AndCount(a, b) for four rows b0..b3 at once (each at least
// as long as a): one pass over a, the four rows' words read side by side so
// that their cache misses overlap.
func andCount4(a, b0, b1, b2, b3 []uint64) [4]int {
	n := len(a)
	b0, b1, b2, b3 = b0[:n], b1[:n], b2[:n], b3[:n]
	var c0, c1, c2, c3 int
	for w, x := range a {
		c0 += bits.OnesCount64(x & b0[w])
		c1 += bits.OnesCount64(x & b1[w])
		c2 += bits.OnesCount64(x & b2[w])
		c3 += bits.OnesCount64(x & b3[w])
	}
	return [4]int{c0, c1, c2, c3}
}

// tanimotoFromCounts is the Tanimoto distance 1 - |a AND b| / |a OR b| from
// and = |a AND b| and the popcounts ca, cb (|a OR b| = ca + cb - and; 0 for
// two empty fingerprints), the value BitsKNN computes.
func tanimotoFromCounts(and, ca, cb int) float64 {
	if or := ca + cb - and; or > 0 {
		return 1 - float64(and)/float64(or)
	}
	return 0
}

// releaseMemoryItems is the pool size from which releaseMemory acts.
const releaseMemoryItems = 1 << 17

// ReleaseMemory, on a pool of n >= releaseMemoryItems items, collects the
// garbage and returns the freed memory to the operating system now
// (debug.FreeOSMemory: one collection, well under a second on a heap of
// large pointer-free arrays). Called where a phase of the approximate
// build has dropped arrays of several bytes an item before the next one
// allocates its own: else the collector (GOGC = 100) lets the heap grow to
// twice what was live at its last collection first, and the peak memory
// holds both phases' arrays.
func ReleaseMemory(n int) {
	if n >= releaseMemoryItems {
		debug.FreeOSMemory()
	}
}

// gcPercentLarge is the collector's target (GOGC) while a large pool's
// graph is built or searched (LowGCSlack).
const gcPercentLarge = 10

// LowGCSlack, for a pool of n >= releaseMemoryItems items, lowers the
// collector's target percentage (GOGC, 100 by default) to gcPercentLarge
// until the returned function puts the previous one back; it leaves it
// alone when the GOGC environment variable is set (the user's choice
// stands). At 100 the heap grows to twice what was live at the last
// collection before the next one, so a phase's garbage (the trees' item
// lists, the per-candidate arrays of each greedy pick) could add up to the
// live bytes again at the peak; at 10 % the collections come more often,
// on a heap of mostly pointer-free arrays (cheap to mark), for a peak of
// at most 1.1x the live bytes.
func LowGCSlack(n int) (restore func()) {
	if n < releaseMemoryItems || os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(gcPercentLarge)
	return func() { debug.SetGCPercent(old) }
}
