package eval

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/linalg"
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

// vs1CurveFigure draws VS_1 of the positives found against the number of
// queries, mean +- SE over repeats, one line per method (the right panel of
// the paper's Figure 2, for every method), from runs/KEY.curve.csv
// (columns queries, vs_q1). Methods whose curves are identical (qVS-AS
// q = 0 and one-step always are; on an easy pool q = 1, 2, inf often are)
// are drawn once under a combined label ("qVS-AS q=1, 2, inf"), so no line
// hides another. Lines differ in colour (a colour-blind-safe palette),
// dashes (baselines dashed, qVS-AS solid) and markers, and the figure is
// sized for a paper column (3.5 in wide) with the legend below the plot.
func vs1CurveFigure(c *Campaign, base string, formats []string) ([]string, error) {
	return curveFigure(c, asSeries(c), "queries", "vs_q1", c.Name+": VS_1 of the positives found", "VS_1 of positives", base, formats)
}

// replayCurveFigure draws the hits a replay's methods found against the
// items acquired (runs/KEY.curve.csv: acquired, hits), one line per
// method and q: mean ± standard error over repeats.
func replayCurveFigure(c *Campaign, base string, formats []string) ([]string, error) {
	return curveFigure(c, seriesOf(c, replayMethods), "acquired", "hits", c.Name+": hits found", "hits found", base, formats)
}

// curveFigure draws, for every series, the mean ± standard error over its
// runs of column ycol against xcol of runs/KEY.curve.csv, identical curves
// merged into one line.
func curveFigure(c *Campaign, all []series, xcol, ycol, title, ylabel, base string, formats []string) ([]string, error) {
	var missing []string
	var bands []Band
	var drawn []series
	for _, s := range all {
		var curves []curve
		for _, r := range s.runs {
			cv, err := readCurve(runFile(c, r["key"], "curve"), xcol, ycol)
			if err != nil {
				missing = append(missing, r["key"])
				continue
			}
			curves = append(curves, cv)
		}
		if len(curves) == 0 {
			continue
		}
		bands = append(bands, aggregateCurves(curves))
		drawn = append(drawn, s)
	}
	if len(drawn) == 0 {
		return nil, fmt.Errorf("no run has a curve file runs/KEY.curve.csv with columns %s, %s (e.g. %s)", xcol, ycol, abbreviate(missing, 2))
	}
	p := newPlot(title, xcol, ylabel)
	columnFonts(p)
	leg := &outsideLegend{Columns: 1, Size: vg.Points(6.5)}
	lines := mergeIdenticalCurves(bands, drawn)
	styles := curveStyles(lines)
	for i, l := range lines {
		if err := addStyledBand(p, leg, l.band, l.label(), styles[i]); err != nil {
			return nil, err
		}
	}
	leg.Note = "mean ± standard error over repeats; identical curves drawn once"
	h := 2.7*vg.Inch + leg.height()
	paths, err := saveFigureWithLegend(base, formats, 3.5*vg.Inch, h, columnDPI, [][]*plot.Plot{{p}}, leg)
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("drawn without %d run(s) lacking a readable curve file (%s)", len(missing), abbreviate(missing, 4))
	}
	return paths, err
}

// columnDPI renders column-width figures sharply enough to print (a 3.5 in
// figure is 700 pixels wide).
const columnDPI = 200

// columnFonts sets fonts that stay readable when the figure is printed at
// a paper column's width (3.25-3.5 in): 6.5-8 pt, as the paper's own.
func columnFonts(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(7.5)
		a.Tick.Label.Font.Size = vg.Points(6.5)
	}
}

// curveLine is one line of a curve figure: a band and every series that has
// exactly this band.
type curveLine struct {
	band   Band
	series []series
}

// curveTol is the relative difference under which two mean curves count as
// identical: runs that make the same queries compute the same VS_1 bit for
// bit, so only rounding of the mean (order of summation) is allowed for.
const curveTol = 1e-9

// mergeIdenticalCurves groups series whose bands have the same grid, means
// and standard errors (within curveTol), keeping the order of first
// appearance; bands[i] belongs to ss[i].
func mergeIdenticalCurves(bands []Band, ss []series) []curveLine {
	var out []curveLine
	for i, b := range bands {
		merged := false
		for k := range out {
			if sameBand(out[k].band, b) {
				out[k].series = append(out[k].series, ss[i])
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, curveLine{band: b, series: []series{ss[i]}})
		}
	}
	return out
}

func sameBand(a, b Band) bool {
	if len(a.X) != len(b.X) || len(a.Stat) != len(b.Stat) {
		return false
	}
	near := func(x, y float64) bool {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return math.Abs(x-y) <= curveTol*math.Max(1, math.Abs(y))
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || a.Stat[i].N != b.Stat[i].N || !near(a.Stat[i].Mean, b.Stat[i].Mean) || !near(a.Stat[i].SE, b.Stat[i].SE) {
			return false
		}
	}
	return true
}

// label is the line's legend text: the series' labels, orders of one method
// combined ("qVS-AS q=1, 2, inf"), different methods joined by " = "
// ("qVS-AS q=0 = one-step").
func (l curveLine) label() string {
	var order []string
	qs := map[string][]string{}
	for _, s := range l.series {
		head, q, ok := strings.Cut(s.label, " q=")
		if !ok {
			head, q = s.label, ""
		}
		if _, seen := qs[head]; !seen {
			order = append(order, head)
		}
		if q != "" {
			qs[head] = append(qs[head], q)
		} else if qs[head] == nil {
			qs[head] = []string{}
		}
	}
	parts := make([]string, len(order))
	for i, h := range order {
		parts[i] = h
		if len(qs[h]) > 0 {
			parts[i] += " q=" + strings.Join(qs[h], ", ")
		}
	}
	return strings.Join(parts, " = ")
}

// okabeIto is the colour-blind-safe palette of Okabe and Ito (2008) without
// its yellow (too pale on white); grey is kept for random search.
var okabeIto = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{0, 158, 115, 255},   // bluish green
	{230, 159, 0, 255},   // orange
	{204, 121, 167, 255}, // reddish purple
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
}

var (
	vermillion = color.RGBA{213, 94, 0, 255} // qVS-AS q = 1, the paper's method
	curveGrey  = color.RGBA{120, 120, 120, 255}
)

// lineStyle is how one curve is drawn.
type lineStyle struct {
	color  color.Color
	dashes []vg.Length
	marker draw.GlyphDrawer
}

// curveStyles picks the style of every line: random search grey, the line
// holding qVS-AS q = 1 vermillion (the paper's method in its red), the
// others the palette's colours in order; solid for qVS-AS and dashed,
// dotted or dash-dotted for baselines; and a marker shape per line, so
// lines stay apart in grey scale and for colour-blind readers. Past the
// palette's six colours, dashes and markers keep every line distinct.
func curveStyles(lines []curveLine) []lineStyle {
	markers := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}}
	dashes := [][]vg.Length{{vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)}, {vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)}}
	out := make([]lineStyle, len(lines))
	next, baseline := 0, 0
	for i, l := range lines {
		st := lineStyle{marker: markers[i%len(markers)]}
		qvs := false
		for _, s := range l.series {
			m := strings.ToLower(s.method)
			switch {
			case m == "random":
				st.color = curveGrey
			case (m == "qvs" || m == "qvs-as") && qValue(s.q) == 1:
				st.color = vermillion
			}
			qvs = qvs || m == "qvs" || m == "qvs-as"
		}
		if st.color == nil {
			st.color = okabeIto[next%len(okabeIto)]
			next++
		}
		if !qvs {
			st.dashes = dashes[baseline%len(dashes)]
			baseline++
		}
		out[i] = st
	}
	return out
}

// addStyledBand adds a mean line with its mean +- SE band and markers every
// few points (offset per line so markers of close lines do not coincide),
// with a legend entry showing line and marker.
func addStyledBand(p *plot.Plot, leg *outsideLegend, b Band, label string, st lineStyle) error {
	poly, l, line, err := bandLayers(b, label, st.color, 40)
	if err != nil {
		return err
	}
	l.Width, l.Dashes = vg.Points(1.1), st.dashes
	const markersPerLine = 6
	step := max(1, len(line)/markersPerLine)
	var marks plotter.XYs
	for k := (len(leg.items) * step / 4) % step; k < len(line); k += step {
		marks = append(marks, line[k])
	}
	m, err := scatter(marks, st.marker, vg.Points(2.2), st.color)
	if err != nil {
		return err
	}
	p.Add(poly, l, m)
	leg.Add(label, l, m)
	return nil
}

// maxBackground bounds the pool items drawn as background dots: a 10^5-item
// pool is thinned by a fixed stride (positives are always drawn), which keeps
// the SVG small and the picture the same.
const maxBackground = 10000

// poolEmbedding is the 2-D PCA of a pool's features (dense, or fingerprint
// bits as 0/1 features) with the labels as values (1 = positive).
func poolEmbedding(pool *datasets.Pool) (*embedding, error) {
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
	case pool.Dense32.Data != nil:
		if pool.Dense32.Len() != n || n == 0 {
			return nil, fmt.Errorf("pool %s: %d float32 feature rows for %d items", pool.Name, pool.Dense32.Len(), n)
		}
		d = pool.Dense32.D
		row = func(i int, dst []float64) {
			for c, v := range pool.Dense32.Row(i) {
				dst[c] = float64(v)
			}
		}
	case pool.Bits != nil:
		row, d = bitRow(pool.Bits)
	default:
		return nil, fmt.Errorf("pool %s has no features", pool.Name)
	}
	x, y, err := linalg.PCA2(n, d, row)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", pool.Name, err)
	}
	e := &embedding{X: x, Y: y, Value: make([]float64, n)}
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

// queryScatterFigure draws the paper's Figure 2 for an active-search
// campaign: the pool on its 2-D PCA (grey; unqueried positives blue) with
// the queries of one repeat of the diversity-blind policy (one-step, or
// qVS-AS q = 0) and of qVS-AS q = 1 (queried positives vermillion,
// negatives black crosses), and the count and VS_1 of the positives each
// found in the panel title. The repeat drawn is the one whose VS_1 gain of
// qVS-AS over the blind policy is the median over repeats (medianGainRepeat),
// so the picture shows the typical case rather than whichever repeat came
// first; the note under the panels says so. The legend sits below the
// panels, never over points.
func queryScatterFigure(c *Campaign, e *embedding, base string, formats []string) ([]string, error) {
	n := len(e.X)
	type pick struct {
		label string
		g     *group
	}
	var blind, ours *group
	for _, g := range c.Groups() {
		switch {
		case g.Method == "one-step":
			blind = g
		case (g.Method == "qvs" || g.Method == "qvs-as") && qValue(g.Q) == 0 && blind == nil:
			blind = g
		case (g.Method == "qvs" || g.Method == "qvs-as") && qValue(g.Q) == 1:
			ours = g
		}
	}
	if blind == nil || ours == nil {
		return nil, fmt.Errorf("needs runs of one-step (or qVS-AS q=0) and qVS-AS q=1")
	}
	choice, err := medianGainRepeat(blind, ours)
	if err != nil {
		return nil, err
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
	leg := &outsideLegend{Columns: 4, Size: vg.Points(10)}
	leg.Note = fmt.Sprintf("Repeat %s of %d: the one whose VS_1 gain of qVS-AS q=1 over %s (%s) is the median over repeats.",
		choice.Repeat, choice.Repeats, blind.Label(), signed(choice.Gain))
	var panels []*plot.Plot
	for k, pk := range []pick{{"diversity-blind (" + blind.Label() + ")", blind}, {"qVS-AS q=1", ours}} {
		run := runOfRepeat(pk.g, choice.Repeat)
		idx, pos, err := asQueries(c, run["key"], n)
		if err != nil {
			return nil, err
		}
		var hit, miss plotter.XYs
		for j, i := range idx {
			if pos[j] {
				hit = append(hit, plotter.XY{X: e.X[i], Y: e.Y[i]})
			} else {
				miss = append(miss, plotter.XY{X: e.X[i], Y: e.Y[i]})
			}
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, repeat %s: %d positives, VS_1 %s", pk.label, choice.Repeat, len(hit), round(parseFloat(run["vs_q1"])))
		p.Title.TextStyle.Font.Size = vg.Points(11)
		p.X.Label.Text, p.Y.Label.Text = "PC 1", "PC 2"
		layers := []struct {
			pts    plotter.XYs
			shape  draw.GlyphDrawer
			radius float64
			col    color.Color
			legend string
		}{
			{background, draw.CircleGlyph{}, 1.1, color.RGBA{200, 200, 200, 255}, "pool (negative)"},
			{positives, draw.CircleGlyph{}, 1.2, color.RGBA{86, 180, 233, 255}, "positive, not queried"},
			{miss, draw.CrossGlyph{}, 2.6, color.RGBA{0, 0, 0, 255}, "queried negative"},
			{hit, draw.CircleGlyph{}, 2.8, vermillion, "queried positive"},
		}
		for _, l := range layers {
			if len(l.pts) == 0 {
				continue
			}
			s, err := scatter(l.pts, l.shape, vg.Points(l.radius), l.col)
			if err != nil {
				return nil, err
			}
			p.Add(s)
			if k == 0 {
				// The legend thumbnail is drawn larger than the dots so
				// that the small pool markers are readable in it.
				big := *s
				big.GlyphStyle.Radius = vg.Points(math.Max(l.radius, 3))
				leg.Add(l.legend, &big)
			}
		}
		panels = append(panels, p)
	}
	return saveFigureWithLegend(base, formats, 11*vg.Inch, 5*vg.Inch+leg.height(), figureDPI, [][]*plot.Plot{panels}, leg)
}

func signed(v float64) string {
	if v >= 0 {
		return "+" + round(v)
	}
	return round(v)
}

// repeatChoice is the repeat a figure draws and why.
type repeatChoice struct {
	Repeat  string  // the repeat drawn
	Gain    float64 // its VS_1 gain (ours - blind)
	Repeats int     // repeats both groups ran with a finite VS_1
}

// medianGainRepeat returns the repeat, among those both groups ran with a
// finite vs_q1, whose gain VS_1(ours) - VS_1(blind) is the median of the
// gains: the middle one for an odd count, the lower of the two middle ones
// for an even count (a repeat that exists, not an average); equal gains are
// ordered by repeat number.
func medianGainRepeat(blind, ours *group) (repeatChoice, error) {
	base := map[string]float64{}
	for _, r := range blind.Runs {
		if v := parseFloat(r["vs_q1"]); !math.IsNaN(v) && !math.IsInf(v, 0) {
			base[r["repeat"]] = v
		}
	}
	type gain struct {
		repeat string
		num    int
		gain   float64
	}
	var gains []gain
	for _, r := range ours.Runs {
		b, ok := base[r["repeat"]]
		v := parseFloat(r["vs_q1"])
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		num, err := strconv.Atoi(r["repeat"])
		if err != nil {
			continue
		}
		gains = append(gains, gain{r["repeat"], num, v - b})
	}
	if len(gains) == 0 {
		return repeatChoice{}, fmt.Errorf("%s and %s share no repeat with a VS_1 value", blind.Label(), ours.Label())
	}
	sort.Slice(gains, func(a, b int) bool {
		if gains[a].gain != gains[b].gain {
			return gains[a].gain < gains[b].gain
		}
		return gains[a].num < gains[b].num
	})
	m := gains[(len(gains)-1)/2]
	return repeatChoice{Repeat: m.repeat, Gain: m.gain, Repeats: len(gains)}, nil
}
