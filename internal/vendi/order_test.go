package vendi

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// flagValue is pflag.Value, restated so the test checks *Order and *Orders
// implement it without importing pflag into internal/.
type flagValue interface {
	String() string
	Set(string) error
	Type() string
}

var (
	_ flagValue = (*Order)(nil)
	_ flagValue = (*Orders)(nil)
	_ flagValue = (*OrderList)(nil)
)

func TestParseOrder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Order
	}{
		{"0", 0}, {"0.5", 0.5}, {" 1 ", 1}, {"2", 2}, {"1e-3", 0.001},
		{"inf", OrderInf}, {"Inf", OrderInf}, {"+inf", OrderInf}, {"INF", OrderInf},
		{"infinity", OrderInf}, {"∞", OrderInf},
	} {
		got, err := ParseOrder(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "-0.5", "x", "", "nan", "NaN", "-inf", "1e400", "0.5,1"} {
		if q, err := ParseOrder(bad); err == nil {
			t.Errorf("ParseOrder(%q) = %v: want an error", bad, q)
		}
	}
	// Validate guards Orders made in Go code without parsing.
	for _, bad := range []Order{-1, Order(math.NaN()), Order(math.Inf(-1))} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%v): want an error", float64(bad))
		}
	}
}

func TestOrderString(t *testing.T) {
	for q, want := range map[Order]string{OrderInf: "inf", 0.1: "0.1", 2: "2", 0: "0", 1.5: "1.5"} {
		if got := q.String(); got != want {
			t.Errorf("String(%v) = %q, want %q", float64(q), got, want)
		}
		// String reads back to the same order (run keys round-trip).
		if back, err := ParseOrder(q.String()); err != nil || back != q {
			t.Errorf("ParseOrder(String(%v)) = %v, %v", float64(q), back, err)
		}
	}
}

func TestOrderSetAsFlag(t *testing.T) {
	var q Order = 1
	if err := q.Set("inf"); err != nil || !q.IsInf() || q.String() != "inf" {
		t.Fatalf("Set(inf): q = %v, %v", q, err)
	}
	if err := q.Set("-2"); err == nil || q != OrderInf {
		t.Errorf("Set(-2) = %v, q = %v: want an error and q unchanged", err, q)
	}
	if q.Type() != "order" {
		t.Errorf("Type = %q", q.Type())
	}
	var o Orders
	if err := o.Set("0, 0.5,inf"); err != nil || o.String() != "0,0.5,inf" {
		t.Fatalf("Orders.Set = %v, %v", o, err)
	}
	if err := o.Set(""); err == nil {
		t.Error("Orders.Set(\"\"): want an error")
	}
}

func TestParseOrders(t *testing.T) {
	qs, err := parseOrders("0, 0.1,1,inf,2")
	if err != nil || len(qs) != 5 || !qs[3].IsInf() || qs[1] != 0.1 {
		t.Fatalf("ParseOrders = %v, %v", qs, err)
	}
	for _, bad := range []string{"-1", "x", "", " , ", "nan", "1,-1"} {
		if _, err := parseOrders(bad); err == nil {
			t.Errorf("ParseOrders(%q): want error", bad)
		}
	}
}

func TestOrderYAML(t *testing.T) {
	var cfg struct {
		Q  Order  `yaml:"q"`
		Qs Orders `yaml:"qs"`
		Qc Orders `yaml:"qc"`
	}
	in := "q: inf\nqs: [0, 0.5, 1, \"2\", Inf]\nqc: \"0.1, inf\"\n"
	if err := yaml.Unmarshal([]byte(in), &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.Q.IsInf() || cfg.Qs.String() != "0,0.5,1,2,inf" || cfg.Qc.String() != "0.1,inf" {
		t.Errorf("decoded %+v", cfg)
	}
	for _, bad := range []string{"q: -1\n", "q: [1]\n", "qs: [0, -1]\n", "qs: {a: 1}\n", "qs: \"1,x\"\n", "q: .nan\n"} {
		err := yaml.Unmarshal([]byte(bad), &cfg)
		if err == nil {
			t.Errorf("%q: want an error", bad)
		} else if !strings.Contains(err.Error(), "order") {
			t.Errorf("%q: error %q does not name the order", bad, err)
		}
	}
	// Written as a []string of the same orders is, so a config.yaml that
	// records Orders has the bytes it had when q was []string.
	out, err := yaml.Marshal(struct {
		Q Orders `yaml:"q"`
	}{Orders{0, 0.5, 1, OrderInf}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := yaml.Marshal(struct {
		Q []string `yaml:"q"`
	}{[]string{"0", "0.5", "1", "inf"}})
	if string(out) != string(want) {
		t.Errorf("Marshal = %q, want %q", out, want)
	}
}

// The formulas below are the expressions Order replaced, as they stood in
// score.go (orderTerm, finishOrder), greedy.go (phi, vsFrom) and
// greedydual.go (dphi) at 68318f4. Order's methods must give the same bits.

func oldOrderTerm(p, q float64) float64 {
	switch {
	case q == 0 || math.IsInf(q, 1):
		return 0
	case q == 1:
		return p * math.Log(p)
	}
	return math.Pow(p, q)
}

func oldFinishOrder(q, s, maxP float64, n int) float64 {
	switch {
	case n == 0:
		return 0
	case q == 0:
		return float64(n)
	case q == 1:
		return math.Exp(-s)
	case math.IsInf(q, 1):
		return 1 / maxP
	}
	return math.Pow(s, 1/(1-q))
}

func oldPhi(l, q float64) float64 {
	if l <= 0 {
		return 0
	}
	switch {
	case q == 1:
		return l * math.Log(l)
	case q == 0 || math.IsInf(q, 1):
		return 0
	default:
		return math.Pow(l, q)
	}
}

func oldVSFrom(q, total, f, maxEig float64, rank int) float64 {
	switch {
	case total <= 0 || rank == 0:
		return 0
	case q == 0:
		return float64(rank)
	case q == 1:
		return math.Exp(math.Log(total) - f/total)
	case math.IsInf(q, 1):
		return total / maxEig
	default:
		return math.Pow(f/math.Pow(total, q), 1/(1-q))
	}
}

func oldDphi(l, q float64) float64 {
	switch {
	case q == 1:
		return math.Log(l) + 1
	case q == 0 || math.IsInf(q, 1):
		return 0
	default:
		return q * math.Pow(l, q-1)
	}
}

// TestOrderMethodsMatchOldExpressions compares Term, DTerm, FromSum and
// FromRawSum bit for bit with the expressions they replaced, on random
// spectra (some eigenvalues negative, zero or below zeroTol) at every kind
// of order, as ScoreFromEigenvalues and the greedy use them.
func TestOrderMethodsMatchOldExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	orders := append([]Order{0, 1, OrderInf, 2}, 0.1, 0.5, 1.5, 5)
	for trial := 0; trial < 200; trial++ {
		eig := make([]float64, 1+rng.IntN(40))
		for i := range eig {
			switch rng.IntN(5) {
			case 0:
				eig[i] = -rng.Float64() // clipped
			case 1:
				eig[i] = 1e-13 * rng.Float64() // below zeroTol after normalising
			case 2:
				eig[i] = 0
			default:
				eig[i] = rng.ExpFloat64() * 10
			}
		}
		var total float64
		for _, l := range eig {
			if l > 0 {
				total += l
			}
		}
		for _, q := range orders {
			qf := float64(q)
			thr := zeroTol * total
			var n int
			var s, sOld, m, f, fOld float64
			for _, l := range eig {
				if got, want := q.Term(l), oldPhi(l, qf); !same(got, want) {
					t.Fatalf("q = %v: Term(%v) = %v, old phi %v", q, l, got, want)
				}
				if l > 0 {
					if got, want := q.DTerm(l), oldDphi(l, qf); !same(got, want) {
						t.Fatalf("q = %v: DTerm(%v) = %v, old dphi %v", q, l, got, want)
					}
				}
				if l <= thr {
					continue
				}
				n++
				m = math.Max(m, l)
				s += q.Term(l / total)
				sOld += oldOrderTerm(l/total, qf)
				f += q.Term(l)
				fOld += oldPhi(l, qf)
			}
			if !same(s, sOld) || !same(f, fOld) {
				t.Fatalf("q = %v: sums %v, %v; old %v, %v", q, s, f, sOld, fOld)
			}
			if total > 0 {
				if got, want := q.FromSum(s, m/total, n), oldFinishOrder(qf, sOld, m/total, n); !same(got, want) {
					t.Fatalf("q = %v: FromSum = %v, old %v", q, got, want)
				}
				if got, want := ScoreFromEigenvalues(eig, q), oldFinishOrder(qf, sOld, m/total, n); !same(got, want) {
					t.Fatalf("q = %v: ScoreFromEigenvalues = %v, old %v", q, got, want)
				}
			}
			if got, want := q.FromRawSum(total, f, m, n), oldVSFrom(qf, total, fOld, m, n); !same(got, want) {
				t.Fatalf("q = %v: FromRawSum = %v, old vsFrom %v", q, got, want)
			}
		}
	}
}

// TestOrderLimits checks the documented limits: VS_q at q = 1 ± ε tends to
// VS_1, at a large q to VS_∞, at a small q to VS_0 (the rank).
func TestOrderLimits(t *testing.T) {
	eig := []float64{5, 3, 1, 0.5, 0, -0.2}
	v1 := ScoreFromEigenvalues(eig, 1)
	for _, eps := range []float64{1e-7, -1e-7} {
		if v := ScoreFromEigenvalues(eig, Order(1+eps)); math.Abs(v-v1) > 1e-5 {
			t.Errorf("VS at q = 1%+g: %v, VS_1 = %v", eps, v, v1)
		}
	}
	// VS_q = max λ̄^(-q/(q-1)) (1 + o(1)): at q = 200 the factor
	// max λ̄^(-1/199) is 1.003 here.
	if v, vinf := ScoreFromEigenvalues(eig, 200), ScoreFromEigenvalues(eig, OrderInf); math.Abs(v-vinf) > 5e-3*vinf {
		t.Errorf("VS_200 = %v, VS_inf = %v", v, vinf)
	}
	if v, v0 := ScoreFromEigenvalues(eig, 1e-9), ScoreFromEigenvalues(eig, 0); math.Abs(v-v0) > 1e-6 || v0 != 4 {
		t.Errorf("VS_1e-9 = %v, VS_0 = %v (want 4, the positive eigenvalues)", v, v0)
	}
}

// same is bit equality, NaN equal to NaN.
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// FuzzParseOrder: any text either parses to a valid order whose String
// reads back to the same order, or is an error; never a panic. The same
// holds for a list, and for the text as a YAML value.
func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"0", "0.5", "inf", "Inf", "∞", "-1", "nan", "1e400", "0,1,inf", " 2 ", "[0, inf]", "{a: 1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q, err := ParseOrder(s); err == nil {
			if q.Validate() != nil {
				t.Fatalf("ParseOrder(%q) = %v, which Validate rejects", s, q)
			}
			if back, err := ParseOrder(q.String()); err != nil || back != q {
				t.Fatalf("ParseOrder(%q) = %v; String %q reads back as %v, %v", s, q, q.String(), back, err)
			}
		}
		if qs, err := parseOrders(s); err == nil {
			for _, q := range qs {
				if q.Validate() != nil {
					t.Fatalf("ParseOrders(%q) holds %v", s, q)
				}
			}
		}
		var cfg struct {
			Q  Order  `yaml:"q"`
			Qs Orders `yaml:"qs"`
		}
		if yaml.Unmarshal([]byte("q: "+s+"\nqs: "+s+"\n"), &cfg) == nil {
			if cfg.Q.Validate() != nil {
				t.Fatalf("YAML %q decoded to %v", s, cfg.Q)
			}
			for _, q := range cfg.Qs {
				if q.Validate() != nil {
					t.Fatalf("YAML list %q holds %v", s, q)
				}
			}
		}
		// An OrderList keeps its texts: written and read back, it is the
		// same list, texts and values.
		var l struct {
			Q OrderList `yaml:"q"`
		}
		if yaml.Unmarshal([]byte("q: "+s+"\n"), &l) == nil {
			checkOrderListRoundTrip(t, l.Q)
		}
		if l, err := ParseOrderList(s); err == nil {
			checkOrderListRoundTrip(t, l)
		}
	})
}

// checkOrderListRoundTrip: l holds valid orders, one text per order, and
// reads back from its YAML as the same texts and values.
func checkOrderListRoundTrip(t *testing.T, l OrderList) {
	t.Helper()
	if len(l.Text()) != l.Len() {
		t.Fatalf("%d texts for %d orders", len(l.Text()), l.Len())
	}
	for i, q := range l.Orders() {
		if q.Validate() != nil {
			t.Fatalf("list %q holds %v", l.Text(), q)
		}
		if back, err := ParseOrder(l.Text()[i]); err != nil || !same(float64(back), float64(q)) {
			t.Fatalf("text %q is not the order %v", l.Text()[i], q)
		}
	}
	out, err := yaml.Marshal(struct {
		Q OrderList `yaml:"q"`
	}{l})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Q OrderList `yaml:"q"`
	}
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("%q does not read back: %v", out, err)
	}
	if !slices.Equal(back.Q.Text(), l.Text()) || !slices.Equal(back.Q.Orders(), l.Orders()) {
		t.Fatalf("%q read back as %q %v, want %q %v", out, back.Q.Text(), back.Q.Orders(), l.Text(), l.Orders())
	}
}

// TestOrderList: an OrderList parses each order once and keeps its text,
// which YAML records verbatim ("0.50" stays "0.50", written as a []string
// of the texts is, so a config.yaml keeps the bytes it had when q was a
// []string); one built in Go code is written as Order.String.
func TestOrderList(t *testing.T) {
	var fl OrderList
	if err := fl.Set(" 0.50, Inf,,1e0 "); err != nil {
		t.Fatal(err)
	}
	if want := []string{"0.50", "Inf", "1e0"}; !slices.Equal(fl.Text(), want) || !slices.Equal(fl.Orders(), Orders{0.5, OrderInf, 1}) || fl.String() != "0.50,Inf,1e0" {
		t.Errorf("Set: %q %v", fl.Text(), fl.Orders())
	}
	if c := fl.Canonical(); !slices.Equal(c.Text(), []string{"0.5", "inf", "1"}) || !slices.Equal(c.Orders(), fl.Orders()) {
		t.Errorf("Canonical: %q %v", c.Text(), c.Orders())
	}
	if err := fl.Set("1,x"); err == nil || !strings.Contains(err.Error(), `order "x"`) || fl.Len() != 3 {
		t.Errorf("Set(1,x): %v, list now %q", err, fl.Text())
	}
	if err := fl.Set(""); err != nil || fl.Len() != 0 || fl.Text() != nil {
		t.Errorf(`Set(""): %v, %q`, err, fl.Text())
	}
	var cfg struct {
		Q OrderList `yaml:"q"`
		S OrderList `yaml:"s"`
	}
	if err := yaml.Unmarshal([]byte("q: [0.50, Inf, \"2\"]\ns: 0.1, inf\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Q.Text(), []string{"0.50", "Inf", "2"}) || !slices.Equal(cfg.S.Text(), []string{"0.1", "inf"}) {
		t.Errorf("decoded %q %q", cfg.Q.Text(), cfg.S.Text())
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := yaml.Marshal(struct {
		Q []string `yaml:"q"`
		S []string `yaml:"s"`
	}{[]string{"0.50", "Inf", "2"}, []string{"0.1", "inf"}})
	if string(out) != string(want) || !strings.Contains(string(out), `- "0.50"`) {
		t.Errorf("Marshal = %q, want %q", out, want)
	}
	for _, bad := range []string{"q: [0, x]\n", "q: {a: 1}\n", "q: -1\n"} {
		if err := yaml.Unmarshal([]byte(bad), &cfg); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	g := NewOrderList(0, 0.5, OrderInf)
	if !slices.Equal(g.Text(), []string{"0", "0.5", "inf"}) || g.String() != "0,0.5,inf" {
		t.Errorf("NewOrderList: %q", g.Text())
	}
	if z := (OrderList{}); z.Len() != 0 || z.Text() != nil || z.String() != "" {
		t.Errorf("zero list: %q", z.Text())
	}
}
