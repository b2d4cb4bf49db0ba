package eval

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// curve is one run's series, e.g. best value so far against evaluations.
type curve struct {
	X, Y []float64
}

// readCurve reads columns xcol and ycol of a per-run CSV with a header.
// Rows must have increasing x; a y that does not parse is an error naming
// the row.
func readCurve(path, xcol, ycol string) (curve, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return curve{}, err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return curve{}, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return curve{}, fmt.Errorf("%s: empty file, expected a header with %s and %s", path, xcol, ycol)
	}
	xi, yi := -1, -1
	for j, h := range recs[0] {
		switch h {
		case xcol:
			xi = j
		case ycol:
			yi = j
		}
	}
	if xi < 0 || yi < 0 {
		return curve{}, fmt.Errorf("%s: header %v lacks column %q or %q", path, recs[0], xcol, ycol)
	}
	var c curve
	for i, r := range recs[1:] {
		x, err1 := strconv.ParseFloat(strings.TrimSpace(r[xi]), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(r[yi]), 64)
		if err1 != nil || err2 != nil || math.IsNaN(x) {
			return curve{}, fmt.Errorf("%s: row %d: %s=%q, %s=%q: expected numbers", path, i+2, xcol, r[xi], ycol, r[yi])
		}
		if len(c.X) > 0 && x < c.X[len(c.X)-1] {
			return curve{}, fmt.Errorf("%s: row %d: %s=%v decreases (previous %v)", path, i+2, xcol, x, c.X[len(c.X)-1])
		}
		c.X = append(c.X, x)
		c.Y = append(c.Y, y)
	}
	return c, nil
}

// Band is the mean and standard error of several runs' curves on a common
// grid.
type Band struct {
	X    []float64
	Stat []Stat
}

// aggregateCurves averages curves on the union of their x values. Each run
// is read as a step function (its last value at or before x), so runs that
// record at different x still align; a run does not count beyond its own
// last x, so N drops where runs end early.
func aggregateCurves(curves []curve) Band {
	var grid []float64
	for _, c := range curves {
		grid = append(grid, c.X...)
	}
	sort.Float64s(grid)
	grid = dedupe(grid)
	b := Band{X: grid, Stat: make([]Stat, len(grid))}
	vals := make([]float64, 0, len(curves))
	for i, x := range grid {
		vals = vals[:0]
		for _, c := range curves {
			if len(c.X) == 0 || x < c.X[0] || x > c.X[len(c.X)-1] {
				continue
			}
			k := sort.Search(len(c.X), func(k int) bool { return c.X[k] > x }) - 1
			vals = append(vals, c.Y[k])
		}
		b.Stat[i] = Summarize(vals)
	}
	return b
}

func dedupe(x []float64) []float64 {
	out := x[:0]
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			out = append(out, v)
		}
	}
	return out
}
