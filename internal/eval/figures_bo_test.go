package eval

import (
	"context"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestStepBand: each value holds until the next x, where the curve jumps.
func TestStepBand(t *testing.T) {
	b := Band{X: []float64{1, 2, 4}, Stat: []Stat{{Mean: 5, N: 1}, {Mean: 3, N: 1}, {Mean: 2, N: 1}}}
	got := stepBand(b)
	wantX := []float64{1, 2, 2, 4, 4}
	wantY := []float64{5, 5, 3, 3, 2}
	if len(got.X) != len(wantX) {
		t.Fatalf("%v", got)
	}
	for i := range wantX {
		if got.X[i] != wantX[i] || got.Stat[i].Mean != wantY[i] {
			t.Errorf("point %d: (%v, %v), want (%v, %v)", i, got.X[i], got.Stat[i].Mean, wantX[i], wantY[i])
		}
	}
}

// TestSpansDecades: a log axis only for positive means spanning >= 100x.
func TestSpansDecades(t *testing.T) {
	band := func(v ...float64) Band {
		var b Band
		for i, x := range v {
			b.X = append(b.X, float64(i))
			b.Stat = append(b.Stat, Stat{Mean: x, N: 1})
		}
		return b
	}
	for _, c := range []struct {
		bands []Band
		want  bool
	}{
		{[]Band{band(90, 5), band(0.4)}, true},            // Branin: 0.4 to 90
		{[]Band{band(90, 5), band(1)}, false},             // 90x
		{[]Band{band(-3, 5000)}, false},                   // not all positive
		{[]Band{band(math.NaN(), 1000, 1)}, true},         // NaN skipped
		{[]Band{band(1000, 10), band(math.Inf(1))}, true}, // Inf skipped; 1000/10: exactly two decades
	} {
		if got := spansDecades(c.bands); got != c.want {
			t.Errorf("%v: %v, want %v", c.bands, got, c.want)
		}
	}
}

// TestMDSFigureRedCrosses: the fixture's MDS figure keeps its queried items
// red in the PNG (a colour bar's shades once pushed the thin crosses' red
// out of the palette) and draws the colour bar.
func TestMDSFigureRedCrosses(t *testing.T) {
	out := t.TempDir()
	if _, err := Evaluate(context.Background(), Options{Dir: fixtureResults, Out: out, Formats: []string{"md"},
		FigureFormats: []string{"png"}, CacheDir: t.TempDir(), Workers: 2}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "figures", "mof-mds.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	red, ramp := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c == pickRed {
				red++
			}
			if c == (color.RGBA{253, 231, 37, 255}) { // the scale's lowest shade (colorScale.At)
				ramp++
			}
		}
	}
	if red < 50 || ramp < 50 {
		t.Errorf("%d pure red pixels (crosses), %d of the colour bar's lowest shade", red, ramp)
	}
}
