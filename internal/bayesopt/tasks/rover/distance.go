package rover

import "math"

// curveIndex answers nearest-neighbour queries against the points of one
// trajectory. Because a trajectory is a continuous curve, points that are
// consecutive along it are close in the plane, so a bounding-volume hierarchy
// built over runs of consecutive points is spatially tight and costs O(n) to
// build (no sorting). Queries prune every box farther than the best distance
// found so far and are exact.
type curveIndex struct {
	pts    [][2]float64
	levels [][]bbox // levels[0]: boxes of leafSize consecutive points; levels[k][i] covers levels[k-1][2i:2i+2]
}

// leafSize is the number of consecutive points per leaf box; 8 keeps the leaf
// scan short while the tree stays shallow (7 levels for 1000 points).
const leafSize = 8

type bbox struct{ lo, hi [2]float64 }

func (b *bbox) add(p [2]float64) {
	for k := 0; k < 2; k++ {
		if p[k] < b.lo[k] {
			b.lo[k] = p[k]
		}
		if p[k] > b.hi[k] {
			b.hi[k] = p[k]
		}
	}
}

func (b *bbox) merge(c bbox) {
	b.add(c.lo)
	b.add(c.hi)
}

func emptyBox() bbox {
	inf := math.Inf(1)
	return bbox{lo: [2]float64{inf, inf}, hi: [2]float64{-inf, -inf}}
}

func newCurveIndex(pts [][2]float64) *curveIndex {
	nLeaves := (len(pts) + leafSize - 1) / leafSize
	leaves := make([]bbox, nLeaves)
	for i := range leaves {
		leaves[i] = emptyBox()
		for j := i * leafSize; j < min((i+1)*leafSize, len(pts)); j++ {
			leaves[i].add(pts[j])
		}
	}
	ci := &curveIndex{pts: pts, levels: [][]bbox{leaves}}
	for cur := leaves; len(cur) > 1; {
		next := make([]bbox, (len(cur)+1)/2)
		for i := range next {
			next[i] = cur[2*i]
			if 2*i+1 < len(cur) {
				next[i].merge(cur[2*i+1])
			}
		}
		ci.levels = append(ci.levels, next)
		cur = next
	}
	return ci
}

// boxDistSq is the squared distance between two boxes (0 if they overlap).
// Plain comparisons rather than math.Max: this is the innermost test of the
// search and math.Max's NaN and signed-zero handling costs a third of it.
func boxDistSq(a, b *bbox) float64 {
	var d [2]float64
	for k := 0; k < 2; k++ {
		if b.lo[k] > a.hi[k] {
			d[k] = b.lo[k] - a.hi[k]
		} else if a.lo[k] > b.hi[k] {
			d[k] = a.lo[k] - b.hi[k]
		}
	}
	return d[0]*d[0] + d[1]*d[1]
}

// meanMinDistance is mean_{a in A} min_{b in B} |a - b|, exact. It walks
// B's tree once per leaf of A (a dual-tree search): a node of B is skipped
// when its box is farther from the leaf's box than the largest of the leaf's
// current nearest distances. Each point's search starts from the previous
// point's nearest neighbour: along a curve it is usually close to the
// answer, which makes the bound tight from the start.
func meanMinDistance(ia, ib *curveIndex) float64 {
	var (
		best  [leafSize]float64 // squared nearest distance of each point of the leaf
		arg   [leafSize]int
		stack [64][2]int // (level, node); depth <= levels, each level pushes at most 2
	)
	a, bp := ia.pts, ib.pts
	top := len(ib.levels) - 1
	prev := 0
	sum := 0.0
	for leaf, lbox := range ia.levels[0] {
		lo, hi := leaf*leafSize, min((leaf+1)*leafSize, len(a))
		bound := 0.0
		for k := lo; k < hi; k++ {
			q := bp[prev]
			dx, dy := a[k][0]-q[0], a[k][1]-q[1]
			best[k-lo], arg[k-lo] = dx*dx+dy*dy, prev
			if best[k-lo] > bound {
				bound = best[k-lo]
			}
		}
		sp := 0
		stack[sp] = [2]int{top, 0}
		sp++
		for sp > 0 {
			sp--
			level, i := stack[sp][0], stack[sp][1]
			if level == 0 {
				if boxDistSq(&lbox, &ib.levels[0][i]) > bound {
					continue
				}
				jhi := min((i+1)*leafSize, len(bp))
				bound = 0
				for k := lo; k < hi; k++ {
					p := a[k]
					bk, ak := best[k-lo], arg[k-lo]
					for j := i * leafSize; j < jhi; j++ {
						dx, dy := p[0]-bp[j][0], p[1]-bp[j][1]
						if d := dx*dx + dy*dy; d < bk || (d == bk && j < ak) {
							bk, ak = d, j
						}
					}
					best[k-lo], arg[k-lo] = bk, ak
					if bk > bound {
						bound = bk
					}
				}
				continue
			}
			if boxDistSq(&lbox, &ib.levels[level][i]) > bound {
				continue
			}
			children := ib.levels[level-1]
			c0, c1 := 2*i, 2*i+1
			if c1 >= len(children) {
				stack[sp] = [2]int{level - 1, c0}
				sp++
				continue
			}
			// Push the farther child first so the nearer one is searched
			// first and tightens the bound.
			if boxDistSq(&lbox, &children[c0]) < boxDistSq(&lbox, &children[c1]) {
				c0, c1 = c1, c0
			}
			stack[sp] = [2]int{level - 1, c0}
			stack[sp+1] = [2]int{level - 1, c1}
			sp += 2
		}
		for k := lo; k < hi; k++ {
			sum += math.Sqrt(best[k-lo])
		}
		prev = arg[hi-1-lo]
	}
	return sum / float64(len(a))
}

// oneWayDistance is the symmetric one-way distance between two trajectories
// (Zheng et al.'s OWD, the rover distance of the ROBOT code):
// 0.5 (mean_{a in A} min_{b in B} |a-b| + mean_{b in B} min_{a in A} |a-b|).
// Both must be non-empty.
func oneWayDistance(a, b [][2]float64) float64 {
	return oneWay(newCurveIndex(a), newCurveIndex(b))
}

func oneWay(ia, ib *curveIndex) float64 {
	return 0.5 * (meanMinDistance(ia, ib) + meanMinDistance(ib, ia))
}
