package cli

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestScoreSelectClipEveryOrder checks the clipping convention through the
// CLI: on an
// indefinite kernel, `qvs score` reports VS_q non-increasing in q, and both
// `score` and `select` give VS_2 = 1 on [[1, 1.5], [1.5, 1]] (eigenvalues
// 2.5 and -0.5; the old closed form printed 4/6.5 = 0.615).
func TestScoreSelectClipEveryOrder(t *testing.T) {
	dir := t.TempDir()
	k2 := testutil.WriteFile(t, dir, "K2.csv", "1,1.5\n1.5,1\n")
	code, out, errs := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Kernel = k2
		o.Orders = vendi.Orders{2}
		o.Format.Value = FormatCSV
	}))
	if code != 0 || strings.TrimSpace(out) != "q,vs\n2,1" {
		t.Errorf("score [[1,1.5],[1.5,1]] at q = 2: exit %d, %q %s; want VS_2 = 1", code, out, errs)
	}
	code, out, errs = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Kernel = k2
		o.Prefix = "0"
		o.K = 1
		o.Q = 2
		o.Format.Value = FormatCSV
	}))
	if code != 0 || strings.TrimSpace(out) != "rank,index,qvs\n1,1,1" {
		t.Errorf("select on [[1,1.5],[1.5,1]] at q = 2: exit %d, %q %s; want qVS 1", code, out, errs)
	}

	// Random symmetric kernels, unit diagonal, off-diagonals in [-0.6, 0.6]:
	// indefinite for n = 7 in practice (checked by the vendi tests).
	rng := rand.New(rand.NewPCG(13, 2))
	for trial := 0; trial < 5; trial++ {
		const n = 7
		var K [n][n]float64
		for i := 0; i < n; i++ {
			K[i][i] = 1
			for j := i + 1; j < n; j++ {
				K[i][j] = 0.6 * (2*rng.Float64() - 1)
				K[j][i] = K[i][j]
			}
		}
		var b strings.Builder
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString(strconv.FormatFloat(K[i][j], 'g', -1, 64))
			}
			b.WriteString("\n")
		}
		kf := testutil.WriteFile(t, dir, "K.csv", b.String())
		code, out, errs := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Kernel = kf
			o.Orders = vendi.Orders{0, 0.1, 0.5, 1, 2, 5, vendi.OrderInf}
			o.Format.Value = FormatCSV
		}))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
		prev := 0.0
		for i, l := range lines {
			f := strings.Split(l, ",")
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("row %q: %v", l, err)
			}
			if i > 0 && v > prev*(1+1e-9) { // 1e-9: rounding of equal VS values
				t.Errorf("trial %d: VS_%s = %v > VS of the previous order %v:\n%s", trial, f[0], v, prev, out)
			}
			prev = v
		}
	}
}
