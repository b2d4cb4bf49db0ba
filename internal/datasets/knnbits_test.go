package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestApproxBitsKNNRealFingerprints: on the photoswitch library's real
// 2,048-bit Morgan fingerprints (1,918 molecules) the approximate graph's
// recall@20, measured on every row against brute force, is at least 0.99
// with the fingerprints' defaults (bitsDefaults), and its rows are BitsKNN's
// wherever they differ by ties only.
func TestApproxBitsKNNRealFingerprints(t *testing.T) {
	p := filepath.Join(testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), "photoswitch", "UMAP-AllHits.csv")
	tab, err := ReadPhotoswitch(p)
	if err != nil {
		t.Fatal(err)
	}
	const k = 20
	for _, c := range []struct {
		name string
		opt  ApproxOptions
	}{
		{"defaults", ApproxOptions{Seed: 1, RecallRows: tab.Len()}},
		{"seed 2", ApproxOptions{Seed: 2, RecallRows: tab.Len()}},
	} {
		g, st, err := ApproxBitsKNN(tab.Bits, k, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.RecallRows != tab.Len() || st.Recall < 0.99 {
			t.Errorf("%s: recall@%d %.4f on %d rows, want >= 0.99 on all %d", c.name, k, st.Recall, st.RecallRows, tab.Len())
		}
		// The measured recall is the one against BitsKNN.
		ex, err := BitsKNN(tab.Bits, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for i := range tab.Len() {
			kth := ex.Distances(i)[k-1]
			for _, v := range g.Distances(i) {
				if v <= kth {
					found++
				}
			}
		}
		if r := float64(found) / float64(tab.Len()*k); r != st.Recall {
			t.Errorf("%s: recall against BitsKNN %.4f, measured %.4f", c.name, r, st.Recall)
		}
	}
}

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
	_, info, err := BuildGraph(t.TempDir(), dense, nil, 5, MetricEuclidean, KNNApprox, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(info.CacheFile), former(KNNCacheKey(dense, nil, 5, MetricEuclidean)); got != want {
		t.Errorf("dense features: cache file %s, want the former %s", got, want)
	}
	_, info, err = BuildGraph(t.TempDir(), nil, bits, 5, MetricTanimoto, KNNApprox, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(info.CacheFile); got == former(KNNCacheKey(nil, bits, 5, MetricTanimoto)) {
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
