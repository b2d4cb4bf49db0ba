package datasets

import (
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestApproxBitsKNNRealFingerprints: on the photoswitch library's real
// 2,048-bit Morgan fingerprints (1,918 molecules) the approximate graph's
// recall@20, measured on every row against brute force, is at least 0.99
// with the fingerprints' defaults, and its rows are knn.BitsKNN's
// wherever they differ by ties only.
func TestApproxBitsKNNRealFingerprints(t *testing.T) {
	p := filepath.Join(testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), "photoswitch", "UMAP-AllHits.csv")
	tab, err := readPhotoswitch(p)
	if err != nil {
		t.Fatal(err)
	}
	const k = 20
	for _, c := range []struct {
		name string
		opt  knn.ApproxOptions
	}{
		{"defaults", knn.ApproxOptions{Seed: 1, RecallRows: tab.Len()}},
		{"seed 2", knn.ApproxOptions{Seed: 2, RecallRows: tab.Len()}},
	} {
		g, st, err := knn.ApproxBitsKNN(tab.Bits, k, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.RecallRows != tab.Len() || st.Recall < 0.99 {
			t.Errorf("%s: recall@%d %.4f on %d rows, want >= 0.99 on all %d", c.name, k, st.Recall, st.RecallRows, tab.Len())
		}
		// The measured recall is the one against BitsKNN.
		ex, err := knn.BitsKNN(tab.Bits, k, 0)
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
