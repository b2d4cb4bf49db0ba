package toy

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure geometry: each panel is about 2.2 x 2.3 inches, so the 2 x 5 grid
// of Figure 1 is 11.5 x 5 inches; at 100 dpi the PNG stays small.
const (
	panelWidth  = 2.3 * vg.Inch
	panelHeight = 2.5 * vg.Inch
	figureDPI   = 100
	heatPixels  = 160 // heat-map raster resolution per side
)

// qualityPalette maps the quality range [exp(-1), 1] of the domain to light
// (low) through dark blue (high), the ColorBrewer "Blues" ramp, so the red
// crosses stand out everywhere.
func qualityPalette() (palette.ColorMap, error) {
	// NewLuminance wants increasing luminance: list dark to light, reverse.
	dark, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{0x08, 0x45, 0x94, 0xff},
		color.NRGBA{0x42, 0x92, 0xc6, 0xff},
		color.NRGBA{0x9e, 0xca, 0xe1, 0xff},
		color.NRGBA{0xf7, 0xfb, 0xff, 0xff},
	})
	if err != nil {
		return nil, err
	}
	cm := palette.Reverse(dark)
	cm.SetMin(math.Exp(-1)) // quality at the corners (+-1, +-1)
	cm.SetMax(1)            // quality at the centre
	return cm, nil
}

// qualityImage rasterises Quality over [-1, 1]^2 (image row 0 is y = 1).
func qualityImage(cm palette.ColorMap) (image.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, heatPixels, heatPixels))
	step := (hi - lo) / heatPixels
	for r := 0; r < heatPixels; r++ {
		for c := 0; c < heatPixels; c++ {
			x := Point{lo + (float64(c)+0.5)*step, hi - (float64(r)+0.5)*step}
			col, err := cm.At(math.Min(1, math.Max(math.Exp(-1), quality(x))))
			if err != nil {
				return nil, err
			}
			img.Set(c, r, col)
		}
	}
	return img, nil
}

// boldCross is a red "x" drawn with a visible stroke (draw.CrossGlyph uses a
// hairline that vanishes on the heat map at 100 dpi).
type boldCross struct{}

func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.6)})
	r := sty.Radius * math.Sqrt2 / 2
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	c.Stroke(p)
}

// layout checks that panels are the VS row then the qVS row over the same
// orders, and returns the orders.
func layout(panels []Panel) ([]vendi.Order, error) {
	if len(panels) == 0 || len(panels)%2 != 0 {
		return nil, fmt.Errorf("toy: figure needs a VS row and a qVS row of equal length, got %d panels", len(panels))
	}
	m := len(panels) / 2
	orders := make([]vendi.Order, m)
	for j := 0; j < m; j++ {
		top, bottom := panels[j], panels[m+j]
		if top.Row != targetVS || bottom.Row != targetQVS || top.Q != bottom.Q {
			return nil, fmt.Errorf("toy: panel %d and %d are (%v, q=%v) and (%v, q=%v), want VS and qVS at one order", j, m+j, top.Row, top.Q, bottom.Row, bottom.Q)
		}
		orders[j] = top.Q
	}
	return orders, nil
}

// figurePlots builds one plot per panel in the grid of Figure 1: the VS row
// on top, the qVS row below, one column per order with "q = ..." under the
// bottom row. The first empty panel (VS_0, blank in the paper) holds the
// colour bar of the heat map's quality; without one, the bar gets a column
// of its own at the right.
func figurePlots(panels []Panel) ([][]*plot.Plot, error) {
	orders, err := layout(panels)
	if err != nil {
		return nil, err
	}
	cm, err := qualityPalette()
	if err != nil {
		return nil, err
	}
	heat, err := qualityImage(cm)
	if err != nil {
		return nil, err
	}
	m := len(orders)
	grid := [][]*plot.Plot{make([]*plot.Plot, m), make([]*plot.Plot, m)}
	ticks := plot.ConstantTicks([]plot.Tick{{Value: -1, Label: "-1"}, {Value: 0, Label: "0"}, {Value: 1, Label: "1"}})
	for k, pn := range panels {
		row, col := k/m, k%m
		if pn.Empty {
			continue
		}
		p := plot.New()
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
		p.X.Tick.Marker, p.Y.Tick.Marker = ticks, ticks
		p.Add(plotter.NewImage(heat, lo, lo, hi, hi))
		xy := make(plotter.XYs, len(pn.Points))
		for i, x := range pn.Points {
			xy[i].X, xy[i].Y = x[0], x[1]
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Shape: boldCross{}, Color: color.NRGBA{0xe0, 0x10, 0x10, 0xff}, Radius: vg.Points(4.5)}
		p.Add(sc)
		// Coinciding points would hide each other: label each stack with
		// its multiplicity, beside the cross on the side facing the centre.
		for _, st := range Stacks(pn.Points) {
			if st.Count < 2 {
				continue
			}
			l, err := plotter.NewLabels(plotter.XYLabels{
				XYs:    plotter.XYs{{X: st.At[0], Y: st.At[1]}},
				Labels: []string{fmt.Sprintf("×%d", st.Count)},
			})
			if err != nil {
				return nil, err
			}
			ts := &l.TextStyle[0]
			ts.Font.Size = vg.Points(10)
			ts.Color = color.Black
			if quality(st.At) > 0.8 { // dark blue background
				ts.Color = color.White
			}
			const gap = 6 // points between the cross and its label
			ts.XAlign, ts.YAlign = draw.XLeft, draw.YBottom
			l.Offset = vg.Point{X: vg.Points(gap), Y: vg.Points(gap)}
			if st.At[0] > 0 {
				ts.XAlign, l.Offset.X = draw.XRight, -l.Offset.X
			}
			if st.At[1] > 0 {
				ts.YAlign, l.Offset.Y = draw.YTop, -l.Offset.Y
			}
			p.Add(l)
		}
		q := pn.Q.String()
		if pn.Row == targetVS {
			p.Title.Text = fmt.Sprintf("VS = %.3f", pn.VS)
		} else {
			p.Title.Text = fmt.Sprintf("qVS = %.3f", pn.QVS)
		}
		p.Title.TextStyle.Font.Size = vg.Points(9)
		if row == 1 {
			p.X.Label.Text = "q = " + q
			p.X.Label.TextStyle.Font.Size = vg.Points(12)
		}
		if col == 0 {
			p.Y.Label.Text = pn.Row.String()
			p.Y.Label.TextStyle.Font.Size = vg.Points(12)
		}
		grid[row][col] = p
	}
	// A column whose bottom panel exists but whose first column is empty
	// still needs the row label: put it on the first drawn plot of the row.
	for r := range grid {
		for _, p := range grid[r] {
			if p != nil {
				if p.Y.Label.Text == "" {
					p.Y.Label.Text = []string{"VS", "qVS"}[r]
					p.Y.Label.TextStyle.Font.Size = vg.Points(12)
				}
				break
			}
		}
	}
	// The heat map's colour bar (the quality scale of qualityPalette) goes
	// in the first blank cell (the VS_0 panel the paper leaves empty), or in
	// a column of its own.
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Title.Text = "quality of a point (heat map)"
	bar.Title.TextStyle.Font.Size = vg.Points(9)
	placed := false
	for r := range grid {
		for c := range grid[r] {
			if grid[r][c] == nil && !placed {
				grid[r][c], placed = bar, true
			}
		}
	}
	if !placed {
		grid[0] = append(grid[0], bar)
		grid[1] = append(grid[1], nil)
	}
	return grid, nil
}

// drawFigure renders panels (from Figure1) in format "png" or "svg" to w.
func drawFigure(w io.Writer, format string, panels []Panel) error {
	grid, err := figurePlots(panels)
	if err != nil {
		return err
	}
	cols := len(grid[0])
	width, height := vg.Length(cols)*panelWidth, 2*panelHeight
	var (
		canvas vg.CanvasWriterTo
		c      draw.Canvas
	)
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(figureDPI))
		canvas = vgimg.PngCanvas{Canvas: img}
		c = draw.New(img)
	case "svg":
		svg := vgsvg.New(width, height)
		canvas = svg
		c = draw.New(svg)
	default:
		return fmt.Errorf("toy: figure format %q: want png or svg", format)
	}
	// White background: vgimg starts transparent.
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	tiles := draw.Tiles{Rows: 2, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(6)}
	canvases := plot.Align(grid, tiles, c)
	for r := range grid {
		for j, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][j])
			}
		}
	}
	_, err = canvas.WriteTo(w)
	return err
}

// writeFigure writes the figure to path atomically (see drawFigure).
func writeFigure(path, format string, panels []Panel) error {
	if _, err := layout(panels); err != nil {
		return err
	}
	if format != "png" && format != "svg" {
		return fmt.Errorf("toy: figure format %q: want png or svg", format)
	}
	return fileio.WriteAtomicFunc(path, func(w io.Writer) error { return drawFigure(w, format, panels) })
}

// csvHeader is the header of toy.csv: one row per point of every panel.
var csvHeader = []string{"row", "q", "point", "x", "y", "vs", "qvs"}

// WriteResults writes the figure's data and the figure into dir, each file
// atomically, plain files first and the figure last: toy.csv (csvHeader;
// numbers in full precision), config.yaml (config marshalled as YAML: the
// resolved settings) and toy.FORMAT (writeFigure). It returns the paths of
// the CSV and the figure.
func WriteResults(dir, format string, panels []Panel, config any) (csvPath, figPath string, err error) {
	full := func(v float64) string { // as qvs score writes numbers: "inf" for +Inf
		if math.IsInf(v, 1) {
			return "inf"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var rows [][]string
	for _, p := range panels {
		for i, x := range p.Points {
			rows = append(rows, []string{p.Row.String(), p.Q.String(), strconv.Itoa(i), full(x[0]), full(x[1]), full(p.VS), full(p.QVS)})
		}
	}
	csvPath = filepath.Join(dir, "toy.csv")
	if err := fileio.WriteCSVAtomic(csvPath, csvHeader, rows); err != nil {
		return "", "", err
	}
	b, err := yaml.Marshal(config)
	if err != nil {
		return "", "", err
	}
	if err := fileio.WriteAtomic(filepath.Join(dir, "config.yaml"), b); err != nil {
		return "", "", err
	}
	figPath = filepath.Join(dir, "toy."+format)
	return csvPath, figPath, writeFigure(figPath, format, panels)
}
