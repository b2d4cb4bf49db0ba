package datasets

import (
	"fmt"
	"math"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// Distance is the feature-space distance between items i and j under the
// pool's Metric: Euclidean |x_i - x_j|, cosine 1 - cos(x_i, x_j) (clamped to
// [0, 2]; zero vectors are at distance 1 from non-zero ones) or Tanimoto
// 1 - Tanimoto(b_i, b_j), or for a pool without features (MetricGraph)
// 1 - k(i, j), k = (W + Wᵀ)/2 with unit diagonal the diversity kernel.
// These are the distances the kNN graphs are built
// from, bit for bit. It panics on an unknown metric (Validate reports it).
func (p *Pool) Distance(i, j int) float64 {
	switch p.Metric {
	case knn.MetricEuclidean, knn.MetricCosine:
		return p.denseSrc().Dist(i, j, p.Metric == knn.MetricCosine)
	case knn.MetricTanimoto:
		return 1 - Tanimoto(p.Bits[i], p.Bits[j])
	case MetricGraph:
		if i == j {
			return 0
		}
		return 1 - (p.graphWeight(i, j)+p.graphWeight(j, i))/2
	}
	panic(fmt.Sprintf("datasets: pool %q has unknown metric %q", p.Name, p.Metric))
}

// Dense is the pool's dense features (Dense or Dense32) as the kNN
// builders read them.
func (p *Pool) denseSrc() knn.Dense {
	if p.Dense32.Data != nil {
		return knn.Dense{F32: p.Dense32}
	}
	return knn.Dense{F64: p.Dense}
}

// PositiveCount is the number of positive items.
func (p *Pool) PositiveCount() int {
	n := 0
	for _, l := range p.Labels {
		if l {
			n++
		}
	}
	return n
}

// Prevalence is the fraction of positive items (0 for an empty pool).
func (p *Pool) Prevalence() float64 {
	if p.Len() == 0 {
		return 0
	}
	return float64(p.PositiveCount()) / float64(p.Len())
}

// Validate checks the pool's invariants: at least two items; IDs (if any),
// features and graph rows one per item; exactly one of Dense and Bits, of
// consistent width and finite; a metric that fits the features; neighbour
// indices in range, never the item itself, not repeated within a row; weights
// finite and in (0, 1]. Errors name the pool, the item and the problem.
func (p *Pool) Validate() error {
	if err := p.validateFeatures(); err != nil {
		return err
	}
	return p.validateGraph()
}

// validateFeatures is Validate without the graph: size, ids, features and
// metric.
func (p *Pool) validateFeatures() error {
	n := p.Len()
	if n < 2 {
		return fmt.Errorf("pool %q has %d items, expected at least 2", p.Name, n)
	}
	if p.IDs != nil && len(p.IDs) != n {
		return fmt.Errorf("pool %q has %d IDs for %d items", p.Name, len(p.IDs), n)
	}
	switch {
	case p.Dense != nil && p.Bits != nil:
		return fmt.Errorf("pool %q has both dense and bit features", p.Name)
	case p.Dense32.Data != nil && (p.Dense != nil || p.Bits != nil):
		return fmt.Errorf("pool %q has float32 features and also dense or bit ones", p.Name)
	case p.Dense32.Data != nil:
		if p.Metric != knn.MetricEuclidean && p.Metric != knn.MetricCosine {
			return fmt.Errorf("pool %q: metric %q does not apply to dense features (use %q or %q)", p.Name, p.Metric, knn.MetricEuclidean, knn.MetricCosine)
		}
		if p.Dense32.Len() != n || len(p.Dense32.Data) != n*p.Dense32.D {
			return fmt.Errorf("pool %q has %d float32 features in rows of %d for %d items", p.Name, len(p.Dense32.Data), p.Dense32.D, n)
		}
		if err := p.denseSrc().Check(); err != nil {
			return fmt.Errorf("pool %q: %w", p.Name, err)
		}
	case p.Dense != nil:
		if p.Metric != knn.MetricEuclidean && p.Metric != knn.MetricCosine {
			return fmt.Errorf("pool %q: metric %q does not apply to dense features (use %q or %q)", p.Name, p.Metric, knn.MetricEuclidean, knn.MetricCosine)
		}
		if len(p.Dense) != n {
			return fmt.Errorf("pool %q has %d feature rows for %d items", p.Name, len(p.Dense), n)
		}
		for i, row := range p.Dense {
			if len(row) != len(p.Dense[0]) || len(row) == 0 {
				return fmt.Errorf("pool %q: item %d has %d features, expected %d", p.Name, i, len(row), len(p.Dense[0]))
			}
			for c, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("pool %q: item %d feature %d is %v", p.Name, i, c, v)
				}
			}
		}
	case p.Bits != nil:
		if p.Metric != knn.MetricTanimoto {
			return fmt.Errorf("pool %q: metric %q does not apply to bit features (use %q)", p.Name, p.Metric, knn.MetricTanimoto)
		}
		if len(p.Bits) != n {
			return fmt.Errorf("pool %q has %d fingerprints for %d items", p.Name, len(p.Bits), n)
		}
		for i, row := range p.Bits {
			if len(row) != len(p.Bits[0]) {
				return fmt.Errorf("pool %q: fingerprint %d has %d words, expected %d", p.Name, i, len(row), len(p.Bits[0]))
			}
		}
	case p.Metric == MetricGraph:
		// a graph or kernel given as such: no features
	default:
		return fmt.Errorf("pool %q has no features", p.Name)
	}
	return nil
}

// validateGraph checks the kNN graph's rows (see Validate).
func (p *Pool) validateGraph() error {
	n := p.Len()
	if len(p.Neighbors) != n || len(p.Weights) != n {
		return fmt.Errorf("pool %q has %d neighbour rows and %d weight rows for %d items", p.Name, len(p.Neighbors), len(p.Weights), n)
	}
	seen := make(map[int32]bool)
	for i, nb := range p.Neighbors {
		if len(p.Weights[i]) != len(nb) {
			return fmt.Errorf("pool %q: item %d has %d neighbours but %d weights", p.Name, i, len(nb), len(p.Weights[i]))
		}
		clear(seen)
		for m, j := range nb {
			if j < 0 || int(j) >= n || int(j) == i || seen[j] {
				return fmt.Errorf("pool %q: item %d has neighbour %d: expected a distinct index in 0..%d other than itself", p.Name, i, j, n-1)
			}
			seen[j] = true
			if w := p.Weights[i][m]; !(w > 0 && w <= 1) {
				return fmt.Errorf("pool %q: edge %d -> %d has weight %v, expected a value in (0, 1]", p.Name, i, j, w)
			}
		}
	}
	return nil
}

// GraphCSR is the pool's kNN graph as a CSR matrix, n x n: row i holds
// item i's neighbours (never i) with their weights, in the graph's order
// (nearest first), as scipy.sparse.csr_matrix stores it (`qvs graph`
// writes it with fileio.WriteCSRNPZ).
func (p *Pool) GraphCSR() *fileio.CSR {
	n := p.Len()
	m := &fileio.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i := range n {
		m.Indptr[i+1] = m.Indptr[i] + len(p.Neighbors[i])
	}
	m.Indices = make([]int, 0, m.Indptr[n])
	m.Data = make([]float64, 0, m.Indptr[n])
	for i := range n {
		for e, j := range p.Neighbors[i] {
			m.Indices = append(m.Indices, int(j))
			m.Data = append(m.Data, p.Weights[i][e])
		}
	}
	return m
}

// CachedLoadSeconds estimates, after a load of loadSeconds that built the
// graph and stored it in the cache, how long the next load of the same
// features takes: the whole load but the build and the cache write, plus
// reading the cache file at 3 times the time per byte that hashing the
// features took (its SHA-256 and decoding cost about what hashing them did
// per byte, as 8-byte numbers per feature or bit word).
func (p *Pool) CachedLoadSeconds(loadSeconds float64) float64 {
	info := p.Graph
	featureBytes := 8 * float64(p.Len())
	if p.Dense32.D > 0 {
		featureBytes *= float64(p.Dense32.D)
	} else if len(p.Dense) > 0 {
		featureBytes *= float64(len(p.Dense[0]))
	} else if len(p.Bits) > 0 {
		featureBytes *= float64(len(p.Bits[0]))
	}
	read := 3 * info.KeySeconds * float64(info.CacheBytes) / featureBytes
	return loadSeconds - info.Seconds - info.WriteSeconds + read
}

// DropFeatures frees the pool's features (Dense, Dense32, Bits) for a
// caller that needs only its kNN graph from here on (a suggestion: its
// model and kernel read the graph alone), and on a large pool returns the
// memory to the operating system at once (knn.ReleaseMemory): a 10,000,000 x 32
// float32 pool holds 1.28 GB of features beside a 2.4 GB graph. Distance
// and Validate must not be called afterwards.
func (p *Pool) DropFeatures() {
	n := p.Len()
	p.Dense, p.Dense32, p.Bits = nil, knn.Rows32{}, nil
	knn.ReleaseMemory(n)
}
