package knn

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
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

// knnMagic opens the cache file of an exact graph; the file records the
// key it was built for (its 32 bytes follow the magic) and decodeKNN
// checks it against the key of the features being loaded.
var knnMagic = [8]byte{'Q', 'V', 'S', 'K', 'N', 'N', '0', '2'}

// knnMagicV1 and knnApproxMagicV1 open the files of the format before
// entries recorded their key: only their size and checksum could be
// checked, so a file copied from another pool with the same n and k was
// taken for this pool's graph. They are rebuilt (errUnkeyedCache).
var (
	knnMagicV1       = [8]byte{'Q', 'V', 'S', 'K', 'N', 'N', '0', '1'}
	knnApproxMagicV1 = [8]byte{'Q', 'V', 'S', 'K', 'N', 'A', '0', '1'}
)

// errUnkeyedCache and errOtherKey say why a well-formed cache file is not
// used: it records no key (the earlier format) or another key (a file
// copied or linked from another pool or setting).
var (
	errUnkeyedCache = errors.New("written by an earlier qvs without the key it was built for, so it cannot be checked against these features")
	errOtherKey     = errors.New("built for other features or settings: the key it records differs")
)

// knnCacheKey is the hex SHA-256 of the graph's inputs and parameters: the
// cache format version, metric, k, the feature matrix shape and every
// feature's bytes (float64 bits or fingerprint words, little-endian).
// Float32 rows are hashed as their float64 values, so the key is that of
// the same values held as float64.
func knnCacheKey(dense Dense, bits [][]uint64, k int, metric string, progress *Phase) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00k=%d\x00", knnCacheVersion, metric, k)
	var buf []byte
	if n := dense.n(); dense.F64 != nil || dense.F32.Data != nil {
		fmt.Fprintf(h, "dense %d", n)
		row := make([]float64, dense.d())
		for i := range n {
			r := dense.row64(i, row)
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(len(r)))
			for _, v := range r {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			}
			h.Write(buf)
			progress.At(int64(i + 1))
		}
	} else {
		fmt.Fprintf(h, "bits %d", len(bits))
		for i, row := range bits {
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(len(row)))
			for _, v := range row {
				buf = binary.LittleEndian.AppendUint64(buf, v)
			}
			h.Write(buf)
			progress.At(int64(i + 1))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CacheStatus says where a graph came from.
type CacheStatus int

const (
	cacheOff       CacheStatus = iota // no cache directory: computed
	CacheHit                          // read from the cache
	CacheMiss                         // computed and stored
	CacheRecovered                    // the cached file was corrupt: recomputed and replaced
)

func (s CacheStatus) String() string {
	return [...]string{"off", "hit", "miss", "recovered"}[s]
}

// CachedKNN returns the exact kNN graph of dense (metric euclidean or cosine)
// or bits (metric tanimoto) features. With a non-empty cacheDir it first looks
// for cacheDir/knn/<knnCacheKey>.bin; a missing file is computed and written
// atomically, a file that fails its checks (size, header, SHA-256 trailer,
// index ranges) is recomputed and replaced. A cache file that cannot be
// written (full disk) is a warning, not an error (fileio.WriteCacheFunc);
// so is a file not used (GraphInfo.CacheNote: damaged, of another key, of
// the format without one), on fileio.CacheWarnings.
// Exactly one of dense and bits is used: bits when metric is tanimoto.
func CachedKNN(cacheDir string, dense [][]float64, bits [][]uint64, k int, metric string, workers int) (*KNNGraph, CacheStatus, error) {
	g, info, err := BuildGraph(cacheDir, Dense{F64: dense}, bits, k, metric, KNNExact, GraphOptions{Workers: workers})
	if info.CacheNote != "" {
		// The paper pools have no notes of their own: said where cache
		// warnings go (stderr).
		fmt.Fprintf(fileio.CacheWarnings, "qvs: %s\n", info.CacheNote)
	}
	return g, info.Status, err
}

// Cache file layout (little-endian): magic, the 32 bytes of the key the
// graph was built for (the file's name, knnCacheKey or the approximate
// graph's key, as bytes), uint64 N, uint64 K, N*K int32 indices, N*K
// float64 distances, then the SHA-256 of everything before it. An
// approximate graph's file opens with knnApproxMagic and has three more
// uint64 after the key (before N): the NN-descent rounds, the recall's
// float64 bits and the number of rows it was measured on.
func encodeKNN(w io.Writer, key []byte, g *KNNGraph, st *ApproxStats) (int64, error) {
	// Streamed through a buffer and the hash: a million-row graph is not
	// copied into memory a second time.
	h := sha256.New()
	cw := &fileio.CountingWriter{W: w}
	bw := bufio.NewWriterSize(io.MultiWriter(h, cw), 1<<16)
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		bw.Write(b[:])
	}
	if st != nil {
		bw.Write(knnApproxMagic[:])
		bw.Write(key)
		put(uint64(st.Rounds))
		put(math.Float64bits(st.Recall))
		put(uint64(st.RecallRows))
	} else {
		bw.Write(knnMagic[:])
		bw.Write(key)
	}
	put(uint64(g.N))
	put(uint64(g.K))
	for _, j := range g.Index {
		binary.LittleEndian.PutUint32(b[:4], uint32(j))
		bw.Write(b[:4])
	}
	for _, d := range g.Distance {
		put(math.Float64bits(d))
	}
	if err := bw.Flush(); err != nil {
		return cw.N, err
	}
	_, err := cw.Write(h.Sum(nil))
	return cw.N, err
}

// knnApproxMagic opens the cache file of an approximate graph.
var knnApproxMagic = [8]byte{'Q', 'V', 'S', 'K', 'N', 'A', '0', '2'}

// decodeKNN checks and reads a cache file of size bytes from r, streamed
// in blocks (no copy of the file is held); the stats are nil for an exact
// graph's file. The key the file records must be key (errOtherKey); a file
// of the format without a key is errUnkeyedCache.
func decodeKNN(r io.Reader, size int64, key []byte, n, k int, metric string) (*KNNGraph, *ApproxStats, error) {
	if size < 8+sha256.Size {
		return nil, nil, fmt.Errorf("cache file has %d bytes, too short", size)
	}
	h := sha256.New()
	br := bufio.NewReaderSize(r, 1<<16)
	block := make([]byte, 1<<16)
	// read hashes and returns the next m bytes of the body.
	read := func(m int) ([]byte, error) {
		if _, err := io.ReadFull(br, block[:m]); err != nil {
			return nil, fmt.Errorf("cache file: %w", err)
		}
		h.Write(block[:m])
		return block[:m], nil
	}
	b, err := read(8)
	if err != nil {
		return nil, nil, err
	}
	head := int64(24)
	switch {
	case bytes.Equal(b, knnApproxMagic[:]):
		head = 48
	case bytes.Equal(b, knnMagicV1[:]), bytes.Equal(b, knnApproxMagicV1[:]):
		return nil, nil, errUnkeyedCache
	case !bytes.Equal(b, knnMagic[:]):
		return nil, nil, fmt.Errorf("cache file has no kNN header")
	}
	// The key is checked before the size: a file of another pool is
	// "built for other features" whatever its n and k.
	if size < 8+int64(len(key)) {
		return nil, nil, fmt.Errorf("cache file has %d bytes, too short", size)
	}
	if b, err = read(len(key)); err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(b, key) {
		return nil, nil, errOtherKey
	}
	head += int64(len(key))
	if want := head + 12*int64(n)*int64(k) + sha256.Size; size != want {
		return nil, nil, fmt.Errorf("cache file has %d bytes, expected %d", size, want)
	}
	if b, err = read(int(head) - 8 - len(key)); err != nil {
		return nil, nil, err
	}
	word := func(t int) uint64 { return binary.LittleEndian.Uint64(b[8*t:]) }
	var st *ApproxStats
	if len(b) == 40 {
		st = &ApproxStats{Rounds: int(word(0)), Recall: math.Float64frombits(word(1)), RecallRows: int(word(2))}
	}
	if word(len(b)/8-2) != uint64(n) || word(len(b)/8-1) != uint64(k) {
		return nil, nil, fmt.Errorf("cache file is for another graph size")
	}
	g := &KNNGraph{N: n, K: k, Metric: metric, Index: make([]int32, n*k), Distance: make([]float64, n*k)}
	bad := false // checked after the checksum: a corrupt file is reported as such
	for lo := 0; lo < len(g.Index); lo += len(block) / 4 {
		hi := min(lo+len(block)/4, len(g.Index))
		if b, err = read(4 * (hi - lo)); err != nil {
			return nil, nil, err
		}
		for m := lo; m < hi; m++ {
			j := int32(binary.LittleEndian.Uint32(b[4*(m-lo):]))
			bad = bad || j < 0 || int(j) >= n || int(j) == m/k
			g.Index[m] = j
		}
	}
	for lo := 0; lo < len(g.Distance); lo += len(block) / 8 {
		hi := min(lo+len(block)/8, len(g.Distance))
		if b, err = read(8 * (hi - lo)); err != nil {
			return nil, nil, err
		}
		for m := lo; m < hi; m++ {
			g.Distance[m] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*(m-lo):]))
		}
	}
	var trailer [sha256.Size]byte
	if _, err := io.ReadFull(br, trailer[:]); err != nil {
		return nil, nil, fmt.Errorf("cache file: %w", err)
	}
	if !bytes.Equal(h.Sum(nil), trailer[:]) {
		return nil, nil, fmt.Errorf("cache file checksum mismatch")
	}
	if bad {
		return nil, nil, fmt.Errorf("cache file has an invalid neighbour index")
	}
	return g, st, nil
}

// floatsMagic opens every cached float array (derived features such as PCA
// scores).
var floatsMagic = [8]byte{'Q', 'V', 'S', 'F', 'L', 'T', '0', '1'}

// CachedFloats returns the float64 array stored under cacheDir/sub/key.bin
// if it is intact and has length want; otherwise it calls compute and stores
// the result atomically. With cacheDir == "" it just computes. Layout: magic,
// uint64 length, the values, SHA-256 of everything before.
func CachedFloats(cacheDir, sub, key string, want int, compute func() ([]float64, error)) ([]float64, CacheStatus, error) {
	if cacheDir == "" {
		v, err := compute()
		return v, cacheOff, err
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
