package space

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const mixedSpace = `parameters:
  - {name: temp, lower: 20, upper: 90}
  - {name: ppm, lower: 1, upper: 1000, scale: log}
  - {name: rpm, lower: 99.5, upper: 900, type: int}
  - {name: beads, lower: 1, upper: 64, scale: log, type: int}
length_scale: 0.5
`

func mustParse(t testing.TB, text string) *Space {
	t.Helper()
	s, err := Parse("space.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParse(t *testing.T) {
	s := mustParse(t, mixedSpace)
	if got := strings.Join(s.Names(), ","); got != "temp,ppm,rpm,beads" {
		t.Errorf("names %s", got)
	}
	lo, hi := s.Bounds()
	// Engine box: values, log of the bounds, the integers inside [99.5, 900].
	want := [][2]float64{{20, 90}, {0, math.Log(1000)}, {100, 900}, {0, math.Log(64)}}
	for j, w := range want {
		if lo[j] != w[0] || hi[j] != w[1] {
			t.Errorf("parameter %d: engine bounds [%v, %v], want %v", j, lo[j], hi[j], w)
		}
	}
	if s.LengthScale != 0.5 {
		t.Errorf("length scale %v", s.LengthScale)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty file"},
		{"no parameters", "parameters: []\n", "no parameters"},
		{"unknown key", "parameters:\n  - {name: a, lower: 0, upper: 1, lowr: 3}\n", "lowr"},
		{"unknown top key", "params: []\n", "params"},
		{"lower >= upper", "parameters:\n  - {name: a, lower: 1, upper: 1}\n", `parameter 1 ("a"): lower = 1 must be < upper = 1`},
		{"log non-positive", "parameters:\n  - {name: a, lower: 0, upper: 1, scale: log}\n", `parameter 1 ("a"): scale: log needs lower > 0`},
		{"duplicate", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: a, lower: 0, upper: 2}\n", `parameter 2 ("a"): duplicate name`},
		{"reserved", "parameters:\n  - {name: value, lower: 0, upper: 1}\n", "reserved"},
		{"missing name", "parameters:\n  - {lower: 0, upper: 1}\n", "parameter 1: missing name"},
		{"comma", "parameters:\n  - {name: 'a,b', lower: 0, upper: 1}\n", "commas"},
		{"bad scale", "parameters:\n  - {name: a, lower: 1, upper: 2, scale: ln}\n", `scale "ln"`},
		{"bad type", "parameters:\n  - {name: a, lower: 1, upper: 2, type: integer}\n", `type "integer"`},
		{"int without integer", "parameters:\n  - {name: a, lower: 0.2, upper: 0.8, type: int}\n", "no integer"},
		{"infinite", "parameters:\n  - {name: a, lower: 0, upper: .inf}\n", "finite"},
		{"length scale", "parameters:\n  - {name: a, lower: 0, upper: 1}\nlength_scale: 0\n", "length_scale"},
		{"not yaml", "parameters: [\n", "space.yaml"},
		// a value of the wrong kind is said in words, not Go's types
		{"text bound", "parameters:\n  - {name: a, lower: abc, upper: 1}\n", "line 2: cannot read the text `abc` as a number"},
		{"when scalar", "parameters:\n  - {name: k, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: k}\n", "line 3: cannot read the text `k` as when: {parameter: choice}"},
		{"when list", "parameters:\n  - {name: k, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: [k]}\n", "line 3: cannot read a list as when: {parameter: choice}"},
		{"parameters mapping", "parameters: {name: x}\n", "line 1: cannot read a mapping as a list of parameters"},
		{"choices text", "parameters:\n  - {name: k, choices: a}\n", "line 2: cannot read the text `a` as a list of choices"},
		{"name list", "parameters:\n  - {name: [x], lower: 0, upper: 1}\n", "line 2: cannot read a list as text"},
		{"log number", "parameters:\n  - {name: a, lower: 1, upper: 2, log: 3}\n", "line 2: cannot read the number `3` as true or false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("space.yaml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "space.yaml") {
				t.Errorf("got %v, want an error naming space.yaml and containing %q", err, c.want)
			}
		})
	}
}

// TestSnapAndValues: Snap is idempotent, lands on integers inside the
// bounds for type: int, and Values/Engine round-trip; linear parameters map
// to themselves bit for bit.
func TestSnapAndValues(t *testing.T) {
	s := mustParse(t, mixedSpace)
	lo, hi := s.Bounds()
	for k := 0; k <= 100; k++ {
		x := make([]float64, s.Dim())
		for j := range x {
			x[j] = lo[j] + (hi[j]-lo[j])*float64(k)/100
		}
		s.Snap(x)
		again := append([]float64(nil), x...)
		s.Snap(again)
		for j := range x {
			if again[j] != x[j] {
				t.Fatalf("Snap not idempotent at %v", x)
			}
		}
		v := s.Values(x)
		for j, p := range s.Parameters {
			if why := s.Check(j, v[j]); why != "" {
				t.Fatalf("value %v of %s %s", v[j], p.Name, why)
			}
		}
		if e := s.Engine(v); e[0] != x[0] {
			t.Fatalf("linear parameter changed: %v -> %v", x[0], e[0])
		}
		if e := s.Engine(v); e[2] != x[2] || e[3] != x[3] {
			t.Fatalf("int parameters do not round-trip: %v -> %v", x, e)
		}
	}
	// A log-int parameter rounds in value space: exp(log 10.4) -> 10.
	x := []float64{20, 0, 100, math.Log(10.4)}
	s.Snap(x)
	if got := s.Values(x)[3]; got != 10 {
		t.Errorf("log-int snapped to %v, want 10", got)
	}
}

// TestDistance: Euclidean in the unit-scaled engine space over the length scale.
func TestDistance(t *testing.T) {
	s := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 10}\n  - {name: b, lower: 1, upper: 100, scale: log}\nlength_scale: 2\n")
	a := s.Engine([]float64{0, 1})
	b := s.Engine([]float64{10, 100})
	if got, want := s.Distance(a, b), math.Sqrt(2)/2; math.Abs(got-want) > 1e-15 {
		t.Errorf("distance %v, want %v", got, want)
	}
	c := s.Engine([]float64{5, 10}) // halfway in both unit-scaled coordinates
	if got, want := s.Distance(a, c), math.Sqrt(0.5)/2; math.Abs(got-want) > 1e-15 {
		t.Errorf("distance %v, want %v", got, want)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadObservations(t *testing.T) {
	s := mustParse(t, mixedSpace)
	p := writeFile(t, "evals.csv", "note,beads,value,temp,rpm,ppm\nx,4,1.5,25,100,3\n\nhi,64,-2,90,900,1000\n")
	obs, err := ReadObservations(p, s, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 2 || obs[1].Line != 4 || obs[0].Value != -1.5 || obs[1].Values[1] != 1000 || obs[0].Values[3] != 4 || obs[0].Iteration != -1 || obs[0].HasRegion {
		t.Errorf("got %+v", obs)
	}
	pend, err := ReadPending(writeFile(t, "p.csv", "temp,ppm,rpm,beads\n30,2,200,8\n"), s)
	if err != nil || len(pend) != 1 {
		t.Errorf("pending: %v %v", pend, err)
	}
}

// TestReadRecords: a run's records file (header iteration,region,x0..,
// value,seconds) is read with xj as parameter j in engine coordinates, kept
// bit for bit, its values as the campaign maximised them whatever minimize
// says, and engine coordinates outside the space are named.
func TestReadRecords(t *testing.T) {
	s := mustParse(t, mixedSpace)
	head := "iteration,region,x0,x1,x2,x3,value,seconds\n"
	// ln 3 and ln 4: ppm = 3 and beads = 4 as the engine records them.
	ln3, ln4 := strconv.FormatFloat(math.Log(3), 'g', -1, 64), strconv.FormatFloat(math.Log(4), 'g', -1, 64)
	p := writeFile(t, "runs.csv", head+"0,-1,25,"+ln3+",100,"+ln4+",-1.5,0.01\n1,2,90,0,900,0,2,0.01\n")
	obs, err := ReadObservations(p, s, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 2 {
		t.Fatalf("%d rows, want 2", len(obs))
	}
	o := obs[0]
	if want := []float64{25, math.Log(3), 100, math.Log(4)}; !slicesEqual(o.X, want) {
		t.Errorf("engine point %v, want %v bit for bit", o.X, want)
	}
	// exp(ln 3) need not be 3 to the bit; value rounds only type: int.
	if math.Abs(o.Values[1]-3) > 1e-12 || o.Values[3] != 4 || o.Values[0] != 25 || o.Values[2] != 100 {
		t.Errorf("values %v, want [25 3 100 4]", o.Values)
	}
	if o.Value != -1.5 || obs[1].Value != 2 {
		t.Errorf("values %v, %v: want -1.5, 2 (records are maximised; minimize does not apply)", o.Value, obs[1].Value)
	}
	if obs[1].Iteration != 1 || obs[1].Region != 2 || !obs[1].HasRegion || obs[1].Values[1] != 1 {
		t.Errorf("row 2: %+v", obs[1])
	}
	for _, c := range []struct{ name, row, want string }{
		{"log outside", "0,-1,25,7.5,100,0,1,0\n", "line 2, column \"x1\": parameter ppm: \"7.5\" is outside the engine bounds"},
		{"linear outside", "0,-1,95,0,100,0,1,0\n", "column \"x0\": parameter temp"},
		{"int not snapped", "0,-1,25,0,100.5,0,1,0\n", "column \"x2\": parameter rpm: \"100.5\" is not the engine coordinate of an integer"},
		{"log int not snapped", "0,-1,25,0,100,1,1,0\n", "column \"x3\": parameter beads"},
	} {
		if _, err := ReadObservations(writeFile(t, "runs.csv", head+c.row), s, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// Another header with x0.. columns is a user's file: its names are required.
	if _, err := ReadObservations(writeFile(t, "e.csv", "x0,x1,x2,x3,value\n25,3,100,4,1\n"), s, false); err == nil || !strings.Contains(err.Error(), `no column "temp"`) {
		t.Errorf("user file with x0.. columns: got %v", err)
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestReadObservationsErrors(t *testing.T) {
	s := mustParse(t, mixedSpace)
	head := "temp,ppm,rpm,beads,value\n"
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "no header"},
		{"missing column", "temp,ppm,rpm,value\n", `line 1: no column "beads"`},
		{"missing value", "temp,ppm,rpm,beads\n", `no column "value"`},
		{"duplicate column", "temp,temp,ppm,rpm,beads,value\n", `"temp" appears twice`},
		{"short row", head + "25,3,100\n", "line 2: 3 cells"},
		{"not a number", head + "25,3,100,4,1\n25,abc,100,4,1\n", `line 3, column "ppm": "abc" is not a number`},
		{"missing cell", head + "25,,100,4,1\n", `line 2, column "ppm": "" is missing`},
		{"nan", head + "NaN,3,100,4,1\n", "line 2, column \"temp\""},
		{"outside", head + "95,3,100,4,1\n", "line 2, column \"temp\": \"95\" is outside [20, 90]"},
		{"not integer", head + "25,3,100.5,4,1\n", "line 2, column \"rpm\": \"100.5\" is not an integer"},
		{"iteration decreases", "iteration," + head + "1,25,3,100,4,1\n0,25,3,100,4,1\n", "line 3, column \"iteration\""},
		{"region", "region," + head + "-2,25,3,100,4,1\n", "line 2, column \"region\""},
		{"quote", head + "\"25,3,100,4,1\n", "evals.csv"},
		// Binary files say what they are instead of "no header".
		{"npy", "\x93NUMPY\x01\x00v\x00{'descr': '<f8'}", "a NumPy .npy array, not CSV text"},
		{"utf-16", "\xff\xfet\x00e\x00m\x00p\x00", "binary data (a NUL byte at offset 3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadObservations(writeFile(t, "evals.csv", c.text), s, false)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "evals.csv") {
				t.Errorf("got %v, want an error naming evals.csv and containing %q", err, c.want)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []float64
		err  string
	}{
		{"1\n2.5\n\n-3e2\n", []float64{1, 2.5, -300}, ""},
		{"x,value\n0,1\n1,2\n", []float64{1, 2}, ""},
		{"", nil, ""},
		{"1\nfoo\n", nil, `line 2: "foo" is not a finite number`},
		{"1\ninf\n-Infinity\n", []float64{1, math.NaN(), math.NaN()}, ""}, // failed, as Optuna records them
		{"hello world\n", nil, "neither a number nor a CSV header with a value column"},
		{"a,value\n1,x\n", nil, `line 2: "x"`},
	} {
		got, err := parseValues([]byte(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q: %v %v", c.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] && !(math.IsNaN(got[i]) && math.IsNaN(c.want[i])) {
				t.Errorf("%q: %v", c.in, got)
			}
		}
	}
}

// TestInfIsFailed: an infinite value in an evaluation file is a failed
// experiment (Optuna records it; no model can use it).
func TestInfIsFailed(t *testing.T) {
	s := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	obs, err := decode("e.csv", []byte("a,value\n0.5,inf\n0.25,-Inf\n0.75,1\n"), s, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if !obs[0].Failed || !obs[1].Failed || obs[2].Failed || CountFailed(obs) != 2 {
		t.Errorf("failed: %v %v %v", obs[0].Failed, obs[1].Failed, obs[2].Failed)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(mixedSpace))
	f.Add([]byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	f.Add([]byte(optunaSpace))
	f.Add([]byte("parameters:\n  - {name: n, low: -3, high: 40, type: int, step: 7}\n  - {name: c, choices: [a, b], low: 1}\n"))
	f.Add([]byte("parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 1, upper: 9, scale: log, when: {k: b}}\n  - {name: j, type: categorical, choices: [u, v, w], when: {k: [a]}}\n  - {name: n, lower: 1, upper: 3, type: int, when: {j: w, k: a}}\ndirection: minimize\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("fuzz.yaml", b)
		if err != nil {
			return
		}
		lo, hi := s.Bounds()
		for j := range lo {
			if !(lo[j] < hi[j]) || math.IsInf(hi[j]-lo[j], 0) { // the engine needs a finite box of positive width
				t.Fatalf("parameter %d: engine bounds [%v, %v]", j, lo[j], hi[j])
			}
		}
		// Every corner and the centre snap to an admissible point whose
		// values read back to it, inactive parameters empty.
		for _, u := range []float64{0, 0.5, 1} {
			x := make([]float64, len(lo))
			for j := range x {
				// lo + (hi - lo) can round past hi: clamp, as the engine does.
				x[j] = math.Min(lo[j]+u*(hi[j]-lo[j]), hi[j])
			}
			s.Snap(x)
			for j := range x {
				if why := s.CheckEngine(j, x[j]); why != "" {
					t.Fatalf("snapped %v: parameter %d %s", x, j, why)
				}
			}
			v := s.Values(x)
			if j, why := s.checkActive(v); s.Mixed() && j >= 0 {
				t.Fatalf("values %v: parameter %d %s", v, j, why)
			}
			if y := s.Engine(v); !slicesEqual(x, y) && !s.anyLog() {
				t.Fatalf("engine %v -> values %v -> engine %v", x, v, y)
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	s := mustParse(f, mixedSpace)
	f.Add([]byte("temp,ppm,rpm,beads,value\n25,3,100,4,1\n"))
	f.Add([]byte("iteration,region,temp,ppm,rpm,beads,value\n0,-1,25,3,100,4,1\n1,2,30,3,100,4,1\n"))
	f.Add([]byte("temp,ppm,rpm,beads,value,status\n25,3,100,4,,\n26,3,100,4,2,failed\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		obs, err := decode("fuzz.csv", b, s, true, false)
		if err != nil {
			return
		}
		for _, o := range obs {
			for j, v := range o.Values {
				if why := s.Check(j, v); why != "" {
					t.Fatalf("accepted %v for %s: %s", v, s.Parameters[j].Name, why)
				}
			}
			// A failed row's value is NaN; every other is finite.
			if o.Failed != math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
				t.Fatalf("accepted value %v (failed %v)", o.Value, o.Failed)
			}
		}
	})
}

func FuzzParseValues(f *testing.F) {
	f.Add([]byte("1\n2\n"))
	f.Add([]byte("a,value\n1,2\n"))
	f.Add([]byte("1\nfailed\nnan\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := parseValues(b)
		if err != nil {
			return
		}
		for _, v := range vals { // NaN is a failed experiment; never an infinity
			if math.IsInf(v, 0) {
				t.Fatalf("accepted %v", v)
			}
		}
	})
}

// TestFormat: integer parameters print as integer literals however large
// (suggest used to print 5.873173986883789e+17 for a type: int parameter),
// others in the shortest exact form.
func TestFormat(t *testing.T) {
	s, err := Parse("s.yaml", []byte("parameters:\n  - {name: n, lower: -9e18, upper: 9e18, type: int}\n  - {name: x, lower: 0, upper: 1e30}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		j    int
		v    float64
		want string
	}{{0, 587317398688378880, "587317398688378900"}, {0, -3, "-3"}, {1, 0.1, "0.1"}, {1, 1e25, "1e+25"}} {
		got := s.Format(tc.j, tc.v)
		if got != tc.want {
			t.Errorf("Format(%d, %v) = %q, want %q", tc.j, tc.v, got, tc.want)
		}
		// Shortest digits that read back to the same float64.
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != tc.v {
			t.Errorf("%q reads back as %v (%v), want %v", got, back, err, tc.v)
		}
	}
}

// optunaSpace is a space file in Optuna's vocabulary: suggest_float(name,
// low, high, log=True), suggest_int(name, low, high, step=), and
// suggest_categorical(name, choices).
const optunaSpace = `parameters:
  - {name: lr, low: 0.0001, high: 0.1, log: true}
  - {name: dropout, low: 0, high: 0.5}
  - {name: units, low: 16, high: 100, type: int, step: 16}
  - {name: optimizer, choices: [adam, sgd]}
  - {name: momentum, low: 0, high: 0.99, when: {optimizer: sgd}}
`

// TestParseOptunaWords: Optuna's words give the same space as qvs's (low,
// high as lower, upper; log: true as scale: log; choices without a type as
// categorical), and step: 16 from 16 to 100 admits 16, 32, ..., 96 only.
func TestParseOptunaWords(t *testing.T) {
	got := mustParse(t, optunaSpace)
	want := mustParse(t, `parameters:
  - {name: lr, lower: 0.0001, upper: 0.1, scale: log}
  - {name: dropout, lower: 0, upper: 0.5}
  - {name: units, lower: 16, upper: 100, type: int, step: 16}
  - {name: optimizer, type: categorical, choices: [adam, sgd]}
  - {name: momentum, lower: 0, upper: 0.99, when: {optimizer: sgd}}
`)
	if !reflect.DeepEqual(got.Parameters, want.Parameters) {
		t.Errorf("parameters %+v, want %+v", got.Parameters, want.Parameters)
	}
	lo, hi := got.Bounds()
	if wl, wh := []float64{math.Log(0.0001), 0, 16, -0.5, 0}, []float64{math.Log(0.1), 0.5, 96, 1.5, 0.99}; !slicesEqual(lo, wl) || !slicesEqual(hi, wh) {
		t.Errorf("engine bounds %v %v, want %v %v", lo, hi, wl, wh)
	}
	// The grid of units: every engine coordinate snaps to the nearest of
	// 16, 32, ..., 96 (halves away from 16), and only they are admissible.
	for _, c := range []struct{ x, want float64 }{{16, 16}, {23.9, 16}, {24, 32}, {40.1, 48}, {95, 96}, {100, 96}} {
		x := []float64{math.Log(0.01), 0.1, c.x, 0, 0.5}
		got.Snap(x)
		if x[2] != c.want {
			t.Errorf("units %v snaps to %v, want %v", c.x, x[2], c.want)
		}
	}
	for v := 10.0; v <= 100; v++ {
		ok := int(v)%16 == 0 && v >= 16 && v <= 96
		if why := got.Check(2, v); (why == "") != ok {
			t.Errorf("units = %v: Check says %q, admissible %v", v, why, ok)
		}
	}
	// step 1 is plain type: int.
	one, plain := mustParse(t, "parameters:\n  - {name: n, low: 0.5, high: 7.5, type: int, step: 1}\n"), mustParse(t, "parameters:\n  - {name: n, lower: 0.5, upper: 7.5, type: int}\n")
	for x := 0.5; x <= 7.5; x += 0.25 {
		a, b := []float64{x}, []float64{x}
		one.Snap(a)
		plain.Snap(b)
		if a[0] != b[0] {
			t.Errorf("step 1: %v snaps to %v, without step to %v", x, a[0], b[0])
		}
	}
}

// TestParseOptunaWordErrors: a pair given twice (lower and low, upper and
// high, contradicting scale and log) names the line and both words; step is
// for whole steps of int parameters, and not on a log scale.
func TestParseOptunaWordErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"lower and low", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, low: 0, upper: 1}\n", `line 3, column 5: parameter 2 ("b"): both lower and low`},
		{"upper and high", "parameters:\n  - {name: b, low: 0, upper: 1, high: 2}\n", `line 2, column 5: parameter 1 ("b"): both upper and high`},
		{"log and linear", "parameters:\n  - {name: b, low: 1, high: 2, log: true, scale: linear}\n", "log: true contradicts scale: linear"},
		{"no log and log", "parameters:\n  - {name: b, low: 1, high: 2, log: false, scale: log}\n", "log: false contradicts scale: log"},
		{"log not bool", "parameters:\n  - {name: b, low: 1, high: 2, log: yes please}\n", "space.yaml"},
		{"step float", "parameters:\n  - {name: b, low: 1, high: 2, step: 0.5}\n", "step applies to type: int"},
		{"step zero", "parameters:\n  - {name: b, low: 1, high: 9, type: int, step: 0}\n", "step = 0: expected a whole number >= 1"},
		{"step fraction", "parameters:\n  - {name: b, low: 1, high: 9, type: int, step: 2.5}\n", "step = 2.5"},
		{"step log", "parameters:\n  - {name: b, low: 1, high: 9, type: int, step: 2, log: true}\n", "step cannot be combined with a log scale"},
		{"low non-positive log", "parameters:\n  - {name: b, low: 0, high: 9, log: true}\n", "scale: log needs lower > 0"},
		{"categorical with low", "parameters:\n  - {name: b, low: 1, type: categorical, choices: [x, y]}\n", "takes choices:, not lower, upper or scale"},
		{"choices with bounds", "parameters:\n  - {name: b, low: 1, high: 2, choices: [x, y]}\n", "choices: is for type: categorical"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("space.yaml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "space.yaml") {
				t.Errorf("got %v, want an error naming space.yaml and containing %q", err, c.want)
			}
		})
	}
}
