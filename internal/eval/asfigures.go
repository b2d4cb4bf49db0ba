package eval

import (
	"fmt"
	"image/color"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/qvs-dev/qvs/internal/datasets"
)

// asSeries is one line of the active-search curves: a table row (method
// and q); a method with several hyperparameter settings is drawn with the
// setting whose mean final VS_1 (summary column vs_q1) is best, as the
// starred table rows choose per column.
func asSeries(c *Campaign) []series {
	var out []series
	var rows []*rowKey
	index := map[string]*rowKey{}
	for _, g := range sortedGroups(c, asMethods) {
		st := styleOf(asMethods, g.Method)
		q := ""
		if st.byQ {
			q = g.Q
		}
		id := g.Method + "\x00" + q
		if index[id] == nil {
			index[id] = &rowKey{style: st, method: g.Method, q: q}
			rows = append(rows, index[id])
		}
		index[id].groups = append(index[id].groups, g)
	}
	for _, rk := range rows {
		best := rk.groups[0]
		for _, g := range rk.groups[1:] {
			if better(g.Stat("vs_q1"), best.Stat("vs_q1"), 1) {
				best = g
			}
		}
		label := rk.style.label
		if rk.q != "" {
			label += " q=" + rk.q
		}
		if len(rk.groups) > 1 {
			label += "* (" + best.Params + ")"
		}
		out = append(out, series{label: label, method: rk.method, q: rk.q, runs: best.Runs})
	}
	return out
}

// VS1CurveFigure draws VS_1 of the positives found against the number of
// queries, mean +- SE over repeats, one line per method (the right panel of
// the paper's Figure 2, for every method), from runs/KEY.curve.csv
// (columns queries, vs_q1).
func VS1CurveFigure(c *Campaign, base string, formats []string) ([]string, error) {
	p := newPlot(c.Name+": VS_1 of the positives found", "queries", "VS_1 of positives (effective discoveries)")
	p.Legend.Top, p.Legend.Left = true, true
	var missing []string
	drawn := 0
	for _, s := range asSeries(c) {
		var curves []Curve
		for _, r := range s.runs {
			cv, err := ReadCurve(runFile(c, r["key"], "curve"), "queries", "vs_q1")
			if err != nil {
				missing = append(missing, r["key"])
				continue
			}
			curves = append(curves, cv)
		}
		if len(curves) == 0 {
			continue
		}
		dashed := s.method != "qvs" && s.method != "qvs-as"
		if err := addBand(p, AggregateCurves(curves), s.label, s.color(), dashed); err != nil {
			return nil, err
		}
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("no run has a curve file runs/KEY.curve.csv with columns queries, vs_q1 (e.g. %s)", abbreviate(missing, 2))
	}
	paths, err := saveFigure(base, formats, 7*vg.Inch, 5*vg.Inch, [][]*plot.Plot{{p}})
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("drawn without %d run(s) lacking a readable curve file (%s)", len(missing), abbreviate(missing, 4))
	}
	return paths, err
}

// maxBackground bounds the pool items drawn as background dots: a 10^5-item
// pool is thinned by a fixed stride (positives are always drawn), which keeps
// the SVG small and the picture the same.
const maxBackground = 10000

// PoolEmbedding is the 2-D PCA of a pool's features (dense, or fingerprint
// bits as 0/1 features) with the labels as values (1 = positive).
func PoolEmbedding(pool *datasets.Pool) (*Embedding, error) {
	n := pool.Len()
	var row func(i int, dst []float64)
	var d int
	switch {
	case pool.Dense != nil:
		if len(pool.Dense) != n || n == 0 {
			return nil, fmt.Errorf("pool %s: %d feature rows for %d items", pool.Name, len(pool.Dense), n)
		}
		d = len(pool.Dense[0])
		row = func(i int, dst []float64) { copy(dst, pool.Dense[i]) }
	case pool.Bits != nil:
		row, d = bitRow(pool.Bits)
	default:
		return nil, fmt.Errorf("pool %s has no features", pool.Name)
	}
	x, y, err := PCA2(n, d, row)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", pool.Name, err)
	}
	e := &Embedding{X: x, Y: y, Value: make([]float64, n)}
	for i, l := range pool.Labels {
		if l {
			e.Value[i] = 1
		}
	}
	return e, nil
}

// asQueries reads the queries of run key: item indices and labels.
func asQueries(c *Campaign, key string, n int) (idx []int, positive []bool, err error) {
	path := runFile(c, key, "")
	recs, err := readCSV(path)
	if err != nil {
		return nil, nil, err
	}
	ii, li := indexOf(recs[0], "index"), indexOf(recs[0], "label")
	if ii < 0 || li < 0 {
		return nil, nil, fmt.Errorf("%s: header %v lacks index or label", path, recs[0])
	}
	for r, rec := range recs[1:] {
		i, err := strconv.Atoi(rec[ii])
		if err != nil || i < 0 || i >= n {
			return nil, nil, fmt.Errorf("%s: row %d: index %q is not an item of the %d-item pool (a different pool?)", path, r+2, rec[ii], n)
		}
		idx = append(idx, i)
		positive = append(positive, rec[li] == "1" || rec[li] == "true")
	}
	return idx, positive, nil
}

// QueryScatterFigure draws the paper's Figure 2 for an active-search
// campaign: the pool on its 2-D PCA (grey; positives light blue) with the
// queries of one repeat of the diversity-blind policy (one-step, or qVS-AS
// q = 0) and of qVS-AS q = 1 (queried positives red, negatives black), and
// the count and VS_1 of the positives each found in the panel title.
func QueryScatterFigure(c *Campaign, e *Embedding, base string, formats []string) ([]string, error) {
	n := len(e.X)
	type pick struct {
		label string
		g     *Group
	}
	var blind, ours *Group
	for _, g := range c.Groups() {
		switch {
		case g.Method == "one-step":
			blind = g
		case (g.Method == "qvs" || g.Method == "qvs-as") && QValue(g.Q) == 0 && blind == nil:
			blind = g
		case (g.Method == "qvs" || g.Method == "qvs-as") && QValue(g.Q) == 1:
			ours = g
		}
	}
	if blind == nil || ours == nil {
		return nil, fmt.Errorf("needs runs of one-step (or qVS-AS q=0) and qVS-AS q=1")
	}
	repeat := commonRepeat(blind, ours)
	if repeat == "" {
		return nil, fmt.Errorf("one-step and qVS-AS q=1 share no repeat")
	}
	background, positives := plotter.XYs{}, plotter.XYs{}
	stride := max(1, n/maxBackground)
	for i := 0; i < n; i++ {
		switch {
		case e.Value[i] > 0:
			positives = append(positives, plotter.XY{X: e.X[i], Y: e.Y[i]})
		case i%stride == 0:
			background = append(background, plotter.XY{X: e.X[i], Y: e.Y[i]})
		}
	}
	var panels []*plot.Plot
	for _, pk := range []pick{{"diversity-blind (" + blind.Label() + ")", blind}, {"qVS-AS q=1", ours}} {
		var run map[string]string
		for _, r := range pk.g.Runs {
			if r["repeat"] == repeat {
				run = r
			}
		}
		idx, pos, err := asQueries(c, run["key"], n)
		if err != nil {
			return nil, err
		}
		var hit, miss plotter.XYs
		for k, i := range idx {
			if pos[k] {
				hit = append(hit, plotter.XY{X: e.X[i], Y: e.Y[i]})
			} else {
				miss = append(miss, plotter.XY{X: e.X[i], Y: e.Y[i]})
			}
		}
		title := fmt.Sprintf("%s: %d positives, VS_1 %s", pk.label, len(hit), Round(parseFloat(run["vs_q1"])))
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text, p.Y.Label.Text = "PC 1", "PC 2"
		layers := []struct {
			pts    plotter.XYs
			shape  draw.GlyphDrawer
			radius vg.Length
			col    color.Color
			legend string
		}{
			{background, draw.CircleGlyph{}, 0.8, color.RGBA{210, 210, 210, 255}, "pool"},
			{positives, draw.CircleGlyph{}, 0.8, color.RGBA{140, 180, 230, 255}, "positive (unqueried)"},
			{miss, draw.CrossGlyph{}, 2.2, color.RGBA{0, 0, 0, 255}, "queried negative"},
			{hit, draw.CircleGlyph{}, 2.4, pickRed, "queried positive"},
		}
		for _, l := range layers {
			if len(l.pts) == 0 {
				continue
			}
			s, err := scatter(l.pts, l.shape, vg.Points(float64(l.radius)), l.col)
			if err != nil {
				return nil, err
			}
			p.Add(s)
			p.Legend.Add(l.legend, s)
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	return saveFigure(base, formats, 11*vg.Inch, 5*vg.Inch, [][]*plot.Plot{panels})
}

// commonRepeat returns the smallest repeat both groups ran ("" if none).
func commonRepeat(a, b *Group) string {
	have := map[string]bool{}
	for _, r := range a.Runs {
		have[r["repeat"]] = true
	}
	var both []int
	for _, r := range b.Runs {
		if have[r["repeat"]] {
			if v, err := strconv.Atoi(r["repeat"]); err == nil {
				both = append(both, v)
			}
		}
	}
	if len(both) == 0 {
		return ""
	}
	sort.Ints(both)
	return strconv.Itoa(both[0])
}
