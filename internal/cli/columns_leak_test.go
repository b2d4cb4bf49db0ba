package cli

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// pandasCSV is what pandas 2.x writes for
//
//	pd.DataFrame({"e1": [1.0, 0.0, 1.0, 0.5], "e2": [0.0, 1.0, 1.0, 0.25], "target": [1, 0, 0, 1]}).to_csv("p.csv")
//
// byte for byte: the row index under an empty header cell, floats by repr.
const pandasCSV = ",e1,e2,target\n0,1.0,0.0,1\n1,0.0,1.0,0\n2,1.0,1.0,0\n3,0.5,0.25,1\n"

// plainCSV holds the same features without the index and the target.
const plainCSV = "e1,e2\n1.0,0.0\n0.0,1.0\n1.0,1.0\n0.5,0.25\n"

// TestColumnsNeverLeakScoreSelect, on score and select: the pandas index is
// never a feature (it is read as the row index, or as the ids when it holds
// unique labels, with a note on stderr), a target column is refused until
// excluded or named, and the results equal those of the file without those
// columns.
func TestColumnsNeverLeakScoreSelect(t *testing.T) {
	dir := t.TempDir()
	pandas := testutil.WriteFile(t, dir, "p.csv", pandasCSV)
	plain := testutil.WriteFile(t, dir, "plain.csv", plainCSV)
	_, want, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = plain
		o.Format.Value = FormatCSV
	}))

	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = pandas
		o.Format.Value = FormatCSV
	}))
	if code != 1 || out != "" || !strings.Contains(stderr, pandas+`: column "target" looks like a label or target, so it is not a feature by default: leave it out with --exclude-columns target, or include it by naming the features with --feature-columns`) {
		t.Errorf("target: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = pandas
		o.Items.Emb.ExcludeColumns = "target"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"exclude-columns"}
	}))
	if code != 0 || out != want || !strings.Contains(stderr, `column "" (column 1, no name) holds 0..3: read as the row index`) {
		t.Errorf("excluded: exit %d, %q (want %q), stderr %q", code, out, want, stderr)
	}
	// Named as a feature, the target counts (a different kernel).
	code, out, _ = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = pandas
		o.Items.Emb.FeatureColumns = "e1,e2,target"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"feature-columns"}
	}))
	if code != 0 || out == want {
		t.Errorf("target named: exit %d, %q", code, out)
	}
	// pandas after df.index = ["a", "b", "c", "d"]: the index is the ids.
	labelled := testutil.WriteFile(t, dir, "l.csv", strings.NewReplacer("\n0,", "\na,", "\n1,", "\nb,", "\n2,", "\nc,", "\n3,", "\nd,").Replace(pandasCSV))
	code, out, stderr = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = labelled
		o.Items.Emb.ExcludeColumns = "target"
		o.K = 2
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"exclude-columns"}
	}))
	_, wantSel, _ := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = plain
		o.K = 2
		o.Format.Value = FormatCSV
	}))
	if code != 0 || !strings.Contains(stderr, "read as the item ids") || !strings.HasPrefix(out, "rank,index,id,qvs\n") {
		t.Fatalf("ids: exit %d, %q, stderr %q", code, out, stderr)
	}
	// Same picks and values as the plain file, with the ids added.
	plainRows, idRows := strings.Split(strings.TrimSpace(wantSel), "\n"), strings.Split(strings.TrimSpace(out), "\n")
	for r := 1; r < len(plainRows); r++ {
		f, g := strings.Split(plainRows[r], ","), strings.Split(idRows[r], ",")
		if len(g) != 4 || f[0] != g[0] || f[1] != g[1] || g[2] != string(rune('a'+f[1][0]-'0')) || f[2] != g[3] {
			t.Errorf("select row %d: %q, plain %q", r, idRows[r], plainRows[r])
		}
	}
	// An unnamed column that is neither an index nor unique is refused.
	dup := testutil.WriteFile(t, dir, "dup.csv", ",e1,e2\n0,1,0\n0,0,1\n1,1,1\n")
	code, out, stderr = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Embeddings = dup }))
	if code != 1 || out != "" || !strings.Contains(stderr, dup+`: column "" (column 1, no name) is neither a row index (0..n-1) nor unique ids`) {
		t.Errorf("dup index: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// pandas' "Unnamed: 0" (a CSV read and written again without
	// index=False) is unnamed too; with --id-column given, a unique unnamed
	// column is dropped as row labels.
	unnamed := testutil.WriteFile(t, dir, "u.csv", "Unnamed: 0,id,e1,e2\n0,a,1,0\n1,b,0,1\n2,c,1,1\n3,d,0.5,0.25\n")
	code, out, stderr = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = unnamed
		o.Items.IDColumn = "id"
		o.Format.Value = FormatCSV
	}))
	if code != 0 || out != want || !strings.Contains(stderr, `column "Unnamed: 0" (column 1, no name) holds 0..3`) {
		t.Errorf("Unnamed: 0: exit %d, %q, stderr %q", code, out, stderr)
	}
	for _, label := range []string{"label", "y", "class", "activity", "active", "is_toxic", "Target"} {
		f := testutil.WriteFile(t, dir, "lab.csv", "e1,e2,"+label+"\n1,0,1\n0,1,0\n1,1,1\n")
		code, out, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
			o.Items.Embeddings = f
			o.K = 1
		}))
		if code != 1 || out != "" || !strings.Contains(stderr, fmt.Sprintf("column %q looks like a label or target", label)) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", label, code, out, stderr)
		}
	}
}

// TestScoreStandardizeAndPrefix: --standardize z-scores each column with
// the population sd (divisor n) before the kernel, checked against the
// same embeddings standardised by hand; --feature-prefix picks x1, x2.
func TestScoreStandardizeAndPrefix(t *testing.T) {
	dir := t.TempDir()
	raw := testutil.WriteFile(t, dir, "raw.csv", "x1,x2,w\n1,10,7\n2,10,7\n3,40,7\n4,20,7\n")
	// Column x1: mean 2.5, population sd sqrt(1.25); x2: mean 20, sd sqrt(150).
	var b strings.Builder
	b.WriteString("z1,z2\n")
	for _, r := range [][2]float64{{1, 10}, {2, 10}, {3, 40}, {4, 20}} {
		fmt.Fprintf(&b, "%.17g,%.17g\n", (r[0]-2.5)/math.Sqrt(1.25), (r[1]-20)/math.Sqrt(150))
	}
	z := testutil.WriteFile(t, dir, "z.csv", b.String())
	_, want, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = z
		o.Items.Emb.Kernel = "linear"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = raw
		o.Items.Emb.FeaturePrefix = "x"
		o.Items.Emb.Standardize = true
		o.Items.Emb.Kernel = "linear"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"feature-prefix", "standardize", "embedding-kernel"}
	}))
	if code != 0 || scoreDiff(t, out, want) > 1e-12 {
		t.Errorf("standardize: exit %d, %q, want %q, stderr %q", code, out, want, stderr)
	}
	// A constant column becomes 0 and adds nothing.
	code, out2, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = raw
		o.Items.Emb.Standardize = true
		o.Items.Emb.Kernel = "linear"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"standardize", "embedding-kernel"}
	}))
	if code != 0 || scoreDiff(t, out2, want) > 1e-12 {
		t.Errorf("constant column: exit %d, %q, want %q", code, out2, want)
	}
	_, unstd, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = raw
		o.Items.Emb.FeaturePrefix = "x"
		o.Items.Emb.Kernel = "linear"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"feature-prefix", "embedding-kernel"}
	}))
	if scoreDiff(t, unstd, want) < 1e-6 {
		t.Errorf("--standardize changed nothing: %q", unstd)
	}
	for _, c := range []struct {
		name string
		set  func(*ScoreOptions)
		code int
		want string
	}{
		{"--feature-prefix q", func(o *ScoreOptions) {
			o.Items.Emb.FeaturePrefix = "q"
			o.Items.EmbFlags = []string{"feature-prefix"}
		}, 1, `--feature-prefix: no column name starts with "q"`},
		{"--feature-prefix x --feature-columns x1", func(o *ScoreOptions) {
			o.Items.Emb.FeaturePrefix = "x"
			o.Items.Emb.FeatureColumns = "x1"
			o.Items.EmbFlags = []string{"feature-prefix", "feature-columns"}
		}, 2, "give --feature-columns or --feature-prefix, not both"},
		{"--exclude-columns nope", func(o *ScoreOptions) {
			o.Items.Emb.ExcludeColumns = "nope"
			o.Items.EmbFlags = []string{"exclude-columns"}
		}, 1, `--exclude-columns: no column "nope"`},
		{"--standardize --embedding-kernel tanimoto", func(o *ScoreOptions) {
			o.Items.Emb.Standardize = true
			o.Items.Emb.Kernel = "tanimoto"
			o.Items.EmbFlags = []string{"standardize", "embedding-kernel"}
		}, 2, "--standardize: z-scored features are not fingerprints"},
	} {
		code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Embeddings = raw
			c.set(o)
		}))
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q", c.name, code, out, stderr, c.code, c.want)
		}
	}
}

// scoreDiff is the largest absolute difference between two score CSVs.
func scoreDiff(t *testing.T, a, b string) float64 {
	t.Helper()
	x, y := testutil.ScoreCSV(t, a), testutil.ScoreCSV(t, b)
	d := 0.0
	for q, v := range y {
		if len(x[q]) != len(v) {
			return math.Inf(1)
		}
		for i := range v {
			d = math.Max(d, math.Abs(x[q][i]-v[i]))
		}
	}
	return d
}
