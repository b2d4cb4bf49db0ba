package eval

import (
	"image"
	"image/color"
	"testing"
)

func TestPaletted(t *testing.T) {
	// Few colours: exact.
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	cs := []color.RGBA{{255, 255, 255, 255}, {214, 39, 40, 255}, {0, 0, 0, 255}}
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			img.SetRGBA(x, y, cs[(x+y)%3])
		}
	}
	p, ok := paletted(img)
	if !ok {
		t.Fatal("three colours: not paletted")
	}
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			if got := color.RGBAModel.Convert(p.At(x, y)); got != cs[(x+y)%3] {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, got, cs[(x+y)%3])
			}
		}
	}
	// 400 grey levels of one pixel each plus a dominant white row: the
	// palette keeps 256 colours and every other pixel moves to a
	// neighbouring level.
	img = image.NewRGBA(image.Rect(0, 0, 400, 2))
	for x := 0; x < 400; x++ {
		img.SetRGBA(x, 1, color.RGBA{255, 255, 255, 255})
		v := uint8(x * 255 / 399)
		img.SetRGBA(x, 0, color.RGBA{v, v, v, 255})
	}
	p, ok = paletted(img)
	if !ok || len(p.Palette) != 256 {
		t.Fatalf("palette of %d colours, want 256", len(p.Palette))
	}
	for x := 0; x < 400; x++ {
		want := img.RGBAAt(x, 0)
		got := color.RGBAModel.Convert(p.At(x, 0)).(color.RGBA)
		if d := int(got.R) - int(want.R); d < -3 || d > 3 {
			t.Fatalf("pixel %d: %v, want about %v", x, got, want)
		}
	}
}

// TestPalettedRefusesRamps: an image whose many shades cannot be kept is
// left RGBA rather than recoloured.
func TestPalettedRefusesRamps(t *testing.T) {
	// 1,024 shades, each a 16 x 16 block (a filled area, not an edge).
	img := image.NewRGBA(image.Rect(0, 0, 512, 512))
	for y := 0; y < 512; y++ {
		for x := 0; x < 512; x++ {
			img.SetRGBA(x, y, color.RGBA{uint8(8 * (x / 16)), uint8(8 * (y / 16)), 128, 255})
		}
	}
	if _, ok := paletted(img); ok {
		t.Error("a 1,024-shade ramp was paletted")
	}
}

// TestMethodColorOfUnknownMethods: a method eval has no fixed colour for
// (a newly registered policy) gets one from its name: not black (the
// replay's greedy and top keep black), the same on every call and for
// either case, and two such methods get different colours.
func TestMethodColorOfUnknownMethods(t *testing.T) {
	black := color.RGBA{0, 0, 0, 255}
	for _, m := range []string{"greedy", "top", "GREEDY"} {
		if c := methodColor(m, "", 0); c != black {
			t.Errorf("%s: %v, want black", m, c)
		}
	}
	a, b := methodColor("greedy-div", "", 0), methodColor("thompson-batch", "", 0)
	if a == black || b == black {
		t.Errorf("an unknown method drawn black: %v %v", a, b)
	}
	if a == b {
		t.Errorf("two unknown methods share %v", a)
	}
	if methodColor("Greedy-Div", "", 3) != a {
		t.Error("an unknown method's colour depends on case or order")
	}
	for _, c := range fallbackColors {
		for _, m := range []string{"random", "one-step", "eci", "select", "ens", "robot"} {
			if methodColor(m, "", 0) == c {
				t.Errorf("fallback colour %v is %s's", c, m)
			}
		}
	}
}
