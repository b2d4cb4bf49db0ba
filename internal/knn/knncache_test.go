package knn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

func TestCachedKNNHitAndRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randomPoints(rng, 200, 3, 0)
	cache := t.TempDir()
	want, err := DenseKNN(x, 7, MetricEuclidean, 1)
	if err != nil {
		t.Fatal(err)
	}
	same := func(name string, g *KNNGraph) {
		t.Helper()
		if !slices.Equal(g.Index, want.Index) || !slices.Equal(g.Distance, want.Distance) || g.N != 200 || g.K != 7 || g.Metric != MetricEuclidean {
			t.Fatalf("%s: graph differs from the direct computation", name)
		}
	}
	g, st, err := CachedKNN(cache, x, nil, 7, MetricEuclidean, 2)
	if err != nil || st != CacheMiss {
		t.Fatalf("first call: status %v, err %v; want miss", st, err)
	}
	same("miss", g)
	path := filepath.Join(cache, "knn", knnCacheKey(Dense{F64: x}, nil, 7, MetricEuclidean, nil)+".bin")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}
	g, st, err = CachedKNN(cache, x, nil, 7, MetricEuclidean, 2)
	if err != nil || st != CacheHit {
		t.Fatalf("second call: status %v, err %v; want hit", st, err)
	}
	same("hit", g)

	data, _ := os.ReadFile(path)
	corruptions := map[string][]byte{
		"flipped byte": func() []byte { c := slices.Clone(data); c[len(c)/2] ^= 0x40; return c }(),
		"truncated":    data[:len(data)-100],
		"empty":        {},
		"extended":     append(slices.Clone(data), 0),
	}
	for name, bad := range corruptions {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		g, st, err := CachedKNN(cache, x, nil, 7, MetricEuclidean, 2)
		if err != nil || st != CacheRecovered {
			t.Fatalf("%s: status %v, err %v; want recovered", name, st, err)
		}
		same(name, g)
		if fixed, _ := os.ReadFile(path); !slices.Equal(fixed, data) {
			t.Fatalf("%s: cache file not rewritten", name)
		}
	}
	// Different parameters or inputs use different files.
	keys := map[string]bool{
		knnCacheKey(Dense{F64: x}, nil, 7, MetricEuclidean, nil):     true,
		knnCacheKey(Dense{F64: x}, nil, 8, MetricEuclidean, nil):     true,
		knnCacheKey(Dense{F64: x}, nil, 7, MetricCosine, nil):        true,
		knnCacheKey(Dense{F64: x[1:]}, nil, 7, MetricEuclidean, nil): true,
	}
	y := make([][]float64, len(x))
	for i := range x {
		y[i] = slices.Clone(x[i])
	}
	y[3][1] = 1e-300 // a tiny change must change the key
	keys[knnCacheKey(Dense{F64: y}, nil, 7, MetricEuclidean, nil)] = true
	if len(keys) != 5 {
		t.Errorf("cache keys collide: %d distinct of 5", len(keys))
	}
	// No cache dir: computed, nothing written.
	if _, st, err := CachedKNN("", x, nil, 7, MetricEuclidean, 1); err != nil || st != cacheOff {
		t.Errorf("no cache: status %v, err %v", st, err)
	}
}

func TestCachedFloats(t *testing.T) {
	cache := t.TempDir()
	calls := 0
	compute := func() ([]float64, error) { calls++; return []float64{1, 2.5, -3}, nil }
	for i, want := range []CacheStatus{CacheMiss, CacheHit} {
		v, st, err := CachedFloats(cache, "pca", "k", 3, compute)
		if err != nil || st != want || !slices.Equal(v, []float64{1, 2.5, -3}) {
			t.Fatalf("call %d: %v %v %v", i, v, st, err)
		}
	}
	path := filepath.Join(cache, "pca", "k.bin")
	data, _ := os.ReadFile(path)
	data[20] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, st, _ := CachedFloats(cache, "pca", "k", 3, compute); st != CacheRecovered || calls != 2 {
		t.Errorf("corrupt: status %v after %d computations, want recovered after 2", st, calls)
	}
	// A stored array of another length is not accepted.
	if _, st, _ := CachedFloats(cache, "pca", "k", 4, func() ([]float64, error) { return make([]float64, 4), nil }); st != CacheRecovered {
		t.Errorf("wrong length: status %v, want recovered", st)
	}
}

// TestCacheWriteFailureIsAWarning: a cache
// that cannot be written (a full file system; here the cache's knn and pca
// folders are files, so every write fails) aborted the campaign although
// the cache only saves time. The graph and the floats are computed and
// returned as without a cache, and one warning per file names it and the
// cause.
func TestCacheWriteFailureIsAWarning(t *testing.T) {
	var warnings bytes.Buffer
	old := fileio.CacheWarnings
	fileio.CacheWarnings = &warnings
	t.Cleanup(func() { fileio.CacheWarnings = old })
	cache := t.TempDir()
	for _, sub := range []string{"knn", "pca"} {
		if err := os.WriteFile(filepath.Join(cache, sub), []byte("not a folder"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x := randomPoints(rand.New(rand.NewPCG(1, 1)), 50, 3, 0)
	want, err := DenseKNN(x, 4, MetricEuclidean, 1)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		g, _, err := CachedKNN(cache, x, nil, 4, MetricEuclidean, 1)
		if err != nil || !slices.Equal(g.Index, want.Index) || !slices.Equal(g.Distance, want.Distance) {
			t.Fatalf("CachedKNN with an unwritable cache: %v", err)
		}
	}
	v, _, err := CachedFloats(cache, "pca", "k", 3, func() ([]float64, error) { return []float64{1, 2, 3}, nil })
	if err != nil || !slices.Equal(v, []float64{1, 2, 3}) {
		t.Fatalf("cachedFloats with an unwritable cache: %v %v", v, err)
	}
	knnFile := filepath.Join(cache, "knn", knnCacheKey(Dense{F64: x}, nil, 4, MetricEuclidean, nil)+".bin")
	w := warnings.String()
	if strings.Count(w, "qvs: warning: cache file "+knnFile+" not written (") != 1 || !strings.Contains(w, "not a directory); going on without it") ||
		!strings.Contains(w, filepath.Join(cache, "pca", "k.bin")) {
		t.Errorf("warnings %q: want one per file, naming it and the cause", w)
	}
}

// TestDecodeKNNStreamed: encodeKNN and the streamed decodeKNN round-trip
// a graph spanning many read blocks (exact and approximate headers), and a
// file whose checksum is right but whose content is not is rejected:
// a neighbour out of range, a self-loop, another graph size, an unknown
// magic.
func TestDecodeKNNStreamed(t *testing.T) {
	const n, k = 3000, 9 // 27,000 entries: several 64 KiB blocks of each array
	rng := rand.New(rand.NewPCG(21, 8))
	g := &KNNGraph{N: n, K: k, Metric: MetricCosine, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	for m := range g.Index {
		g.Index[m] = int32((m/k + 1 + rng.IntN(n-1)) % n)
		g.Distance[m] = rng.Float64()
	}
	encode := func(st *ApproxStats) []byte {
		var b bytes.Buffer
		size, err := encodeKNN(&b, testKey, g, st)
		if err != nil || size != int64(b.Len()) {
			t.Fatalf("encode: %d bytes reported, %d written, %v", size, b.Len(), err)
		}
		return b.Bytes()
	}
	for _, st := range []*ApproxStats{nil, {Rounds: 4, Recall: 0.993, RecallRows: 200}} {
		data := encode(st)
		got, gotSt, err := decodeKNN(bytes.NewReader(data), int64(len(data)), testKey, n, k, MetricCosine)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Index, g.Index) || !slices.Equal(got.Distance, g.Distance) || (st == nil) != (gotSt == nil) || st != nil && *gotSt != *st {
			t.Fatalf("stats %v: round trip differs (stats back %v)", st, gotSt)
		}
	}
	// resum replaces the trailer by the checksum of the edited body.
	resum := func(data []byte) []byte {
		body := data[:len(data)-sha256.Size]
		sum := sha256.Sum256(body)
		return append(slices.Clone(body), sum[:]...)
	}
	data := encode(nil)
	idx := func(m int) int { return 56 + 4*m } // entry m's index in an exact file
	for name, c := range map[string]struct {
		edit func(d []byte)
		n    int
		want string
	}{
		"out of range": {func(d []byte) { binary.LittleEndian.PutUint32(d[idx(5000):], n) }, n, "invalid neighbour index"},
		"self-loop":    {func(d []byte) { binary.LittleEndian.PutUint32(d[idx(5*k+2):], 5) }, n, "invalid neighbour index"},
		"other size":   {func(d []byte) { binary.LittleEndian.PutUint64(d[40:], n+1) }, n, "another graph size"},
		"other key":    {func(d []byte) { d[8] ^= 1 }, n, "built for other features"},
		"v1 magic":     {func(d []byte) { copy(d, knnMagicV1[:]) }, n, "earlier qvs"},
		"magic":        {func(d []byte) { d[0] = 'X' }, n, "no kNN header"},
		"asked for n":  {func([]byte) {}, n - 1, "expected"},
	} {
		bad := slices.Clone(data)
		c.edit(bad)
		bad = resum(bad)
		if _, _, err := decodeKNN(bytes.NewReader(bad), int64(len(bad)), testKey, c.n, k, MetricCosine); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

// testKey is the key the files of TestDecodeKNNStreamed record.
var testKey = func() []byte { s := sha256.Sum256([]byte("test")); return s[:] }()

// TestKNNCacheTiedToKey: a cache entry copied, or symbolically linked,
// from another pool with the same n and k is not taken for this pool's
// graph (it used to be "read from the cache", the other pool's graph): it
// is rebuilt, with a note, and the result is this pool's graph; a file of
// the format without a key is rebuilt the same way.
func TestKNNCacheTiedToKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := randomPoints(rng, 120, 3, 0)
	b := randomPoints(rng, 120, 3, 0)
	want, err := DenseKNN(a, 5, MetricEuclidean, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"copy", "symlink", "v1"} {
		cache := t.TempDir()
		if _, st, err := CachedKNN(cache, b, nil, 5, MetricEuclidean, 1); err != nil || st != CacheMiss {
			t.Fatalf("%s: %v %v", how, st, err)
		}
		pathA := filepath.Join(cache, "knn", knnCacheKey(Dense{F64: a}, nil, 5, MetricEuclidean, nil)+".bin")
		pathB := filepath.Join(cache, "knn", knnCacheKey(Dense{F64: b}, nil, 5, MetricEuclidean, nil)+".bin")
		plant := func() {
			os.Remove(pathA)
			switch how {
			case "copy":
				data, _ := os.ReadFile(pathB)
				os.WriteFile(pathA, data, 0o644)
			case "symlink":
				os.Symlink(pathB, pathA)
			case "v1":
				// The earlier format: magic QVSKNN01, no key, checksum right.
				data, _ := os.ReadFile(pathB)
				body := slices.Concat(knnMagicV1[:], data[8+32:len(data)-sha256.Size])
				sum := sha256.Sum256(body)
				os.WriteFile(pathA, append(body, sum[:]...), 0o644)
			}
		}
		plant()
		var warned bytes.Buffer
		old := fileio.CacheWarnings
		fileio.CacheWarnings = &warned
		_, st, err := CachedKNN(cache, a, nil, 5, MetricEuclidean, 1) // the paper pools' path
		fileio.CacheWarnings = old
		if err != nil || st != CacheRecovered || !strings.Contains(warned.String(), "rebuilding it") {
			t.Errorf("%s: CachedKNN status %v, warning %q, %v", how, st, warned.String(), err)
		}
		// Planted again for BuildGraph (CachedKNN replaced it).
		plant()
		g, info, err := BuildGraph(cache, Dense{F64: a}, nil, 5, MetricEuclidean, KNNExact, GraphOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if info.Status != CacheRecovered || !strings.Contains(info.CacheNote, "rebuilding") {
			t.Errorf("%s: status %v, note %q; want recovered with a note", how, info.Status, info.CacheNote)
		}
		if !slices.Equal(g.Index, want.Index) || !slices.Equal(g.Distance, want.Distance) {
			t.Errorf("%s: the graph is not pool a's", how)
		}
		if _, info, _ := BuildGraph(cache, Dense{F64: a}, nil, 5, MetricEuclidean, KNNExact, GraphOptions{Workers: 1}); info.Status != CacheHit {
			t.Errorf("%s: rebuilt entry not a hit next time: %v", how, info.Status)
		}
	}
}

// FuzzDecodeKNN: any cache file (a copied, cut or hostile entry) is
// decoded or refused, never a panic, and a file that decodes records the
// key asked for and holds a valid graph of the size asked for.
func FuzzDecodeKNN(f *testing.F) {
	g := &KNNGraph{N: 4, K: 2, Metric: MetricEuclidean, Index: []int32{1, 2, 0, 3, 0, 1, 2, 1}, Distance: []float64{1, 2, 1, 3, 2, 1, 3, 1}}
	for _, st := range []*ApproxStats{nil, {Rounds: 2, Recall: 1, RecallRows: 4}} {
		var b bytes.Buffer
		encodeKNN(&b, testKey, g, st)
		f.Add(b.Bytes(), 4, 2)
	}
	f.Add([]byte("QVSKNN01"), 4, 2)
	f.Fuzz(func(t *testing.T, data []byte, n, k int) {
		if n < 1 || k < 1 || n > 64 || k >= n {
			return
		}
		got, _, err := decodeKNN(bytes.NewReader(data), int64(len(data)), testKey, n, k, MetricEuclidean)
		if err != nil {
			return
		}
		if !bytes.Equal(data[8:40], testKey) || got.N != n || got.K != k || len(got.Index) != n*k {
			t.Fatalf("accepted a file of another key or size")
		}
		for m, j := range got.Index {
			if j < 0 || int(j) >= n || int(j) == m/k {
				t.Fatalf("accepted neighbour %d of row %d", j, m/k)
			}
		}
	})
}
