package cli

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestScoreCombinedCSV: a CSV id,e1,e2,quality was once read
// as 3 embedding dimensions; --quality-column and --feature-columns read it
// as meant, a warning flags the quality column otherwise, and a text first
// column suggests --id-column.
func TestScoreCombinedCSV(t *testing.T) {
	dir := t.TempDir()
	combined := testutil.WriteFile(t, dir, "combined.csv", "id,e1,e2,quality\na,1,0,0.5\nb,0,1,1\nc,1,1,0.3\n")
	// Independent expectation: cosine kernel of (1,0), (0,1), (1,1)/sqrt 2.
	a := 1 / math.Sqrt2
	K := mat.NewSymDense(3, []float64{1, 0, a, 0, 1, a, a, a, 1})
	const tol = 1e-12 // eigenvalues of a 3 x 3 matrix
	for _, c := range []struct {
		name string
		set  func(*ScoreOptions)
	}{
		{"--id-column id --quality-column quality", func(o *ScoreOptions) {
			o.Items.IDColumn = "id"
			o.Items.Emb.QualityColumn = "quality"
			o.Items.EmbFlags = []string{"quality-column"}
		}},
		{"--id-column id --quality-column quality --feature-columns e1,e2", func(o *ScoreOptions) {
			o.Items.IDColumn = "id"
			o.Items.Emb.QualityColumn = "quality"
			o.Items.Emb.FeatureColumns = "e1,e2"
			o.Items.EmbFlags = []string{"quality-column", "feature-columns"}
		}},
		{"--id-column id --feature-columns e2, e1 --quality-column quality", func(o *ScoreOptions) {
			o.Items.IDColumn = "id"
			o.Items.Emb.FeatureColumns = "e2, e1"
			o.Items.Emb.QualityColumn = "quality"
			o.Items.EmbFlags = []string{"feature-columns", "quality-column"}
		}}, // column order does not change the kernel
	} {
		code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Embeddings, o.Orders, o.Format.Value = combined, vendi.Orders{1, vendi.OrderInf}, FormatCSV
			c.set(o)
		}))
		if code != 0 || strings.Contains(stderr, "warning") {
			t.Fatalf("%s: exit %d, stderr %q", c.name, code, stderr)
		}
		got := testutil.ScoreCSV(t, out)
		for _, q := range []string{"1", "inf"} {
			qv, _ := vendi.ParseOrder(q)
			vs, _ := vendi.Score(K, qv)
			if len(got[q]) != 2 || math.Abs(got[q][0]-vs) > tol || math.Abs(got[q][1]-0.6*vs) > tol {
				t.Errorf("%s q = %s: %v, want VS %g, qVS 0.6 x VS = %g", c.name, q, got[q], vs, 0.6*vs)
			}
		}
	}
	// Without --quality-column the quality is a dimension, and a warning
	// says so.
	code, _, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = combined
		o.Items.IDColumn = "id"
	}))
	if code != 0 || !strings.Contains(stderr, `column "quality" is read as an embedding dimension`) || !strings.Contains(stderr, "--quality-column quality") {
		t.Errorf("no warning: exit %d, stderr %q", code, stderr)
	}
	// select takes the same flags: qualities 0.5, 1, 0.3 and q = 1 make b
	// the first pick (every singleton has VS 1).
	code, out, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = combined
		o.Items.IDColumn = "id"
		o.Items.Emb.QualityColumn = "quality"
		o.K = 1
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"quality-column"}
	}))
	if code != 0 || !strings.HasPrefix(out, "rank,index,id,qvs\n1,1,b,1\n") {
		t.Errorf("select: exit %d, %q, %s", code, out, stderr)
	}

	for _, tc := range []struct {
		name string
		set  func(*ScoreOptions)
		code int
		want string
	}{
		{"text first column", func(o *ScoreOptions) {
			o.Items.Embeddings = combined
		}, 1, `the first column "id" holds text: if it is an item id, pass --id-column id`},
		{"unknown quality column", func(o *ScoreOptions) {
			o.Items.Embeddings = combined
			o.Items.IDColumn = "id"
			o.Items.Emb.QualityColumn = "q"
			o.Items.EmbFlags = []string{"quality-column"}
		}, 1, `--quality-column: no column "q"`},
		{"unknown feature column", func(o *ScoreOptions) {
			o.Items.Embeddings = combined
			o.Items.IDColumn = "id"
			o.Items.Emb.FeatureColumns = "e1,e3"
			o.Items.EmbFlags = []string{"feature-columns"}
		}, 1, `--feature-columns: no column "e3"`},
		{"quality is a feature", func(o *ScoreOptions) {
			o.Items.Embeddings = combined
			o.Items.IDColumn = "id"
			o.Items.Emb.QualityColumn = "quality"
			o.Items.Emb.FeatureColumns = "e1,quality"
			o.Items.EmbFlags = []string{"quality-column", "feature-columns"}
		}, 1, "both the quality column and a feature column"},
		{"negative quality", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "neg.csv", "e1,e2,quality\n1,0,1\n0,1,-2\n")
			o.Items.Emb.QualityColumn = "quality"
			o.Items.EmbFlags = []string{"quality-column"}
		}, 1, `column "quality": row 2: quality -2 is negative`},
		{"no header", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "plain.csv", "1,0,1\n0,1,2\n")
			o.Items.Emb.QualityColumn = "quality"
			o.Items.EmbFlags = []string{"quality-column"}
		}, 1, "no header row"},
		{"two qualities", func(o *ScoreOptions) {
			o.Items.Embeddings = combined
			o.Items.IDColumn = "id"
			o.Items.Emb.QualityColumn = "quality"
			o.Items.Quality = combined
			o.Items.EmbFlags = []string{"quality-column"}
		}, 2, "not both"},
		{"kernel", func(o *ScoreOptions) {
			o.Items.Kernel = testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
			o.Items.Emb.QualityColumn = "quality"
			o.Items.EmbFlags = []string{"quality-column"}
		}, 2, "--quality-column applies to --embeddings"},
	} {
		code, out, stderr := exitOf(t, RunScore, scoreOpts(tc.set))
		if code != tc.code || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q (want %q)", tc.name, code, tc.code, out, stderr, tc.want)
		}
	}
}

// TestScoreRBF: the RBF kernel against one built from
// the definition, the median-heuristic default, select on it, and misuse.
func TestScoreRBF(t *testing.T) {
	dir := t.TempDir()
	X := testutil.WriteFile(t, dir, "X.csv", "x,y\n0,0\n1,0\n0,2\n")
	pts := [][2]float64{{0, 0}, {1, 0}, {0, 2}}
	brute := func(ell float64) *mat.SymDense {
		K := mat.NewSymDense(3, nil)
		for i := range pts {
			for j := i; j < 3; j++ {
				dx, dy := pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]
				K.SetSym(i, j, math.Exp(-(dx*dx+dy*dy)/(2*ell*ell)))
			}
		}
		return K
	}
	const tol = 1e-12 // eigenvalues of a 3 x 3 matrix
	check := func(out string, ell float64) {
		t.Helper()
		got := testutil.ScoreCSV(t, out)
		for _, q := range []string{"0.5", "1", "2", "inf"} {
			qv, _ := vendi.ParseOrder(q)
			want, _ := vendi.Score(brute(ell), qv)
			if len(got[q]) != 1 || math.Abs(got[q][0]-want) > tol {
				t.Errorf("l = %g, q = %s: %v, brute force %g", ell, q, got[q], want)
			}
		}
	}
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = X
		o.Items.Emb.Kernel = "rbf"
		o.Items.Emb.LengthScale = 1.5
		o.Orders = vendi.Orders{0.5, 1, 2, vendi.OrderInf}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel", "length-scale"}
	}))
	if code != 0 || strings.Contains(stderr, "length scale") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	check(out, 1.5)
	// Default: distances 1, 2, sqrt 5, median 2.
	code, out, stderr = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = X
		o.Items.Emb.Kernel = "rbf"
		o.Orders = vendi.Orders{0.5, 1, 2, vendi.OrderInf}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if code != 0 || !strings.Contains(stderr, "RBF length scale = 2: the median distance") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	check(out, 2)
	// select: singletons tie (VS 1, lowest row first), then the farthest
	// point from (0, 0) is (0, 2).
	quiet, sout, serr := testEnv(t)
	quiet.Quiet = true
	err := RunSelect(quiet, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = X
		o.Items.Emb.Kernel = "rbf"
		o.K = 2
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if out, stderr = sout.String(), serr.String(); err != nil || stderr != "" || !strings.HasPrefix(out, "rank,index,qvs\n1,0,1\n2,2,") {
		t.Errorf("select rbf: %v, %q, stderr %q", err, out, stderr)
	}
	for _, c := range []struct {
		name string
		set  func(*ScoreOptions)
	}{
		{"--length-scale 1", func(o *ScoreOptions) {
			o.Items.Emb.LengthScale = 1
			o.Items.EmbFlags = []string{"length-scale"}
		}}, // cosine
		{"--embedding-kernel rbf --length-scale -1", func(o *ScoreOptions) {
			o.Items.Emb.Kernel = "rbf"
			o.Items.Emb.LengthScale = -1
			o.Items.EmbFlags = []string{"embedding-kernel", "length-scale"}
		}}, // not > 0
		{"--embedding-kernel rbf --linear", func(o *ScoreOptions) {
			o.Items.Emb.Kernel = "rbf"
			o.Items.Emb.Linear = true
			o.Items.EmbFlags = []string{"embedding-kernel", "linear"}
		}}, // contradiction
		{"--embedding-kernel gauss", func(o *ScoreOptions) {
			o.Items.Emb.Kernel = "gauss"
			o.Items.EmbFlags = []string{"embedding-kernel"}
		}}, // unknown
	} {
		if code, _, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Embeddings = X
			c.set(o)
		})); code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, stderr)
		}
	}
	// A "y" beside "x" is a coordinate: no warning (above); alone it looks
	// like a target and is refused, naming the flags.
	if code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = testutil.WriteFile(t, dir, "Y.csv", "a,y\n0,1\n1,0\n")
	})); code != 1 || out != "" ||
		!strings.Contains(stderr, `column "y" looks like a label or target`) || !strings.Contains(stderr, "--exclude-columns y") {
		t.Errorf("y without x: exit %d, stderr %q", code, stderr)
	}
	// --linear still means the linear kernel: rows (1,0), (2,0) have rank 1.
	if code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = testutil.WriteFile(t, dir, "L.csv", "1,0\n2,0\n")
		o.Items.Emb.Linear = true
		o.Orders = vendi.Orders{0}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"linear"}
	})); code != 0 || out != "q,vs\n0,1\n" {
		t.Errorf("--linear: exit %d, %q, %s", code, out, stderr)
	}
}
