package eval

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// embedding is a 2-D embedding of a candidate set (MDS of the kernel, or a
// PCA of the pool) with one value per item for colouring.
type embedding struct {
	X, Y  []float64
	Value []float64 // objective (MDS), or 1 for a positive and 0 otherwise (PCA)
	// XLabel and YLabel name the axes of its panels ("" for none).
	XLabel, YLabel string
}

// readMDS reads DIR/mds.csv of a discrete BayesOpt campaign: columns index,
// id, x, y, objective, with index running 0..n-1.
func readMDS(path string) (*embedding, error) {
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	cols := map[string]int{}
	for _, name := range []string{"index", "x", "y", "objective"} {
		j := indexOf(recs[0], name)
		if j < 0 {
			return nil, fmt.Errorf("%s: header %v lacks column %q (expected index,id,x,y,objective)", path, recs[0], name)
		}
		cols[name] = j
	}
	e := &embedding{}
	for i, r := range recs[1:] {
		idx, err := strconv.Atoi(r[cols["index"]])
		if err != nil || idx != i {
			return nil, fmt.Errorf("%s: row %d: index %q, expected %d (rows in item order)", path, i+2, r[cols["index"]], i)
		}
		var v [3]float64
		for k, name := range []string{"x", "y", "objective"} {
			v[k] = parseFloat(r[cols[name]])
			if v[k] != v[k] {
				return nil, fmt.Errorf("%s: row %d: %s=%q is not a number", path, i+2, name, r[cols[name]])
			}
		}
		e.X, e.Y, e.Value = append(e.X, v[0]), append(e.Y, v[1]), append(e.Value, v[2])
	}
	if len(e.X) == 0 {
		return nil, fmt.Errorf("%s: no items", path)
	}
	return e, nil
}

// readPicks returns the item indices a run queried (its record file's
// index column), leaving out records with iteration below minIteration
// (the shared initial design is iteration 0).
func readPicks(path string, n, minIteration int) ([]int, error) {
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	ii, it := indexOf(recs[0], "index"), indexOf(recs[0], "iteration")
	if ii < 0 {
		return nil, fmt.Errorf("%s: header %v has no index column", path, recs[0])
	}
	var out []int
	for r, rec := range recs[1:] {
		if it >= 0 {
			if t, err := strconv.Atoi(rec[it]); err == nil && t < minIteration {
				continue
			}
		}
		i, err := strconv.Atoi(rec[ii])
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("%s: row %d: index %q is not an item in [0, %d)", path, r+2, rec[ii], n)
		}
		out = append(out, i)
	}
	return out, nil
}

var pickRed = color.RGBA{214, 39, 40, 255}

// embeddingPanel plots every item of e as a small dot, coloured by value
// (scale) or in light grey (scale nil).
func embeddingPanel(e *embedding, title string, scale *colorScale) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = e.XLabel, e.YLabel
	p.X.Tick.Label.Font.Size = vg.Points(7)
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	pts := make(plotter.XYs, len(e.X))
	for i := range pts {
		pts[i] = plotter.XY{X: e.X[i], Y: e.Y[i]}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Shape: draw.CircleGlyph{}, Radius: vg.Points(1.2), Color: color.RGBA{205, 205, 205, 255}}
	if scale != nil {
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Shape: draw.CircleGlyph{}, Radius: vg.Points(1.4), Color: scale.At(e.Value[i])}
		}
	}
	p.Add(s)
	return p, nil
}

// mdsFigure draws the paper's Figure 5 for a discrete BayesOpt campaign:
// the MDS embedding of the kernel coloured by objective (first panel, dark =
// high, with a colour bar of the values beside it), then one panel per
// method and q with every item its runs queried after the initial design,
// over all repeats, as red crosses (named in a legend below the panels).
// Axes are the MDS coordinates.
func mdsFigure(c *Campaign, base string, formats []string) ([]string, error) {
	mdsPath := filepath.Join(c.Dir, "mds.csv")
	if !exists(mdsPath) {
		return nil, fmt.Errorf("%s is missing (qvs bayesopt writes it for discrete tasks)", mdsPath)
	}
	e, err := readMDS(mdsPath)
	if err != nil {
		return nil, err
	}
	scale := newColorScale(e.Value)
	e.XLabel, e.YLabel = "MDS coordinate 1", "MDS coordinate 2"
	first, err := embeddingPanel(e, fmt.Sprintf("all %d items (dark = high objective)", len(e.X)), &scale)
	if err != nil {
		return nil, err
	}
	panels := []*plot.Plot{first, colorBarPlot(scale, "objective value")}
	leg := &outsideLegend{Columns: 2, Size: vg.Points(9)}
	var cross *plotter.Scatter
	var problems []string
	for _, s := range seriesOf(c, discreteMethods) {
		var pts plotter.XYs
		for _, r := range s.runs {
			picks, err := readPicks(runFile(c, r["key"], ""), len(e.X), 1)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			for _, i := range picks {
				pts = append(pts, plotter.XY{X: e.X[i], Y: e.Y[i]})
			}
		}
		p, err := embeddingPanel(e, fmt.Sprintf("%s (%d runs)", s.label, len(s.runs)), nil)
		if err != nil {
			return nil, err
		}
		if len(pts) > 0 {
			sc, err := scatter(pts, boldCross{}, vg.Points(2.5), pickRed)
			if err != nil {
				return nil, err
			}
			p.Add(sc)
			cross = sc
		}
		panels = append(panels, p)
	}
	cols := min(4, len(panels))
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i, p := range panels {
		grid[i/cols] = append(grid[i/cols], p)
	}
	if cross != nil {
		leg.Add("items a method's runs queried after the initial design (all repeats)", cross)
	}
	leg.Note = "grey: items never queried; first panel: every item coloured by its objective value"
	paths, err := saveFigureWithLegend(base, formats, vg.Length(cols)*2.6*vg.Inch, vg.Length(rows)*2.5*vg.Inch+leg.height(), figureDPI, grid, leg)
	if err == nil && len(problems) > 0 {
		err = fmt.Errorf("drawn without some runs: %s", abbreviate(problems, 3))
	}
	return paths, err
}

// boldCross is draw.CrossGlyph with strokes 1.2 pt wide instead of 0.5:
// a 0.5 pt diagonal at 96 dpi covers no pixel fully, so its red exists
// only as blended shades, which the PNG's palette (compactPNG) may drop
// for grey when the figure has many colours (the MDS colour bar).
type boldCross struct{}

func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	st := draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)}
	r := sty.Radius * 0.7071067811865476 // cos(pi/4), as CrossGlyph
	c.StrokeLine2(st, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(st, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
}
