package eval

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// solution is one of a BayesOpt run's final solutions.
type solution struct {
	Rank  int
	Value float64
	X     []float64
}

// readSolutions reads runs/KEY.solutions.csv: columns rank, index, value,
// x0 .. x{d-1}.
func readSolutions(path string) ([]solution, error) {
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	ri, vi := indexOf(recs[0], "rank"), indexOf(recs[0], "value")
	if ri < 0 || vi < 0 {
		return nil, fmt.Errorf("%s: header %v lacks rank or value", path, recs[0])
	}
	var xi []int
	for d := 0; ; d++ {
		j := indexOf(recs[0], "x"+strconv.Itoa(d))
		if j < 0 {
			break
		}
		xi = append(xi, j)
	}
	var out []solution
	for r, rec := range recs[1:] {
		s := solution{X: make([]float64, len(xi))}
		var err error
		if s.Rank, err = strconv.Atoi(rec[ri]); err != nil {
			return nil, fmt.Errorf("%s: row %d: rank %q is not an integer", path, r+2, rec[ri])
		}
		if s.Value = parseFloat(rec[vi]); math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			return nil, fmt.Errorf("%s: row %d: value %q is not a finite number", path, r+2, rec[vi])
		}
		for k, j := range xi {
			if s.X[k] = parseFloat(rec[j]); s.X[k] != s.X[k] {
				return nil, fmt.Errorf("%s: row %d: x%d=%q is not a number", path, r+2, k, rec[j])
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// roverPathColors tell the M trajectories of a panel apart.
var roverPathColors = []color.RGBA{{214, 39, 40, 255}, {31, 119, 180, 255}, {44, 160, 44, 255}, {255, 127, 14, 255}, {148, 103, 189, 255}}

// PathTask is a continuous task whose points are paths on a map of the unit
// square, as the rover's of the paper's Figure 4: what roverFigure needs to
// draw a campaign's final solutions. Evaluate reads them from
// Options.Paths by the campaign's task; the caller fills them from the
// task packages.
type PathTask struct {
	Dim         int                            // coordinates of a point
	Obstacles   [][2][2]float64                // squares: low corner, high corner
	Start, Goal [2]float64                     // drawn as a circle and a triangle
	Path        func(x []float64) [][2]float64 // the path of point x
}

// roverFigure draws the paper's Figure 4: the final solutions' trajectories
// on task's obstacle map for TuRBO and qVS-BayesOpt with q = 0.5, 1, 1.5,
// all from the same repeat (the smallest one every panel ran, so they share
// the initial data). Panels whose method did not run are left out.
func roverFigure(c *Campaign, task PathTask, base string, formats []string) ([]string, error) {
	type panel struct {
		title string
		g     *group
	}
	var panels []panel
	want := []struct{ method, q, title string }{
		{"turbo", "", "TuRBO"}, {"qvs", "0.5", "qVS-BayesOpt q=0.5"}, {"qvs", "1", "qVS-BayesOpt q=1"}, {"qvs", "1.5", "qVS-BayesOpt q=1.5"},
	}
	for _, w := range want {
		for _, g := range c.Groups() {
			if g.Method == w.method && (w.q == "" || qValue(g.Q) == qValue(w.q)) {
				panels = append(panels, panel{w.title, g})
				break
			}
		}
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("no turbo or qvs q=0.5/1/1.5 runs")
	}
	repeat := ""
	for r := 0; repeat == "" && r < 1000; r++ {
		rs := strconv.Itoa(r)
		all := true
		for _, p := range panels {
			if runOfRepeat(p.g, rs) == nil {
				all = false
			}
		}
		if all {
			repeat = rs
		}
	}
	if repeat == "" {
		return nil, fmt.Errorf("the methods share no repeat")
	}
	var plots []*plot.Plot
	var legends []*outsideLegend
	for _, pn := range panels {
		run := runOfRepeat(pn.g, repeat)
		sols, err := readSolutions(runFile(c, run["key"], "solutions"))
		if err != nil {
			return nil, err
		}
		leg := &outsideLegend{Columns: 3, Size: vg.Points(8)}
		p, err := roverPanel(task, fmt.Sprintf("%s (repeat %s): mean dist. %s", pn.title, repeat, roundSig(parseFloat(run["solutions_mean_distance"]), distanceSigDigits)), sols, leg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", run["key"], err)
		}
		plots = append(plots, p)
		legends = append(legends, leg)
	}
	rows := (len(plots) + 1) / 2
	cols := min(2, len(plots))
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(10),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	// Each panel's legend goes in a band under its map, never on it.
	return renderFigure(base, formats, 8*vg.Inch, vg.Length(rows)*4.3*vg.Inch, figureDPI, func(dc draw.Canvas) {
		for i, p := range plots {
			tile := tiles.At(dc, i%cols, i/cols)
			lh := legends[i].height()
			p.Draw(draw.Crop(tile, 0, 0, lh, 0))
			band := tile
			band.Max.Y = tile.Min.Y + lh
			legends[i].draw(band)
		}
	})
}

func runOfRepeat(g *group, repeat string) map[string]string {
	for _, r := range g.Runs {
		if r["repeat"] == repeat {
			return r
		}
	}
	return nil
}

// roverPanel draws the obstacles (grey squares), start (circle) and goal
// (triangle), and each solution's trajectory; leg gets one entry per
// trajectory, "#k f = v" (the k-th final solution by value and its reward),
// and the start and goal markers.
func roverPanel(task PathTask, title string, sols []solution, leg *outsideLegend) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	for _, o := range task.Obstacles {
		lo, hi := o[0], o[1]
		sq, err := plotter.NewPolygon(plotter.XYs{{X: lo[0], Y: lo[1]}, {X: hi[0], Y: lo[1]}, {X: hi[0], Y: hi[1]}, {X: lo[0], Y: hi[1]}})
		if err != nil {
			return nil, err
		}
		sq.Color = color.RGBA{170, 170, 170, 255}
		sq.LineStyle.Width = 0
		p.Add(sq)
	}
	for k, s := range sols {
		if len(s.X) != task.Dim {
			return nil, fmt.Errorf("solution %d has %d coordinates, expected the task's %d", s.Rank, len(s.X), task.Dim)
		}
		traj := task.Path(s.X)
		pts := make(plotter.XYs, len(traj))
		for i, q := range traj {
			pts[i] = plotter.XY{X: q[0], Y: q[1]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = roverPathColors[k%len(roverPathColors)]
		l.Width = vg.Points(1.6)
		if k > 0 {
			l.Dashes = []vg.Length{vg.Points(5 - float64(k%3)), vg.Points(2)}
		}
		p.Add(l)
		leg.Add(fmt.Sprintf("#%d f = %s", s.Rank, round(s.Value)), l)
	}
	ends, err := scatter(plotter.XYs{{X: task.Start[0], Y: task.Start[1]}}, draw.CircleGlyph{}, vg.Points(4), color.Black)
	if err != nil {
		return nil, err
	}
	goal, err := scatter(plotter.XYs{{X: task.Goal[0], Y: task.Goal[1]}}, draw.PyramidGlyph{}, vg.Points(5), color.Black)
	if err != nil {
		return nil, err
	}
	p.Add(ends, goal)
	leg.Add("start", ends)
	leg.Add("goal", goal)
	return p, nil
}
