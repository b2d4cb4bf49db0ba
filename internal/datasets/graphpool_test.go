package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadGraphScipy reads testdata/graph-scipy.npz (scipy 1.10's
// save_npz of the matrix in make-graph-npz.py): the self loop of item 0 is
// ignored, the zero is not stored, row 0's tie (0.5, 0.5) goes to the lower
// index, rows are by decreasing weight; the same graph as edge lists, by
// index and by id, reads the same.
func TestLoadGraphScipy(t *testing.T) {
	wantNbr := "[[1 2] [0 3] [1] [2 0]]"
	wantW := "[[0.5 0.5] [0.9 0.2] [0.3] [1 0.25]]"
	dir := t.TempDir()
	ids := writeFile(t, dir, "ids.csv", "id\na\nb\nc\nd\n")
	for _, cfg := range []GraphConfig{
		{File: filepath.Join("testdata", "graph-scipy.npz")},
		{File: writeFile(t, dir, "e.csv", "i,j,w\n0,0,1\n0,2,0.5\n0,1,0.5\n1,0,0.9\n1,3,0.2\n2,1,0.3\n3,2,1\n3,0,0.25\n")},
		{File: writeFile(t, dir, "eid.csv", "id_i,id_j,w\na,c,0.5\na,b,0.5\nb,a,0.9\nb,d,0.2\nc,b,0.3\nd,c,1\nd,a,0.25\n"), IDs: ids},
		{File: writeFile(t, dir, "eid2.csv", "id_i,id_j,w\na,b,0.5\na,c,0.5\nb,a,0.9\nb,d,0.2\nc,b,0.3\nd,c,1\nd,a,0.25\n")},
	} {
		p, err := Load(Config{Kind: KindGraph, Graph: cfg}, "", "", 1)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if fmt.Sprint(p.Neighbors) != wantNbr || fmt.Sprint(p.Weights) != wantW || !p.Unlabeled || p.Metric != MetricGraph {
			t.Errorf("%+v: %v %v", cfg, p.Neighbors, p.Weights)
		}
		if strings.Contains(cfg.File, "eid") && fmt.Sprint(p.IDs) != "[a b c d]" {
			t.Errorf("%+v: ids %v", cfg, p.IDs)
		}
		// Distance = 1 - (W + Wᵀ)/2: items 0 and 3 share 0.25 one way.
		if d := p.Distance(0, 3); math.Abs(d-(1-0.125)) > 1e-15 || p.Distance(1, 1) != 0 || p.Distance(1, 2) != 1-0.15 {
			t.Errorf("distances %v %v %v", d, p.Distance(1, 1), p.Distance(1, 2))
		}
	}
}

// TestLoadGraphKernel: a dense kernel's graph keeps the k largest
// off-diagonal entries per row, ties to the lower index, zeros dropped;
// labels make a campaign pool.
func TestLoadGraphKernel(t *testing.T) {
	dir := t.TempDir()
	K := writeFile(t, dir, "K.csv", "1,0.5,0.5,0.1\n0.5,1,0,0.7\n0.5,0,1,0\n0.1,0.7,0,1\n")
	labels := writeFile(t, dir, "labels.csv", "index,label\n3,0\n0,1\n1,0\n2,1\n")
	p, err := loadGraph(GraphConfig{Kernel: K, K: 2, Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Neighbors) != "[[1 2] [3 0] [0] [1 0]]" || fmt.Sprint(p.Weights) != "[[0.5 0.5] [0.7 0.5] [0.5] [0.7 0.1]]" {
		t.Errorf("kernel graph %v %v", p.Neighbors, p.Weights)
	}
	if p.Unlabeled || fmt.Sprint(p.Labels) != "[true false true false]" {
		t.Errorf("labels %v (unlabeled %v)", p.Labels, p.Unlabeled)
	}
}

// TestLoadGraphErrors: every bad input names the file, the row or line and
// the problem.
func TestLoadGraphErrors(t *testing.T) {
	dir := t.TempDir()
	w := func(name, content string) string { return writeFile(t, dir, name, content) }
	for _, c := range []struct {
		cfg  GraphConfig
		want string
	}{
		{GraphConfig{}, "pool.graph: give exactly one of file"},
		{GraphConfig{File: w("a.csv", "i,j,w\n0,1,1.5\n1,0,1\n")}, `a.csv: line 2, column "w": weight 1.5, expected a similarity in [0, 1]`},
		{GraphConfig{File: w("b.csv", "i,j,w\n0,1,-0.1\n1,0,1\n")}, `line 2, column "w": weight -0.1`},
		{GraphConfig{File: w("c.csv", "i,j,w\n0,1,nan\n1,0,1\n")}, `weight NaN`},
		{GraphConfig{File: w("d.csv", "a,b,c\n0,1,1\n")}, `d.csv: header ["a" "b" "c"], expected i,j,w`},
		{GraphConfig{File: w("e.csv", "i,j,w\n0,1,1\n1,-1,1\n")}, `e.csv: line 3, column "j": "-1" is not an item index`},
		{GraphConfig{File: w("f.csv", "i,j,w\n0,1000000,1\n")}, `f.csv: the largest index 1000000 implies 1000001 items, more than the 1 edges can touch`},
		{GraphConfig{File: w("g.csv", "i,j,w\n0,1,1\n0,1,0.5\n1,0,1\n")}, `g.csv: row 0 lists neighbour 1 twice`},
		{GraphConfig{File: w("h.csv", "id_i,id_j,w\na,zz,1\n"), IDs: w("ids.csv", "a\nb\n")}, `h.csv: line 2, column "id_j": id "zz" is not among the ids`},
		{GraphConfig{File: w("i.csv", "i,j,w\n0,1,1\n1,0,1\n"), IDs: w("ids3.csv", "a\nb\nb\n")}, `pool.graph.ids: ` + filepath.Join(dir, "ids3.csv") + `: id "b" is given for items 2 and 3`},
		{GraphConfig{Kernel: w("K.csv", "1,0.5\n0.5,1\n0.1,0.2\n")}, `K.csv: kernel is 3 x 2, expected a square`},
		{GraphConfig{Kernel: w("K2.csv", "1,2,0\n2,1,0\n0,0,1\n"), K: 1}, `K2.csv: row 1, column 2: weight 2`},
		{GraphConfig{Kernel: w("K3.csv", "1,0\n0,1\n"), K: 5}, `pool.graph.k = 5: expected less than the 2 items`},
		{GraphConfig{File: w("j.csv", "i,j,w\n0,1,1\n1,0,1\n"), Labels: w("l.csv", "index,label\n0,1\n")}, `l.csv: item 1 has no label`},
		{GraphConfig{File: w("k.csv", "i,j,w\n0,1,1\n1,0,1\n"), Labels: w("l2.csv", "index,label\n0,1\n0,0\n1,0\n")}, `l2.csv: line 3: item 0 is labelled again (line 2)`},
		{GraphConfig{File: w("m.npz", "not a zip")}, `m.npz: not a .npz (zip) archive`},
	} {
		_, err := loadGraph(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// FuzzReadEdgesCSV: the edge-list reader never panics, its errors name the
// file, and what it returns is in range (at most twice as many items as
// edges without ids, weights in [0, 1]).
func FuzzReadEdgesCSV(f *testing.F) {
	for _, s := range []string{"i,j,w\n0,1,0.5\n1,0,1\n", "id_i,id_j,w\na,b,1\nb,c,0.2\n", "i,j,w\n0,99999999,1\n", "i,j,w\n0,1,2\n", "x\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "e.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, ids, err := readEdgesCSV(p, nil)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		edges := 0
		for _, r := range rows {
			edges += len(r)
			for _, c := range r {
				if c.j < 0 || int(c.j) >= len(rows) || !(c.v >= 0 && c.v <= 1+weightTolerance) {
					t.Fatalf("edge %+v of %d items", c, len(rows))
				}
			}
		}
		if len(rows) > 2*edges || (ids != nil && len(ids) != len(rows)) {
			t.Fatalf("%d items, %d edges, %d ids", len(rows), edges, len(ids))
		}
	})
}
