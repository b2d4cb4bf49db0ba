package cli

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestScoreSelectTanimoto: score and select --embedding-kernel tanimoto
// on a fingerprint column (bits or FPS hex) and on count columns equal
// VS_q of the Tanimoto matrix built from the definition.
func TestScoreSelectTanimoto(t *testing.T) {
	dir := t.TempDir()
	fps := []string{"11000000", "10100000", "00000011", "00000000", "11100000"}
	counts := [][]float64{{2, 0, 1}, {1, 1, 1}, {0, 3, 0}, {0, 0, 0}, {2, 1, 1}}
	var bitsCSV, hexCSV, countCSV strings.Builder
	bitsCSV.WriteString("name,fp\n")
	hexCSV.WriteString("name,fp\n")
	countCSV.WriteString("name,c1,c2,c3\n")
	for i, fp := range fps {
		v := 0
		for s := range 8 {
			if fp[s] == '1' {
				v |= 1 << s
			}
		}
		fmt.Fprintf(&bitsCSV, "m%d,%s\n", i, fp)
		fmt.Fprintf(&hexCSV, "m%d,%02X\n", i, v)
		fmt.Fprintf(&countCSV, "m%d,%g,%g,%g\n", i, counts[i][0], counts[i][1], counts[i][2])
	}
	minMax := func(a, b []float64) float64 {
		lo, hi := 0.0, 0.0
		for f := range a {
			lo, hi = lo+math.Min(a[f], b[f]), hi+math.Max(a[f], b[f])
		}
		if hi == 0 {
			return 1
		}
		return lo / hi
	}
	for _, c := range []struct {
		name string
		set  func(*ItemsOptions) // after --embedding-kernel tanimoto --id-column name
		sim  func(i, j int) float64
	}{
		{"bits", func(o *ItemsOptions) { // --embeddings b.csv --fingerprint-column fp
			o.Embeddings, o.Emb.FingerprintColumn = testutil.WriteFile(t, dir, "b.csv", bitsCSV.String()), "fp"
			o.EmbFlags = append(o.EmbFlags, "fingerprint-column")
		}, func(i, j int) float64 { return testutil.TextTanimoto(fps[i], fps[j]) }},
		{"hex", func(o *ItemsOptions) { // --embeddings h.csv --fingerprint-column fp --fingerprint-format hex
			o.Embeddings, o.Emb.FingerprintColumn, o.Emb.FingerprintFormat = testutil.WriteFile(t, dir, "h.csv", hexCSV.String()), "fp", "hex"
			o.EmbFlags = append(o.EmbFlags, "fingerprint-column", "fingerprint-format")
		}, func(i, j int) float64 { return testutil.TextTanimoto(fps[i], fps[j]) }},
		{"counts", func(o *ItemsOptions) { // --embeddings c.csv
			o.Embeddings = testutil.WriteFile(t, dir, "c.csv", countCSV.String())
		}, func(i, j int) float64 { return minMax(counts[i], counts[j]) }},
	} {
		// --embedding-kernel tanimoto --id-column name, then c's flags.
		items := func(o *ItemsOptions) {
			o.Emb.Kernel, o.IDColumn, o.EmbFlags = "tanimoto", "name", []string{"embedding-kernel"}
			c.set(o)
		}
		K := mat.NewSymDense(len(fps), nil)
		for i := range fps {
			for j := i; j < len(fps); j++ {
				K.SetSym(i, j, c.sim(i, j))
			}
		}
		code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			items(&o.Items)
			o.Orders, o.Format.Value = vendi.Orders{0.5, 1, vendi.OrderInf}, FormatCSV
		}))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		got := testutil.ScoreCSV(t, out)
		for _, q := range []string{"0.5", "1", "inf"} {
			qv, _ := vendi.ParseOrder(q)
			vs, _ := vendi.Score(K, qv)
			if len(got[q]) != 1 || math.Abs(got[q][0]-vs) > 1e-12 {
				t.Errorf("%s q = %s: %v, want %v", c.name, q, got[q], vs)
			}
		}
		// select: the first pick of VS_1 ties (every singleton is 1) to
		// row 0; the second is the item least similar to it.
		code, out, stderr = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
			items(&o.Items)
			o.K, o.Format.Value = 2, FormatCSV
		}))
		best, bestV := -1, math.Inf(-1)
		for j := 1; j < len(fps); j++ {
			sub := mat.NewSymDense(2, []float64{1, K.At(0, j), K.At(0, j), 1})
			if v, _ := vendi.Score(sub, 1); v > bestV+1e-12 {
				best, bestV = j, v
			}
		}
		if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("rank,index,id,qvs\n1,0,m0,1\n2,%d,m%d,", best, best)) {
			t.Errorf("%s select: exit %d, %q (want pick %d), %s", c.name, code, out, best, stderr)
		}
	}
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = testutil.WriteFile(t, dir, "b2.csv", bitsCSV.String())
		o.Items.IDColumn = "name"
		o.Items.Emb.FingerprintColumn = "fp"
		o.Items.EmbFlags = []string{"fingerprint-column"}
	}))
	if code != 2 || out != "" || !strings.Contains(stderr, "--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --embedding-kernel tanimoto") {
		t.Errorf("no tanimoto: exit %d, %q, %q", code, out, stderr)
	}
	bad := testutil.WriteFile(t, dir, "bad.csv", "name,fp\na,0101\nb,01x1\n")
	code, out, stderr = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = bad
		o.Items.IDColumn = "name"
		o.Items.Emb.FingerprintColumn = "fp"
		o.Items.Emb.Kernel = "tanimoto"
		o.Items.EmbFlags = []string{"fingerprint-column", "embedding-kernel"}
	}))
	if code != 1 || out != "" || !strings.Contains(stderr, bad+`: line 3, column "fp" (--fingerprint-column), format bits: character 3 is "x"`) {
		t.Errorf("bad fingerprint: exit %d, %q, %q", code, out, stderr)
	}
}
