package datasets

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/rng"
)

// loadSynthetic generates the synthetic pool: cfg.Clusters Gaussian clusters
// with centres drawn from N(0, Separation^2 I) in cfg.Dim dimensions; each
// item picks a cluster uniformly and lies at centre + N(0, Spread^2 I). The
// first cfg.PositiveClusters clusters are positive-rich: an item there is
// positive with probability PositiveRate, elsewhere with BackgroundRate. The
// graph is the Euclidean kNN graph with cfg.K neighbours and cfg.Similarity
// weights. Every draw comes from rng.New(cfg.Seed, "synthetic pool"), so
// the pool is a function of cfg alone. A pool without positives is an error.
func loadSynthetic(cfg SyntheticConfig, cacheDir string, workers int) (*Pool, error) {
	if err := validateSynthetic(cfg); err != nil {
		return nil, err
	}
	rng := rng.New(cfg.Seed, "synthetic pool")
	centres := make([][]float64, cfg.Clusters)
	for c := range centres {
		centres[c] = make([]float64, cfg.Dim)
		for j := range centres[c] {
			centres[c][j] = cfg.Separation * rng.NormFloat64()
		}
	}
	p := &Pool{Name: KindSynthetic, Metric: knn.MetricEuclidean, Labels: make([]bool, cfg.N), Dense: make([][]float64, cfg.N)}
	for i := range cfg.N {
		c := rng.IntN(cfg.Clusters)
		x := make([]float64, cfg.Dim)
		for j := range x {
			x[j] = centres[c][j] + cfg.Spread*rng.NormFloat64()
		}
		p.Dense[i] = x
		rate := cfg.BackgroundRate
		if c < cfg.PositiveClusters {
			rate = cfg.PositiveRate
		}
		p.Labels[i] = rng.Float64() < rate
	}
	if p.PositiveCount() == 0 {
		return nil, fmt.Errorf("pool.synthetic: the generated pool has no positive item; raise positive_rate, positive_clusters or n")
	}
	g, _, err := knn.CachedKNN(cacheDir, p.Dense, nil, cfg.K, knn.MetricEuclidean, workers)
	if err != nil {
		return nil, fmt.Errorf("pool.synthetic: %w", err)
	}
	w, err := knn.EdgeWeights(g, cfg.Similarity)
	if err != nil {
		return nil, fmt.Errorf("pool.synthetic.similarity: %w", err)
	}
	p.SetGraph(g, w)
	return p, nil
}

// Bounds on the synthetic pool's sizes, checked before anything is
// allocated (n = 10^11 ended in a Go out-of-memory stack trace).
const (
	// maxSyntheticN: the kNN graph is built by comparing every pair of
	// items, O(n² dim) time: 10^6 items take hours already.
	maxSyntheticN = 1_000_000
	// maxSyntheticValues bounds n x dim, the features held (800 MB as
	// float64), and clusters x dim, the centres.
	maxSyntheticValues = 100_000_000
	// maxGraphEdges bounds n x k, the kNN graph's edges (about 24 bytes
	// each once symmetrised, so 480 MB), as for a graph read from a file
	// (fileio.MaxCSRValues); Fashion-MNIST's graph, the largest of the
	// shipped configs, has 70,000 x 200 = 1.4 x 10^7.
	maxGraphEdges = fileio.MaxCSRValues
)

// checkGraphSize refuses a neighbour count k whose kNN graph on n items
// (what: "items", "rows of FILE") would exceed maxGraphEdges; key names
// the config key. k < n is checked by the caller.
func checkGraphSize(key string, k, n int, what string) error {
	if n > 0 && k > maxGraphEdges/n {
		return configkeys.Beyond(key, k, "expected at most %d for %d %s (the kNN graph's n x k edges are held in memory, at most %d)", maxGraphEdges/n, n, what, maxGraphEdges)
	}
	return nil
}

func validateSynthetic(cfg SyntheticConfig) error {
	switch {
	case cfg.N < 2 || cfg.N > maxSyntheticN:
		return fmt.Errorf("pool.synthetic.n: %d, expected 2 to %d (the kNN graph compares every pair of items)", cfg.N, maxSyntheticN)
	case cfg.Dim < 1 || cfg.Dim > maxSyntheticValues/cfg.N:
		return fmt.Errorf("pool.synthetic.dim: %d, expected 1 to %d (n x dim = %d x dim features are held in memory, at most %d)", cfg.Dim, maxSyntheticValues/cfg.N, cfg.N, maxSyntheticValues)
	case cfg.Clusters < 1 || cfg.Clusters > cfg.N:
		return fmt.Errorf("pool.synthetic.clusters: %d, expected 1 to n = %d", cfg.Clusters, cfg.N)
	case cfg.PositiveClusters < 0 || cfg.PositiveClusters > cfg.Clusters:
		return fmt.Errorf("pool.synthetic.positive_clusters: %d, expected 0 to clusters = %d", cfg.PositiveClusters, cfg.Clusters)
	case !(cfg.PositiveRate >= 0 && cfg.PositiveRate <= 1):
		return fmt.Errorf("pool.synthetic.positive_rate: %v, expected a probability in [0, 1]", cfg.PositiveRate)
	case !(cfg.BackgroundRate >= 0 && cfg.BackgroundRate <= 1):
		return fmt.Errorf("pool.synthetic.background_rate: %v, expected a probability in [0, 1]", cfg.BackgroundRate)
	case !(cfg.Separation >= 0) || cfg.Separation > 1e6:
		return fmt.Errorf("pool.synthetic.separation: %v, expected a finite number >= 0", cfg.Separation)
	case !(cfg.Spread > 0) || cfg.Spread > 1e6:
		return fmt.Errorf("pool.synthetic.spread: %v, expected a finite number > 0", cfg.Spread)
	case cfg.K < 1 || cfg.K >= cfg.N:
		return fmt.Errorf("pool.synthetic.k: %d, expected 1 to n-1 = %d", cfg.K, cfg.N-1)
	}
	if err := checkGraphSize("pool.synthetic.k", cfg.K, cfg.N, "items"); err != nil {
		return err
	}
	return nil
}
