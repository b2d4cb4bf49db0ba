package datasets

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

// TestLowRecallNote: an approximate graph measured below knn.MinApproxRecall
// gets a warning that gives the recall, the missing share and the remedy;
// one at or above it, an unmeasured one and an exact one get none.
func TestLowRecallNote(t *testing.T) {
	low := knn.GraphInfo{Method: knn.KNNApprox, Stats: knn.ApproxStats{Recall: 0.9005, RecallRows: 200}}
	note := lowRecallNote(20, low)
	for _, want := range []string{"recall@20 is 0.9005", "200 sampled rows", "below 0.99", "about 10.0% of the true neighbours", "--knn exact"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	for _, info := range []knn.GraphInfo{
		{Method: knn.KNNApprox, Stats: knn.ApproxStats{Recall: knn.MinApproxRecall}},
		{Method: knn.KNNApprox, Stats: knn.ApproxStats{Recall: 0.995}},
		{Method: knn.KNNApprox, Stats: knn.ApproxStats{Recall: -1}},
		{Method: knn.KNNExact, Stats: knn.ApproxStats{Recall: -1}},
	} {
		if note := lowRecallNote(20, info); note != "" {
			t.Errorf("%+v: unexpected note %q", info, note)
		}
	}
}
