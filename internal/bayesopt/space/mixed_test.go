package space

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// svcSpace is the SVC model selection of the brief: a kernel, a degree for
// poly only, C and gamma on log scales.
const svcSpace = `parameters:
  - {name: kernel, type: categorical, choices: [rbf, poly, sigmoid]}
  - {name: degree, lower: 2, upper: 5, type: int, when: {kernel: poly}}
  - {name: coef0, lower: 0, upper: 1, when: {kernel: [poly, sigmoid]}}
  - {name: C, lower: 0.01, upper: 100, scale: log}
direction: minimize
`

func TestMixedParse(t *testing.T) {
	s := mustParse(t, svcSpace)
	if !s.Mixed() || !s.Minimize {
		t.Fatalf("mixed %v, minimize %v", s.Mixed(), s.Minimize)
	}
	lo, hi := s.Bounds()
	if lo[0] != -0.5 || hi[0] != 2.5 {
		t.Errorf("kernel's engine box [%v, %v], want [-0.5, 2.5]", lo[0], hi[0])
	}
	if mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n").Mixed() {
		t.Error("a continuous space is mixed")
	}
	if _, ok := mustParse(t, "parameters:\n  - {name: a, lower: 0, upper: 1}\n").Domain().(bayesopt.Encoder); ok {
		t.Error("a continuous space's domain is an Encoder (its runs would change)")
	}
	if _, ok := s.Domain().(bayesopt.CandidateMixer); !ok {
		t.Error("a mixed space's domain is no CandidateMixer")
	}
}

// TestMixedParseErrors: every bad mixed-space entry is an error naming
// the file, the line and the column of the part to blame (the list of
// choices, the repeated or empty choice, the when: key or choice), counted
// by hand from the texts below.
func TestMixedParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"parameters:\n  - {name: k, type: categorical, choices: [a]}\n", "line 2, column 43: parameter 1 (\"k\"): type: categorical needs at least two choices, got 1"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b, a]}\n", "line 2, column 50: parameter 1 (\"k\"): choice \"a\" is repeated (choices 1 and 3)"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, '']}\n", "line 2, column 47: parameter 1 (\"k\"): choice 2 is empty"},
		{"parameters:\n  - {name: k, type: categorical}\n", "line 2, column 5: parameter 1 (\"k\"): type: categorical needs at least two choices, got 0"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b], lower: 0, upper: 1}\n", "line 2, column 5: parameter 1 (\"k\"): type: categorical takes choices:, not lower, upper or scale"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {kk: a}}\n", "line 3, column 42: parameter 2 (\"x\"): when: names \"kk\", which is no parameter declared before it"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {k: c}}\n", "line 3, column 45: parameter 2 (\"x\"): when: k: \"c\" is not one of its choices [a b]"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {k: [a, c]}}\n", "line 3, column 49: parameter 2 (\"x\"): when: k: \"c\" is not one of its choices [a b]"},
		{"parameters:\n  - {name: y, lower: 0, upper: 1}\n  - {name: x, lower: 0, upper: 1, when: {y: c}}\n", "line 3, column 42: parameter 2 (\"x\"): when: names \"y\", which is not type: categorical"},
		{"parameters:\n  - {name: x, lower: 0, upper: 1, when: {k: a}}\n  - {name: k, type: categorical, choices: [a, b]}\n", "line 2, column 42: parameter 1 (\"x\"): when: names \"k\", which is no parameter declared before it"},
		{"parameters:\n  - {name: x, lower: 0, upper: 1, choices: [a, b]}\n", "line 2, column 44: parameter 1 (\"x\"): choices: is for type: categorical"},
		{"parameters:\n  - {name: x, lower: 0, upper: 1}\ndirection: down\n", "line 3, column 12: direction \"down\": expected maximize or minimize"},
		{"parameters:\n  - name: k\n    type: categorical\n    choices:\n      - a\n      - a\n", "line 6, column 9: parameter 1 (\"k\"): choice \"a\" is repeated"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {}}\n", "line 3, column 41: parameter 2 (\"x\"): when: names no parameter"},
		{"parameters:\n  - {name: k, type: categorical, choices: [a, b]}\n  - {name: x, lower: 0, upper: 1, when: {k: [a, a]}}\n", "line 3, column 49: parameter 2 (\"x\"): when: k: \"a\" is listed twice"},
		{"parameters:\n  - {name: x, lower: 0, upper: 1, type: real}\n", "line 2, column 41: parameter 1 (\"x\"): type \"real\": expected float, int or categorical"},
	} {
		_, err := Parse("s.yaml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "s.yaml: ") {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}

// TestMixedDecode reads choices as text and inactive parameters as empty
// cells; the errors name the line and column.
func TestMixedDecode(t *testing.T) {
	s := mustParse(t, svcSpace)
	obs, err := decode("e.csv", []byte("kernel,degree,coef0,C,value\nrbf,,,1,0.5\npoly,3,0.25,10,0.25\nsigmoid,,0.5,0.1,failed\n"), s, true, s.Minimize)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := [][]float64{{0, nan, nan, 1}, {1, 3, 0.25, 10}, {2, nan, 0.5, 0.1}}
	for i, o := range obs {
		for j, v := range o.Values {
			if !(v == want[i][j] || math.IsNaN(v) && math.IsNaN(want[i][j])) {
				t.Errorf("row %d: values %v, want %v", i+1, o.Values, want[i])
			}
		}
	}
	if obs[0].Value != -0.5 || !obs[2].Failed {
		t.Errorf("values %v %v (minimize: negated), failed %v", obs[0].Value, obs[1].Value, obs[2].Failed)
	}
	// An inactive parameter is at its neutral coordinate: the middle of
	// degree's integers 2..5 snapped (4: 3.5 rounds half away from zero),
	// the middle of coef0's box.
	x := obs[0].engine(s)
	if x[1] != 4 || x[2] != 0.5 {
		t.Errorf("rbf's engine point %v: want degree 4, coef0 0.5 (neutral)", x)
	}
	for _, c := range []struct{ row, want string }{
		{"linear,,,1,0.5", "line 2, column \"kernel\": \"linear\" is not one of the choices rbf, poly, sigmoid"},
		{",,,1,0.5", "line 2, column \"kernel\": \"\" is missing; expected one of the choices"},
		{"rbf,3,,1,0.5", "line 2, column \"degree\": must be empty: it applies only when kernel is poly (here rbf)"},
		{"poly,,0.5,1,0.5", "line 2, column \"degree\": is missing: it applies when kernel is poly (here poly)"},
		{"poly,7,0.5,1,0.5", "line 2, column \"degree\": \"7\" is outside [2, 5]"},
	} {
		_, err := decode("e.csv", []byte("kernel,degree,coef0,C,value\n"+c.row+"\n"), s, true, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.row, err, c.want)
		}
	}
}

// TestMixedDistance checks the distance against a hand computation.
func TestMixedDistance(t *testing.T) {
	s := mustParse(t, svcSpace)
	lnC := math.Log(100) - math.Log(0.01)
	a := s.Engine([]float64{1, 3, 0.25, 1})                 // poly
	b := s.Engine([]float64{1, 5, 0.75, 10})                // poly
	c := s.Engine([]float64{2, math.NaN(), 0.75, 10})       // sigmoid
	d := s.Engine([]float64{0, math.NaN(), math.NaN(), 10}) // rbf
	cases := []struct {
		x, y []float64
		want float64
	}{
		{a, b, math.Sqrt(math.Pow(2.0/3, 2) + 0.25 + math.Pow(math.Log(10)/lnC, 2))},
		{b, c, math.Sqrt(1 + 1)}, // kernel differs, degree active in b only; coef0 and C equal
		{c, d, math.Sqrt(1 + 1)}, // kernel differs, coef0 active in c only
		{d, d, 0},
	}
	for i, k := range cases {
		if got := s.Distance(k.x, k.y); math.Abs(got-k.want) > 1e-12 {
			t.Errorf("case %d: distance %v, want %v", i, got, k.want)
		}
	}
}

// TestMixedSnapEncode: Snap moves inactive parameters to neutral, rounds
// the choice; Encode is one-hot with inactive parameters neutral.
func TestMixedSnapEncode(t *testing.T) {
	s := mustParse(t, svcSpace)
	x := []float64{-0.2, 2.3, 0.9, 0} // kernel rounds to rbf: degree and coef0 inactive
	s.Snap(x)
	if x[0] != 0 || x[1] != 4 || x[2] != 0.5 || x[3] != 0 {
		t.Errorf("snapped %v, want [0 4 0.5 0]", x)
	}
	lo, hi := s.Bounds()
	unit := func(x []float64) []float64 {
		u := make([]float64, len(x))
		for j := range x {
			u[j] = (x[j] - lo[j]) / (hi[j] - lo[j])
		}
		return u
	}
	got := s.encode(unit([]float64{1, 3, 0.25, math.Log(0.01)}))
	want := []float64{0, 1, 0, (3 - 2.0) / 3, 0.25, 0}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-12 {
			t.Fatalf("encode = %v, want %v", got, want)
		}
	}
	got = s.encode(unit(x))
	want = []float64{1, 0, 0, 0.5, 0.5, 0.5}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-12 {
			t.Fatalf("encode (rbf) = %v, want %v", got, want)
		}
	}
}

// TestMixCandidates: every candidate's categories are within the Hamming
// radius of the centre's (max(1, min(c, ceil(L·c)))), both sides of it
// occur, and a parameter activated by the change is drawn uniformly.
func TestMixCandidates(t *testing.T) {
	s := mustParse(t, `parameters:
  - {name: a, type: categorical, choices: [p, q, r]}
  - {name: b, type: categorical, choices: [u, v]}
  - {name: c, type: categorical, choices: [x, y, z, w]}
  - {name: t, lower: 0, upper: 1, when: {a: q}}
`)
	centre := []float64{s.unitOf(0, 0), s.unitOf(1, 0), s.unitOf(2, 0), 0.5}
	for _, L := range []float64{0.01, 0.5, 1.6} {
		radius := max(1, min(3, int(math.Ceil(L*3))))
		cand := make([][]float64, 2000)
		for i := range cand {
			cand[i] = append([]float64(nil), centre...)
		}
		s.mixCandidates(centre, cand, L, rand.New(rand.NewPCG(1, 2)))
		seen := map[int]int{}
		var ts []float64
		for _, row := range cand {
			lo, hi := s.Bounds()
			x := make([]float64, len(row))
			for j := range row {
				x[j] = lo[j] + row[j]*(hi[j]-lo[j])
			}
			s.Snap(x)
			h := 0
			for j := 0; j < 3; j++ {
				if x[j] != 0 {
					h++
				}
			}
			seen[h]++
			if x[0] == 1 {
				ts = append(ts, x[3])
			}
		}
		for h := range seen {
			if h > radius {
				t.Errorf("L = %v: a candidate %d changes away, radius %d", L, h, radius)
			}
		}
		if seen[0] == 0 || seen[radius] == 0 {
			t.Errorf("L = %v: Hamming distances %v, want 0 .. %d", L, seen, radius)
		}
		mean := 0.0
		for _, v := range ts {
			mean += v / float64(len(ts))
		}
		if len(ts) < 50 || math.Abs(mean-0.5) > 0.1 {
			t.Errorf("L = %v: %d activated t with mean %v, want uniform", L, len(ts), mean)
		}
	}
}

// mixedObjective is a held-out mixed function: the kernel chooses among
// three sub-functions of their own children; the minimum 0 is at
// kernel = poly, degree = 3, coef0 = 0.3, C = 1.
func mixedObjective(v []float64) float64 {
	lc := math.Log10(v[3])
	switch int(v[0]) {
	case 0:
		return 1 + lc*lc
	case 1:
		return math.Abs(v[1]-3)*0.5 + 4*(v[2]-0.3)*(v[2]-0.3) + lc*lc
	default:
		return 0.6 + (v[2]-0.8)*(v[2]-0.8) + (lc-1)*(lc-1)
	}
}

// TestMixedSuggestLoop drives suggest on the mixed function: every
// suggestion is admissible (inactive parameters NaN, printed empty), no
// point repeats, and qvs and turbo reach the poly branch's minimum within
// 0.1 in 12 rounds of 5.
func TestMixedSuggestLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("rounds of GP fits")
	}
	s := mustParse(t, svcSpace)
	for _, m := range []string{bayesopt.MethodQVS, bayesopt.MethodTuRBO} {
		st := bayesopt.Settings{Method: m, Q: 1, Init: DefaultInit(s.Dim(), 5, 3), Batch: 5, Regions: 3, Tau: 0.5, Candidates: 200}
		id := bayesopt.RunID{Seed: 3, Key: bayesopt.RunKey(m, "1", false, 0)}
		var obs []Observation
		best := math.Inf(1)
		seen := map[string]bool{}
		for r := 0; r < 12; r++ {
			sug, err := Suggest(context.Background(), Request{Space: s, Settings: st, ID: id, Observed: obs, Batch: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range sug {
				if j, why := s.checkActive(g.Values); j >= 0 {
					t.Fatalf("%s: suggestion %v: %s %s", m, g.Values, s.Parameters[j].Name, why)
				}
				k := strings.Join(s.FormatPoint(s.Engine(g.Values)), ",")
				if seen[k] {
					t.Errorf("%s: %s suggested twice", m, k)
				}
				seen[k] = true
				f := mixedObjective(g.Values)
				best = math.Min(best, f)
				obs = append(obs, Observation{Line: len(obs) + 2, Values: g.Values, Value: -f, Iteration: -1, Region: g.Region, HasRegion: true})
			}
		}
		if !(best < 0.1) {
			t.Errorf("%s: best %v after 60 evaluations, want < 0.1", m, best)
		}
	}
}

// TestMixedCommandInput: the objective command reads choices as text and
// inactive parameters as empty cells.
func TestMixedCommandInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(svcSpace), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := NewCommand(path, "cat > "+filepath.Join(dir, "in.csv")+"; echo 1; echo 2", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Minimize {
		t.Error("direction: minimize did not set the command's Minimize")
	}
	xs := [][]float64{c.Engine([]float64{0, math.NaN(), math.NaN(), 1}), c.Engine([]float64{1, 2, 0.5, 100})}
	vals, err := c.Objective().(bayesopt.BatchObjective).EvaluateBatch(context.Background(), xs)
	if err != nil || vals[0] != -1 || vals[1] != -2 {
		t.Fatalf("values %v, %v", vals, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "in.csv"))
	if want := "kernel,degree,coef0,C\nrbf,,,1\npoly,2,0.5,100\n"; string(b) != want {
		t.Errorf("command read %q, want %q", b, want)
	}
}

func FuzzDecodeMixed(f *testing.F) {
	s := mustParse(f, svcSpace)
	f.Add([]byte("kernel,degree,coef0,C,value\nrbf,,,1,0.5\npoly,3,0.25,10,0.25\nsigmoid,,0.5,0.1,failed\n"))
	f.Add([]byte("iteration,region,x0,x1,x2,x3,value,seconds\n0,-1,poly,3,0.5,0,1,0\n0,-1,rbf,,,-1.5,failed,0\n"))
	f.Add([]byte("iteration,region,x0,x1,x2,x3,value,seconds\n0,-1,linear,,,0,1,0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		obs, err := decode("fuzz.csv", b, s, true, false)
		if err != nil {
			return
		}
		for _, o := range obs {
			on := s.activeValues(o.Values)
			for j, v := range o.Values {
				if math.IsNaN(v) != !on[j] {
					t.Fatalf("%v: parameter %s active %v", o.Values, s.Parameters[j].Name, on[j])
				}
				if !math.IsNaN(v) {
					if why := s.Check(j, v); why != "" {
						t.Fatalf("accepted %v for %s: %s", v, s.Parameters[j].Name, why)
					}
				}
			}
			x := o.engine(s)
			y := append([]float64(nil), x...)
			s.Snap(y)
			if o.X == nil && !slicesEqual(x, y) {
				t.Fatalf("engine point %v of a user's row is not snapped (%v)", x, y)
			}
			if o.X != nil {
				// A run's records: written again, they read back bit for bit.
				if back, _, why := s.parseRecordX(s.recordX(o.X)); !slicesEqual(back, o.X) {
					t.Fatalf("records point %v reads back as %v (%s)", o.X, back, why)
				}
			}
		}
	})
}

// anyLog: a log parameter's engine coordinate may not read back bit for bit.
func (s *Space) anyLog() bool {
	for _, p := range s.Parameters {
		if p.IsLog() {
			return true
		}
	}
	return false
}
