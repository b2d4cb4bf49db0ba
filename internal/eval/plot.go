package eval

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// figureDPI keeps committed PNGs small (a 7 x 4.5 in figure is 672 x 432).
const figureDPI = 96

// FigureFormats are the image formats figures are written in.
var FigureFormats = []string{"png", "svg"}

// renderFigure draws with paint onto a w x h canvas (PNG at dpi) and writes
// base.png / base.svg atomically for each format.
func renderFigure(base string, formats []string, w, h vg.Length, dpi int, paint func(draw.Canvas)) ([]string, error) {
	var paths []string
	for _, f := range formats {
		var c vg.CanvasWriterTo
		switch f {
		case "png":
			img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
			c = compactPNG{img}
		case "svg":
			c = vgsvg.New(w, h)
		default:
			return paths, fmt.Errorf("figure format %q: expected png or svg", f)
		}
		dc := draw.New(c)
		if f == "svg" {
			dc.SetColor(color.White)
			dc.Fill(dc.Rectangle.Path())
		}
		paint(dc)
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return paths, fmt.Errorf("render %s.%s: %w", base, f, err)
		}
		path := base + "." + f
		if err := fileio.WriteAtomic(path, buf.Bytes()); err != nil {
			return paths, &writeError{err}
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeError is a failure to write an output file (disk full, permissions,
// a file where a folder should be), as opposed to a figure that cannot be
// drawn from the data: Evaluate lists the latter under "not made" and fails
// on the former.
type writeError struct{ Err error }

func (e *writeError) Error() string { return e.Err.Error() }
func (e *writeError) Unwrap() error { return e.Err }

// drawGrid aligns the plots' axes across the grid (plot.Align) and draws
// them; a nil plot leaves its tile empty.
// compactPNG writes a vgimg canvas as a best-compression PNG, paletted when
// 256 colours render it faithfully (committed figures stay small: about a
// third of vgimg.PngCanvas's RGBA file), RGBA otherwise.
type compactPNG struct{ *vgimg.Canvas }

func (c compactPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &fileio.CountingWriter{W: w}
	var img image.Image = c.Image()
	if p, ok := paletted(img); ok {
		img = p
	}
	err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(cw, img)
	return cw.N, err
}

// Limits of a faithful palette: a colour moved by more than paletteMaxShift
// (Euclidean RGB distance) is recoloured. Anti-aliased edge shades (each a
// handful of pixels) may be; shades of at least paletteAreaPixels pixels
// (a filled area, a marker colour) may cover at most paletteMaxArea of the
// image, else the palette would repaint part of the figure.
const (
	paletteMaxShift   = 24
	paletteAreaPixels = 20
	paletteMaxArea    = 0.002
)

// paletted maps img onto its 256 most frequent colours, every other colour
// (anti-aliased edges) to the nearest of them in RGB. ok is false when that
// visibly recolours more than a few pixels (a colour ramp with more than
// 256 shades), and the caller keeps the RGBA image.
func paletted(img image.Image) (out *image.Paletted, ok bool) {
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	cols := make([]color.RGBA, 0, len(count))
	for c := range count {
		cols = append(cols, c)
	}
	sort.Slice(cols, func(i, j int) bool {
		if count[cols[i]] != count[cols[j]] {
			return count[cols[i]] > count[cols[j]]
		}
		a, b := cols[i], cols[j]
		return uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A) < uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A)
	})
	if len(cols) > 256 {
		cols = cols[:256]
	}
	pal := make(color.Palette, len(cols))
	index := map[color.RGBA]uint8{}
	for i, c := range cols {
		pal[i] = c
		index[c] = uint8(i)
	}
	shifted := 0
	for c, n := range count {
		if _, ok := index[c]; ok {
			continue
		}
		i := uint8(pal.Index(c))
		index[c] = i
		p := cols[i]
		dr, dg, db := float64(c.R)-float64(p.R), float64(c.G)-float64(p.G), float64(c.B)-float64(p.B)
		if n >= paletteAreaPixels && dr*dr+dg*dg+db*db > paletteMaxShift*paletteMaxShift {
			shifted += n
		}
	}
	if float64(shifted) > paletteMaxArea*float64(b.Dx()*b.Dy()) {
		return nil, false
	}
	out = image.NewPaletted(b, pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.SetColorIndex(x, y, index[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)])
		}
	}
	return out, true
}

func drawGrid(dc draw.Canvas, grid [][]*plot.Plot) {
	rows := len(grid)
	cols := 0
	for _, r := range grid {
		cols = max(cols, len(r))
	}
	full := make([][]*plot.Plot, rows)
	for i := range full {
		full[i] = make([]*plot.Plot, cols)
		copy(full[i], grid[i])
		for j := range full[i] {
			if full[i][j] == nil {
				full[i][j] = blankPlot()
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(full, tiles, dc)
	for i := range full {
		for j := range full[i] {
			if j < len(grid[i]) && grid[i][j] != nil {
				full[i][j].Draw(canvases[i][j])
			}
		}
	}
}

func blankPlot() *plot.Plot {
	p := plot.New()
	p.HideAxes()
	return p
}

// newPlot returns a plot with a title, axis labels and a light grid.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// qColors are the colours of the qVS methods by order q, the same in every
// figure; q = 1 (the paper's default) gets the red the paper draws its
// method in.
var qColors = map[string]color.RGBA{
	"0":   {23, 60, 140, 255},
	"0.1": {227, 119, 194, 255},
	"0.5": {255, 127, 14, 255},
	"1":   {214, 39, 40, 255},
	"1.5": {140, 86, 75, 255},
	"2":   {140, 20, 75, 255},
	"inf": {110, 110, 20, 255},
}

// methodColor gives a method (summary name) and order q a stable colour:
// qVS variants by q, baselines in fixed colours.
func methodColor(method, q string, qIndex int) color.Color {
	switch l := strings.ToLower(method); {
	case strings.HasPrefix(l, "qvs"):
		if c, ok := qColors[strings.ToLower(q)]; ok {
			return c
		}
		extra := []color.RGBA{{188, 189, 34, 255}, {255, 152, 150, 255}, {197, 176, 213, 255}}
		return extra[qIndex%len(extra)]
	case l == "random":
		return color.RGBA{127, 127, 127, 255}
	case l == "turbo", l == "one-step", l == "ucb":
		return color.RGBA{31, 119, 180, 255}
	case l == "robot", l == "eci":
		return color.RGBA{44, 160, 44, 255}
	case l == "select":
		return color.RGBA{148, 103, 189, 255}
	case l == "ens":
		return color.RGBA{23, 190, 207, 255}
	case l == "greedy", l == "top":
		// The diversity-blind references of a replay: black.
		return color.RGBA{0, 0, 0, 255}
	}
	// A method eval does not know (a newly registered policy): a colour of
	// its own from its name, the same in every figure and every run.
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(method)))
	return fallbackColors[h.Sum32()%uint32(len(fallbackColors))]
}

// fallbackColors are the colours of methods without a fixed one: dark
// and saturated enough for a line on white, none a fixed colour above.
var fallbackColors = []color.RGBA{
	{214, 39, 40, 255}, {255, 127, 14, 255}, {227, 119, 194, 255}, {188, 189, 34, 255},
	{0, 90, 50, 255}, {120, 40, 140, 255}, {0, 60, 130, 255}, {160, 100, 0, 255},
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// Premultiplied colour for image/color: scale the channels by alpha.
	return color.RGBA{uint8(uint32(r>>8) * uint32(a) / 255), uint8(uint32(g>>8) * uint32(a) / 255), uint8(uint32(b>>8) * uint32(a) / 255), a}
}

// addBand adds a mean line with a mean +- SE band of b to p, labelled in
// the legend. Points with fewer than one value are skipped; where the SE is
// undefined (one run) the band has zero width.
func addBand(p *plot.Plot, b Band, label string, c color.Color, dashed bool) error {
	l, err := addBandLine(p, b, label, c, dashed)
	if err != nil {
		return err
	}
	p.Legend.Add(label, l)
	return nil
}

// addBandLine is addBand without the legend entry; it returns the mean
// line for a legend drawn elsewhere (outsideLegend).
func addBandLine(p *plot.Plot, b Band, label string, c color.Color, dashed bool) (*plotter.Line, error) {
	poly, l, _, err := bandLayers(b, label, c, 35)
	if err != nil {
		return nil, err
	}
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	p.Add(poly, l)
	return l, nil
}

// bandLayers returns the mean +- SE polygon of b (colour c at alpha), its
// mean line in c and the line's points.
func bandLayers(b Band, label string, c color.Color, alpha uint8) (*plotter.Polygon, *plotter.Line, plotter.XYs, error) {
	var line, upper, lower plotter.XYs
	for i, s := range b.Stat {
		if s.N == 0 || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
			continue
		}
		se := s.SE
		if math.IsNaN(se) {
			se = 0
		}
		line = append(line, plotter.XY{X: b.X[i], Y: s.Mean})
		upper = append(upper, plotter.XY{X: b.X[i], Y: s.Mean + se})
		lower = append(lower, plotter.XY{X: b.X[i], Y: s.Mean - se})
	}
	if len(line) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no finite values to plot", label)
	}
	ring := append(plotter.XYs{}, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		ring = append(ring, lower[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, nil, nil, err
	}
	poly.Color = withAlpha(c, alpha)
	poly.LineStyle.Width = 0
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, nil, nil, err
	}
	l.Color = c
	return poly, l, line, nil
}

// scatter returns a scatter plotter of points with glyph shape, size and colour.
func scatter(pts plotter.XYs, shape draw.GlyphDrawer, radius vg.Length, c color.Color) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: radius, Shape: shape}
	return s, nil
}

// colorScale maps values to colours on a light-to-dark ramp (for objective
// values on an embedding, as the paper's Figure 5).
type colorScale struct{ Min, Max float64 }

// newColorScale spans the finite values of v (a constant v gets a unit span).
func newColorScale(v []float64) colorScale {
	s := colorScale{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
		}
	}
	if s.Min > s.Max {
		s.Min, s.Max = 0, 1
	}
	if s.Max == s.Min {
		s.Max = s.Min + 1
	}
	return s
}

// At returns the colour of x: pale yellow (low) through orange to dark
// purple (high), a viridis-like ramp readable in grey scale.
func (s colorScale) At(x float64) color.Color {
	t := (x - s.Min) / (s.Max - s.Min)
	if math.IsNaN(t) {
		return color.RGBA{200, 200, 200, 255}
	}
	// 24 shades: enough to read the ramp, few enough for a paletted PNG.
	t = math.Round(math.Max(0, math.Min(1, t))*23) / 23
	stops := []color.RGBA{{253, 231, 37, 255}, {94, 201, 98, 255}, {33, 145, 140, 255}, {59, 82, 139, 255}, {68, 1, 84, 255}}
	f := t * float64(len(stops)-1)
	i := int(f)
	if i >= len(stops)-1 {
		return stops[len(stops)-1]
	}
	a, b, u := stops[i], stops[i+1], f-float64(i)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-u) + float64(y)*u)) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// colorBarPlot is a plot holding only a vertical colour bar of s, its
// values on the y axis under label: one filled band per shade of the scale
// (24), so the PNG's palette keeps room for the other colours (an image bar
// interpolated per pixel filled it, and red crosses turned grey).
func colorBarPlot(s colorScale, label string) *plot.Plot {
	p := plot.New()
	const shades = 24
	step := (s.Max - s.Min) / shades
	for k := 0; k < shades; k++ {
		lo, hi := s.Min+float64(k)*step, s.Min+float64(k+1)*step
		poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: lo}, {X: 1, Y: lo}, {X: 1, Y: hi}, {X: 0, Y: hi}})
		if err != nil { // four finite points: cannot fail
			continue
		}
		poly.Color = s.At((lo + hi) / 2)
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = s.Min, s.Max
	p.HideX()
	p.Y.Label.Text = label
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	return p
}
