package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/fileio"
)

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitRuntime},
		{"usage", Usagef("--q: bad"), ExitUsage},
		{"wrapped usage", fmt.Errorf("ctx: %w", Usagef("x")), ExitUsage},
		{"config", ConfigErrorf("c.yaml", "k = 1"), ExitUsage},
		{"setting", SettingError("", "budget", -1, "must be positive"), ExitUsage},
		{"setting alone", configkeys.Invalid("k", 3, "above the rows"), ExitRuntime},
		{"not ours", fmt.Errorf("out: %w", fileio.ErrNotOurs), ExitUsage},
		{"beyond bound", fmt.Errorf("k: %w", configkeys.ErrBeyondBound), ExitUsage},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%s: ExitCode = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestUsageKeepsChainAndIsIdempotent(t *testing.T) {
	if Usage(nil) != nil {
		t.Fatal("Usage(nil) != nil")
	}
	base := errors.New("base")
	u := Usage(base)
	if !errors.Is(u, base) || ExitCode(u) != ExitUsage {
		t.Fatalf("Usage lost the chain or the code: %v", u)
	}
	if uu := Usage(u); uu != u {
		t.Fatalf("Usage wrapped a usage error twice: %#v", uu)
	}
}

func TestConfigErrorMessage(t *testing.T) {
	if got, want := ConfigErrorf("c.yaml", "budget = %d", 0).Error(), "config c.yaml: budget = 0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := ConfigErrorf("", "budget = %d", 0).Error(), "budget = 0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFloatRoundTrips(t *testing.T) {
	for _, v := range []float64{0.1, 1e-300, 123456789.123, -2.5} {
		if s := Float(v); s == "" || fmt.Sprint(v) != s {
			t.Errorf("Float(%v) = %q", v, s)
		}
	}
}
