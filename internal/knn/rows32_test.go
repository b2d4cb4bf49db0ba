package knn

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// float32Pool rounds x to float32, as Rows32 and as the same values held
// in float64.
func float32Pool(x [][]float64) (Rows32, [][]float64) {
	d := len(x[0])
	r := Rows32{Data: make([]float32, len(x)*d), D: d}
	y := make([][]float64, len(x))
	for i, row := range x {
		y[i] = make([]float64, d)
		for c, v := range row {
			r.Data[i*d+c] = float32(v)
			y[i][c] = float64(float32(v))
		}
	}
	return r, y
}

// The float32 path gives the float64 path's graph on the widened values:
// same rows, same distances bit for bit, same recall; and Rows32.Float64
// widens exactly.
func TestApproxDenseKNN32MatchesFloat64(t *testing.T) {
	for _, metric := range []string{MetricEuclidean, MetricCosine} {
		r, y := float32Pool(testutil.ClusteredGaussian(3000, 16, 10, 4))
		g64, st64, err := ApproxDenseKNN(y, 10, metric, ApproxOptions{Seed: 3, RecallRows: 100})
		if err != nil {
			t.Fatal(err)
		}
		g32, st32, err := ApproxDenseKNN32(r, 10, metric, ApproxOptions{Seed: 3, RecallRows: 100})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g64.Index, g32.Index) || !slices.Equal(g64.Distance, g32.Distance) || st64 != st32 {
			t.Fatalf("%s: float32 graph differs from the float64 one (stats %+v, %+v)", metric, st32, st64)
		}
		w := r.Float64()
		for i := range y {
			if !slices.Equal(w[i], y[i]) {
				t.Fatalf("Float64 row %d = %v, want %v", i, w[i], y[i])
			}
		}
		for i := 0; i < 200; i++ {
			a, b := (7*i)%3000, (13*i+5)%3000
			var d64, d32 float64
			if metric == MetricCosine {
				d64, d32 = cosineDistance(y[a], y[b]), cosineDistance(r.Row(a), r.Row(b))
			} else {
				d64, d32 = euclidean(y[a], y[b]), euclidean(r.Row(a), r.Row(b))
			}
			if math.Float64bits(d64) != math.Float64bits(d32) {
				t.Fatalf("%s(%d, %d): float32 rows %v, float64 %v", metric, a, b, d32, d64)
			}
		}
	}
	if _, _, err := ApproxDenseKNN32(Rows32{Data: []float32{1, 2, float32(math.NaN()), 4}, D: 2}, 1, MetricEuclidean, ApproxOptions{}); err == nil {
		t.Error("NaN feature accepted")
	}
}

// medianSplit puts the len/2 smallest (key, index) pairs first, keys moving
// with their items, as a full sort does; keys with many ties, lengths 0..300
// and one long run (the quickselect's deeper rounds).
func TestMedianSplitMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	lengths := []int{5000}
	for n := 0; n <= 300; n += 1 + n/10 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for trial := 0; trial < 5; trial++ {
			items := make([]int32, n)
			key := make([]float32, n)
			for a := range items {
				items[a] = int32(rng.IntN(10 * (n + 1)))  // distinct below
				key[a] = float32(rng.IntN(1 + trial*n/2)) // trial 0: all ties
			}
			slices.Sort(items)
			items = slices.Compact(items)
			key = key[:len(items)]
			rng.Shuffle(len(items), func(a, b int) {
				items[a], items[b] = items[b], items[a]
			})
			type kv struct {
				k float32
				i int32
			}
			want := make([]kv, len(items))
			byItem := map[int32]float32{}
			for a := range items {
				want[a] = kv{key[a], items[a]}
				byItem[items[a]] = key[a]
			}
			slices.SortFunc(want, func(a, b kv) int {
				if c := cmp.Compare(a.k, b.k); c != 0 {
					return c
				}
				return cmp.Compare(a.i, b.i)
			})
			m := medianSplit(items, key)
			if m != len(items)/2 {
				t.Fatalf("n=%d: half %d, want %d", len(items), m, len(items)/2)
			}
			got := make([]kv, m)
			for a := range items {
				if key[a] != byItem[items[a]] {
					t.Fatalf("n=%d: item %d moved without its key", len(items), items[a])
				}
				if a < m {
					got[a] = kv{key[a], items[a]}
				}
			}
			slices.SortFunc(got, func(a, b kv) int {
				if c := cmp.Compare(a.k, b.k); c != 0 {
					return c
				}
				return cmp.Compare(a.i, b.i)
			})
			if !slices.Equal(got, want[:m]) {
				t.Fatalf("n=%d trial %d: first half %v, want %v", len(items), trial, got, want[:m])
			}
		}
	}
}

// The in-place renumbering of the working rows gives the rows a copy
// would, and exact distances follow the items.
func TestDenseSpacePermutedInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := randomPoints(rng, 300, 5, 0)
	for _, metric := range []string{MetricEuclidean, MetricCosine} {
		sp, err := newDenseSpace(x, metric)
		if err != nil {
			t.Fatal(err)
		}
		w0, n0 := slices.Clone(sp.w), slices.Clone(sp.norm2)
		perm := make([]int32, 300)
		for p, i := range rng.Perm(300) {
			perm[p] = int32(i)
		}
		tp := sp.permuted(perm).(*denseSpace)
		for p, i := range perm {
			if !slices.Equal(tp.w[p*5:(p+1)*5], w0[int(i)*5:int(i)*5+5]) || tp.norm2[p] != n0[i] {
				t.Fatalf("%s: row %d is not row %d", metric, p, i)
			}
			q := (p * 7) % 300
			if tp.exact(p, q) != sp.exact(int(i), int(perm[q])) {
				t.Fatalf("%s: exact(%d, %d) does not follow the renumbering", metric, p, q)
			}
		}
		if sp.w != nil {
			t.Errorf("%s: the original space keeps its working rows", metric)
		}
		tt := tp.permuted(perm).(*denseSpace)
		for q := 0; q < 300; q += 17 {
			if tt.exact(q, 0) != sp.exact(int(perm[perm[q]]), int(perm[perm[0]])) {
				t.Fatalf("%s: a second renumbering loses the original items", metric)
			}
		}
	}
}

// BenchmarkRPTree: one random-projection tree (leaves of 48) over 500,000
// rows of the scripts/knn-bench.sh pool, on one goroutine: the projections
// and median splits of the initial graph's trees.
func BenchmarkRPTree(b *testing.B) {
	sp, err := newDenseSpace(benchPool(500_000), MetricEuclidean)
	if err != nil {
		b.Fatal(err)
	}
	items := make([]int32, 500_000)
	for b.Loop() {
		for i := range items {
			items[i] = int32(i)
		}
		buildRPTree(sp, items, 48, 1, 1, nil)
	}
}

// TestDenseSpaceSharedRestored: float32 features near the origin serve as
// the working rows themselves (no copy); permuted moves them into the new
// order (exact distances follow it) and restore moves them back bit for
// bit. Far from the origin the working rows are a centred copy and the
// features are never moved.
func TestDenseSpaceSharedRestored(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, d = 500, 7
	for _, offset := range []float64{0, 1000} {
		x, _ := float32Pool(randomPoints(rng, n, d, offset))
		orig := slices.Clone(x.Data)
		sp, err := newDenseSpaceOf(Dense{F32: x}, MetricEuclidean)
		if err != nil {
			t.Fatal(err)
		}
		if shared := offset == 0; sp.shared != shared {
			t.Fatalf("offset %v: shared %v, want %v", offset, sp.shared, shared)
		}
		if sp.shared && &sp.w[0] != &x.Data[0] {
			t.Fatal("shared working rows are not the features")
		}
		ref := Dense{F32: Rows32{Data: orig, D: d}}
		perm := make([]int32, n)
		for p, i := range rng.Perm(n) {
			perm[p] = int32(i)
		}
		tp := sp.permuted(perm).(*denseSpace)
		for p := 0; p < n; p += 3 {
			q := (p*11 + 5) % n
			if got, want := tp.exact(p, q), ref.Dist(int(perm[p]), int(perm[q]), false); got != want {
				t.Fatalf("offset %v: exact(%d, %d) = %v, want %v", offset, p, q, got, want)
			}
			// The working distance is the squared one up to float32 rounding.
			if got, want := float64(tp.work(int32(p), int32(q))), ref.Dist(int(perm[p]), int(perm[q]), false); math.Abs(got-want*want) > 1e-3*(want*want+1) {
				t.Fatalf("offset %v: work(%d, %d) = %v, want ~%v", offset, p, q, got, want*want)
			}
		}
		if moved := !slices.Equal(x.Data, orig); moved != sp.shared {
			t.Fatalf("offset %v: features moved %v, shared %v", offset, moved, sp.shared)
		}
		tp.restore()
		if !slices.Equal(x.Data, orig) {
			t.Fatalf("offset %v: the features are not restored", offset)
		}
		if got, want := sp.exact(3, 9), ref.Dist(3, 9, false); got != want {
			t.Fatalf("offset %v: exact after restore %v, want %v", offset, got, want)
		}
	}
}
