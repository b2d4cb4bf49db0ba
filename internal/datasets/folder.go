package datasets

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// Files of the authors' folder format.
const (
	folderFeatures   = "features.npy"
	folderLabels     = "labels.npy"
	folderCSRWeights = "csr_weights.npz"
	folderNeighbors  = "nearest_neighbors.npy"
	folderSimilarity = "similarities.npy"
)

// weightTolerance is how far above 1 a stored weight may be and still be
// read as 1: similarities saved as float32 round 1 to 1 +- 6e-8.
const weightTolerance = 1e-6

// hasFolder reports whether dir holds an authors' folder: features.npy,
// labels.npy and a graph (csr_weights.npz, or nearest_neighbors.npy with
// similarities.npy).
func hasFolder(dir string) bool {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	return exists(folderFeatures) && exists(folderLabels) &&
		(exists(folderCSRWeights) || (exists(folderNeighbors) && exists(folderSimilarity)))
}

// loadFolder reads a pool in the authors' folder format:
//   - features.npy: n x d numbers (any numeric dtype); with metric tanimoto
//     they must be 0/1 and become fingerprints;
//   - labels.npy: n values, positive = label > 0;
//   - csr_weights.npz: the n x n similarity matrix saved by
//     scipy.sparse.save_npz; row i's stored entries are i's neighbours. The
//     diagonal (self-similarity, 1 by convention) and non-positive entries
//     are dropped; neighbours are ordered by decreasing weight, ties by index.
//   - if csr_weights.npz is absent: nearest_neighbors.npy (n x k indices) and
//     similarities.npy (n x k weights), read the same way (self dropped).
//
// Weights must be finite and at most 1 (up to weightTolerance, then
// clipped). The pool is named after the folder.
func loadFolder(dir, metric string) (*Pool, error) {
	if metric == "" {
		metric = knn.MetricEuclidean
	}
	if err := checkMetric("pool.folder.metric", metric); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Pool{Name: filepath.Base(abs), Metric: metric}
	fpath := filepath.Join(dir, folderFeatures)
	feat, err := fileio.ReadNPYFile(fpath)
	if err != nil {
		return nil, err
	}
	n, d, ok := fileio.MatrixShape(feat.Shape)
	if !ok {
		return nil, fmt.Errorf("%s: shape %v, expected n x d", fpath, feat.Shape)
	}
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("%s: shape %v, expected at least 2 items and 1 feature", fpath, feat.Shape)
	}
	for e, v := range feat.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: item %d, feature %d is %v, expected a finite number", fpath, e/d, e%d, v)
		}
	}
	if metric == knn.MetricTanimoto {
		p.Bits = make([][]uint64, n)
		for i := range n {
			p.Bits[i] = make([]uint64, (d+63)/64)
			for c, v := range feat.Data[i*d : (i+1)*d] {
				switch v {
				case 1:
					p.Bits[i][c/64] |= 1 << (c % 64)
				case 0:
				default:
					return nil, fmt.Errorf("%s: item %d, feature %d is %v: metric tanimoto needs 0/1 features", fpath, i, c, v)
				}
			}
		}
	} else {
		p.Dense = make([][]float64, n)
		for i := range n {
			p.Dense[i] = feat.Data[i*d : (i+1)*d : (i+1)*d]
		}
	}
	lpath := filepath.Join(dir, folderLabels)
	lab, err := fileio.ReadNPYFile(lpath)
	if err != nil {
		return nil, err
	}
	if len(lab.Data) != n || (len(lab.Shape) == 2 && lab.Shape[1] != 1) || len(lab.Shape) > 2 {
		return nil, fmt.Errorf("%s: shape %v, expected %d labels (one per row of %s)", lpath, lab.Shape, n, folderFeatures)
	}
	p.Labels = make([]bool, n)
	for i, v := range lab.Data {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s: label %d is NaN", lpath, i)
		}
		p.Labels[i] = v > 0
	}
	rows := make([][]neighbour, n) // (weight, neighbour)
	cpath := filepath.Join(dir, folderCSRWeights)
	if _, err := os.Stat(cpath); err == nil {
		m, err := fileio.ReadSquareCSRNPZ(cpath, n)
		if err != nil {
			return nil, err
		}
		for i := range n {
			for e := m.Indptr[i]; e < m.Indptr[i+1]; e++ {
				rows[i] = append(rows[i], neighbour{m.Data[e], int32(m.Indices[e])})
			}
		}
		if err := p.setFolderGraph(rows, cpath); err != nil {
			return nil, err
		}
		return p, nil
	}
	npath, spath := filepath.Join(dir, folderNeighbors), filepath.Join(dir, folderSimilarity)
	nn, err := fileio.ReadNPYFile(npath)
	if err != nil {
		return nil, fmt.Errorf("%s: no %s and no readable neighbour list: %w", dir, folderCSRWeights, err)
	}
	sim, err := fileio.ReadNPYFile(spath)
	if err != nil {
		return nil, err
	}
	if len(nn.Shape) != 2 || nn.Shape[0] != n || !nn.Integer {
		return nil, fmt.Errorf("%s: shape %v dtype %s, expected %d x k integers", npath, nn.Shape, nn.Dtype, n)
	}
	if !slices.Equal(sim.Shape, nn.Shape) {
		return nil, fmt.Errorf("%s: shape %v, expected %v like %s", spath, sim.Shape, nn.Shape, folderNeighbors)
	}
	for e, j := range nn.Data {
		if j < 0 || j >= float64(n) {
			return nil, fmt.Errorf("%s: row %d holds index %v, outside 0..%d", npath, e/nn.Shape[1], j, n-1)
		}
		rows[e/nn.Shape[1]] = append(rows[e/nn.Shape[1]], neighbour{sim.Data[e], int32(j)})
	}
	if err := p.setFolderGraph(rows, spath); err != nil {
		return nil, err
	}
	return p, nil
}

// setFolderGraph turns rows of (weight, neighbour) into the pool's graph.
func (p *Pool) setFolderGraph(rows [][]neighbour, path string) error {
	p.Neighbors = make([][]int32, len(rows))
	p.Weights = make([][]float64, len(rows))
	seen := make(map[int32]bool)
	for i, row := range rows {
		kept := row[:0]
		clear(seen)
		for _, c := range row {
			if seen[c.j] {
				return fmt.Errorf("%s: row %d lists neighbour %d twice", path, i, c.j)
			}
			seen[c.j] = true
			w := c.v
			if math.IsNaN(w) || math.IsInf(w, 0) || w > 1+weightTolerance {
				return fmt.Errorf("%s: row %d, column %d holds weight %v, expected a similarity in [0, 1]", path, i+1, c.j+1, w)
			}
			if int(c.j) == i || w <= 0 {
				continue
			}
			kept = append(kept, neighbour{min(w, 1), c.j})
		}
		slices.SortFunc(kept, func(a, b neighbour) int {
			if s := cmp.Compare(b.v, a.v); s != 0 {
				return s
			}
			return cmp.Compare(a.j, b.j)
		})
		p.Neighbors[i] = make([]int32, len(kept))
		p.Weights[i] = make([]float64, len(kept))
		for m, c := range kept {
			p.Neighbors[i][m], p.Weights[i][m] = c.j, c.v
		}
	}
	return nil
}
