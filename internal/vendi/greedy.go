package vendi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// TieTol is the relative tolerance of Greedy's tie rule: candidates whose
// qVS is within TieTol·|best| of the best are tied, and the lowest item index
// among them is picked. The tolerance makes the choice independent of
// rounding (the fast and the brute-force evaluations agree to ~1e-13).
const TieTol = 1e-10

// GreedyProblem is the input of Greedy.
type GreedyProblem struct {
	Kernel     Kernel
	Quality    []float64 // quality of every item (len = Kernel.Len()), finite and >= 0
	Prefix     []int     // already-chosen items: count in the score, never picked
	Candidates []int     // eligible items (nil = every item not in Prefix)
	K          int       // number of picks
	Q          Order     // order q (OrderInf for ∞)
	Workers    int       // goroutines scoring candidates (<= 1: serial)
	// KnownPSD declares the kernel positive semidefinite (a Gram matrix, a
	// kernel checked PSD). Only then does q = 2 use the closed form
	// (tr K)²/‖K‖²_F, O(similarities) per candidate; otherwise q = 2 goes
	// through the clipped spectrum like every other order (package
	// conventions). Declaring an indefinite kernel PSD gives wrong VS_2.
	KnownPSD bool
	// MinVS, if non-nil, is a diversity floor: a candidate is eligible only
	// if the (unweighted) VS_q of the set it would complete, of size s =
	// len(Prefix) + picks so far + 1, is at least MinVS(s) (to a relative
	// 1e-12, so a set exactly at the floor passes). When no candidate
	// qualifies, Greedy stops early without error: len(Picks) < K.
	MinVS func(size int) float64
	// Memo, if non-nil, carries the prefix blocks' eigendecompositions and
	// the first pick's secular roots from this call to the next on the
	// same kernel (see GreedyMemo): a search passes one memo to the
	// Greedy calls of its batches. Results are identical with or without.
	Memo *GreedyMemo
}

// GreedyResult holds the picks in order and Scores[i] = qVS(Prefix ∪ Picks[:i+1]).
// Solved counts the secular equations solved over all picks (candidates
// whose roots were not read from the cache kept between picks or, with
// GreedyProblem.Memo, between calls); diagnostics only, like Stats.
type GreedyResult struct {
	Picks  []int
	Scores []float64
	Stats  PruneStats
	Solved int
	// Tied[t] lists the candidates of pick t's tie window (every candidate
	// whose exact qVS was within TieTol·|Scores[t]| of the best, the pick
	// included; the pick is the lowest index among them), in candidate
	// order. Nil when some pick did not record it (the dual path of a
	// FeatureKernel). A caller that adds items to the problem can restrict a
	// later greedy to the windows and the new items (bayesopt's centres).
	// TiedValues[t][i] is the qVS of Tied[t][i].
	Tied       [][]int
	TiedValues [][]float64
}

// PruneStats counts, over all picks, the candidates whose qVS was bounded
// before solving (Bounded) and those of them never solved because their
// bound fell below the best value (Pruned), and the first bounds whose far
// sums were read from a member's table (Tabled: candidates similar to one
// member alone, prepareSingles) and the pruned ones bounded by level 0 alone
// (Level0). Diagnostics only.
type PruneStats struct {
	Bounded, Pruned, Tabled int
	// Level0 counts the pruned candidates whose only bound was the
	// level-0 bound (level0.go: q = 1, no root bracketed).
	Level0 int
}

// Greedy sequentially picks K candidates, each maximising the qVS of the
// prefix, the picks so far and the candidate (paper eq. 5; Algorithm 2 with a
// prefix of observed positives). It is exact: the spectrum of each candidate
// set is obtained from the secular equation of a bordered matrix (see the
// package documentation), never from a per-candidate eigendecomposition, and
// candidates are skipped only when a certified upper bound on their qVS
// puts them below the best value and outside the tie window (prune.go).
//
// Ties: see TieTol; the lowest index wins. K larger than the number of
// candidates is an error.
func Greedy(p GreedyProblem) (GreedyResult, error) {
	g, err := newGreedyState(p)
	if err != nil {
		return GreedyResult{}, err
	}
	var res GreedyResult
	if g.memoContent != nil {
		g.seedFromMemo()
	}
	tiedKnown := true
	for t := 0; t < p.K; t++ {
		g.tied, g.tiedVals = nil, nil
		c, v, err := g.best()
		res.Stats = g.stats
		for _, ws := range g.ws {
			res.Solved += ws.solved
			ws.solved = 0
		}
		if err != nil {
			return res, err
		}
		if t == 0 && g.memoContent != nil {
			g.saveMemo()
		}
		if c == floorRejected {
			break
		}
		if c < 0 {
			return res, errors.New("vendi: no candidate left")
		}
		if err := g.add(c); err != nil {
			return res, err
		}
		res.Picks = append(res.Picks, c)
		res.Scores = append(res.Scores, v)
		tiedKnown = tiedKnown && g.tied != nil
		res.Tied, res.TiedValues = append(res.Tied, g.tied), append(res.TiedValues, g.tiedVals)
	}
	if !tiedKnown {
		res.Tied, res.TiedValues = nil, nil
	}
	return res, nil
}

type touch struct {
	member int32
	v      float64
}

type vblock struct {
	members []int32   // member ids
	eig     []float64 // eigenvalues (unclipped), ascending
	vecs    []float64 // r x r: vecs[local*r+k] = member local's entry of eigenvector k
	pos     float64   // Σ max(λ, 0)
	suf     []float64 // suf[k] = Σ_{i >= k, λ_i > 0} φ(λ_i); len r+1
	alive   bool
	// cauchy[i*r+k] = 1/(λ_i - λ_k) (0 on the diagonal) and cauchy2 its
	// squares, for the pruning bound (prune.go); set by prepareBounds on
	// large blocks.
	cauchy, cauchy2 []float64
	// l0 is the block's level-0 data for the current pick (level0.go),
	// set by prepareLevel0 on large blocks at q = 1.
	l0 *level0Block
	// single[l], once set (prepareSingles), holds the first bound's far
	// sums for a candidate similar to local member l alone with
	// similarity 1 (singleTable says how they are laid out).
	single [][]float64
}

// above returns the φ-sum and the count of the block's eigenvalues > thr.
func (b *vblock) above(thr float64) (float64, int) {
	k := sort.SearchFloat64s(b.eig, math.Nextafter(thr, math.Inf(1)))
	return b.suf[k], len(b.eig) - k
}

type greedyState struct {
	p           GreedyProblem
	n           int
	sparse      sparseKernel
	eligible    []bool
	memberItem  []int
	memberBlock []int32
	memberLocal []int32
	itemMember  []int32
	blocks      []*vblock
	sumQ        float64
	totPos      float64
	// every eigenvalue of the alive blocks, ascending, with its block and
	// suffix sums of φ: rebuilt once per pick.
	all         vblock
	allBlock    []int32
	trace, frob float64 // for q = 2 on a PSD kernel (frobenius2)
	ws          []*secularWork
	// cache[c] keeps the arrowhead eigenvalues of candidate c with the ids of
	// the blocks it touched. Block ids are never reused (a merge makes a new
	// block), so if c touches exactly the same ids at the next pick, its
	// similarities and the touched spectra are unchanged and the roots are
	// reused: only candidates near the last pick are re-solved.
	cache rootsCache
	// valuesOnly skips the eigenvectors of chosen blocks: set when no
	// candidate will be scored (QualityWeightedSequence), they cost most of
	// an eigendecomposition.
	valuesOnly bool
	// feat is set when the kernel is a FeatureKernel; dual, once set, holds
	// the d x d dual of the chosen set and replaces the blocks (greedydual.go).
	feat FeatureKernel
	dual *dualState
	// stats counts the pruning's work (GreedyResult.Stats).
	stats PruneStats
	// l0lib is the level-0 bound's library of multipliers, per objective,
	// newest last, kept across picks (level0.go).
	l0lib [3][]l0lam
	// memoContent holds the content (blockContent) of the prefix's blocks
	// when p.Memo is used; memoLoading is set while they are factored.
	memoContent map[*vblock]string
	memoLoading bool
	// tied is the last pick's tie window and tiedVals their values
	// (GreedyResult.Tied); nil unless best recorded it.
	tied     []int
	tiedVals []float64
	// touchCount is touchLists' counting buffer (n+1 entries).
	touchCount []int32
	// simCols[m][c] = Kernel.At(c, memberItem[m]) for a kernel computed per
	// entry (embeddings, RBF; not a sparse or stored matrix), kept while
	// len(simCols) == len(memberItem): a candidate's similarities to the
	// members are then read, not recomputed at every pick (one new column
	// of n entries per pick, in parallel, instead of n x m dot products).
	// Dropped (nil, simOff) beyond simCacheMax entries.
	simCols [][]float64
	simOff  bool
}

// simCacheMax bounds simCols (entries: 2^25, 256 MiB); a variable so that
// tests can turn the cache off.
var simCacheMax = 1 << 25

// rootsCache is greedyState.cache: candidate c's cachedRoots, in chunks
// of rootsChunk allocated when a candidate of theirs is first stored. A
// greedy over a large pool solves few candidates (those near its picks), so
// most chunks stay unallocated: 8 bytes an item instead of a 136-byte
// cachedRoots (1.4 GB at 10^7 items). Safe for concurrent use on distinct
// candidates.
type rootsCache struct {
	chunks []atomic.Pointer[[rootsChunk]cachedRoots]
}

const rootsChunk = 64

// noRoots is what peek returns for a candidate never stored: read only.
var noRoots cachedRoots

func newRootsCache(n int) rootsCache {
	return rootsCache{chunks: make([]atomic.Pointer[[rootsChunk]cachedRoots], (n+rootsChunk-1)/rootsChunk)}
}

// peek returns c's roots for reading (the zero value if none was stored):
// the caller must not modify them (at does).
func (r *rootsCache) peek(c int) *cachedRoots {
	if ch := r.chunks[c/rootsChunk].Load(); ch != nil {
		return &ch[c%rootsChunk]
	}
	return &noRoots
}

// at returns c's roots for writing, allocating its chunk if needed.
func (r *rootsCache) at(c int) *cachedRoots {
	p := &r.chunks[c/rootsChunk]
	ch := p.Load()
	if ch == nil {
		p.CompareAndSwap(nil, new([rootsChunk]cachedRoots))
		ch = p.Load()
	}
	return &ch[c%rootsChunk]
}

type cachedRoots struct {
	blocks []int32
	mus    []float64
	// root brackets of the pruning bound (prune.go) for the blocks bblocks;
	// tight: from the second, tighter bound.
	bblocks []int32
	bl, bh  []float64
	t0      float64
	tight   bool
}

func newGreedyState(p GreedyProblem) (*greedyState, error) {
	if p.Kernel == nil {
		return nil, errors.New("vendi: greedy needs a kernel")
	}
	if err := p.Q.Validate(); err != nil {
		return nil, err
	}
	n := p.Kernel.Len()
	if len(p.Quality) != n {
		return nil, fmt.Errorf("vendi: %d qualities for %d items", len(p.Quality), n)
	}
	if err := checkQuality(p.Quality); err != nil {
		return nil, err
	}
	g := &greedyState{p: p, n: n, eligible: make([]bool, n), itemMember: make([]int32, n), cache: newRootsCache(n)}
	if sk, ok := p.Kernel.(sparseKernel); ok {
		g.sparse = sk
	}
	if fk, ok := p.Kernel.(FeatureKernel); ok {
		g.feat = fk
	}
	for i := range g.itemMember {
		g.itemMember[i] = -1
	}
	inPrefix := make([]bool, n)
	for _, i := range p.Prefix {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("vendi: prefix item %d out of range [0, %d)", i, n)
		}
		if inPrefix[i] {
			return nil, fmt.Errorf("vendi: prefix item %d listed twice", i)
		}
		inPrefix[i] = true
	}
	count := 0
	if p.Candidates == nil {
		for i := 0; i < n; i++ {
			if !inPrefix[i] {
				g.eligible[i] = true
				count++
			}
		}
	} else {
		for _, i := range p.Candidates {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("vendi: candidate %d out of range [0, %d)", i, n)
			}
			if inPrefix[i] {
				return nil, fmt.Errorf("vendi: candidate %d is also in the prefix", i)
			}
			if g.eligible[i] {
				return nil, fmt.Errorf("vendi: candidate %d listed twice", i)
			}
			g.eligible[i] = true
			count++
		}
	}
	if p.K < 0 || p.K > count {
		return nil, fmt.Errorf("vendi: cannot pick %d items from %d candidates", p.K, count)
	}
	workers := max(p.Workers, 1)
	for w := 0; w < workers; w++ {
		g.ws = append(g.ws, &secularWork{})
	}
	for _, i := range p.Prefix {
		if err := g.linkMember(i); err != nil {
			return nil, err
		}
	}
	if g.useMemo() {
		g.memoContent = map[*vblock]string{}
		g.memoLoading = true
	}
	err := g.factorPending()
	g.memoLoading = false
	if err != nil {
		return nil, err
	}
	if err := g.syncDual(); err != nil {
		return nil, err
	}
	if g.dual == nil {
		g.rebuildAll()
	}
	return g, nil
}

// frobenius2 reports whether VS_2 is taken from the closed form
// (tr K)²/‖K‖²_F: only at q = 2 on a kernel declared PSD, where it equals
// the clipped-spectrum VS_2.
func (g *greedyState) frobenius2() bool { return g.p.Q == 2 && g.p.KnownPSD }

// members returns the number of chosen items.
func (g *greedyState) members() int { return len(g.memberItem) }

// touches lists, for each item similar to some member, its similarities.
// For sparse kernels only rows of members are scanned.
func (g *greedyState) touchLists() (cands []int, lists [][]touch) {
	if g.sparse == nil {
		return nil, nil
	}
	// Counting sort by candidate: members are scanned in order, so each
	// candidate's list comes out ordered by member.
	if len(g.touchCount) < g.n+1 {
		g.touchCount = make([]int32, g.n+1)
	}
	count := g.touchCount[:g.n+1]
	clear(count)
	total := 0
	for _, item := range g.memberItem {
		cols, vals := g.sparse.Row(item)
		for k, c := range cols {
			if g.eligible[c] && vals[k] != 0 {
				count[c+1]++
				total++
			}
		}
	}
	for c := 0; c < g.n; c++ {
		if count[c+1] > 0 {
			cands = append(cands, c)
		}
		count[c+1] += count[c]
	}
	all := make([]touch, total)
	for m, item := range g.memberItem {
		cols, vals := g.sparse.Row(item)
		for k, c := range cols {
			if g.eligible[c] && vals[k] != 0 {
				all[count[c]] = touch{int32(m), vals[k]}
				count[c]++
			}
		}
	}
	// count[c] is now the end of c's list (and the start of c+1's).
	lists = make([][]touch, len(cands))
	start := 0
	for i, c := range cands {
		end := int(count[c])
		lists[i] = all[start:end:end]
		start = end
	}
	return cands, lists
}

// denseTouches lists candidate c's nonzero similarities to the members
// (from simCols when it holds them, the same values).
func (g *greedyState) denseTouches(c int, buf []touch) []touch {
	buf = buf[:0]
	if g.simCols != nil && len(g.simCols) == len(g.memberItem) {
		for m, col := range g.simCols {
			if v := col[c]; v != 0 {
				buf = append(buf, touch{int32(m), v})
			}
		}
		return buf
	}
	for m, item := range g.memberItem {
		if v := g.p.Kernel.At(c, item); v != 0 {
			buf = append(buf, touch{int32(m), v})
		}
	}
	return buf
}

// score returns the VS_q of members ∪ {c} given c's similarities t.
func (g *greedyState) score(c int, t []touch, ws *secularWork, mark []int32, stamp int32) float64 {
	a := g.p.Kernel.At(c, c)
	if g.frobenius2() {
		fro := g.frob + a*a
		for _, e := range t {
			fro += 2 * e.v * e.v
		}
		tr := g.trace + a
		if tr <= 0 || fro == 0 {
			return 0
		}
		return tr * tr / fro
	}
	tb := g.touchedBlocks(t, mark, stamp, ws.tb[:0])
	ws.tb = tb // reused by the worker's next candidate (the cache copies it)
	total := g.totPos
	for _, b := range tb {
		total -= g.blocks[b].pos
	}
	if cc := g.cache.peek(c); mark != nil && sameBlocks(cc.blocks, tb) {
		ws.mus = append(ws.mus[:0], cc.mus...)
	} else {
		d, z := g.project(t, tb, ws)
		ws.solved++
		ws.mus = ws.mus[:0]
		arrowhead(d, z, a, ws, func(mu float64) { ws.mus = append(ws.mus, mu) })
		if mark != nil {
			cc = g.cache.at(c)
			cc.blocks = append(cc.blocks[:0], tb...)
			cc.mus = append(cc.mus[:0], ws.mus...)
		}
	}
	for _, mu := range ws.mus {
		if mu > 0 {
			total += mu
		}
	}
	// Cancellation in total can leave a tiny negative value.
	total = math.Max(total, 0)
	thr := zeroTol * total
	f, rank := g.all.above(thr)
	for _, b := range tb {
		fb, cb := g.blocks[b].above(thr)
		f -= fb
		rank -= cb
	}
	var maxEig float64
	for _, mu := range ws.mus {
		if mu > thr {
			f += g.p.Q.Term(mu)
			rank++
			maxEig = max(maxEig, mu) // the builtin: math.Max's value on non-NaN input, inlined
		}
	}
	// Largest eigenvalue outside the touched blocks.
	for k := len(g.all.eig) - 1; k >= 0; k-- {
		if mark[g.allBlock[k]] != stamp {
			maxEig = math.Max(maxEig, g.all.eig[k])
			break
		}
	}
	return g.p.Q.FromRawSum(total, f, maxEig, rank)
}

// touchedBlocks appends to tb the blocks of the members in t, each once
// (mark[b] == stamp marks the ones listed).
func (g *greedyState) touchedBlocks(t []touch, mark []int32, stamp int32, tb []int32) []int32 {
	for _, e := range t {
		b := g.memberBlock[e.member]
		if mark[b] != stamp {
			mark[b] = stamp
			tb = append(tb, b)
		}
	}
	return tb
}

// project returns the touched blocks' spectrum d (concatenated, each block
// ascending) and z = Uᵀ k_c, the candidate's similarities t in their
// eigenbases, in ws's buffers.
func (g *greedyState) project(t []touch, tb []int32, ws *secularWork) (d, z []float64) {
	r := 0
	for _, b := range tb {
		r += len(g.blocks[b].eig)
	}
	if cap(ws.dbuf) < r {
		ws.dbuf = make([]float64, r)
		ws.zbuf = make([]float64, r)
	}
	d, z = ws.dbuf[:r], ws.zbuf[:r]
	off := 0
	for _, b := range tb {
		blk := g.blocks[b]
		rb := len(blk.eig)
		copy(d[off:], blk.eig)
		zz := z[off : off+rb]
		clear(zz)
		for _, e := range t {
			if g.memberBlock[e.member] != b {
				continue
			}
			row := blk.vecs[int(g.memberLocal[e.member])*rb : int(g.memberLocal[e.member]+1)*rb]
			for k, u := range row {
				zz[k] += e.v * u
			}
		}
		off += rb
	}
	return d, z
}

// best returns the candidate maximising qVS(members ∪ {c}) and its qVS.
//
// With pruning (prune.go), a candidate touching a large block first gets an
// upper bound on its qVS; those are solved exactly in decreasing bound order
// only while the bound reaches the best exact value less the tie tolerance.
// Every candidate left unsolved is then strictly below the final best and
// outside the tie window, so the pick and its score are those of solving
// every candidate.
//
// The error is an eigendecomposition that did not converge (syncDual).
func (g *greedyState) best() (int, float64, error) {
	if err := g.syncDual(); err != nil {
		return -1, 0, err
	}
	if g.dual != nil {
		c, v := g.bestDual()
		return c, v, nil
	}
	m := g.members()
	weight := func(c int) float64 { return (g.sumQ + g.p.Quality[c]) / float64(m+1) }
	cands, lists := g.touchLists()
	if g.sparse == nil {
		for c := 0; c < g.n; c++ {
			if g.eligible[c] {
				cands = append(cands, c)
			}
		}
	}
	prune := g.pruning()
	touches := func(k int, buf []touch) []touch {
		if lists != nil {
			return lists[k]
		}
		return g.denseTouches(cands[k], buf)
	}
	l0 := prune && g.level0()
	if prune {
		g.prepareBounds()
		g.prepareSingles(lists)
		if l0 {
			g.prepareLevel0(cands, touches)
		}
	}
	const (
		exact = iota
		isolated
		bounded
	)
	vals := make([]float64, len(cands))
	vss := make([]float64, len(cands)) // unweighted VS, for MinVS
	state := make([]uint8, len(cands))
	// lvl0[k]: vals[k] is candidate k's level-0 bound (solveInOrder
	// computes its first bound before anything else).
	var lvl0 []bool
	if l0 {
		lvl0 = make([]bool, len(cands))
	}
	// Workers take blocks of candidates in turn (their costs differ:
	// cached, bounded, solved, isolated); each keeps its own scratch.
	const block = 16
	marks := make([][]int32, len(g.ws))
	bufs := make([][]touch, len(g.ws))
	parallel.Blocks(len(cands), block, len(g.ws), func(w, lo, hi int) {
		ws := g.ws[w]
		if marks[w] == nil {
			marks[w] = make([]int32, len(g.blocks))
		}
		mark := marks[w]
		for k := lo; k < hi; k++ {
			c := cands[k]
			t := touches(k, bufs[w])
			bufs[w] = t[:0]
			if len(t) == 0 && !g.frobenius2() {
				state[k] = isolated
				continue
			}
			if l0 {
				if vsb, ok := g.level0Upper(c, t, ws); ok {
					state[k] = bounded
					lvl0[k] = true
					if wt := weight(c); wt > 0 {
						vals[k] = wt * vsb * (1 + boundMargin)
					}
					continue
				}
			}
			if prune {
				if vsb, ok := g.scoreUpper(c, t, ws, mark, int32(2*k+1), false); ok {
					// vals holds the bound on the qVS until solved.
					state[k] = bounded
					if wt := weight(c); wt > 0 {
						vals[k] = wt * vsb * (1 + boundMargin)
					} // else the qVS is exactly 0 (and Inf * 0 would be NaN)
					continue
				}
			}
			vs := g.score(c, t, ws, mark, int32(2*k+2))
			vss[k] = vs
			vals[k] = weight(c) * vs
		}
	})
	for _, ws := range g.ws {
		g.stats.Tabled += ws.tabled
		ws.tabled = 0
	}
	// Isolated candidates (no similarity to the chosen set) share one VS per
	// self-similarity value: computed once.
	iso := map[float64]float64{}
	isoVS := func(c int) float64 {
		a := g.p.Kernel.At(c, c)
		if v, ok := iso[a]; ok {
			return v
		}
		v := g.score(c, nil, g.ws[0], make([]int32, len(g.blocks)), 1)
		iso[a] = v
		return v
	}
	for k, c := range cands {
		if state[k] == isolated {
			vss[k] = isoVS(c)
			vals[k] = weight(c) * vss[k]
		}
	}
	if g.sparse != nil {
		// Candidates not in any member's row are isolated too.
		touched := make([]bool, g.n)
		for _, c := range cands {
			touched[c] = true
		}
		// Grown once (a million candidates: appends would allocate five
		// times their final size).
		more := 0
		for c := 0; c < g.n; c++ {
			if g.eligible[c] && !touched[c] {
				more++
			}
		}
		cands, vals = slices.Grow(cands, more), slices.Grow(vals, more)
		vss, state = slices.Grow(vss, more), slices.Grow(state, more)
		for c := 0; c < g.n; c++ {
			if g.eligible[c] && !touched[c] {
				var vs float64
				if g.frobenius2() {
					vs = g.score(c, nil, g.ws[0], nil, 0)
				} else {
					vs = isoVS(c)
				}
				cands = append(cands, c)
				vals = append(vals, weight(c)*vs)
				vss = append(vss, vs)
				state = append(state, exact)
			}
		}
	}
	if len(cands) == 0 {
		return -1, 0, nil
	}
	floor := math.Inf(-1)
	if g.p.MinVS != nil {
		floor = g.p.MinVS(m+1) * (1 - 1e-12)
	}
	// The best exact value that passes the floor; solved: candidates whose
	// exact value counts.
	bestVal := math.Inf(-1)
	solved := make([]bool, len(cands))
	var order []int
	for k := range cands {
		switch {
		case state[k] == bounded:
			order = append(order, k)
		case vss[k] >= floor:
			solved[k] = true
			bestVal = math.Max(bestVal, vals[k])
		}
	}
	g.solveInOrder(cands, touches, order, lvl0, vals, vss, solved, floor, &bestVal, weight)
	// The solved candidates only, marked in place (a million candidates: no
	// copy of them and their values per pick).
	c, v := pickTied(cands, vals, solved, bestVal)
	if c < 0 {
		return floorRejected, 0, nil
	}
	thr := bestVal - TieTol*math.Abs(bestVal)
	for k, c := range cands {
		if solved[k] && vals[k] >= thr {
			g.tied, g.tiedVals = append(g.tied, c), append(g.tiedVals, vals[k])
		}
	}
	return c, v, nil
}

// floorRejected is best's answer when candidates remain but none reaches
// GreedyProblem.MinVS.
const floorRejected = -2

// pickTied applies the tie rule: the lowest index whose value is within
// TieTol·|best| of best. Only candidates k with keep[k]
// count (keep nil: all); -1 when none is kept or reaches the threshold.
func pickTied(cands []int, vals []float64, keep []bool, bestVal float64) (int, float64) {
	thr := bestVal - TieTol*math.Abs(bestVal)
	win, wv := -1, 0.0
	for k, c := range cands {
		if (keep == nil || keep[k]) && vals[k] >= thr && (win < 0 || c < win) {
			win, wv = c, vals[k]
		}
	}
	return win, wv
}

// add makes candidate c a member (a pick); the error is an
// eigendecomposition that did not converge.
func (g *greedyState) add(c int) error {
	g.eligible[c] = false
	return g.addMember(c)
}

// addMember adds item i to the chosen set: its block merges every block it
// touches and is re-eigendecomposed (once per pick, not per candidate).
func (g *greedyState) addMember(i int) error {
	if err := g.linkMember(i); err != nil {
		return err
	}
	return g.factorPending()
}

// cacheSimilarities appends item i's column Kernel.At(c, i), c = 0..n-1,
// to simCols (computed across the workers) for a kernel computed per entry,
// or drops the cache once it would exceed simCacheMax entries.
func (g *greedyState) cacheSimilarities(i int) {
	if g.simOff || g.sparse != nil || len(g.simCols) != len(g.memberItem) {
		return
	}
	if _, stored := g.p.Kernel.(denseKernel); stored {
		g.simOff = true // a lookup already
		return
	}
	if (len(g.simCols)+1)*g.n > simCacheMax {
		g.simCols, g.simOff = nil, true
		return
	}
	col := make([]float64, g.n)
	parallel.Split(g.n, len(g.ws), 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			col[c] = g.p.Kernel.At(c, i)
		}
	})
	g.simCols = append(g.simCols, col)
}

// linkMember adds item i to the chosen set without eigendecomposing: the
// blocks it touches merge into a new block, pending until factorPending.
// Adding a whole prefix this way and factoring once costs one
// eigendecomposition per final block instead of one per member (the
// blocks' member order, hence their matrices, are the same either way).
func (g *greedyState) linkMember(i int) error {
	if err := g.syncDual(); err != nil {
		return err
	}
	if g.dual != nil {
		g.memberItem = append(g.memberItem, i)
		g.itemMember[i] = int32(len(g.memberItem) - 1)
		g.sumQ += g.p.Quality[i]
		g.dual.addOuter(g.feat.Features(i))
		return g.dual.factorize(g)
	}
	var t []touch
	if g.sparse != nil {
		cols, vals := g.sparse.Row(i)
		for k, j := range cols {
			if m := g.itemMember[j]; m >= 0 && vals[k] != 0 {
				t = append(t, touch{m, vals[k]})
			}
		}
	} else {
		t = g.denseTouches(i, nil)
	}
	a := g.p.Kernel.At(i, i)
	g.trace += a
	g.frob += a * a
	for _, e := range t {
		g.frob += 2 * e.v * e.v
	}
	m := int32(len(g.memberItem))
	g.cacheSimilarities(i)
	g.memberItem = append(g.memberItem, i)
	g.itemMember[i] = m
	g.sumQ += g.p.Quality[i]
	members := []int32{}
	seen := map[int32]bool{}
	for _, e := range t {
		b := g.memberBlock[e.member]
		if !seen[b] {
			seen[b] = true
			blk := g.blocks[b]
			blk.alive = false
			g.totPos -= blk.pos // 0 for a pending block
			members = append(members, blk.members...)
		}
	}
	members = append(members, m)
	blk := &vblock{members: members, alive: true}
	nb := int32(len(g.blocks))
	g.memberBlock = append(g.memberBlock, 0)
	g.memberLocal = append(g.memberLocal, 0)
	for loc, mm := range members {
		g.memberBlock[mm] = nb
		g.memberLocal[mm] = int32(loc)
	}
	g.blocks = append(g.blocks, blk)
	return nil
}

// factorPending eigendecomposes the alive blocks linkMember left pending
// and refreshes the totals.
func (g *greedyState) factorPending() error {
	if g.dual != nil {
		return nil
	}
	changed := false
	for _, blk := range g.blocks {
		if !blk.alive || blk.eig != nil {
			continue
		}
		changed = true
		members := blk.members
		r := len(members)
		if eig, vecs, ok := g.memoFactor(blk); ok {
			blk.eig, blk.vecs = eig, vecs
		} else if r == 1 {
			blk.eig = []float64{g.p.Kernel.At(g.memberItem[members[0]], g.memberItem[members[0]])}
			blk.vecs = []float64{1}
		} else {
			K := mat.NewSymDense(r, nil)
			for x := 0; x < r; x++ {
				for y := x; y < r; y++ {
					K.SetSym(x, y, g.p.Kernel.At(g.memberItem[members[x]], g.memberItem[members[y]]))
				}
			}
			var es mat.EigenSym
			if !es.Factorize(K, !g.valuesOnly) {
				return errors.New("vendi: eigendecomposition of a chosen block did not converge")
			}
			blk.eig = es.Values(nil)
			if !g.valuesOnly {
				var V mat.Dense
				es.VectorsTo(&V)
				blk.vecs = make([]float64, r*r)
				for x := 0; x < r; x++ {
					for k := 0; k < r; k++ {
						blk.vecs[x*r+k] = V.At(x, k)
					}
				}
			}
		}
		g.finishBlock(blk)
		g.totPos += blk.pos
	}
	if changed {
		g.rebuildAll()
	}
	return nil
}

// finishBlock sorts nothing (EigenSym returns ascending values) and fills
// the positive total and the φ suffix sums.
func (g *greedyState) finishBlock(b *vblock) {
	r := len(b.eig)
	b.suf = make([]float64, r+1)
	for k := r - 1; k >= 0; k-- {
		b.suf[k] = b.suf[k+1] + g.p.Q.Term(b.eig[k])
		if b.eig[k] > 0 {
			b.pos += b.eig[k]
		}
	}
}

// rebuildAll merges the spectra of the alive blocks into g.all.
func (g *greedyState) rebuildAll() {
	type ev struct {
		l float64
		b int32
	}
	var evs []ev
	for bi, b := range g.blocks {
		if b.alive {
			for _, l := range b.eig {
				evs = append(evs, ev{l, int32(bi)})
			}
		}
	}
	sort.Slice(evs, func(x, y int) bool { return evs[x].l < evs[y].l })
	g.all = vblock{eig: make([]float64, len(evs))}
	g.allBlock = make([]int32, len(evs))
	for k, e := range evs {
		g.all.eig[k] = e.l
		g.allBlock[k] = e.b
	}
	g.finishBlock(&g.all)
}

// sameBlocks reports whether two short lists of block ids hold the same ids
// (a candidate's touched blocks are listed in the order of its similarities,
// which is fixed, so an order-sensitive comparison suffices).
func sameBlocks(a, b []int32) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
