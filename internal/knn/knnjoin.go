package knn

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// localJoinRounds runs the NN-descent rounds of approxKNN on h (Dong, Moses
// & Li, "Efficient k-nearest neighbor graph construction for generic
// similarity measures", WWW 2011, Algorithm 2 with sampling rate
// opt.Sample = ρ) and returns how many ran. In each round:
//
//   - every row v splits its entries into new ones (not yet joined: up to
//     ρ·kc of them, nearest first, are taken now and become old; the others
//     wait for a later round) and old ones;
//   - the reverse lists are built from those (u is a reverse new neighbour
//     of v if v was taken as new in u's row), and each is cut to a random
//     ρ·kc of its members (drawn from Seed, the round and v);
//   - the local join of v measures every pair of its new members (forward
//     and reverse) and every pair of a new and an old member, and offers
//     each pair to both rows: a candidate's row improves whichever side it
//     is found from, and the rows read by one join are few (a row's
//     members, ~2ρ·kc of them), so they stay in the processor's cache.
//
// Pushes into a row are serialised by a lock and the row after a round is
// the kc best of what was offered, whatever the order (candHeap.push), so
// the graph does not depend on the number of workers. A round counts the
// entries that entered rows and still hold; the rounds stop once fewer
// than Delta*n*k did, unless the recall is still low and rising: with
// RecallRows > 0, the recall@k of the rows' first k entries is estimated
// after each round on RecallRows rows drawn apart from those measureRecall
// reports on (their exact k-th distances by brute force, once), and the
// rounds go on while it is below stopRecall and rose by at least
// stopRecallGain in the last round. At most MaxIter rounds run.
//
// origExact is the exact distance in the original numbering (item perm[p]
// is sp's item p), which the recall sample reads in order.
//
// With opt.Progress, the recall sample is a phase ("recall sample") and so
// is each round: its work, the pairs its local joins measure plus the
// rows' recall estimate, is counted before the joins start (a pass that
// gathers every row's join members as the join does, without measuring).
func localJoinRounds(sp approxSpace, h *candHeap, k int, opt ApproxOptions, perm []int32, origExact func(i, j int) float64) int {
	n, kc := sp.n(), h.kc
	take := max(1, int(math.Ceil(opt.Sample*float64(kc)))) // ρ·kc
	// Forward lists of the round, both in row v's stride of f (a row's
	// new and old entries are at most kc together): the nNew[v] taken as
	// new at its front, the nOld[v] old ones at its back, each in row
	// order (a million rows at kc = 30: 120 MB); then the reverse lists of
	// both in one CSR, for the rows of one chunk at a time (rev: row
	// 2(u-revLo) lists u's reverse new neighbours, row 2(u-revLo)+1 its
	// reverse old ones; at most n*kc entries in all, 120 MB, so about a
	// chunk's share of that per chunk).
	f := make([]int32, n*kc)
	chunks := opt.revChunks
	if chunks <= 0 {
		chunks = 1
		if n >= releaseMemoryItems {
			chunks = revChunksLarge
		}
	}
	chunks = min(chunks, n)
	chunkLo := func(c int) int { return c * n / chunks }
	// chunkOf is the chunk holding row u: floor(u*chunks/n) or the next.
	chunkOf := func(u int32) int {
		c := int(u) * chunks / n
		if int(u) >= chunkLo(c+1) {
			c++
		}
		return c
	}
	revLo := 0
	nNew := make([]uint8, n)
	nOld := make([]uint8, n)
	fNew := func(v int) []int32 { return f[v*kc : v*kc+int(nNew[v])] }
	fOld := func(v int) []int32 { return f[(v+1)*kc-int(nOld[v]) : (v+1)*kc] }
	var locks [1 << 12]sync.Mutex
	// Each row's worst distance (float32 bits), updated under the row's
	// lock: a pair farther than it cannot enter the row (the worst only
	// falls), so it is not offered, without taking the lock.
	worst := make([]atomic.Uint32, n)
	worstOf := func(u int32) float32 { return math.Float32frombits(worst[u].Load()) }
	offer := func(u int32, c []candidate) {
		l := &locks[int(u)&(len(locks)-1)]
		l.Lock()
		changed := false
		for _, c := range c {
			if h.push(u, c.j, float32(c.v)) {
				changed = true
			}
		}
		if changed {
			worst[u].Store(math.Float32bits(h.dist[int(u)*kc+kc-1]))
		}
		l.Unlock()
	}
	var rev csrLists
	type scratch struct {
		stamp      []uint32
		sNew, sOld []int32
		pick       []int32
		partners   []int32
		dist       []float32
		mine       []candidate
	}
	scr := make([]*scratch, opt.Workers)
	getScratch := func(w int) *scratch {
		if scr[w] == nil {
			scr[w] = &scratch{stamp: make([]uint32, n)}
		}
		return scr[w]
	}
	// members sets sc.sNew and sc.sOld to the members of v's local join in
	// round: v's new entries taken this round and a sample of its reverse
	// new ones; its old entries and a sample of its reverse old ones; each
	// item once, v never. stamp[u] == mark: u is already a member (every
	// (round, pass, v) has its own mark; pass 0 counts, pass 1 joins; the
	// marks stay below 2^32 up to 2*MaxIter*n < 2^32, n < 143 million at
	// the default 15 rounds).
	members := func(sc *scratch, v, round, pass int) {
		stamp := sc.stamp
		mark := uint32((2*round+pass)*n + v + 1)
		stamp[v] = mark
		add := func(list []int32, u int32) []int32 {
			if stamp[u] == mark {
				return list
			}
			stamp[u] = mark
			return append(list, u)
		}
		sNew, sOld := sc.sNew[:0], sc.sOld[:0]
		for _, u := range fNew(v) {
			sNew = add(sNew, u)
		}
		sc.pick = sampleInto(sc.pick, rev.of(2*(v-revLo)), take, opt.Seed, round, v)
		for _, u := range sc.pick {
			sNew = add(sNew, u)
		}
		for _, u := range fOld(v) {
			sOld = add(sOld, u)
		}
		sc.pick = sampleInto(sc.pick, rev.of(2*(v-revLo)+1), take, opt.Seed^0x5851f42d4c957f2d, round, v)
		for _, u := range sc.pick {
			sOld = add(sOld, u)
		}
		sc.sNew, sc.sOld = sNew, sOld
	}
	// joinPairs is the pairs measured by a join of these members.
	joinPairs := func(nNew, nOld int) int64 {
		return int64(nNew)*int64(nNew-1)/2 + int64(nNew)*int64(nOld)
	}
	// overChunks calls body on every row v, the rows of one chunk after
	// another on the workers, each chunk's reverse lists built first
	// (unless built says the single chunk's already are), and passes each
	// block's sum of body's counts to done.
	overChunks := func(built bool, block int, body func(sc *scratch, v int) int64, done func(int64)) {
		if chunks > 1 {
			// The largest chunk's entries, and at least a chunk's share of
			// n*kc: one buffer for every chunk and, mostly, every round.
			most := make([]int, chunks)
			for v := range n {
				fv := f[v*kc : (v+1)*kc]
				for _, u := range fv[:nNew[v]] {
					most[chunkOf(u)]++
				}
				for _, u := range fv[kc-int(nOld[v]):] {
					most[chunkOf(u)]++
				}
			}
			if need := max(slices.Max(most), (n+chunks-1)/chunks*kc); cap(rev.e) < need {
				// An eighth to spare, so that later rounds rarely need
				// more; the smaller buffer is freed before the larger
				// one is taken.
				rev.e = nil
				ReleaseMemory(n)
				rev.reserve(need + need/8)
			}
		}
		for c := range chunks {
			lo, hi := chunkLo(c), chunkLo(c+1)
			if !built || chunks > 1 {
				rev.build(n, kc, f, nNew, nOld, lo, hi)
				revLo = lo
			}
			parallel.Blocks(hi-lo, block, opt.Workers, func(w, b0, b1 int) {
				sc := getScratch(w)
				var t int64
				for v := lo + b0; v < lo+b1; v++ {
					t += body(sc, v)
				}
				done(t)
			})
		}
	}
	var est func() float64
	estWork := int64(0)
	if opt.RecallRows > 0 {
		rs := StartPhase(opt.Progress, "kNN graph: recall sample", "distances", sampleKthWork(n, opt.RecallRows))
		sample, kth := sampleKth(n, k, origExact, perm, opt.RecallRows, opt.Seed^0x6a09e667f3bcc909, opt.Workers, rs)
		rs.Finish()
		estWork = int64(len(sample)) * int64(k)
		est = func() float64 {
			found := 0
			for s, p := range sample {
				for _, e := range h.row(p).idx[:k] {
					if j := candIndex(e); j >= 0 && sp.exact(p, int(j)) <= kth[s] {
						found++
					}
				}
			}
			return float64(found) / float64(len(sample)*k)
		}
	}
	last := -1.0 // the estimate after the previous round
	rounds := 0
	for round := 0; round < opt.MaxIter; round++ {
		// 1. Forward lists; the entries taken as new become old.
		parallel.Blocks(n, 4096, opt.Workers, func(_, lo, hi int) {
			for v := lo; v < hi; v++ {
				r := h.row(v)
				worst[v].Store(math.Float32bits(r.dist[kc-1]))
				fv := f[v*kc : (v+1)*kc]
				a, b := 0, 0
				for e, x := range r.idx {
					u := candIndex(x)
					if u < 0 {
						break
					}
					switch {
					case candState(x) == entryOld:
						b++
						fv[kc-b] = u // reversed below
					case a < take:
						fv[a] = u
						a++
						r.idx[e] = candEntry(u, entryOld)
					default:
						r.idx[e] = candEntry(u, entryNew)
					}
				}
				slices.Reverse(fv[kc-b:])
				nNew[v], nOld[v] = uint8(a), uint8(b)
			}
		})
		// 2-3. Reverse lists and local joins, chunk by chunk of rows (the
		// pairs of every join counted first for the progress, which builds
		// each chunk's lists twice when there are several).
		var phase *Phase
		if opt.Progress != nil {
			var pairs atomic.Int64
			overChunks(false, 4096, func(sc *scratch, v int) int64 {
				members(sc, v, round, 0)
				return joinPairs(len(sc.sNew), len(sc.sOld))
			}, func(t int64) { pairs.Add(t) })
			phase = StartPhase(opt.Progress, fmt.Sprintf("kNN graph: round %d (at most %d)", round+1, opt.MaxIter),
				"pairs", pairs.Load()+estWork)
		}
		overChunks(opt.Progress != nil, 256, func(sc *scratch, v int) int64 {
			members(sc, v, round, 1)
			sNew, sOld := sc.sNew, sc.sOld
			for a, u1 := range sNew {
				partners := append(append(sc.partners[:0], sNew[a+1:]...), sOld...)
				sc.partners = partners
				if len(partners) == 0 {
					continue
				}
				if cap(sc.dist) < len(partners) {
					sc.dist = make([]float32, cap(partners))
				}
				dist := sc.dist[:len(partners)]
				sp.workMany(u1, partners, dist)
				mine := sc.mine[:0]
				w1 := worstOf(u1)
				for m, u2 := range partners {
					d := dist[m]
					if d <= w1 {
						mine = append(mine, candidate{float64(d), u2})
					}
					if d <= worstOf(u2) {
						offer(u2, []candidate{{float64(d), u1}})
					}
				}
				if len(mine) > 0 {
					offer(u1, mine)
				}
				sc.mine = mine
			}
			return joinPairs(len(sNew), len(sOld))
		}, phase.Add)
		// 4. Entries that entered a row this round and held.
		var updates atomic.Int64
		parallel.Blocks(n, 4096, opt.Workers, func(_, lo, hi int) {
			var u int64
			for _, e := range h.idx[lo*kc : hi*kc] {
				if e >= 0 && candState(e) == entryAdded {
					u++
				}
			}
			updates.Add(u)
		})
		rounds = round + 1
		if opt.onRound != nil {
			opt.onRound(rounds, h, perm)
		}
		r := -1.0
		if est != nil {
			r = est()
			phase.Add(estWork)
		}
		phase.Finish()
		if float64(updates.Load()) < opt.Delta*float64(n)*float64(k) &&
			(est == nil || r >= stopRecall || r < last+stopRecallGain) {
			break
		}
		last = r
	}
	return rounds
}

// revChunksLarge is the number of row chunks whose reverse lists a round
// builds one after another (localJoinRounds) from releaseMemoryItems
// items: each chunk's lists take about a quarter of the 128 bytes an item
// (at kc = 30) that every row's at once took, for two more passes over the
// forward lists per chunk (four with progress), a few per cent of a round.
const revChunksLarge = 4

// The rounds' recall rule (localJoinRounds): past the Delta rule, rounds
// go on while the estimated recall@k is below stopRecall (MinApproxRecall
// plus a margin for the estimate's error on 200 rows) and rising by at
// least stopRecallGain a round.
const (
	stopRecall     = MinApproxRecall + 0.004
	stopRecallGain = 0.001
)

// csrLists are per-row lists of items in CSR form: row r's are
// e[start[r]:start[r+1]].
type csrLists struct {
	start []int32
	e     []int32
}

func (r *csrLists) of(row int) []int32 { return r.e[r.start[row]:r.start[row+1]] }

// reserve makes room for m entries in r's buffer, so that the chunks of
// a round, built one after another, do not each outgrow the last one's.
func (r *csrLists) reserve(m int) {
	if cap(r.e) < m {
		r.e = make([]int32, 0, m)
	}
}

// build fills r with the reverse of the forward lists in f for the
// targets u in [lo, hi), reusing r's buffers. Item v's forward lists lie in
// its stride of f: the front one f[v*stride : v*stride+front[v]] and the
// back one f[(v+1)*stride-back[v] : (v+1)*stride]. Row 2(u-lo) of r lists
// the v whose front list holds u, row 2(u-lo)+1 those whose back list
// does, each in increasing order of v (once per occurrence).
func (r *csrLists) build(n, stride int, f []int32, front, back []uint8, lo, hi int) {
	rows := 2 * (hi - lo)
	if cap(r.start) < rows+1 {
		r.start = make([]int32, rows+1)
	}
	start := r.start[:rows+1]
	clear(start)
	// Counts at start[row+1], then their prefix sums; the fill uses
	// start[row] as row's cursor, which leaves it at row's end, i.e. the
	// next row's start: shifted back by one afterwards. u - lo as an
	// unsigned number is below hi - lo exactly when u is in [lo, hi).
	span := uint32(hi - lo)
	for v := 0; v < n; v++ {
		fv := f[v*stride : (v+1)*stride]
		for _, u := range fv[:front[v]] {
			if x := uint32(int(u) - lo); x < span {
				start[2*x+1]++
			}
		}
		for _, u := range fv[stride-int(back[v]):] {
			if x := uint32(int(u) - lo); x < span {
				start[2*x+2]++
			}
		}
	}
	for row := 0; row < rows; row++ {
		start[row+1] += start[row]
	}
	total := int(start[rows])
	if cap(r.e) < total {
		// Room for every list full at once (total <= (hi-lo)*stride when
		// [lo, hi) is every row): one allocation for all the rounds, not
		// a larger one as rows fill (chunks: reserve).
		r.e = make([]int32, total, max(total, (hi-lo)*stride))
	}
	e := r.e[:total]
	for v := 0; v < n; v++ {
		fv := f[v*stride : (v+1)*stride]
		for _, u := range fv[:front[v]] {
			if x := uint32(int(u) - lo); x < span {
				e[start[2*x]] = int32(v)
				start[2*x]++
			}
		}
		for _, u := range fv[stride-int(back[v]):] {
			if x := uint32(int(u) - lo); x < span {
				e[start[2*x+1]] = int32(v)
				start[2*x+1]++
			}
		}
	}
	copy(start[1:], start[:rows])
	start[0] = 0
	r.start, r.e = start, e
}

// sampleInto sets dst to list when it has at most m members, else to m of
// them drawn without replacement by a generator seeded from (seed, round,
// v): the same draw whoever runs it.
func sampleInto(dst, list []int32, m int, seed uint64, round, v int) []int32 {
	dst = append(dst[:0], list...)
	if len(dst) <= m {
		return dst
	}
	s := seed ^ uint64(round)<<40 ^ uint64(v)
	for a := 0; a < m; a++ {
		s = splitmix64(s)
		b := a + int(s%uint64(len(dst)-a))
		dst[a], dst[b] = dst[b], dst[a]
	}
	return dst[:m]
}

// splitmix64 is one step of Vigna's SplitMix64 generator: the next state's
// output (a bijection of the 64-bit integers).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
