package vendi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pruneOrders are the orders the pruning tests cover (q = 0 never prunes).
var pruneOrders = []Order{0.1, 0.5, 1, 2, 5, OrderInf}

// randomArrowhead returns strictly increasing poles p (r of them, spread
// over [-3, 6] so some are negative), weights w and a corner a; kind
// "near" packs some poles within 1e-9 of each other, "zero" zeroes some
// weights (a deflated eigenvalue), "tiny" makes some weights 1e-30.
func randomArrowhead(rng *rand.Rand, r int, kind string) (p, w []float64, a float64) {
	for len(p) < r {
		x := -3 + 9*rng.Float64()
		if kind == "near" && len(p) > 0 && rng.IntN(3) == 0 {
			x = p[len(p)-1] + 1e-9*(1+rng.Float64())
		}
		if !slices.Contains(p, x) {
			p = append(p, x)
		}
	}
	slices.Sort(p)
	for k := 1; k < r; k++ {
		if p[k] <= p[k-1] {
			p[k] = math.Nextafter(p[k-1], 10)
		}
	}
	w = make([]float64, r)
	for k := range w {
		z := rng.NormFloat64() * 0.3
		switch {
		case kind == "zero" && rng.IntN(4) == 0:
			z = 0
		case kind == "tiny" && rng.IntN(4) == 0:
			z = 1e-15
		}
		w[k] = z * z
	}
	return p, w, 1 + 0.5*rng.NormFloat64()
}

// TestRootBracketsEnclose checks rootBrackets against the eigenvalues of
// the dense arrowhead matrix (an independent symmetric eigensolver), for
// near windows of 0 to 8 poles, fine and coarse (the first bound's):
// every eigenvalue lies in its bracket, and the brackets are narrow (else
// the pruning would be useless).
func TestRootBracketsEnclose(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	roots, narrow, coarseNarrow := 0, 0, 0
	for trial := 0; trial < 400; trial++ {
		r := 1 + rng.IntN(60)
		kind := []string{"plain", "near", "zero", "tiny"}[trial%4]
		p, w, a := randomArrowhead(rng, r, kind)
		// Spectra far from 0 too: the far field's lines are kept relative
		// to the interval's left end, steep ones included (near poles).
		shift := []float64{0, 0, 0, 50, -1000}[trial%5]
		for i := range p {
			p[i] += shift
		}
		a += shift
		M := make([]float64, (r+1)*(r+1))
		var zn2 float64
		for i := 0; i < r; i++ {
			M[i*(r+1)+i] = p[i]
			M[i*(r+1)+r] = math.Sqrt(w[i])
			M[r*(r+1)+i] = math.Sqrt(w[i])
			zn2 += w[i]
		}
		M[r*(r+1)+r] = a
		want, err := Eigenvalues(symFrom(r+1, M))
		if err != nil {
			t.Fatal(err)
		}
		lo := math.Min(p[0], a) - math.Sqrt(zn2) - 1e-12
		hi := math.Max(p[r-1], a) + math.Sqrt(zn2) + 1e-12
		far := newFarField(r)
		bl, bh := make([]float64, r+1), make([]float64, r+1)
		L := []int{0, 1, 3, 8}[rng.IntN(4)]
		from := 0
		if trial%3 == 0 {
			from = rng.IntN(r + 1) // intervals before from keep their interlacing ends
		}
		farBase(p, w, L, from-1, nil, nil, far)
		cl, ch := make([]float64, r+1), make([]float64, r+1)
		rootBrackets(a, p, w, lo, hi, L, from, far, bl, bh, false)
		rootBrackets(a, p, w, lo, hi, L, from, far, cl, ch, true)
		for j := range want {
			tol := 1e-12 * (1 + math.Abs(want[j])) // the dense solver's own error
			for mode, b := range [][2][]float64{{bl, bh}, {cl, ch}} {
				if want[j] < b[0][j]-tol || want[j] > b[1][j]+tol {
					t.Fatalf("trial %d (%s, r=%d, L=%d, from=%d, coarse %v): eigenvalue %d = %.17g outside its bracket [%.17g, %.17g]; p %v w %v a %v", trial, kind, r, L, from, mode == 1, j, want[j], b[0][j], b[1][j], p[max(0, j-3):min(r, j+3)], w[max(0, j-3):min(r, j+3)], a)
				}
			}
			left, right := interval(p, lo, hi, j)
			if j < from || L < 1 {
				continue // unsolved, or a deliberately crude window
			}
			roots++
			if bh[j]-bl[j] <= 0.1*(right-left) {
				narrow++
			}
			if ch[j]-cl[j] <= 0.1*(right-left) {
				coarseNarrow++
			}
		}
	}
	// Most brackets must be much narrower than their interlacing intervals,
	// or the pruning would be useless.
	t.Logf("%d of %d brackets within 10%% of their interval, %d of the coarse ones", narrow, roots, coarseNarrow)
	if narrow < roots*9/10 || coarseNarrow < roots*3/4 {
		t.Errorf("only %d (coarse: %d) of %d brackets within 10%% of their interval", narrow, coarseNarrow, roots)
	}
}

// TestFarBaseCauchyTable: the tabulated and the direct far sums agree,
// and both equal the sums written out here.
func TestFarBaseCauchyTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p, w, _ := randomArrowhead(rng, 40, "plain")
	s := len(p)
	C, C2, _ := cauchyTables(p)
	const L = 3
	f1, f2 := newFarField(s), newFarField(s)
	farBase(p, w, L, 0, nil, nil, f1)
	farBase(p, w, L, 0, C, C2, f2)
	for i := range p {
		want, _ := farSumsWritten(p, w, i, L)
		for n, f := range []*farField{f1, f2} {
			got := [5]float64{f.left[i], f.right[i], f.dleft[i], f.dright[i], f.full[i]}
			for m := range got {
				if !near(got[m], want[m], 1e-12) && math.Abs(got[m]-want[m]) > 1e-13 {
					t.Fatalf("row %d, sum %d (table %v): %g, want %g", i, m, n == 1, got[m], want[m])
				}
			}
		}
	}
}

// farSumsWritten returns row i's far sums written out (left, right,
// dleft, dright, full: see farField) and the sum of the magnitudes of
// their terms, the scale of their rounding.
func farSumsWritten(p, w []float64, i, L int) (want [5]float64, scale float64) {
	for k := range p {
		if k == i {
			continue
		}
		v := w[k] / (p[i] - p[k])
		want[4] += v
		scale += math.Abs(v) * (1 + 1/math.Abs(p[i]-p[k]))
		switch {
		case k < i-1-L:
			want[0] += v
			want[2] += v / (p[i] - p[k])
		case k > i+1+L:
			want[1] += v
			want[3] += v / (p[i] - p[k])
		}
	}
	return want, scale
}

func newFarField(s int) *farField {
	return &farField{left: make([]float64, s), right: make([]float64, s), dleft: make([]float64, s), dright: make([]float64, s), full: make([]float64, s)}
}

// pruneKernels returns kernels whose chosen sets form large blocks: a kNN
// graph over clustered points (indefinite, with a duplicate and an isolated
// item), a dense random symmetric kernel with unit diagonal (indefinite,
// every pair similar) and groups of equicorrelated items (repeated
// eigenvalues, which the bound merges).
func pruneKernels(rng *rand.Rand, n int) []namedKernel {
	dense := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		dense.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			if rng.IntN(3) > 0 {
				dense.SetSym(i, j, 0.6*rng.Float64()-0.1)
			}
		}
	}
	// Groups of 5 equicorrelated items (similarity 0.5 within a group, an
	// eigenvalue 0.5 repeated 4 times per group), linked by a few 0.1s.
	groups := FuncKernel(n, func(i, j int) float64 {
		switch {
		case i == j:
			return 1
		case i/5 == j/5:
			return 0.5
		case (i+j)%7 == 0:
			return 0.1
		}
		return 0
	})
	return []namedKernel{{"knn", randomKNN(rng, n, 2, 6)}, {"dense", DenseKernel(dense)}, {"groups", groups}}
}

type namedKernel struct {
	name string
	k    Kernel
}

// TestScoreUpperBoundsVS: on random indefinite kernels and chosen sets of
// up to 60 items, the bound is at least the VS_q of the set plus the
// candidate from a full eigendecomposition, for every candidate and order,
// and it is tight enough to matter (most within 1%).
func TestScoreUpperBoundsVS(t *testing.T) {
	defer func(v int) { pruneMin = v }(pruneMin)
	pruneMin = 2
	rng := rand.New(rand.NewPCG(17, 4))
	checked, tight := 0, 0
	for trial := 0; trial < 6; trial++ {
		n := 50 + 15*trial
		for _, nk := range pruneKernels(rng, n) {
			name, K := nk.name, nk.k
			prefix := rng.Perm(n)[:10+rng.IntN(n/2)]
			quality := make([]float64, n)
			for i := range quality {
				quality[i] = rng.Float64()
			}
			for _, q := range pruneOrders {
				g, ws, mark := boundState(t, K, quality, prefix, q)
				for c := 0; c < n; c++ {
					if !g.eligible[c] {
						continue
					}
					tl := g.denseTouches(c, nil)
					want, err := Score(Submatrix(K, append(slices.Clone(prefix), c)), q)
					if err != nil {
						t.Fatal(err)
					}
					for pass, second := range []bool{false, true} {
						vsb, ok := g.scoreUpper(c, tl, ws, mark, int32(2*c+1+pass), second)
						if !ok {
							continue
						}
						checked++
						if vsb < want*(1-1e-12) {
							t.Fatalf("trial %d %s q=%v candidate %d (second bound %v): bound %.15g below VS %.15g", trial, name, q, c, second, vsb, want)
						}
						if vsb <= want*1.01 {
							tight++
						}
					}
				}
			}
		}
	}
	t.Logf("%d bounds checked, %d within 1%%", checked, tight)
	if checked < 1000 || tight < checked*3/4 {
		t.Errorf("%d bounds checked, %d within 1%%: the test does not exercise the bound", checked, tight)
	}
}

// boundState returns the greedy's state for scoreUpper with the prefix
// chosen and the bounds' tables built, a worker's scratch and marks.
func boundState(t *testing.T, K Kernel, quality []float64, prefix []int, q Order) (*greedyState, *secularWork, []int32) {
	t.Helper()
	g, err := newGreedyState(GreedyProblem{Kernel: K, Quality: quality, Prefix: prefix, K: 1, Q: q})
	if err != nil {
		t.Fatal(err)
	}
	g.prepareBounds()
	return g, &secularWork{}, make([]int32, len(g.blocks))
}

// TestGreedyPruningExact: Greedy with pruning picks exactly what it picks
// without (scores within 1e-12 relative) and what the brute-force oracle
// picks, on kernels with large indefinite blocks, for every order, with 1
// and 2 workers and with a diversity floor; and the pruning does prune.
func TestGreedyPruningExact(t *testing.T) {
	defer func(v int) { pruneMin = v }(pruneMin)
	pruneMin = 2
	rng := rand.New(rand.NewPCG(5, 29))
	var stats PruneStats
	for trial := 0; trial < 4; trial++ {
		n := 40 + 10*trial
		for _, nk := range pruneKernels(rng, n) {
			name, K := nk.name, nk.k
			prefix := rng.Perm(n)[:8+rng.IntN(12)]
			quality := make([]float64, n)
			for i := range quality {
				quality[i] = rng.Float64()
			}
			for _, i := range prefix {
				quality[i] = 1
			}
			for _, q := range pruneOrders {
				p := GreedyProblem{Kernel: K, Quality: quality, Prefix: prefix, K: 5, Q: q, Workers: 1 + trial%2}
				if trial == 3 {
					vs, err := Score(Submatrix(K, prefix), q)
					if err != nil {
						t.Fatal(err)
					}
					// a floor that binds: the prefix's VS plus 0.6 per pick
					p.MinVS = func(s int) float64 { return vs + 0.6*float64(s-len(prefix)) }
				}
				name := fmt.Sprintf("trial%d/%s/q=%v", trial, name, q)
				got, err := Greedy(p)
				if err != nil {
					t.Fatal(err)
				}
				stats.Bounded += got.Stats.Bounded
				stats.Pruned += got.Stats.Pruned
				stats.Level0 += got.Stats.Level0
				noPrune = true
				plain, err := Greedy(p)
				noPrune = false
				if err != nil {
					t.Fatal(err)
				}
				if plain.Stats != (PruneStats{}) {
					t.Fatalf("%s: noPrune still bounded: %+v", name, plain.Stats)
				}
				if !slices.Equal(got.Picks, plain.Picks) {
					t.Fatalf("%s: picks %v with pruning, %v without", name, got.Picks, plain.Picks)
				}
				for i := range got.Scores {
					if !near(got.Scores[i], plain.Scores[i], 1e-12) {
						t.Errorf("%s: pick %d qVS %.17g with pruning, %.17g without", name, i, got.Scores[i], plain.Scores[i])
					}
				}
				want := bruteGreedy(t, p)
				if !slices.Equal(got.Picks, want.Picks) {
					t.Fatalf("%s: picks %v, oracle %v", name, got.Picks, want.Picks)
				}
				for i := range want.Scores {
					if !near(got.Scores[i], want.Scores[i], 1e-9) {
						t.Errorf("%s: pick %d qVS %.15g, oracle %.15g", name, i, got.Scores[i], want.Scores[i])
					}
				}
			}
		}
	}
	t.Logf("bounded %d, pruned %d, by the level-0 bound alone %d", stats.Bounded, stats.Pruned, stats.Level0)
	if stats.Pruned < stats.Bounded/2 || stats.Level0 == 0 {
		t.Errorf("pruned %d of %d bounded candidates, %d by level 0: the test does not exercise the pruning", stats.Pruned, stats.Bounded, stats.Level0)
	}
}

// TestFarLinesBound checks farLines against the far field summed directly:
// on every interval, at points across it (the ends' neighbourhoods
// included), ℓ(x) <= G_L(x) + G_R(x) <= u(x), and at the point xe the lines
// are chosen for the gap u - ℓ is at most that of the constants G(left) and
// G(right) the brackets used before (a second-order gap instead of a
// first-order one: on these arrowheads it is most often far below).
func TestFarLinesBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	checked, inner, tighter := 0, 0, 0
	for trial := 0; trial < 300; trial++ {
		r := 2 + rng.IntN(50)
		p, w, _ := randomArrowhead(rng, r, []string{"plain", "zero", "tiny"}[trial%3])
		var zn2 float64
		for _, x := range w {
			zn2 += x
		}
		lo, hi := p[0]-math.Sqrt(zn2)-1, p[r-1]+math.Sqrt(zn2)+1
		L := []int{0, 1, 3}[trial%3]
		far := newFarField(r)
		farBase(p, w, L, 0, nil, nil, far)
		for j := 0; j <= r; j++ {
			left, right := interval(p, lo, hi, j)
			kLo, kHi := max(0, j-1-L), min(r-1, j+L)
			G := func(x float64) (g, mag float64) {
				for k := range p {
					if k < kLo || k > kHi {
						v := w[k] / (x - p[k])
						g += v
						mag += math.Abs(v)
					}
				}
				return g, mag
			}
			xe := left + (right-left)*rng.Float64()
			vl, ml, vu, mu := farLines(p, w, lo, hi, L, j, xe, far)
			for n := 0; n <= 20; n++ {
				x := left + (right-left)*float64(n)/20
				switch n {
				case 0:
					x = left + 1e-9*(right-left)
				case 20:
					x = right - 1e-9*(right-left)
				}
				g, mag := G(x)
				tol := 1e-12 * (mag + math.Abs(vl) + math.Abs(vu) + (math.Abs(ml)+math.Abs(mu))*(right-left))
				l, u := vl+ml*(x-left), vu+mu*(x-left)
				if l > g+tol || g > u+tol {
					t.Fatalf("trial %d, r=%d, L=%d, interval %d [%g, %g], x=%g: far field %g outside its lines [%g, %g]", trial, r, L, j, left, right, x, g, l, u)
				}
				checked++
			}
			if j == 0 || j == r {
				continue
			}
			gl, _ := G(left)
			gr, mag := G(right)
			gap := (vu + mu*(xe-left)) - (vl + ml*(xe-left))
			if gap > gl-gr+1e-12*mag {
				t.Fatalf("trial %d, interval %d: gap %g at xe above the constants' %g", trial, j, gap, gl-gr)
			}
			inner++
			if gap < 0.25*(gl-gr) {
				tighter++
			}
		}
	}
	t.Logf("%d points checked; %d of %d inner intervals with a gap under a quarter of the constants'", checked, tighter, inner)
	if tighter < inner/2 {
		t.Errorf("only %d of %d inner intervals with a gap under a quarter of the constants'", tighter, inner)
	}
}

// TestFarBaseMixedSums: for candidates touching several blocks, or one
// whose poles are merged, candidateBrackets takes the far sums of the
// largest touched block's poles from its Cauchy table (farBaseMixed); every
// row's five sums equal the sums over the merged poles written out here,
// for the first bound (rows from the first positive pole's left
// neighbour, L = 1) and the second (every row, L = 8), on the kernels of
// TestScoreUpperBoundsVS. The test also requires that many candidates take
// that path, with merged poles among them.
func TestFarBaseMixedSums(t *testing.T) {
	defer func(v int) { pruneMin = v }(pruneMin)
	pruneMin = 2
	rng := rand.New(rand.NewPCG(23, 9))
	mixed, merged, single, rows := 0, 0, 0, 0
	for trial := 0; trial < 4; trial++ {
		n := 60 + 20*trial
		kernels := pruneKernels(rng, n)
		// A linked cluster (items 0-24, one block with a table), three
		// items linked to each other (another table), singletons 28-37
		// (eigenvalue 1 each: two touched ones merge) and candidates
		// similar to members of all three kinds.
		sim := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				cand := i >= 38
				link := (i < 25 && j < 25 && rng.IntN(2) == 0) || (i >= 25 && i < 28 && j >= 25) ||
					(cand && j < 38 && rng.IntN(4) == 0) || (cand && j >= 38 && rng.IntN(10) == 0)
				if link {
					sim[i*n+j] = 0.8*rng.Float64() - 0.2
					sim[j*n+i] = sim[i*n+j]
				}
			}
			sim[i*n+i] = 1
		}
		kernels = append(kernels, namedKernel{"cluster+singletons", FuncKernel(n, func(i, j int) float64 { return sim[i*n+j] })})
		for ki, nk := range kernels {
			prefix := rng.Perm(n)[:15+rng.IntN(n/2)]
			if ki == len(kernels)-1 {
				prefix = make([]int, 38)
				for i := range prefix {
					prefix[i] = i
				}
			}
			g, ws, mark := boundState(t, nk.k, slices.Repeat([]float64{1}, n), prefix, 1)
			for c := 0; c < n; c++ {
				if !g.eligible[c] {
					continue
				}
				tl := g.denseTouches(c, nil)
				if len(tl) == 0 {
					continue
				}
				tb := g.touchedBlocks(tl, mark, int32(c+1), nil)
				s, table := 0, false
				for _, b := range tb {
					s += len(g.blocks[b].eig)
					table = table || g.blocks[b].cauchy != nil
				}
				if !table {
					continue
				}
				for _, tight := range []bool{false, true} {
					g.candidateBrackets(tl, tb, nk.k.At(c, c), ws, tight)
					sm := len(ws.groups)
					if len(tb) == 1 && sm == s {
						continue // farBase's own table: TestFarBaseCauchyTable
					}
					mixed++
					if sm < s {
						merged++
						if len(tb) == 1 {
							single++ // one block with repeated eigenvalues
						}
					}
					p, w := ws.p[:sm], ws.w[:sm]
					L, from := bracketWindow[1], 0
					if !tight {
						L, from = bracketWindow[0], sort.SearchFloat64s(p, math.Nextafter(0, 1))-1
					}
					bb := ws.bbuf
					got := [5][]float64{bb[:sm], bb[s : s+sm], bb[5*s+2 : 5*s+2+sm], bb[6*s+2 : 6*s+2+sm], bb[4*s+2 : 4*s+2+sm]}
					for i := max(from, 0); i < sm; i++ {
						want, scale := farSumsWritten(p, w, i, L)
						rows++
						for m := range want {
							if math.Abs(got[m][i]-want[m]) > 1e-13*scale {
								t.Fatalf("%s candidate %d (tight %v), row %d of %d, sum %d: %g, want %g", nk.name, c, tight, i, sm, m, got[m][i], want[m])
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d mixed candidates (%d with merged poles, %d of them touching one block), %d rows", mixed, merged, single, rows)
	if mixed < 200 || merged < 20 || single < 20 {
		t.Errorf("%d mixed candidates, %d with merged poles, %d touching one block: the test does not exercise farBaseMixed", mixed, merged, single)
	}
}

// sparseOf returns the kernel f (symmetric, unit diagonal) as a Sparse.
func sparseOf(n int, f func(i, j int) float64) *Sparse {
	s := &Sparse{N: n, Ptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := f(i, j); j != i && v != 0 {
				s.Cols = append(s.Cols, int32(j))
				s.Vals = append(s.Vals, v)
			}
		}
		s.Ptr[i+1] = len(s.Cols)
	}
	return s
}

// singlesKernels returns sparse kernels whose chosen sets form large blocks
// touched by many candidates similar to one member alone: a kNN graph, a
// linked cluster with pendant candidates (several per member, similarities
// of both signs, two candidates with equal rows), and the same with the
// cluster made of equicorrelated groups (repeated eigenvalues, merged by
// the bound). The chosen prefix is items 0..m-1 for the last two.
func singlesKernels(rng *rand.Rand, n, m int) []namedKernel {
	sim := make([]float64, n*n)
	grp := make([]float64, n*n)
	for i := m; i < n; i++ {
		// Pendants: one member, or (every fifth) two, or a member and
		// another candidate.
		j := rng.IntN(m)
		v := 0.9*rng.Float64() - 0.3
		sim[i*n+j], sim[j*n+i] = v, v
		if i%5 == 0 {
			k := rng.IntN(m)
			sim[i*n+k], sim[k*n+i] = 0.3, 0.3
		}
		if i%7 == 0 && i+1 < n {
			sim[i*n+i+1], sim[(i+1)*n+i] = 0.2, 0.2
		}
	}
	// Item m+1 repeats item m's row (a duplicate candidate).
	for j := 0; j < n; j++ {
		if j != m && j != m+1 {
			sim[(m+1)*n+j], sim[j*n+m+1] = sim[m*n+j], sim[m*n+j]
		}
	}
	copy(grp, sim)
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			if rng.IntN(3) == 0 {
				sim[i*n+j] = 0.8*rng.Float64() - 0.2
				sim[j*n+i] = sim[i*n+j]
			}
			switch {
			case i/4 == j/4:
				grp[i*n+j], grp[j*n+i] = 0.5, 0.5
			case (i+j)%5 == 0:
				grp[i*n+j], grp[j*n+i] = 0.1, 0.1
			}
		}
	}
	return []namedKernel{
		{"knn", randomKNN(rng, n, 2, 6)},
		{"cluster+pendants", sparseOf(n, func(i, j int) float64 { return sim[i*n+j] })},
		{"groups+pendants", sparseOf(n, func(i, j int) float64 { return grp[i*n+j] })},
	}
}

// singlesState returns the prefix for singlesKernels' kernel ki (kNN: lo
// to lo+spread-1 random items; the others: items 0..m-1) and random
// qualities in [0.5, 1.5).
func singlesState(rng *rand.Rand, ki, n, m, lo, spread int) (prefix []int, quality []float64) {
	prefix = rng.Perm(n)[:lo+rng.IntN(spread)]
	if ki > 0 {
		prefix = make([]int, m)
		for i := range prefix {
			prefix[i] = i
		}
	}
	quality = make([]float64, n)
	for i := range quality {
		quality[i] = 0.5 + rng.Float64()
	}
	return prefix, quality
}

// TestFarSingleSums: a candidate similar to one member alone takes its
// first bound's far sums from the member's table times v² (farSingle);
// every such row's five sums equal the sums written out in the test for
// the candidate's own weights, to 1e-13 of their terms' magnitudes,
// including blocks whose repeated eigenvalues are merged; and the bound
// from them is at least the exact VS of the set plus the candidate (dense
// eigendecomposition).
func TestFarSingleSums(t *testing.T) {
	defer func(v int) { pruneMin = v }(pruneMin)
	pruneMin = 4
	rng := rand.New(rand.NewPCG(41, 7))
	tabled, merged, rows, bounds := 0, 0, 0, 0
	for trial := 0; trial < 4; trial++ {
		n, m := 90+20*trial, 20+4*trial
		for ki, nk := range singlesKernels(rng, n, m) {
			prefix, quality := singlesState(rng, ki, n, m, 25, 20)
			for _, q := range []Order{0.5, 1, OrderInf} {
				g, ws, mark := boundState(t, nk.k, quality, prefix, q)
				_, lists := g.touchLists()
				g.prepareSingles(lists)
				for c := 0; c < n; c++ {
					if !g.eligible[c] {
						continue
					}
					tl := g.denseTouches(c, nil)
					if len(tl) != 1 {
						continue
					}
					tb := g.touchedBlocks(tl, mark, int32(c+1), nil)
					blk := g.blocks[tb[0]]
					if blk.singleTable(g.memberLocal[tl[0].member]) == nil {
						continue
					}
					ws.tabled = 0
					ah := g.candidateFar(tl, tb, 1, ws, false, true)
					if ws.tabled != 1 {
						t.Fatalf("%s candidate %d: the member's table was not used", nk.name, c)
					}
					tabled++
					sm := len(ah.p)
					if sm < len(blk.eig) {
						merged++
					}
					got := [5][]float64{ah.far.left, ah.far.right, ah.far.dleft, ah.far.dright, ah.far.full}
					for i := max(ah.from-1, 0); i < sm; i++ {
						want, scale := farSumsWritten(ah.p, ah.w, i, ah.L)
						rows++
						for s := range want {
							if math.Abs(got[s][i]-want[s]) > 1e-13*scale {
								t.Fatalf("%s q=%v candidate %d, row %d of %d, sum %d: %g, want %g", nk.name, q, c, i, sm, s, got[s][i], want[s])
							}
						}
					}
					vsb, ok := g.scoreUpper(c, tl, ws, mark, int32(2*c+1), false)
					if !ok {
						continue
					}
					want, err := Score(Submatrix(nk.k, append(slices.Clone(g.memberItem), c)), q)
					if err != nil {
						t.Fatal(err)
					}
					bounds++
					if vsb < want*(1-1e-12) {
						t.Fatalf("%s q=%v candidate %d: bound %.15g below VS %.15g", nk.name, q, c, vsb, want)
					}
				}
			}
		}
	}
	t.Logf("%d candidates from tables (%d with merged poles), %d rows, %d bounds", tabled, merged, rows, bounds)
	if tabled < 300 || merged < 50 || bounds < 300 {
		t.Errorf("%d tabled candidates, %d merged, %d bounds: the test does not exercise farSingle", tabled, merged, bounds)
	}
}

// TestGreedySinglesSamePicks: Greedy with the members' far-sum tables picks
// what it picks without them, with bit-for-bit equal scores (the tables
// change only bounds, never an exact solve), and what the brute-force
// oracle picks, for every order, 1 and 2 workers.
func TestGreedySinglesSamePicks(t *testing.T) {
	defer func(v int) { pruneMin = v }(pruneMin)
	pruneMin = 4
	rng := rand.New(rand.NewPCG(43, 11))
	tabled := 0
	for trial := 0; trial < 3; trial++ {
		n, m := 60+15*trial, 16+4*trial
		for ki, nk := range singlesKernels(rng, n, m) {
			prefix, quality := singlesState(rng, ki, n, m, 12, 12)
			for _, q := range pruneOrders {
				p := GreedyProblem{Kernel: nk.k, Quality: quality, Prefix: prefix, K: 4, Q: q, Workers: 1 + trial%2}
				name := fmt.Sprintf("trial%d/%s/q=%v", trial, nk.name, q)
				got, err := Greedy(p)
				if err != nil {
					t.Fatal(err)
				}
				tabled += got.Stats.Tabled
				noSingles = true
				plain, err := Greedy(p)
				noSingles = false
				if err != nil {
					t.Fatal(err)
				}
				if plain.Stats.Tabled != 0 {
					t.Fatalf("%s: noSingles still read tables", name)
				}
				if !slices.Equal(got.Picks, plain.Picks) || !slices.Equal(got.Scores, plain.Scores) {
					t.Fatalf("%s: picks %v scores %v with tables, %v %v without", name, got.Picks, got.Scores, plain.Picks, plain.Scores)
				}
				want := bruteGreedy(t, p)
				if !slices.Equal(got.Picks, want.Picks) {
					t.Fatalf("%s: picks %v, oracle %v", name, got.Picks, want.Picks)
				}
			}
		}
	}
	t.Logf("%d first bounds from tables", tabled)
	if tabled < 500 {
		t.Errorf("%d first bounds from tables: the test does not exercise them", tabled)
	}
}
