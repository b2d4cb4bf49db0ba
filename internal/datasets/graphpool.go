package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// MetricGraph is the metric of a pool given by its graph or kernel alone
// (kind graph, no features): the distance of i and j is 1 - k(i, j), k the
// diversity kernel (W + Wᵀ)/2 with unit diagonal.
const MetricGraph = "graph"

// defaultGraphK is the neighbours per row of a kernel's kNN graph when
// pool.graph.k is 0.
const defaultGraphK = 20

// GraphConfig: a pool given by its similarity graph or kernel (kind graph),
// the user's own similarity instead of features. Exactly one of File and
// Kernel. Zero values are the defaults (so a config without this section
// records none of it).
type GraphConfig struct {
	// File: the graph, a scipy.sparse CSR matrix saved by save_npz (.npz),
	// or an edge list CSV with header i,j,w (0-based indices) or
	// id_i,id_j,w (ids): row i of W lists i's neighbours.
	File string `yaml:"file,omitempty"`
	// Kernel: a dense n x n similarity (.npy or CSV); its kNN graph keeps
	// the K largest entries of each row (the diagonal excluded, ties to the
	// lower index).
	Kernel string `yaml:"kernel,omitempty"`
	K      int    `yaml:"k,omitempty"` // kernel: neighbours per row (0: defaultGraphK)
	// IDs: one id per item, in item order (first column; an optional
	// header "id"); edges id_i,id_j,w name items by them.
	IDs string `yaml:"ids,omitempty"`
	// Labels: a CSV index,label or id,label with a label for every item
	// (label > 0 or true = positive), for campaigns; without it the pool
	// is unlabelled (suggestions only).
	Labels string `yaml:"labels,omitempty"`
}

// loadGraph builds a pool from the user's own graph or kernel (see
// GraphConfig). Every weight must be finite and in [0, 1] (a stored 1 +
// 1e-6 rounding is read as 1); self loops are ignored and weight-0 entries
// dropped; each row is ordered by decreasing weight, ties by index. The
// pool has no features: its metric is MetricGraph. It is named after the
// graph or kernel file.
func loadGraph(cfg GraphConfig) (*Pool, error) {
	if (cfg.File == "") == (cfg.Kernel == "") {
		return nil, fmt.Errorf("pool.graph: give exactly one of file (a CSR .npz or an edge list CSV) and kernel (a dense similarity)")
	}
	var ids []string
	if cfg.IDs != "" {
		var err error
		if ids, err = fileio.ReadStrings(cfg.IDs); err != nil {
			return nil, configkeys.Wrap("pool.graph.ids", err)
		}
		first := map[string]int{}
		for i, id := range ids {
			if strings.TrimSpace(id) == "" {
				return nil, configkeys.Invalid("pool.graph.ids", nil, "%s: id %d is empty", cfg.IDs, i+1)
			}
			if j, dup := first[id]; dup {
				return nil, configkeys.Invalid("pool.graph.ids", nil, "%s: id %q is given for items %d and %d; ids must be unique", cfg.IDs, id, j+1, i+1)
			}
			first[id] = i
		}
	}
	var rows [][]neighbour
	var path string
	var err error
	switch {
	case cfg.Kernel != "":
		path = cfg.Kernel
		k := cfg.K
		if k == 0 {
			k = defaultGraphK
		}
		if k < 1 {
			return nil, configkeys.Invalid("pool.graph.k", cfg.K, "expected a positive integer")
		}
		rows, err = kernelKNN(path, k)
	case strings.HasSuffix(strings.ToLower(cfg.File), ".npz"):
		path = cfg.File
		rows, err = csrRows(path)
	default:
		path = cfg.File
		rows, ids, err = readEdgesCSV(path, ids)
	}
	if err != nil {
		return nil, err
	}
	n := len(rows)
	if ids != nil && len(ids) != n {
		return nil, configkeys.Invalid("pool.graph.ids", nil, "%s has %d ids for the %d items of %s", cfg.IDs, len(ids), n, path)
	}
	base := filepath.Base(path)
	p := &Pool{Name: strings.TrimSuffix(base, filepath.Ext(base)), IDs: ids, Labels: make([]bool, n), Metric: MetricGraph, Unlabeled: true}
	if err := p.setFolderGraph(rows, path); err != nil {
		return nil, err
	}
	if cfg.Labels != "" {
		if err := p.readLabels(cfg.Labels); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkWeight is the rule of a user's graph weight: finite, in [0, 1].
func checkWeight(w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w > 1+weightTolerance {
		return fmt.Errorf("weight %v, expected a similarity in [0, 1]", w)
	}
	return nil
}

// neighbour is one entry of a graph row read from a file: its weight v
// and column j.
type neighbour struct {
	v float64
	j int32
}

// csrRows reads a scipy CSR .npz graph into rows of (weight, column).
func csrRows(path string) ([][]neighbour, error) {
	m, err := fileio.ReadCSRNPZ(path)
	if err != nil {
		return nil, err
	}
	if m.Rows != m.Cols || m.Rows < 2 {
		return nil, fmt.Errorf("%s: matrix is %d x %d, expected a square n x n graph with n >= 2", path, m.Rows, m.Cols)
	}
	rows := make([][]neighbour, m.Rows)
	for i := range m.Rows {
		for e := m.Indptr[i]; e < m.Indptr[i+1]; e++ {
			if err := checkWeight(m.Data[e]); err != nil {
				return nil, fmt.Errorf("%s: row %d, column %d: %w", path, i+1, m.Indices[e]+1, err)
			}
			rows[i] = append(rows[i], neighbour{m.Data[e], int32(m.Indices[e])})
		}
	}
	return rows, nil
}

// kernelKNN reads a dense similarity and keeps, per row, the k largest
// off-diagonal entries (ties to the lower column).
func kernelKNN(path string, k int) ([][]neighbour, error) {
	t, err := fileio.ReadTable(path, false)
	if err != nil {
		return nil, err
	}
	n := t.Rows
	if t.Cols != n || n < 2 {
		return nil, fmt.Errorf("%s: kernel is %d x %d, expected a square n x n similarity with n >= 2", path, t.Rows, t.Cols)
	}
	if k >= n {
		return nil, configkeys.Invalid("pool.graph.k", k, "expected less than the %d items of %s", n, path)
	}
	rows := make([][]neighbour, n)
	for i := range n {
		row := make([]neighbour, 0, n-1)
		for j := range n {
			if j == i {
				continue
			}
			v := t.At(i, j)
			if err := checkWeight(v); err != nil {
				return nil, fmt.Errorf("%s: row %d, column %d: %w", path, i+1, j+1, err)
			}
			row = append(row, neighbour{v, int32(j)})
		}
		slices.SortStableFunc(row, func(a, b neighbour) int { return cmp.Compare(b.v, a.v) })
		rows[i] = slices.Clip(row[:k])
	}
	return rows, nil
}

// readEdgesCSV reads a graph as an edge list: a CSV with the header i,j,w
// (0-based item indices) or id_i,id_j,w (item ids), one directed edge i ->
// j of weight w per row (w in [0, 1]; an edge listed twice is an error when
// the pool is built). ids, if not nil, are the items (their count is n;
// id_i,id_j must name them); without ids, n is the largest index + 1
// (i,j), which at most twice the edge count may reach (isolated items need
// ids), or the ids are those of the file in order of first appearance
// (id_i,id_j). It returns the rows of (weight, neighbour) and the ids.
func readEdgesCSV(path string, ids []string) ([][]neighbour, []string, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cr := fileio.NewCSVReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: empty file, expected a header i,j,w or id_i,id_j,w", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	names := make([]string, len(header))
	for c, h := range header {
		names[c] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
	}
	byID := false
	switch strings.Join(names, ",") {
	case "i,j,w":
	case "id_i,id_j,w":
		byID = true
	default:
		return nil, nil, fmt.Errorf("%s: header %q, expected i,j,w (0-based indices) or id_i,id_j,w (ids)", path, header)
	}
	index := map[string]int{}
	for i, id := range ids {
		index[id] = i
	}
	var out []string
	type edge struct {
		i, j int
		w    float64
	}
	var edges []edge
	maxIndex := -1
	err = fileio.EachRow(cr, path, 3, func(line int, rec []string) error {
		var e edge
		for c, dst := range []*int{&e.i, &e.j} {
			cell := rec[c] // ids verbatim, as the pool readers keep them
			if byID {
				k, ok := index[cell]
				if !ok {
					if ids != nil {
						return fileio.FieldErrorf(path, line, header[c], "id %q is not among the ids", cell)
					}
					if strings.TrimSpace(cell) == "" {
						return fileio.FieldErrorf(path, line, header[c], "empty id")
					}
					k = len(out)
					index[cell] = k
					out = append(out, cell)
				}
				*dst = k
				continue
			}
			v, err := strconv.Atoi(strings.TrimSpace(cell))
			if err != nil || v < 0 || v > math.MaxInt32-1 {
				return fileio.FieldErrorf(path, line, header[c], "%q is not an item index (an integer from 0)", cell)
			}
			if ids != nil && v >= len(ids) {
				return fileio.FieldErrorf(path, line, header[c], "index %d is outside the %d items of the ids", v, len(ids))
			}
			*dst = v
			maxIndex = max(maxIndex, v)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
		if err == nil {
			err = checkWeight(w)
		} else {
			err = fmt.Errorf("%q is not a number", rec[2])
		}
		if err != nil {
			return fileio.FieldErrorf(path, line, header[2], "%w", err)
		}
		e.w = w
		edges = append(edges, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	n := len(ids)
	switch {
	case ids != nil:
	case byID:
		ids, n = out, len(out)
	default:
		n = maxIndex + 1
		if n > 2*len(edges) {
			return nil, nil, fmt.Errorf("%s: the largest index %d implies %d items, more than the %d edges can touch: give the items with ids (--ids) if some have no edge", path, maxIndex, n, len(edges))
		}
	}
	if n < 2 {
		return nil, nil, fmt.Errorf("%s: %d items, expected at least 2", path, n)
	}
	rows := make([][]neighbour, n)
	for _, e := range edges {
		rows[e.i] = append(rows[e.i], neighbour{e.w, int32(e.j)})
	}
	return rows, ids, nil
}

// readLabels sets the pool's labels from a CSV index,label or id,label
// that labels every item (label > 0, or true, is positive).
func (p *Pool) readLabels(path string) error {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return configkeys.Wrap("pool.graph.labels", err)
	}
	defer f.Close()
	cr := fileio.NewCSVReader(f)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s: expected a header index,label or id,label", path)
	}
	key := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(header[0], "\ufeff")))
	if len(header) != 2 || strings.ToLower(strings.TrimSpace(header[1])) != "label" || (key != "index" && key != "id") {
		return fmt.Errorf("%s: header %q, expected index,label or id,label", path, header)
	}
	if key == "id" && p.IDs == nil {
		return fmt.Errorf("%s: labels by id, but the pool has no ids (pool.graph.ids, or an id_i,id_j,w edge list)", path)
	}
	index := map[string]int{}
	for i, id := range p.IDs {
		index[id] = i
	}
	seen := make([]int, p.Len())
	err = fileio.EachRow(cr, path, 2, func(line int, rec []string) error {
		cell := rec[0]
		i, ok := index[cell]
		if key == "index" {
			v, err := strconv.Atoi(strings.TrimSpace(cell))
			i, ok = v, err == nil && v >= 0 && v < p.Len()
		}
		if !ok {
			return fileio.LineErrorf(path, line, "%s %q is not an item of the pool (%d items)", key, cell, p.Len())
		}
		if seen[i] != 0 {
			return fileio.LineErrorf(path, line, "item %s is labelled again (line %d)", cell, seen[i])
		}
		seen[i] = line
		l := strings.TrimSpace(rec[1])
		if v, err := strconv.ParseFloat(l, 64); err == nil && !math.IsNaN(v) {
			p.Labels[i] = v > 0
		} else if b, err := strconv.ParseBool(l); err == nil {
			p.Labels[i] = b
		} else {
			return fileio.FieldErrorf(path, line, "label", "%q is neither a number nor true/false", l)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, l := range seen {
		if l == 0 {
			return fmt.Errorf("%s: item %d has no label: a campaign pool needs every item labelled", path, i)
		}
	}
	if p.PositiveCount() == 0 {
		return fmt.Errorf("%s: no positive item", path)
	}
	p.Unlabeled = false
	return nil
}

// graphWeight is w(i, j) in row i of the graph (0 off the graph).
func (p *Pool) graphWeight(i, j int) float64 {
	for m, x := range p.Neighbors[i] {
		if int(x) == j {
			return p.Weights[i][m]
		}
	}
	return 0
}
