package knn

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// GraphOptions say how Load builds the kNN graph of a CSV or .npy pool
// (the built-in pools ignore them: their graphs are always exact).
type GraphOptions struct {
	Workers int // goroutines (<= 0: GOMAXPROCS)
	// Progress, if set, is told the build's work: the exact graph in one
	// phase ("kNN graph: exact", items done), the approximate one phase by phase
	// (ApproxOptions.Progress).
	Progress ProgressFunc
	// Name, if set, is how a message names a config key it mentions in
	// passing (a CSV pool's column keys): the command line names the flag
	// that set the key ("--exclude-columns (key pool.csv.exclude_columns)").
	// nil: the key itself.
	Name func(key string) string
	// FeaturesOnly reads a CSV or .npy pool's features and ids and builds
	// no kNN graph (Neighbors and Weights stay nil; the other kinds load as
	// usual): for callers that compare items through their features alone,
	// such as the scored suggestions of internal/surrogate.
	FeaturesOnly bool
}

// NameOf is how a message names config key in passing (Name).
func (o GraphOptions) NameOf(key string) string {
	if o.Name == nil {
		return key
	}
	return o.Name(key)
}

// GraphInfo says how a pool's kNN graph was obtained.
type GraphInfo struct {
	Method  string      // KNNExact or KNNApprox
	Status  CacheStatus // from the cache, computed (and stored), ...
	Stats   ApproxStats // KNNApprox only (Recall -1 when not measured)
	Seconds float64     // wall time of the build or of the cache read
	// KeySeconds is the time spent hashing the features for the cache key,
	// WriteSeconds writing the cache file after a build; CacheFile and
	// CacheBytes name the cache file (empty without a cache).
	KeySeconds   float64
	WriteSeconds float64
	CacheFile    string
	CacheBytes   int64
	// CacheNote says why a cache file that was there was not used
	// (Status CacheRecovered): damaged, of the earlier format without a
	// key, or built for another key (copied from another pool).
	CacheNote string
}

// approxCacheParams are the ApproxOptions of every cached approximate
// graph; they are part of its cache key.
var approxCacheParams = ApproxOptions{Seed: 1}

// BuildGraph returns the kNN graph of dense (metric euclidean or cosine) or
// bits (metric tanimoto) features by method (KNNAuto, KNNExact, KNNApprox),
// like CachedKNN: with a cacheDir the graph is read from
// cacheDir/knn/<key>.bin when intact, else computed and written atomically.
// The key of an exact graph is knnCacheKey (the one CachedKNN uses); an
// approximate graph's key adds the method and its parameters, and its file
// also keeps the measured recall.
// Dense features held as float64 rows or as a float32 block give the same
// graph, cache key and file for the same values.
func BuildGraph(cacheDir string, dense Dense, bits [][]uint64, k int, metric, method string, opt GraphOptions) (*KNNGraph, GraphInfo, error) {
	var n int
	if metric == MetricTanimoto {
		dense, n = Dense{}, len(bits)
	} else {
		bits, n = nil, dense.n()
	}
	m, err := ResolveKNNMethod(method, n, metric)
	if err != nil {
		return nil, GraphInfo{}, err
	}
	info := GraphInfo{Method: m, Stats: ApproxStats{Recall: -1}}
	t0 := time.Now()
	compute := func() (*KNNGraph, error) {
		if m == KNNExact {
			var progress func(done, total int64)
			if opt.Progress != nil {
				opt.Progress("kNN graph: exact", "items", 0, int64(n))
				progress = func(done, total int64) { opt.Progress("kNN graph: exact", "items", done, total) }
			}
			var g *KNNGraph
			var err error
			if metric == MetricTanimoto {
				g, err = bitsKNN(bits, k, opt.Workers, progress)
			} else {
				// float32 rows are widened for the exact graph (below
				// ApproxMinItems items by default: a small copy).
				g, err = denseKNN(dense.float64Rows(), k, metric, opt.Workers, progress)
			}
			if err == nil && progress != nil {
				progress(int64(n), int64(n))
			}
			return g, err
		}
		ao := approxCacheParams
		ao.Workers, ao.Progress = opt.Workers, opt.Progress
		var g *KNNGraph
		var err error
		if metric == MetricTanimoto {
			g, info.Stats, err = ApproxBitsKNN(bits, k, ao)
		} else {
			g, info.Stats, err = approxDenseKNN(dense, k, metric, ao)
		}
		return g, err
	}
	if cacheDir == "" {
		g, err := compute()
		info.Status, info.Seconds = cacheOff, time.Since(t0).Seconds()
		return g, info, err
	}
	hashing := StartPhase(opt.Progress, "kNN graph: cache key (SHA-256 of the features)", "rows", int64(n))
	key := knnCacheKey(dense, bits, k, metric, hashing)
	hashing.Finish()
	if m == KNNApprox {
		p := approxCacheParams
		version := "approx-v5"
		if metric == MetricTanimoto {
			// Fingerprints' defaults (bitsDefaults: Sample 1, 4 trees)
			// changed their graphs, not the dense features'.
			version = "approx-v5 bits-v2"
		}
		sum := sha256.Sum256(fmt.Appendf(nil, "%s %s seed=%d trees=%d leaf=%d extra=%d iter=%d sample=%g delta=%g recall=%d",
			key, version, p.Seed, p.Trees, p.LeafSize, p.Extra, p.MaxIter, p.Sample, p.Delta, p.RecallRows))
		key = hex.EncodeToString(sum[:])
	}
	info.KeySeconds = time.Since(t0).Seconds()
	fileio.SweepOnce(filepath.Join(cacheDir, "knn"))
	path := filepath.Join(cacheDir, "knn", key+".bin")
	info.CacheFile = path
	t0 = time.Now()
	info.Status = CacheMiss
	reading := StartPhase(opt.Progress, "kNN graph: reading the cache", "", 0)
	keyBytes, _ := hex.DecodeString(key)
	g, st, size, err := readKNNCache(path, keyBytes, n, k, metric)
	reading.Finish()
	if err == nil {
		if (m == KNNExact) == (st == nil) {
			if st != nil {
				info.Stats = *st
			}
			info.Status, info.Seconds, info.CacheBytes = CacheHit, time.Since(t0).Seconds(), size
			return g, info, nil
		}
		info.Status = CacheRecovered
		info.CacheNote = fmt.Sprintf("kNN graph: cache file %s is of the other method; rebuilding it", path)
	} else if !os.IsNotExist(err) {
		info.Status = CacheRecovered
		info.CacheNote = fmt.Sprintf("kNN graph: cache file %s not used (%v); rebuilding it", path, err)
	}
	g, err = compute()
	if err != nil {
		return nil, info, err
	}
	info.Seconds = time.Since(t0).Seconds()
	st = nil
	if m == KNNApprox {
		st = &info.Stats
	}
	// A cache file that cannot be written is a warning (fileio.CacheWarnings),
	// not an error: CacheBytes stays 0 then.
	writing := StartPhase(opt.Progress, "kNN graph: writing the cache", "", 0)
	t0 = time.Now()
	fileio.WriteCacheFunc(path, func(w io.Writer) error {
		b, err := encodeKNN(w, keyBytes, g, st)
		info.CacheBytes = b
		return err
	})
	writing.Finish()
	info.WriteSeconds = time.Since(t0).Seconds()
	if fi, err := os.Stat(path); err != nil || fi.Size() != info.CacheBytes {
		info.CacheBytes = 0
	}
	return g, info, nil
}

// readKNNCache reads the cache file at path (decodeKNN) and returns its
// size; an error satisfying os.IsNotExist when there is none.
func readKNNCache(path string, key []byte, n, k int, metric string) (*KNNGraph, *ApproxStats, int64, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, 0, err
	}
	g, st, err := decodeKNN(f, fi.Size(), key, n, k, metric)
	return g, st, fi.Size(), err
}
