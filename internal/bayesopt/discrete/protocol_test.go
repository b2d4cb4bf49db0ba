package discrete

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestProtocolPlan: Plan writes the orders canonically, drops them when
// qvs is not run (so config.yaml records none), and lists the runs with
// Runs' keys.
func TestProtocolPlan(t *testing.T) {
	p := DefaultProtocol(TaskPhotoswitch)
	var err error
	if p.Q, err = vendi.ParseOrderList("1.0, Inf"); err != nil {
		t.Fatal(err)
	}
	p.Repeats = 1
	got, runs, err := Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Q.Text(), []string{"1", "inf"}) {
		t.Errorf("q written as %q", got.Q)
	}
	var keys []string
	for _, r := range runs {
		keys = append(keys, r.Key)
	}
	if want := []string{"random-r00", "ucb-r00", "qvs-q1-r00", "qvs-qinf-r00"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	p = DefaultProtocol(TaskPhotoswitch)
	p.Methods = []string{MethodRandom}
	if got, _, err = Plan(p); err != nil || got.Q.Len() != 0 || got.Q.Text() != nil {
		t.Errorf("without qvs: q %q, err %v", got.Q, err)
	}
}

// TestProtocolRefusals: the config-only checks are typed where a key and
// value say it all.
func TestProtocolRefusals(t *testing.T) {
	for _, tc := range []struct {
		edit       func(*Protocol)
		key, value string
	}{
		{func(p *Protocol) { p.Repeats = 0 }, "repeats", "0"},
		{func(p *Protocol) { p.Methods = []string{"ucb", "ucb"} }, "methods", `"ucb"`},
		{func(p *Protocol) { p.Data.Format = "npz" }, "data.format", `"npz"`},
		{func(p *Protocol) { p.Q = vendi.NewOrderList(1, 0.5, 1) }, "q", `"1"`},
		{func(p *Protocol) { p.Q = vendi.NewOrderList(-0.5) }, "q", `"-0.5"`}, // an Order set in Go code
	} {
		p := DefaultProtocol(taskMOF)
		tc.edit(&p)
		_, _, err := Plan(p)
		var se *configkeys.SettingError
		if !errors.As(err, &se) || se.Key != tc.key || se.Value != tc.value {
			t.Errorf("want %s = %s, got %v", tc.key, tc.value, err)
		}
	}
	if _, _, err := Plan(DefaultProtocol(TaskKernel)); err == nil {
		t.Error("task kernel without good_threshold: no error")
	}
	p := DefaultProtocol(taskMOF)
	if got, want := p.InputFiles("/data"), []string{filepath.Join("/data", "mof/kernel.npy"), filepath.Join("/data", "mof/mofs.csv")}; !slices.Equal(got, want) {
		t.Errorf("InputFiles %q, want %q", got, want)
	}
}
