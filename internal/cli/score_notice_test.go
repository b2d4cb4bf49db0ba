package cli

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/items"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestDenseEigNotice: score and select say on stderr, before it starts,
// that a dense eigendecomposition of order >= items.NoticeOrder is coming
// (its order and what it is of), nothing below the threshold or with
// --quiet. The threshold is lowered to 3 so that small inputs cross it.
func TestDenseEigNotice(t *testing.T) {
	defer func(g, l int) { items.NoticeOrder, items.NoticeOrderLAPACK = g, l }(items.NoticeOrder, items.NoticeOrderLAPACK)
	items.NoticeOrder, items.NoticeOrderLAPACK = 3, 3
	dir := t.TempDir()
	k3 := testutil.WriteFile(t, dir, "K3.csv", testutil.Kernel3)
	k2 := testutil.WriteFile(t, dir, "K2.csv", "1,0.5\n0.5,1\n")
	emb := testutil.WriteFile(t, dir, "X.csv", "1,0\n0,1\n1,1\n2,1\n") // 4 rows, 2 dimensions
	for _, c := range []struct {
		name string
		run  func(*testing.T) (code int, stdout, msg string)
		want string // "" = no notice
	}{
		{"kernel at the threshold", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = k3 }))
		}, "eigendecomposing the 3 x 3 kernel (dense"},
		{"kernel below", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = k2 }))
		}, ""},
		{"quiet", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = k3 }), beQuiet)
		}, ""},
		{"rbf: n x n", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Embeddings = emb
				o.Items.Emb.Kernel = "rbf"
				o.Items.Emb.LengthScale = 1
				o.Items.EmbFlags = []string{"embedding-kernel", "length-scale"}
			}))
		}, "eigendecomposing the 4 x 4 rbf kernel (dense"},
		// cosine and linear use the d x d Gram of the 2 dimensions.
		{"cosine: d x d", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Embeddings = emb }))
		}, ""},
		{"linear: d x d", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Embeddings = emb
				o.Items.Emb.Kernel = "linear"
				o.Items.EmbFlags = []string{"embedding-kernel"}
			}))
		}, ""},
		{"select k at the threshold", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.K = 3
			}))
		}, "of order up to 3 (dense"},
		{"select k below", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.K = 2
			}))
		}, ""},
		{"select prefix counts", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.K = 1
				o.Prefix = "0,1"
			}))
		}, "of order up to 3 (dense"},
		{"select quiet", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Kernel = k3
				o.K = 3
			}), beQuiet)
		}, ""},
		{"select on a Gram", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
				o.Items.Embeddings = emb
				o.Items.Emb.Kernel = "linear"
				o.K = 3
				o.Items.EmbFlags = []string{"embedding-kernel"}
			}))
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := c.run(t)
			if code != ExitOK || stdout == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			has := strings.Contains(stderr, "eigendecompos")
			if c.want == "" && has {
				t.Errorf("stderr %q: no notice expected", stderr)
			}
			if c.want != "" && !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not say %q", stderr, c.want)
			}
		})
	}
}
