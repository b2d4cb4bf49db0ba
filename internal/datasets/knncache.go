package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// knnCacheVersion is part of every cache key: bump it when the graph
// construction changes, so old files are never mistaken for new results.
const knnCacheVersion = "qvs-knn-v1"

// knnMagic opens every cache file.
var knnMagic = [8]byte{'Q', 'V', 'S', 'K', 'N', 'N', '0', '1'}

// KNNCacheKey is the hex SHA-256 of the graph's inputs and parameters: the
// cache format version, metric, k, the feature matrix shape and every
// feature's bytes (float64 bits or fingerprint words, little-endian).
func KNNCacheKey(dense [][]float64, bits [][]uint64, k int, metric string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00k=%d\x00", knnCacheVersion, metric, k)
	var buf []byte
	if dense != nil {
		fmt.Fprintf(h, "dense %d", len(dense))
		for _, row := range dense {
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(len(row)))
			for _, v := range row {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			}
			h.Write(buf)
		}
	} else {
		fmt.Fprintf(h, "bits %d", len(bits))
		for _, row := range bits {
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(len(row)))
			for _, v := range row {
				buf = binary.LittleEndian.AppendUint64(buf, v)
			}
			h.Write(buf)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CacheStatus says where a graph came from.
type CacheStatus int

const (
	CacheOff       CacheStatus = iota // no cache directory: computed
	CacheHit                          // read from the cache
	CacheMiss                         // computed and stored
	CacheRecovered                    // the cached file was corrupt: recomputed and replaced
)

func (s CacheStatus) String() string {
	return [...]string{"off", "hit", "miss", "recovered"}[s]
}

// CachedKNN returns the exact kNN graph of dense (metric euclidean or cosine)
// or bits (metric tanimoto) features. With a non-empty cacheDir it first looks
// for cacheDir/knn/<KNNCacheKey>.bin; a missing file is computed and written
// atomically, a file that fails its checks (size, header, SHA-256 trailer,
// index ranges) is recomputed and replaced. A cache file that cannot be
// written (full disk) is a warning, not an error (fileio.WriteCacheFunc).
// Exactly one of dense and bits is used: bits when metric is tanimoto.
func CachedKNN(cacheDir string, dense [][]float64, bits [][]uint64, k int, metric string, workers int) (*KNNGraph, CacheStatus, error) {
	compute := func() (*KNNGraph, error) {
		if metric == MetricTanimoto {
			return BitsKNN(bits, k, workers)
		}
		return DenseKNN(dense, k, metric, workers)
	}
	if metric == MetricTanimoto {
		dense = nil
	} else {
		bits = nil
	}
	if cacheDir == "" {
		g, err := compute()
		return g, CacheOff, err
	}
	n := len(dense) + len(bits)
	fileio.SweepOnce(filepath.Join(cacheDir, "knn"))
	path := filepath.Join(cacheDir, "knn", KNNCacheKey(dense, bits, k, metric)+".bin")
	status := CacheMiss
	if data, err := fileio.ReadInput(path); err == nil {
		g, err := decodeKNN(data, n, k, metric)
		if err == nil {
			return g, CacheHit, nil
		}
		status = CacheRecovered
	} else if !os.IsNotExist(err) {
		status = CacheRecovered
	}
	g, err := compute()
	if err != nil {
		return nil, status, err
	}
	fileio.WriteCacheFunc(path, func(w io.Writer) error { return encodeKNN(w, g) })
	return g, status, nil
}

// Cache file layout (little-endian): magic, uint64 N, uint64 K, N*K int32
// indices, N*K float64 distances, then the SHA-256 of everything before it.
func encodeKNN(w io.Writer, g *KNNGraph) error {
	var buf bytes.Buffer
	buf.Grow(24 + 12*len(g.Index) + sha256.Size)
	buf.Write(knnMagic[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(g.N))
	buf.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(g.K))
	buf.Write(b[:])
	for _, j := range g.Index {
		binary.LittleEndian.PutUint32(b[:4], uint32(j))
		buf.Write(b[:4])
	}
	for _, d := range g.Distance {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(d))
		buf.Write(b[:])
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	_, err := w.Write(buf.Bytes())
	return err
}

func decodeKNN(data []byte, n, k int, metric string) (*KNNGraph, error) {
	want := 24 + 12*n*k + sha256.Size
	if len(data) != want {
		return nil, fmt.Errorf("cache file has %d bytes, expected %d", len(data), want)
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, fmt.Errorf("cache file checksum mismatch")
	}
	if !bytes.Equal(body[:8], knnMagic[:]) {
		return nil, fmt.Errorf("cache file has no kNN header")
	}
	if int(binary.LittleEndian.Uint64(body[8:])) != n || int(binary.LittleEndian.Uint64(body[16:])) != k {
		return nil, fmt.Errorf("cache file is for another graph size")
	}
	g := &KNNGraph{N: n, K: k, Metric: metric, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	off := 24
	for m := range g.Index {
		j := int32(binary.LittleEndian.Uint32(body[off:]))
		if j < 0 || int(j) >= n || int(j) == m/k {
			return nil, fmt.Errorf("cache file has an invalid neighbour index")
		}
		g.Index[m] = j
		off += 4
	}
	for m := range g.Distance {
		g.Distance[m] = math.Float64frombits(binary.LittleEndian.Uint64(body[off:]))
		off += 8
	}
	return g, nil
}

// floatsMagic opens every cached float array (derived features such as PCA
// scores).
var floatsMagic = [8]byte{'Q', 'V', 'S', 'F', 'L', 'T', '0', '1'}

// cachedFloats returns the float64 array stored under cacheDir/sub/key.bin
// if it is intact and has length want; otherwise it calls compute and stores
// the result atomically. With cacheDir == "" it just computes. Layout: magic,
// uint64 length, the values, SHA-256 of everything before.
func cachedFloats(cacheDir, sub, key string, want int, compute func() ([]float64, error)) ([]float64, CacheStatus, error) {
	if cacheDir == "" {
		v, err := compute()
		return v, CacheOff, err
	}
	fileio.SweepOnce(filepath.Join(cacheDir, sub))
	path := filepath.Join(cacheDir, sub, key+".bin")
	status := CacheMiss
	if data, err := fileio.ReadInput(path); err == nil {
		if v, ok := decodeFloats(data, want); ok {
			return v, CacheHit, nil
		}
		status = CacheRecovered
	} else if !os.IsNotExist(err) {
		status = CacheRecovered
	}
	v, err := compute()
	if err != nil {
		return nil, status, err
	}
	fileio.WriteCacheFunc(path, func(w io.Writer) error {
		buf := make([]byte, 0, 16+8*len(v)+sha256.Size)
		buf = append(buf, floatsMagic[:]...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(v)))
		for _, x := range v {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
		sum := sha256.Sum256(buf)
		buf = append(buf, sum[:]...)
		_, err := w.Write(buf)
		return err
	})
	return v, status, nil
}

func decodeFloats(data []byte, want int) ([]float64, bool) {
	if len(data) != 16+8*want+sha256.Size {
		return nil, false
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) ||
		!bytes.Equal(body[:8], floatsMagic[:]) || binary.LittleEndian.Uint64(body[8:]) != uint64(want) {
		return nil, false
	}
	v := make([]float64, want)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[16+8*i:]))
	}
	return v, true
}
