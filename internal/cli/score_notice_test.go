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
		args []string
		want string // "" = no notice
	}{
		{"kernel at the threshold", []string{"score", "--kernel", k3}, "eigendecomposing the 3 x 3 kernel (dense"},
		{"kernel below", []string{"score", "--kernel", k2}, ""},
		{"quiet", []string{"score", "--kernel", k3, "--quiet"}, ""},
		{"rbf: n x n", []string{"score", "--embeddings", emb, "--embedding-kernel", "rbf", "--length-scale", "1"}, "eigendecomposing the 4 x 4 rbf kernel (dense"},
		// cosine and linear use the d x d Gram of the 2 dimensions.
		{"cosine: d x d", []string{"score", "--embeddings", emb}, ""},
		{"linear: d x d", []string{"score", "--embeddings", emb, "--embedding-kernel", "linear"}, ""},
		{"select k at the threshold", []string{"select", "--kernel", k3, "--k", "3"}, "of order up to 3 (dense"},
		{"select k below", []string{"select", "--kernel", k3, "--k", "2"}, ""},
		{"select prefix counts", []string{"select", "--kernel", k3, "--k", "1", "--prefix", "0,1"}, "of order up to 3 (dense"},
		{"select quiet", []string{"select", "--kernel", k3, "--k", "3", "--quiet"}, ""},
		{"select on a Gram", []string{"select", "--embeddings", emb, "--embedding-kernel", "linear", "--k", "3"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := itemsCmd(t, c.args...)
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
