package toy

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qvs-dev/qvs/internal/vendi"
)

var inf = math.Inf(1)

// testStarts keeps the tests fast; the maxima they check are found by far
// fewer starts than the command's default (48 starts and 200 starts agree
// to every printed digit on the default seed).
const testStarts = 8

// figure runs Figure 1 once for all tests that only read it.
var figure = sync.OnceValues(func() ([]Panel, error) {
	return Figure1(context.Background(), defaultOrders, Config{N: DefaultN, Starts: testStarts, Workers: 2, Seed: 1})
})

func panelsOrFail(t *testing.T) []Panel {
	t.Helper()
	ps, err := figure()
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func meanDistance(x []Point) float64 {
	var d float64
	for _, p := range x {
		d += math.Hypot(p[0], p[1])
	}
	return d / float64(len(x))
}

func TestKernelAndQualityClosedForms(t *testing.T) {
	const tol = 1e-15 // single exp each
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"k(0, (1,1))", kernel(Point{0, 0}, Point{1, 1}), math.Exp(-1)},
		{"k(x, x)", kernel(Point{0.3, -0.7}, Point{0.3, -0.7}), 1},
		{"k corner to corner", kernel(Point{-1, -1}, Point{1, 1}), math.Exp(-4)},
		{"s(0)", quality(Point{0, 0}), 1},
		{"s(1, 0)", quality(Point{1, 0}), math.Exp(-0.5)},
		{"s(corner)", quality(Point{-1, 1}), math.Exp(-1)},
	} {
		if math.Abs(tc.got-tc.want) > tol {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestGradientFiniteDifferences checks the whole chain dF/dx (vendi's
// dVS/dK, the kernel and the quality) against central differences of
// Scores, which shares no code with the gradient.
func TestGradientFiniteDifferences(t *testing.T) {
	// h = 1e-6: O(h^2) truncation ~1e-12, rounding ~1e-16/1e-6 = 1e-10
	// relative; the agreement asked for is 1e-6 relative.
	const h, tol = 1e-6, 1e-6
	rng := rand.New(rand.NewPCG(1, 1))
	for _, target := range []Target{targetVS, targetQVS, targetMeanQuality} {
		for _, q := range []vendi.Order{0.1, 0.5, 1, 2, 5, vendi.OrderInf} {
			t.Run(fmt.Sprintf("%v/q=%v", target, q), func(t *testing.T) {
				const n = 6
				z := make([]float64, 2*n)
				for i := range z {
					z[i] = 1.8*rng.Float64() - 0.9 // interior: the box plays no role
				}
				o := newObjective(target, q, n)
				g := make([]float64, len(z))
				f, err := o.valueGrad(z, g)
				if err != nil {
					t.Fatal(err)
				}
				eval := func(z []float64) float64 {
					pts := make([]Point, n)
					for i := range pts {
						pts[i] = Point{z[2*i], z[2*i+1]}
					}
					vs, qvs, err := Scores(pts, q)
					if err != nil {
						t.Fatal(err)
					}
					switch target {
					case targetVS:
						return vs
					case targetQVS:
						return qvs
					}
					return meanQuality(pts)
				}
				if want := eval(z); math.Abs(f-want) > 1e-12*want {
					t.Errorf("value %v, Scores gives %v", f, want)
				}
				for i := range z {
					up := append([]float64(nil), z...)
					dn := append([]float64(nil), z...)
					up[i] += h
					dn[i] -= h
					fd := (eval(up) - eval(dn)) / (2 * h)
					if math.Abs(fd-g[i]) > tol*math.Max(1, math.Abs(fd)) {
						t.Errorf("dF/dz_%d = %.10g, finite difference %.10g", i, g[i], fd)
					}
				}
			})
		}
	}
}

// TestMaximizeBeatsRandomSets: the multi-start optimum must beat the best of
// 1,000 uniform random batches of 10 points, for every order with a
// gradient (q = 0 has none: VS_0 is piecewise constant).
func TestMaximizeBeatsRandomSets(t *testing.T) {
	ps := panelsOrFail(t)
	rng := rand.New(rand.NewPCG(1, 1))
	const sets = 1000 // from the issue
	for _, p := range ps {
		if p.Q == 0 {
			continue // nothing to ascend (see TestOrderZero)
		}
		best := math.Inf(-1)
		x := make([]Point, DefaultN)
		for s := 0; s < sets; s++ {
			for i := range x {
				x[i] = Point{2*rng.Float64() - 1, 2*rng.Float64() - 1}
			}
			vs, qvs, err := Scores(x, p.Q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Row == targetVS {
				best = math.Max(best, vs)
			} else {
				best = math.Max(best, qvs)
			}
		}
		got := p.VS
		if p.Row == targetQVS {
			got = p.QVS
		}
		if !(got > best) {
			t.Errorf("%v q=%v: optimised %v does not beat the best of %d random batches, %v", p.Row, p.Q, got, sets, best)
		}
		t.Logf("%v q=%s: optimised %.4f, best random %.4f", p.Row, p.Q.String(), got, best)
	}
}

// TestFigure1Claims checks the qualitative reading of Figure 1 (§2.4):
// qVS batches sit closer to the centre than VS batches of the same order,
// and VS batches move out to the boundary as q grows.
func TestFigure1Claims(t *testing.T) {
	ps := panelsOrFail(t)
	m := len(defaultOrders)
	prev := math.Inf(-1)
	for j, q := range defaultOrders {
		vsP, qvsP := ps[j], ps[m+j]
		if q == 0 {
			continue
		}
		dv, dq := meanDistance(vsP.Points), meanDistance(qvsP.Points)
		t.Logf("q=%s: mean distance from the centre VS %.4f, qVS %.4f", q.String(), dv, dq)
		if !(dq < dv) {
			t.Errorf("q=%v: qVS points (mean distance %v) not closer to the centre than VS points (%v)", q, dq, dv)
		}
		if !(dv > prev) {
			t.Errorf("q=%v: VS mean distance %v does not grow from the previous order's %v", q, dv, prev)
		}
		prev = dv
	}
	// q = inf is the far end: every VS point on the boundary of the box.
	for _, x := range ps[m-1].Points {
		if math.Max(math.Abs(x[0]), math.Abs(x[1])) < 1-1e-9 {
			t.Errorf("VS_inf point %v is not on the boundary", x)
		}
	}
}

func TestOrderZero(t *testing.T) {
	ps := panelsOrFail(t)
	m := len(defaultOrders)
	vs0, qvs0 := ps[0], ps[m]
	if !vs0.Empty || vs0.Points != nil || vs0.Note == "" {
		t.Errorf("VS_0 panel: Empty=%v points=%v note=%q, want an empty panel with a note", vs0.Empty, vs0.Points, vs0.Note)
	}
	if qvs0.Empty || qvs0.Maximised != targetMeanQuality || qvs0.Note == "" {
		t.Errorf("qVS_0 panel: Empty=%v maximised %v note=%q", qvs0.Empty, qvs0.Maximised, qvs0.Note)
	}
	for _, x := range qvs0.Points {
		if math.Hypot(x[0], x[1]) > 1e-6 { // the ascent's stopping tolerance is far tighter
			t.Errorf("qVS_0 point %v is not at the centre", x)
		}
	}
	// Coinciding points: VS_0 = 1, so qVS_0 = mean quality = 1.
	if math.Abs(qvs0.VS-1) > 0 || math.Abs(qvs0.QVS-1) > 1e-12 {
		t.Errorf("qVS_0 batch: VS_0 = %v, qVS_0 = %v, want 1 and 1", qvs0.VS, qvs0.QVS)
	}
}

// TestMaximizeDeterministic: the result depends on the seed only, not on
// the number of workers; another seed draws other starts.
func TestMaximizeDeterministic(t *testing.T) {
	ctx := context.Background()
	run := func(workers int, seed uint64) Panel {
		p, err := maximize(ctx, targetQVS, 1, Config{N: 5, Starts: 4, Workers: workers, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, c := run(1, 7), run(3, 7), run(1, 8)
	if fmt.Sprint(a.Points) != fmt.Sprint(b.Points) || a.Evals != b.Evals || a.BestStart != b.BestStart {
		t.Errorf("1 worker and 3 workers differ:\n%v\n%v", a.Points, b.Points)
	}
	if a.Evals == c.Evals {
		t.Errorf("seeds 7 and 8 used the same number of evaluations (%d): starts not seeded?", a.Evals)
	}
}

func TestMaximizeStaysInBox(t *testing.T) {
	for _, q := range []vendi.Order{0.1, 1, vendi.OrderInf} {
		p, err := maximize(context.Background(), targetVS, q, Config{N: 12, Starts: 3, Workers: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range p.Points {
			if x[0] < lo || x[0] > hi || x[1] < lo || x[1] > hi {
				t.Errorf("q=%v: point %v outside [-1, 1]^2", q, x)
			}
		}
	}
}

func TestMaximizeSinglePoint(t *testing.T) {
	// n = 1: VS = 1 anywhere; qVS = s(x) is maximised at the centre.
	p, err := maximize(context.Background(), targetQVS, 1, Config{N: 1, Starts: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.VS != 1 || math.Abs(p.QVS-1) > 1e-12 || math.Hypot(p.Points[0][0], p.Points[0][1]) > 1e-6 {
		t.Errorf("n=1: VS=%v qVS=%v at %v, want 1, 1 at the centre", p.VS, p.QVS, p.Points[0])
	}
}

func TestMaximizeBadInput(t *testing.T) {
	ctx := context.Background()
	ok := Config{N: 3, Starts: 1, Workers: 1}
	for _, tc := range []struct {
		name string
		row  Target
		q    vendi.Order
		cfg  Config
		want string
	}{
		{"n=0", targetVS, 1, Config{N: 0, Starts: 1, Workers: 1}, "batch size"},
		{"n too large", targetVS, 1, Config{N: MaxN + 1, Starts: 1, Workers: 1}, "must be 1 to 100"},
		{"starts=0", targetVS, 1, Config{N: 3, Starts: 0, Workers: 1}, "starts"},
		{"workers=0", targetVS, 1, Config{N: 3, Starts: 1, Workers: 0}, "workers"},
		{"q<0", targetVS, -1, ok, "order"},
		{"q=NaN", targetVS, vendi.Order(math.NaN()), ok, "order"},
		{"row", targetMeanQuality, 1, ok, "row"},
	} {
		_, err := maximize(ctx, tc.row, tc.q, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if _, _, err := Scores([]Point{{0, math.NaN()}}, 1); err == nil || !strings.Contains(err.Error(), "point 0") {
		t.Errorf("NaN point: error %v, want one naming point 0", err)
	}
}

func TestMaximizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := maximize(ctx, targetVS, 1, Config{N: 10, Starts: 50, Workers: 2}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestStacks(t *testing.T) {
	x := []Point{{1, 1}, {0, 0}, {1, 1 - 1e-9}, {1, 1}, {0.5, 0}}
	got := Stacks(x)
	want := []Stack{{Point{1, 1}, 3}, {Point{0, 0}, 1}, {Point{0.5, 0}, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Stacks = %v, want %v", got, want)
	}
}

func TestWriteFigure(t *testing.T) {
	ps := panelsOrFail(t)
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "toy.png")
	if err := writeFigure(pngPath, "png", ps); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// 5 panels of 2.3 in and 2 of 2.5 in at 100 dpi.
	if r := img.Bounds(); r.Dx() != 1150 || r.Dy() != 500 {
		t.Errorf("PNG is %v, want 1150 x 500", r)
	}
	white := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r == 0xffff && g == 0xffff && b == 0xffff
	}
	// The VS_0 cell (top left, blank in the paper) holds the heat map's
	// colour bar: blue, dark at the top (quality 1) and light below.
	lum := func(x, y int) uint32 {
		r, g, b, _ := img.At(x, y).RGBA()
		return r + g + b
	}
	if r, _, b, _ := img.At(100, 120).RGBA(); white(100, 120) || b <= r {
		t.Error("VS_0 cell: no blue colour bar")
	}
	if !(lum(100, 60) < lum(100, 180)) {
		t.Errorf("colour bar: top luminance %d not below the bottom's %d", lum(100, 60), lum(100, 180))
	}
	if white(1150/5*2+115, 120) { // centre of the VS q=1 heat map
		t.Error("VS q=1 panel has no heat map")
	}

	svgPath := filepath.Join(dir, "toy.svg")
	if err := writeFigure(svgPath, "svg", ps); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(svgPath); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("SVG output: err=%v, no <svg> element", err)
	}

	bad := filepath.Join(dir, "toy.pdf")
	if err := writeFigure(bad, "pdf", ps); err == nil || !strings.Contains(err.Error(), "png or svg") {
		t.Errorf("format pdf: error %v", err)
	}
	if err := writeFigure(bad, "png", ps[:3]); err == nil {
		t.Error("odd number of panels: no error")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed WriteFigure left %s behind", bad)
	}
}

func BenchmarkValueGrad(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{10, 40} {
		z := make([]float64, 2*n)
		for i := range z {
			z[i] = 2*rng.Float64() - 1
		}
		g := make([]float64, len(z))
		o := newObjective(targetQVS, 1, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := o.valueGrad(z, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMaximize(b *testing.B) {
	for _, q := range []vendi.Order{0.1, 1, vendi.OrderInf} {
		b.Run("q="+q.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := maximize(context.Background(), targetQVS, q, Config{N: 10, Starts: 1, Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Four points on the corners of the square: the top eigenvalue of K belongs
// to the all-ones vector, 1 + 2 exp(-2) + exp(-4), so VS_inf = 4 / that =
// 3.1032; every point has quality exp(-1) = 0.3679.
func ExampleScores() {
	corners := []Point{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	vs, qvs, err := Scores(corners, vendi.OrderInf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("VS_inf = %.4f, qVS_inf = %.4f\n", vs, qvs)
	// Output:
	// VS_inf = 3.1032, qVS_inf = 1.1416
}

// TestWriteResults: toy.csv holds one row per point of every panel with
// the panel's scores in full precision, config.yaml the given settings,
// and the figure is written.
func TestWriteResults(t *testing.T) {
	panels, err := Figure1(context.Background(), []vendi.Order{1}, Config{N: 3, Starts: 1, Workers: 1, Seed: 1, MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	csvPath, figPath, err := WriteResults(dir, "svg", panels, map[string]int{"starts": 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "row,q,point,x,y,vs,qvs" || len(lines) != 1+2*3 {
		t.Fatalf("toy.csv:\n%s", b)
	}
	p := panels[1]
	want := fmt.Sprintf("%s,1,2,%v,%v,%v,%v", p.Row, p.Points[2][0], p.Points[2][1], p.VS, p.QVS)
	if lines[6] != want {
		t.Errorf("last row %q, want %q", lines[6], want)
	}
	if c, err := os.ReadFile(filepath.Join(dir, "config.yaml")); err != nil || string(c) != "starts: 3\n" {
		t.Errorf("config.yaml %q (%v)", c, err)
	}
	if fi, err := os.Stat(figPath); err != nil || fi.Size() == 0 || filepath.Base(figPath) != "toy.svg" {
		t.Errorf("figure %s: %v", figPath, err)
	}
}
