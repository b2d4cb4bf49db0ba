package bayesopt

import (
	"errors"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestPlanRuns: runs are listed repeat by repeat, then method, then q,
// keyed by RunKey, with tau in ROBOT's and floored qvs's params; q is
// written canonically (1.0 -> 1).
func TestPlanRuns(t *testing.T) {
	p := DefaultProtocol("synthetic")
	p.Methods, p.Q, p.Repeats = []string{MethodROBOT, MethodQVS, MethodRandom}, orderList(t, "1.0,inf"), 2
	c, err := Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	var keys, params []string
	for _, r := range c.Runs {
		keys = append(keys, r.Key)
		params = append(params, r.Params)
	}
	wantKeys := []string{"robot-r00", "qvs-q1-r00", "qvs-qinf-r00", "random-r00", "robot-r01", "qvs-q1-r01", "qvs-qinf-r01", "random-r01"}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("keys %q, want %q", keys, wantKeys)
	}
	if params[0] != "tau=0.5" || params[1] != "" || params[3] != "" {
		t.Errorf("params %q", params)
	}
	if s := c.settings["qvs-qinf-r01"]; s.Method != MethodQVS || s.Q.String() != "inf" || s.Budget != p.Budget {
		t.Errorf("settings of qvs-qinf-r01: %+v", s)
	}
	p.QVSFloor = true
	c, err = Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[1].Key != "qvs-q1-floor-r00" || c.Runs[1].Params != "floor tau=0.5" {
		t.Errorf("floored qvs run: %+v", c.Runs[1])
	}
}

// TestProtocolValidateTyped: Validate's refusals are SettingErrors naming
// the key and the value.
func TestProtocolValidateTyped(t *testing.T) {
	for _, tc := range []struct {
		edit       func(*Protocol)
		key, value string
	}{
		{func(p *Protocol) { p.Repeats = 0 }, "repeats", "0"},
		{func(p *Protocol) { p.Q = vendi.NewOrderList(vendi.OrderInf, vendi.OrderInf) }, "q", `"inf"`},
		{func(p *Protocol) { p.MaxTrain = 0 }, "max_train", "0"},
		{func(p *Protocol) { p.Methods = []string{"qvs", "random", "qvs"} }, "methods", `"qvs"`},
		{func(p *Protocol) { p.Q = vendi.NewOrderList(-1) }, "q", `"-1"`}, // an Order set in Go code
		{func(p *Protocol) { p.Regions = 0 }, "regions", "0"},
	} {
		p := DefaultProtocol("rover")
		tc.edit(&p)
		_, err := Plan(p)
		var se *configkeys.SettingError
		if !errors.As(err, &se) || se.Key != tc.key || se.Value != tc.value {
			t.Errorf("want key %s = %s, got %v", tc.key, tc.value, err)
		}
	}
}

// orderList parses s, comma-separated orders kept as written.
func orderList(t *testing.T, s string) vendi.OrderList {
	t.Helper()
	l, err := vendi.ParseOrderList(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPlanTypedOrders: Plan uses the parsed orders: a protocol built in Go
// code from values plans the runs of the one written "0.50, Inf", and both
// record q canonically (Validate), without changing the caller's list.
func TestPlanTypedOrders(t *testing.T) {
	written := DefaultProtocol("synthetic")
	written.Q = orderList(t, "0.50, Inf")
	typed := DefaultProtocol("synthetic")
	typed.Q = vendi.NewOrderList(0.5, vendi.OrderInf)
	a, err := Plan(written)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Plan(typed)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Runs, b.Runs) {
		t.Errorf("runs from text %v\nfrom values %v", a.Runs, b.Runs)
	}
	var keys []string
	for _, r := range a.Runs {
		if r.Method == MethodQVS && r.Repeat == 0 {
			keys = append(keys, r.Key+"/"+r.Q+"/"+a.settings[r.Key].Q.String())
		}
	}
	if want := []string{"qvs-q0.5-r00/0.5/0.5", "qvs-qinf-r00/inf/inf"}; !slices.Equal(keys, want) {
		t.Errorf("qvs runs %q, want %q", keys, want)
	}
	if !slices.Equal(a.Q.Text(), []string{"0.5", "inf"}) || !slices.Equal(written.Q.Text(), []string{"0.50", "Inf"}) {
		t.Errorf("recorded q %q, caller's q now %q", a.Q.Text(), written.Q.Text())
	}
}
