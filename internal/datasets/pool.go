package datasets

import (
	"runtime"

	"github.com/qvs-dev/qvs/internal/knn"
)

// Pool is an active-search pool: n items with a binary target, their
// features, and a sparse k-nearest-neighbour similarity graph.
//
// The graph is directed as computed: Neighbors[i] lists the k nearest
// neighbours of item i (never i itself) and Weights[i] their similarity
// weights in (0, 1]. Self-similarity is 1 by convention and not stored. The
// kNN model of internal/search uses the directed graph; the diversity kernel is
// its symmetrisation (W + W^T)/2 with unit diagonal, as in the authors' code.
type Pool struct {
	Name   string
	IDs    []string // optional item identifiers (nil: use the 0-based index)
	Labels []bool   // true = positive (the rare, valuable class)
	// Unlabeled: the labels are unknown (a CSV pool without a label
	// column); Labels are all false. Such a pool serves suggestions from
	// labels the user observed, never simulated campaigns.
	Unlabeled bool

	// Features: exactly one of Dense, Dense32 or Bits is set.
	Dense   [][]float64 // n x d real features
	Dense32 knn.Rows32  // n x d float32 features as read (a float32 .npy pool)
	Bits    [][]uint64  // n fingerprints, each ceil(nbits/64) words

	Neighbors [][]int32   // kNN graph: row i = i's neighbours, nearest first
	Weights   [][]float64 // matching weights

	// Metric names the feature-space distance used by the "maximum pairwise
	// distance" metric: "euclidean", "cosine" (1 - cosine similarity) or
	// "tanimoto" (1 - Tanimoto similarity of bit vectors).
	Metric string

	// Graph says how the kNN graph was obtained (CSV and .npy pools; zero
	// for the built-in pools).
	Graph knn.GraphInfo

	// Notes are what the loader decided about the input that the user
	// should hear (an unnamed column read as the row index or the ids), one
	// line each; commands print them on stderr, not under --quiet.
	Notes []string
	// Warnings say what may make the results wrong (an approximate kNN
	// graph whose measured recall is below knn.MinApproxRecall), one line
	// each; commands print them on stderr even under --quiet.
	Warnings []string
}

// Len is the number of items.
func (p *Pool) Len() int { return len(p.Labels) }

// defaultWorkers is workers, or GOMAXPROCS when workers <= 0.
func defaultWorkers(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}
