package eval

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// outsideLegend is a legend drawn below a figure's plots, in columns, so it
// never hides data (gonum's plot.Legend is drawn inside the data area).
// An optional note line (what the figure shows, which repeat) comes first.
type outsideLegend struct {
	Note    string
	Columns int       // entries per row (>= 1)
	Size    vg.Length // font size
	items   []legendItem
}

type legendItem struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Add adds an entry drawn with the thumbnails of the plotters given.
func (l *outsideLegend) Add(name string, thumbs ...plot.Thumbnailer) {
	l.items = append(l.items, legendItem{name, thumbs})
}

// rows is the number of text lines the legend takes, note included.
func (l *outsideLegend) rows() int {
	cols := max(1, l.Columns)
	n := (len(l.items) + cols - 1) / cols
	if l.Note != "" {
		n++
	}
	return n
}

// height is the height of the legend's band below the plots.
func (l *outsideLegend) height() vg.Length {
	return vg.Length(l.rows())*l.Size*1.45 + l.Size*1.4
}

// draw draws the legend in c, column-major: entry i goes to column
// i / rows, so reading down a column follows the plotting order.
func (l *outsideLegend) draw(c draw.Canvas) {
	cols := max(1, l.Columns)
	perCol := (len(l.items) + cols - 1) / cols
	top := c.Max.Y - l.Size*0.9 // clear of the tick labels above
	if l.Note != "" {
		sty := newLegendStyle(l.Size)
		c.FillText(sty.TextStyle, vg.Point{X: c.Min.X + l.Size, Y: top - l.Size}, l.Note)
		top -= l.Size * 1.45
	}
	w := (c.Max.X - c.Min.X) / vg.Length(cols)
	for k := 0; k < cols; k++ {
		leg := newLegendStyle(l.Size)
		for i := k * perCol; i < min(len(l.items), (k+1)*perCol); i++ {
			leg.Add(l.items[i].name, l.items[i].thumbs...)
		}
		cell := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X + vg.Length(k)*w + l.Size, Y: c.Min.Y},
			Max: vg.Point{X: c.Min.X + vg.Length(k+1)*w, Y: top},
		}}
		leg.Draw(cell)
	}
}

func newLegendStyle(size vg.Length) plot.Legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font = font.From(leg.TextStyle.Font, size)
	leg.Padding = size * 0.45
	leg.ThumbnailWidth = size * 2.6
	return leg
}

// saveFigureWithLegend draws a grid of plots (rows x cols, nil entries
// left blank) with leg in a band below it onto a w x h canvas and writes
// base.png (at dpi) and base.svg atomically for each format; it returns
// the paths written.
func saveFigureWithLegend(base string, formats []string, w, h vg.Length, dpi int, grid [][]*plot.Plot, leg *outsideLegend) ([]string, error) {
	return renderFigure(base, formats, w, h, dpi, func(dc draw.Canvas) {
		lh := leg.height()
		drawGrid(draw.Crop(dc, 0, 0, lh, 0), grid)
		band := dc
		band.Max.Y = dc.Min.Y + lh
		leg.draw(band)
	})
}
