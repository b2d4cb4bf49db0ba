package vendi

import (
	"encoding/binary"
	"reflect"
)

// GreedyMemo carries exact work from one Greedy call to the next on the
// same kernel: the eigendecompositions of the prefix's blocks and, for
// every candidate scored at the call's first pick, the eigenvalues of its
// bordered matrix (the secular roots) with the blocks they came from. A
// search asks Greedy for one batch after another with a prefix that grows
// by the batch's positives; most prefix blocks come back unchanged, and
// with them most candidates' roots, which the next call then reads instead
// of solving again. The zero value is an empty memo; a nil *GreedyMemo
// keeps nothing. Not safe for concurrent calls.
//
// Reuse is exact, bit for bit: a block is recognised by its content, the
// items of its matrix in the matrix's order and in the order of their
// member numbers (the order in which a candidate's similarities to them
// are summed into its projection z), so a recognised block has the same
// matrix, the same eigendecomposition and, for a candidate, the same
// projection; a candidate's roots are reused only when it touches the same
// recognised blocks in the same order (the order in which their spectra
// are concatenated), as within one call (greedyState.cache). Scores, picks
// and ties are those of a call without the memo.
type GreedyMemo struct {
	kernel Kernel
	n      int
	// blocks maps a prefix block's content (blockContent) at the last
	// call to its key and factorisation.
	blocks map[string]memoBlock
	// roots[c]: candidate c's roots at the last call's first pick, with
	// the keys of its touched blocks; empty when not kept.
	roots []memoRoots
}

type memoBlock struct {
	key       int32
	eig, vecs []float64
}

type memoRoots struct {
	keys []int32
	mus  []float64
}

// useMemo reports whether g can read and fill p.Memo: the spectral greedy
// (not the dual one, nor the closed-form VS_2, which keep no roots) on the
// kernel the memo was filled for. A memo filled for another kernel is
// emptied first.
func (g *greedyState) useMemo() bool {
	m := g.p.Memo
	if m == nil || g.feat != nil || g.frobenius2() || g.valuesOnly {
		return false
	}
	if !sameMemoKernel(m.kernel, g.p.Kernel) || m.n != g.n {
		*m = GreedyMemo{kernel: g.p.Kernel, n: g.n}
	}
	return true
}

// sameMemoKernel reports whether a and b are the same kernel value (false for
// kernels of a type that cannot be compared, whose memo is then never
// reused).
func sameMemoKernel(a, b Kernel) bool {
	if a == nil || b == nil {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// blockContent is the identity of block b: its items in the matrix's
// (local) order, then in the order of their member numbers.
func (g *greedyState) blockContent(b *vblock) string {
	r := len(b.members)
	buf := make([]byte, 0, 8*r)
	for _, m := range b.members {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(g.memberItem[m]))
	}
	byMember := make([]int32, r)
	copy(byMember, b.members)
	sortInt32(byMember)
	for _, m := range byMember {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(g.memberItem[m]))
	}
	return string(buf)
}

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// memoFactor returns the memo's eigendecomposition of the pending block b
// (shared: never modified), if the last call had a block of the same
// content.
func (g *greedyState) memoFactor(b *vblock) (eig, vecs []float64, ok bool) {
	if !g.memoLoading {
		return nil, nil, false
	}
	s := g.blockContent(b)
	g.memoContent[b] = s
	mb, ok := g.p.Memo.blocks[s]
	if !ok || mb.vecs == nil {
		return nil, nil, false
	}
	return mb.eig, mb.vecs, true
}

// seedFromMemo fills g.cache, before the first pick, with the memo's roots
// of the candidates whose touched blocks all reappear (by content) among
// the prefix's blocks. The memo's roots pass to g (and are dropped from
// the memo, which saveMemo refills after the first pick).
func (g *greedyState) seedFromMemo() {
	m := g.p.Memo
	if len(m.roots) != g.n {
		return
	}
	cur := make(map[int32]int32, len(g.memoContent))
	for bi, b := range g.blocks {
		if !b.alive {
			continue
		}
		if mb, ok := m.blocks[g.memoContent[b]]; ok {
			cur[mb.key] = int32(bi)
		}
	}
	for c := range m.roots {
		e := &m.roots[c]
		if len(e.keys) == 0 || !g.eligible[c] {
			continue
		}
		ids := make([]int32, len(e.keys))
		ok := true
		for k, key := range e.keys {
			if ids[k], ok = cur[key]; !ok {
				break
			}
		}
		if ok {
			*g.cache.at(c) = cachedRoots{blocks: ids, mus: e.mus}
		}
	}
	m.roots = nil
}

// saveMemo replaces the memo's content by the blocks alive now (the
// prefix's, before any pick) and the roots kept in g.cache, each
// candidate's touching only those blocks.
func (g *greedyState) saveMemo() {
	m := g.p.Memo
	m.blocks = make(map[string]memoBlock, len(g.memoContent))
	key := make([]int32, len(g.blocks))
	for bi, b := range g.blocks {
		key[bi] = -1
		s, ok := g.memoContent[b]
		if !b.alive || !ok {
			continue
		}
		key[bi] = int32(len(m.blocks))
		m.blocks[s] = memoBlock{key: key[bi], eig: b.eig, vecs: b.vecs}
	}
	nk, nm := 0, 0
	for c := range g.n {
		cc := g.cache.peek(c)
		nk += len(cc.blocks)
		nm += len(cc.mus)
	}
	keys, mus := make([]int32, 0, nk), make([]float64, 0, nm)
	m.roots = make([]memoRoots, g.n)
	for c := range g.n {
		cc := g.cache.peek(c)
		if len(cc.blocks) == 0 {
			continue
		}
		k0, m0 := len(keys), len(mus)
		ok := true
		for _, b := range cc.blocks {
			if key[b] < 0 {
				ok = false
				break
			}
			keys = append(keys, key[b])
		}
		if !ok {
			keys = keys[:k0]
			continue
		}
		mus = append(mus, cc.mus...)
		m.roots[c] = memoRoots{keys: keys[k0:len(keys):len(keys)], mus: mus[m0:len(mus):len(mus)]}
	}
}
