package eval

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// makeFigures draws the figures of one campaign (what its kind supports)
// into dir and records what it could not draw in rep.
func makeFigures(ctx context.Context, c *Campaign, dir string, opts Options, rep *Report) []figureRef {
	var refs []figureRef
	add := func(title string, paths []string, err error) {
		rep.Files = append(rep.Files, paths...)
		if err != nil && ctx.Err() == nil {
			rep.notMade("%s: %s: %v", c.Name, title, err)
			if we := (*writeError)(nil); errors.As(err, &we) {
				rep.writeErrs = append(rep.writeErrs, err)
			}
		}
		if len(paths) > 0 {
			refs = append(refs, figureRef{Campaign: c.Name, Title: title, Paths: paths})
		}
	}
	base := func(fig string) string { return filepath.Join(dir, c.Name+"-"+fig) }
	// Each figure starts only while not interrupted (SIGINT, SIGTERM,
	// SIGHUP: Evaluate then returns the context's error).
	live := func() bool { return ctx.Err() == nil }
	if live() && (c.Kind == KindContinuousBO || c.Kind == KindDiscreteBO) {
		known := boMethods
		if c.Kind == KindDiscreteBO {
			known = discreteMethods
		}
		paths, err := bestSoFarFigure(c, known, base("best-so-far"), opts.FigureFormats)
		add("best value so far (Figure 3): mean ± standard error over repeats; (n) after a method is the number of its runs averaged", paths, err)
	}
	if task, ok := opts.Paths[c.Task]; ok && live() && c.Kind == KindContinuousBO {
		paths, err := roverFigure(c, task, base("trajectories"), opts.FigureFormats)
		add(c.Task+" trajectories of the final solutions (Figure 4): #k f = v is the k-th final solution by value and its reward v", paths, err)
	}
	if live() && c.Kind == KindActiveSearch {
		paths, err := vs1CurveFigure(c, base("vs1-curve"), opts.FigureFormats)
		add("VS_1 of the positives against queries (Figure 2, right): mean ± standard error over repeats; methods with identical curves share one line", paths, err)
	}
	if live() && c.Kind == KindActiveSearch {
		paths, err := queryScatter(ctx, c, base("pca-queries"), opts)
		add("queries on a PCA of the pool (Figure 2) in the repeat with the median VS_1 gain of qVS-AS q=1 over one-step", paths, err)
	}
	if live() && c.Kind == KindReplay {
		paths, err := replayCurveFigure(c, base("hits-curve"), opts.FigureFormats)
		add("hits found against items acquired: mean ± standard error over repeats", paths, err)
	}
	if live() && c.Kind == KindDiscreteBO {
		paths, err := mdsFigure(c, base("mds"), opts.FigureFormats)
		add("MDS embedding with each method's queries (Figure 5)", paths, err)
	}
	return refs
}

// seriesOf groups a campaign's runs into plotted series: one per table row
// (method and q), all hyperparameter settings of a method pooled.
type series struct {
	label     string
	method, q string // summary method name and order (q = the style's alias when empty)
	qi        int    // index among the method's orders (colour of an unusual q)
	runs      []map[string]string
}

func (s series) color() color.Color { return methodColor(s.method, s.q, s.qi) }

func seriesOf(c *Campaign, known map[string]methodStyle) []series {
	var out []series
	idx := map[string]int{}
	qCount := map[string]int{}
	for _, g := range sortedGroups(c, known) {
		st := styleOf(known, g.Method)
		label := st.label
		q := g.Q
		if q == "" {
			q = st.qAlias
		}
		if st.byQ && q != "" {
			label += " q=" + q + st.qSuffix
		}
		i, ok := idx[label]
		if !ok {
			i = len(out)
			idx[label] = i
			out = append(out, series{label: label, method: g.Method, q: q, qi: qCount[g.Method]})
			qCount[g.Method]++
		}
		out[i].runs = append(out[i].runs, g.Runs...)
	}
	return out
}

// bestSoFarCurve reads a run's best-value-so-far curve: runs/KEY.curve.csv
// (columns evaluations, best_value) when present, else the running maximum
// of the value column of its record file runs/KEY.csv.
func bestSoFarCurve(c *Campaign, key string) (curve, error) {
	if p := runFile(c, key, "curve"); exists(p) {
		// Continuous tasks write best_so_far, discrete ones best_value.
		cv, err := readCurve(p, "evaluations", "best_so_far")
		if err != nil {
			cv, err = readCurve(p, "evaluations", "best_value")
		}
		if err == nil {
			return cv, nil
		}
		if !exists(runFile(c, key, "")) {
			return curve{}, err
		}
	}
	return runningMax(runFile(c, key, ""), "value")
}

// runningMax reads column col of a record CSV and returns the best value so
// far against the number of records (evaluations).
func runningMax(path, col string) (curve, error) {
	recs, err := readCSV(path)
	if err != nil {
		return curve{}, err
	}
	j := indexOf(recs[0], col)
	if j < 0 {
		return curve{}, fmt.Errorf("%s: header %v has no %q column", path, recs[0], col)
	}
	var cv curve
	best := math.Inf(-1)
	for i, r := range recs[1:] {
		v, err := strconv.ParseFloat(strings.TrimSpace(r[j]), 64)
		if err != nil {
			return curve{}, fmt.Errorf("%s: row %d: %s=%q is not a number", path, i+2, col, r[j])
		}
		best = math.Max(best, v)
		cv.X = append(cv.X, float64(i+1))
		cv.Y = append(cv.Y, best)
	}
	return cv, nil
}

// readCSV reads a CSV with a header line.
func readCSV(path string) ([][]string, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(b))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file, expected a header line", path)
	}
	return recs, nil
}

func indexOf(h []string, col string) int {
	for j, x := range h {
		if x == col {
			return j
		}
	}
	return -1
}

// plainTicks are gonum's default ticks labelled with the shortest decimal
// ("750", not "750.00").
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// bestSoFarFigure draws the best value found so far against evaluations,
// the mean over repeats with a +- standard-error band, one line per method
// and q (the paper's Figure 3), to base.png / base.svg. A second panel
// zooms on the second half of the budget, where the methods' differences
// are small next to the early climb. A campaign that minimised its
// objective (config minimize: true) is drawn as the objective printed its
// values: the lowest value so far (records hold them negated).
//
// The curves are steps (the best so far changes only at an evaluation, and
// holds until the next), the legend sits below the panels, off the curves,
// and the value axis is logarithmic when the plotted means are all
// positive and span at least two decades (a Branin campaign's 0-90 on a
// linear axis flattened every curve).
func bestSoFarFigure(c *Campaign, known map[string]methodStyle, base string, formats []string) ([]string, error) {
	minimised := c.Config["minimize"] == true
	title, ylabel := c.Name+": best value found", "best value so far"
	if minimised {
		title, ylabel = c.Name+": lowest value found (minimised)", "lowest value so far"
	}
	full := newPlot(title, "evaluations", ylabel)
	zoom := newPlot("second half of the budget", "evaluations", ylabel)
	full.Legend.Top, full.Legend.Left = false, false
	zoom.Legend.Top, zoom.Legend.Left = false, false
	var missing []string
	type line struct {
		band   Band
		label  string
		col    color.Color
		random bool // random search: left out of the zoom's y range (far below the rest)
	}
	var lines []line
	xmax := math.Inf(-1)
	for _, s := range seriesOf(c, known) {
		var curves []curve
		for _, r := range s.runs {
			cv, err := bestSoFarCurve(c, r["key"])
			if err != nil {
				missing = append(missing, r["key"])
				continue
			}
			curves = append(curves, cv)
		}
		if len(curves) == 0 {
			continue
		}
		b := aggregateCurves(curves)
		if minimised {
			for i := range b.Stat {
				b.Stat[i].Mean = -b.Stat[i].Mean
			}
		}
		lines = append(lines, line{stepBand(b), fmt.Sprintf("%s (%d)", s.label, len(curves)), s.color(), strings.EqualFold(s.method, "random")})
		xmax = math.Max(xmax, b.X[len(b.X)-1])
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("no run has a curve or record file (runs %s)", abbreviate(missing, 4))
	}
	// The zoom panel: x in [xmax/2, xmax], y spanning the bands there of the
	// methods other than random search (clipped when it lies below).
	others := false
	for _, l := range lines {
		others = others || !l.random
	}
	half := xmax / 2
	lo, hi := math.Inf(1), math.Inf(-1)
	bands := make([]Band, len(lines))
	for i, l := range lines {
		bands[i] = l.band
	}
	logY := spansDecades(bands)
	if logY {
		for i := range lines {
			lines[i].band = clampBandPositive(lines[i].band)
		}
		for _, p := range []*plot.Plot{full, zoom} {
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
			p.Y.Label.Text += " (log scale)"
		}
	}
	leg := &outsideLegend{Columns: 4, Size: vg.Points(9)}
	for _, l := range lines {
		ml, err := addBandLine(full, l.band, l.label, l.col, false)
		if err != nil {
			return nil, err
		}
		leg.Add(l.label, ml)
		var tail Band
		for i, x := range l.band.X {
			if x >= half {
				tail.X = append(tail.X, x)
				tail.Stat = append(tail.Stat, l.band.Stat[i])
				st := l.band.Stat[i]
				if st.N > 0 && !math.IsNaN(st.Mean) && !math.IsInf(st.Mean, 0) && (!l.random || !others) {
					se := st.SE
					if math.IsNaN(se) {
						se = 0
					}
					lo, hi = math.Min(lo, st.Mean-se), math.Max(hi, st.Mean+se)
				}
			}
		}
		if len(tail.X) > 0 {
			if err := addBand(zoom, tail, l.label, l.col, false); err != nil {
				return nil, err
			}
		}
	}
	full.Legend = plot.NewLegend() // the legend is drawn below the panels
	grid := [][]*plot.Plot{{full}}
	if lo < hi {
		pad := 0.05 * (hi - lo)
		zoom.Y.Min, zoom.Y.Max = lo-pad, hi+pad
		if logY {
			zoom.Y.Min, zoom.Y.Max = lo/math.Pow(hi/lo, 0.05), hi*math.Pow(hi/lo, 0.05)
		}
		zoom.Legend = plot.NewLegend()
		zoom.X.Tick.Marker = plainTicks{}
		grid[0] = append(grid[0], zoom)
	}
	leg.Note = "mean ± standard error over repeats; (n): runs averaged"
	paths, err := saveFigureWithLegend(base, formats, vg.Length(len(grid[0]))*5.5*vg.Inch, 4.5*vg.Inch+leg.height(), figureDPI, grid, leg)
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("drawn without %d run(s) lacking curve and record files (%s)", len(missing), abbreviate(missing, 4))
	}
	return paths, err
}

// stepBand turns a best-so-far band into steps: each value holds until the
// next evaluation, where the curve jumps (points (x_{i+1}, y_i) inserted).
func stepBand(b Band) Band {
	var out Band
	for i := range b.X {
		if i > 0 {
			out.X = append(out.X, b.X[i])
			out.Stat = append(out.Stat, b.Stat[i-1])
		}
		out.X = append(out.X, b.X[i])
		out.Stat = append(out.Stat, b.Stat[i])
	}
	return out
}

// spansDecades reports whether the finite means of bands are all positive
// and their largest is at least 100 times their smallest: a log axis then
// shows every curve's progress.
func spansDecades(bands []Band) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bands {
		for _, s := range b.Stat {
			if s.N == 0 || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
				continue
			}
			lo, hi = math.Min(lo, s.Mean), math.Max(hi, s.Mean)
		}
	}
	return lo > 0 && hi >= 100*lo
}

// clampBandPositive limits each point's standard error so that mean - SE
// stays positive (at least a tenth of the mean) for a log axis.
func clampBandPositive(b Band) Band {
	out := Band{X: b.X, Stat: append([]Stat(nil), b.Stat...)}
	for i, s := range out.Stat {
		if !math.IsNaN(s.SE) && s.Mean-s.SE < s.Mean/10 {
			out.Stat[i].SE = s.Mean - s.Mean/10
		}
	}
	return out
}
