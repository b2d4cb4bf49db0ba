package items

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoresKernel: the scores of a kernel file against the definition of
// VS_q on its matrix, and qVS_q = mean quality x VS_q (eq. 2).
func TestScoresKernel(t *testing.T) {
	kf := write(t, "K.csv", "1,0.9,0\n0.9,1,0\n0,0,1\n")
	qf := write(t, "q.csv", "1\n0.5\n0\n")
	in, err := Load(Spec{Kernel: kf, Quality: qf}, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	K := mat.NewSymDense(3, []float64{1, 0.9, 0, 0.9, 1, 0, 0, 0, 1})
	orders := vendi.Orders{0.5, 1, 2}
	var announced []int
	scores, err := in.Scores(orders, func(order int, what string) {
		announced = append(announced, order)
		if what != "the 3 x 3 kernel" {
			t.Errorf("announced %q", what)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(announced) != 1 || announced[0] != 3 {
		t.Errorf("announced %v, want one decomposition of order 3", announced)
	}
	for k, s := range scores {
		want := testutil.BruteVS(K, float64(orders[k]))
		if math.Abs(s.VS-want) > 1e-12*want {
			t.Errorf("q = %v: VS %v, want %v", orders[k], s.VS, want)
		}
		if s.QVS == nil || math.Abs(*s.QVS-0.5*want) > 1e-12*want {
			t.Errorf("q = %v: qVS %v, want %v", orders[k], s.QVS, 0.5*want)
		}
	}
}

// TestScoresEmbeddings: cosine embeddings give the VS of the kernel of
// unit-norm rows, whichever of the n x n kernel and the d x d Gram is
// decomposed; linear keeps the rows.
func TestScoresEmbeddings(t *testing.T) {
	rows := [][]float64{{3, 4}, {1, 0}, {0, 2}, {1, 1}}
	f := write(t, "X.csv", "3,4\n1,0\n0,2\n1,1\n")
	for _, kernel := range []string{Cosine, Linear} {
		in, err := Load(Spec{Embeddings: f, EmbeddingKernel: kernel}, io.Discard, true)
		if err != nil {
			t.Fatal(err)
		}
		if o, what := in.SpectrumOrder(); o != 2 || !strings.Contains(what, "2 x 2 Gram") {
			t.Errorf("%s: spectrum order %d (%s), want the 2 x 2 Gram", kernel, o, what)
		}
		K := mat.NewSymDense(4, nil)
		for i := range rows {
			for j := range rows {
				d := rows[i][0]*rows[j][0] + rows[i][1]*rows[j][1]
				if kernel == Cosine {
					d /= math.Hypot(rows[i][0], rows[i][1]) * math.Hypot(rows[j][0], rows[j][1])
				}
				K.SetSym(i, j, d)
			}
		}
		scores, err := in.Scores(vendi.Orders{1, 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scores {
			want := testutil.BruteVS(K, float64(s.Q))
			if math.Abs(s.VS-want) > 1e-10*want || s.QVS != nil {
				t.Errorf("%s q = %v: VS %v (qVS %v), want %v and no qVS", kernel, s.Q, s.VS, s.QVS, want)
			}
		}
	}
}

// TestScoresUndefined: a kernel of zeros and all-zero rows under the
// linear kernel have no VS; the kernel is refused before any
// decomposition (its diagonal tells), the table of embeddings after.
func TestScoresUndefined(t *testing.T) {
	for _, spec := range []Spec{
		{Kernel: write(t, "Z.csv", "0,0\n0,0\n")},
		{Embeddings: write(t, "Z.csv", "0,0,0\n0,0,0\n"), EmbeddingKernel: Linear},
	} {
		in, err := Load(spec, io.Discard, true)
		if err != nil {
			t.Fatal(err)
		}
		_, err = in.Scores(vendi.Orders{1}, func(int, string) {
			if spec.Kernel != "" {
				t.Error("announced a decomposition of a zero kernel")
			}
		})
		if err == nil || !(errors.Is(err, vendi.ErrNoPositiveEigenvalue) || strings.Contains(err.Error(), "every row is all zeros")) {
			t.Errorf("%+v: err %v", spec, err)
		}
	}
}

// TestLoadRawNPY: with RawNPY a float32 or float64 .npy of embeddings is
// kept in its own dtype (no float64 table); without it, it is read as a
// table; both give the same VS.
func TestLoadRawNPY(t *testing.T) {
	x := []float32{1, 2, 0, 1, 3, 1, 2, 2, 0.5}
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, 3, 3, x); err != nil {
		t.Fatal(err)
	}
	npy := write(t, "X.npy", b.String())
	raw, err := Load(Spec{Embeddings: npy, RawNPY: true}, io.Discard, true)
	if err != nil || raw.emb32 == nil || raw.embeddings != nil || raw.Kernel() != nil {
		t.Fatalf("raw float32 load: %v", err)
	}
	table, err := Load(Spec{Embeddings: npy}, io.Discard, true)
	if err != nil || table.emb32 != nil || table.embeddings == nil {
		t.Fatalf("table load: %v", err)
	}
	a, err1 := raw.Scores(vendi.Orders{1}, nil)
	c, err2 := table.Scores(vendi.Orders{1}, nil)
	if err1 != nil || err2 != nil || math.Abs(a[0].VS-c[0].VS) > 1e-6 {
		t.Errorf("raw %v (%v), table %v (%v)", a, err1, c, err2)
	}
	// RBF needs the rows: never raw.
	if in, err := Load(Spec{Embeddings: npy, RawNPY: true, EmbeddingKernel: RBF, LengthScale: 1}, io.Discard, true); err != nil || in.emb32 != nil || in.rbf == nil {
		t.Errorf("rbf: %v", err)
	}
}

// TestGroupScores: each group's VS is the VS of its rows' submatrix of the
// kernel of all rows, with one length scale (the one of all rows); groups
// in order of first appearance; an empty group is refused with its line.
func TestGroupScores(t *testing.T) {
	f := write(t, "X.csv", "g,a,b\nu,0,0\nv,5,0\nu,1,0\nv,5,1\nv,0,3\n")
	in, err := Load(Spec{Embeddings: f, GroupColumn: "g", EmbeddingKernel: RBF}, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := in.LengthScale()
	if !ok || !(l > 0) {
		t.Fatalf("length scale %v %v", l, ok)
	}
	groups, err := in.GroupScores(vendi.Orders{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pts := [][2]float64{{0, 0}, {5, 0}, {1, 0}, {5, 1}, {0, 3}}
	want := map[string][]int{"u": {0, 2}, "v": {1, 3, 4}}
	if len(groups) != 2 || groups[0].Name != "u" || groups[1].Name != "v" {
		t.Fatalf("groups %+v", groups)
	}
	for _, g := range groups {
		idx := want[g.Name]
		K := mat.NewSymDense(len(idx), nil)
		for a, i := range idx {
			for c, j := range idx {
				d2 := math.Pow(pts[i][0]-pts[j][0], 2) + math.Pow(pts[i][1]-pts[j][1], 2)
				K.SetSym(a, c, math.Exp(-d2/(2*l*l)))
			}
		}
		if v := testutil.BruteVS(K, 1); g.N != len(idx) || math.Abs(g.Scores[0].VS-v) > 1e-10 {
			t.Errorf("group %s: n %d VS %v, want %d and %v", g.Name, g.N, g.Scores[0].VS, len(idx), v)
		}
	}
	empty := write(t, "E.csv", "g,a\nu,0\n,1\n")
	in, err = Load(Spec{Embeddings: empty, GroupColumn: "g", EmbeddingKernel: Linear}, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.GroupScores(vendi.Orders{1}, nil); err == nil || !strings.Contains(err.Error(), `line 3: the group column "g" is empty`) {
		t.Errorf("empty group: %v", err)
	}
}

// TestSelect: the greedy's picks on a kernel where the answer is known
// (two near-duplicates and a distinct item: the distinct one joins the
// first pick), the announcement of the chosen sets' order, and the prefix.
func TestSelect(t *testing.T) {
	in, err := Load(Spec{Kernel: write(t, "K.csv", "1,0.99,0\n0.99,1,0\n0,0,1\n")}, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	announced := 0
	res, err := in.Select(2, 1, nil, 1, func(order int) { announced = order })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Picks) != 2 || res.Picks[1] != 2 && res.Picks[0] != 2 || announced != 2 {
		t.Errorf("picks %v, announced %d", res.Picks, announced)
	}
	// VS_1 of {0, 2}: two orthogonal items, 2.
	if math.Abs(res.Scores[1]-2) > 1e-12 {
		t.Errorf("score %v, want 2", res.Scores[1])
	}
	res, err = in.Select(1, 1, []int{2}, 1, nil)
	if err != nil || len(res.Picks) != 1 || res.Picks[0] != 0 {
		t.Errorf("with prefix {2}: %v %v (ties to the lowest row)", res.Picks, err)
	}
	// Embeddings under cosine: the dual, nothing announced.
	emb, err := Load(Spec{Embeddings: write(t, "X.csv", "1,0\n0,1\n1,1\n")}, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := emb.Select(2, 1, nil, 1, func(int) { t.Error("announced on the d x d dual") }); err != nil {
		t.Fatal(err)
	}
	zero, _ := Load(Spec{Kernel: write(t, "Z.csv", "0,0\n0,0\n")}, io.Discard, true)
	if _, err := zero.Select(1, 1, nil, 1, nil); !errors.Is(err, vendi.ErrNoPositiveEigenvalue) {
		t.Errorf("zero kernel: %v", err)
	}
}

// TestLoadErrors: misuse and bad contents name the file, row or flag.
func TestLoadErrors(t *testing.T) {
	k := write(t, "K.csv", "1,0\n0,1\n")
	for _, c := range []struct {
		name  string
		spec  Spec
		usage bool
		want  string
	}{
		{"neither", Spec{}, true, "exactly one of"},
		{"both", Spec{Kernel: k, Embeddings: k}, true, "exactly one of"},
		{"group on headerless", Spec{Embeddings: k, GroupColumn: "g"}, true, "has no header row"},
		{"ids twice", Spec{Kernel: write(t, "K2.csv", "id,a,b\nx,1,0\ny,0,1\n"), IDColumn: "id", IDs: write(t, "ids.txt", "p\nq\n")}, true, "--ids or --id-column"},
		{"quality count", Spec{Kernel: k, Quality: write(t, "q.csv", "1\n2\n3\n")}, false, "3 qualities for 2 items"},
		{"negative quality", Spec{Kernel: k, Quality: write(t, "q.csv", "1\n-1\n")}, false, "row 2: quality -1 is negative"},
		{"repeated id", Spec{Kernel: k, IDs: write(t, "ids.txt", "a\na\n")}, false, `id "a" is given for rows 1 and 2`},
		{"empty id", Spec{Kernel: k, IDs: write(t, "ids.txt", "a\n\"\"\n")}, false, "id 2 is empty"},
		{"zero row cosine", Spec{Embeddings: write(t, "X.csv", "1,0\n0,0\n")}, false, "row 2 is all zeros"},
		{"header column on headerless", Spec{Embeddings: write(t, "X.csv", "1,0\n0,1\n"), QualityColumn: "q"}, false, "no header row"},
		{"id hint", Spec{Kernel: write(t, "K.csv", "name,a,b\nx,1,0\ny,0,1\n")}, false, "pass --id-column name"},
	} {
		_, err := Load(c.spec, io.Discard, true)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &ue) != c.usage {
			t.Errorf("%s: err %v (usage %v), want %q (usage %v)", c.name, err, errors.As(err, &ue), c.want, c.usage)
		}
	}
}

// TestSuspectColumn: header names that look like a quality or a label.
func TestSuspectColumn(t *testing.T) {
	for name, want := range map[string]bool{"quality": true, "Score": true, "true_label": true, "y": true, "value": true, "y1": false, "e1": false, "valuation": false, "x": false} {
		if suspectColumn(name) != want {
			t.Errorf("suspectColumn(%q) = %v", name, !want)
		}
	}
	var w bytes.Buffer
	if _, err := Load(Spec{Embeddings: write(t, "X.csv", "e1,score\n1,0\n0,1\n")}, &w, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), `column "score" is read as an embedding dimension`) {
		t.Errorf("no warning: %q", w.String())
	}
}

// TestDenseEigNotice: the threshold of the backend in use.
func TestDenseEigNotice(t *testing.T) {
	defer func(g, l int) { NoticeOrder, NoticeOrderLAPACK = g, l }(NoticeOrder, NoticeOrderLAPACK)
	NoticeOrder, NoticeOrderLAPACK = 10, 10
	if DenseEigNotice(9) || !DenseEigNotice(10) {
		t.Error("threshold 10: 9 announced or 10 not")
	}
}

// FuzzLoad: any embeddings or kernel CSV is loaded or refused with an
// error, never a panic; loaded items score or refuse as undefined.
func FuzzLoad(f *testing.F) {
	f.Add("e1,e2,quality\n1,0,1\n0,1,2\n", false)
	f.Add("1,0.5\n0.5,1\n", true)
	f.Add("id,a\nx,1\ny,\n", false)
	f.Fuzz(func(t *testing.T, content string, kernel bool) {
		if len(content) > 1<<12 {
			return
		}
		p := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := Spec{Embeddings: p, EmbeddingKernel: Linear}
		if kernel {
			spec = Spec{Kernel: p}
		}
		in, err := Load(spec, io.Discard, true)
		if err != nil {
			return
		}
		_, _ = in.Scores(vendi.Orders{0, 1, vendi.Order(math.Inf(1))}, nil)
	})
}
