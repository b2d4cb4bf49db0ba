package knn

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestApproxCacheKeyVersions: the approximate graph's cache key changed
// for fingerprints, whose default parameters changed (bitsDefaults), and
// not for dense features, whose graphs did not: a dense graph cached
// before is still found, a fingerprint graph built with the former
// defaults is not.
func TestApproxCacheKeyVersions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := make([][]float64, 60)
	bits := make([][]uint64, 60)
	for i := range dense {
		dense[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		bits[i] = []uint64{rng.Uint64(), rng.Uint64()}
	}
	// The key of an approximate graph before the fingerprints' defaults
	// changed (the string knnbuild.go hashed then).
	former := func(base string) string {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s approx-v5 seed=1 trees=0 leaf=0 extra=0 iter=0 sample=0 delta=0 recall=0", base))
		return hex.EncodeToString(sum[:]) + ".bin"
	}
	_, info, err := BuildGraph(t.TempDir(), Dense{F64: dense}, nil, 5, MetricEuclidean, KNNApprox, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(info.CacheFile), former(knnCacheKey(Dense{F64: dense}, nil, 5, MetricEuclidean, nil)); got != want {
		t.Errorf("dense features: cache file %s, want the former %s", got, want)
	}
	_, info, err = BuildGraph(t.TempDir(), Dense{}, bits, 5, MetricTanimoto, KNNApprox, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(info.CacheFile); got == former(knnCacheKey(Dense{}, bits, 5, MetricTanimoto, nil)) {
		t.Errorf("fingerprints: cache file %s is the former defaults' key", got)
	}
}

// TestBitsDefaults: the fingerprints' defaults (Extra 20, Sample 1, 4
// trees: the parameters measured on the Enamine libraries, see
// bitsDefaults) fill what is unset and keep what is set.
func TestBitsDefaults(t *testing.T) {
	var o ApproxOptions
	o.bitsDefaults()
	if o.Extra != 20 || o.Sample != 1 || o.Trees != 4 {
		t.Errorf("defaults %+v, want Extra 20, Sample 1, Trees 4", o)
	}
	o = ApproxOptions{Extra: 7, Sample: 0.25, Trees: 9}
	o.bitsDefaults()
	if o.Extra != 7 || o.Sample != 0.25 || o.Trees != 9 {
		t.Errorf("set options changed: %+v", o)
	}
}
