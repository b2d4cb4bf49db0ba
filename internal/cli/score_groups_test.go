package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestScoreGroupColumn: score --group-column scores each
// group under one kernel. Two groups of 8 points on circles of radius 0.1
// (tight) and 3 (spread): each group's own median distance rescales both
// to the same shape, so scoring each group's file alone (per-file median
// heuristic) gives them equal VS, the wrong answer; with the length scale
// of the whole file the spread group is the more diverse, and each group's
// VS equals that of its rows alone with --length-scale set to the shared
// scale (an independent path: the group's own file and kernel).
func TestScoreGroupColumn(t *testing.T) {
	dir := t.TempDir()
	var all strings.Builder
	all.WriteString("name,x,y,kind,quality\n")
	files := map[string]*strings.Builder{"tight": {}, "spread": {}}
	for _, g := range []struct {
		name string
		r    float64
	}{{"tight", 0.1}, {"spread", 3}} {
		files[g.name].WriteString("x,y\n")
		for i := range 8 {
			a := 2 * math.Pi * float64(i) / 8
			x, y := 5+g.r*math.Cos(a), g.r*math.Sin(a)
			fmt.Fprintf(&all, "%s%d,%.17g,%.17g,%s,%g\n", g.name, i, x, y, g.name, 0.5+float64(i%2)/2)
			fmt.Fprintf(files[g.name], "%.17g,%.17g\n", x, y)
		}
	}
	path := testutil.WriteFile(t, dir, "points.csv", all.String())
	code, out, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = path
		o.Items.IDColumn = "name"
		o.Items.Emb.GroupColumn = "kind"
		o.Items.Emb.QualityColumn = "quality"
		o.Items.Emb.Kernel = "rbf"
		o.Orders = vendi.Orders{1, vendi.OrderInf}
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"group-column", "quality-column", "embedding-kernel"}
	}))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`RBF length scale = (\S+):`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr %q does not give the length scale", stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || strings.Join(recs[0], ",") != "group,n,vs_q1,vs_qinf,qvs_q1,qvs_qinf" || len(recs) != 3 {
		t.Fatalf("output %q (%v)", out, err)
	}
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	vs := map[string]float64{}
	const tol = 1e-5 // the printed length scale has 6 significant digits
	for _, rec := range recs[1:] {
		name := rec[0]
		vs[name] = num(rec[2])
		if rec[1] != "8" {
			t.Errorf("group %s: n = %s, want 8", name, rec[1])
		}
		// qVS = mean quality (0.75: 0.5 and 1 alternate) x VS.
		if math.Abs(num(rec[4])-0.75*num(rec[2])) > 1e-12*num(rec[2]) {
			t.Errorf("group %s: qvs_q1 %s, want 0.75 x %s", name, rec[4], rec[2])
		}
		own := testutil.WriteFile(t, dir, name+".csv", files[name].String())
		code, out1, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Embeddings, o.Items.Emb.Kernel, o.Items.Emb.LengthScale = own, "rbf", num(m[1])
			o.Orders, o.Format.Value = vendi.Orders{1}, FormatCSV
			o.Items.EmbFlags = []string{"embedding-kernel", "length-scale"}
		}))
		if code != 0 {
			t.Fatalf("%s alone: exit %d: %s", name, code, stderr)
		}
		if want := lastVS(out1); math.Abs(vs[name]-want) > tol*want {
			t.Errorf("group %s: VS_1 %g, its rows alone with the shared length scale %g", name, vs[name], want)
		}
	}
	if !(vs["spread"] > 2*vs["tight"]) {
		t.Errorf("VS_1 spread %g, tight %g: the spread group should be far more diverse", vs["spread"], vs["tight"])
	}
	// The per-file median heuristic: both groups alike (the wrong answer).
	perFile := map[string]float64{}
	for name := range files {
		_, out1, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, name+".csv", files[name].String())
			o.Items.Emb.Kernel = "rbf"
			o.Orders = vendi.Orders{1}
			o.Format.Value = FormatCSV
			o.Items.EmbFlags = []string{"embedding-kernel"}
		}))
		perFile[name] = lastVS(out1)
	}
	if math.Abs(perFile["spread"]-perFile["tight"]) > 1e-9 {
		t.Errorf("per-file medians: spread %g, tight %g; expected equal (scale-free)", perFile["spread"], perFile["tight"])
	}

	// JSON: one document with every group.
	code, out, _ = exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = path
		o.Items.IDColumn = "name"
		o.Items.Emb.GroupColumn = "kind"
		o.Items.Emb.QualityColumn = "quality"
		o.Items.Emb.Kernel = "rbf"
		o.Orders = vendi.Orders{1}
		o.Format.Value = FormatJSON
		o.Items.EmbFlags = []string{"group-column", "quality-column", "embedding-kernel"}
	}))
	var doc struct {
		N      int     `json:"n"`
		Scale  float64 `json:"length_scale"`
		Groups []struct {
			Group  string `json:"group"`
			N      int    `json:"n"`
			Scores []struct {
				Q  string  `json:"q"`
				VS float64 `json:"vs"`
			} `json:"scores"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.N != 16 || len(doc.Groups) != 2 || doc.Groups[0].Group != "tight" || doc.Groups[1].Scores[0].VS != vs["spread"] || !(doc.Scale > 0) {
		t.Errorf("json: exit %d, %v, %+v", code, err, doc)
	}

	// Errors.
	k := testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
	for _, tc := range []struct {
		name string
		set  func(*ScoreOptions)
		code int
		want string
	}{
		{"--kernel FILE --group-column kind", func(o *ScoreOptions) {
			o.Items.Kernel = k
			o.Items.Emb.GroupColumn = "kind"
			o.Items.EmbFlags = []string{"group-column"}
		}, 2, "--group-column applies to --embeddings"},
		{"--embeddings FILE --group-column cultivar", func(o *ScoreOptions) {
			o.Items.Embeddings = path
			o.Items.Emb.GroupColumn = "cultivar"
			o.Items.EmbFlags = []string{"group-column"}
		}, 1, `--group-column: no column "cultivar"`},
		{"--embeddings FILE --group-column name --id-column name", func(o *ScoreOptions) {
			o.Items.Embeddings = path
			o.Items.Emb.GroupColumn = "name"
			o.Items.IDColumn = "name"
			o.Items.EmbFlags = []string{"group-column"}
		}, 1, `column "name" is both the id column and the group column`},
		{"--embeddings nohead.csv --group-column g", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "nohead.csv", "1,2\n3,4\n")
			o.Items.Emb.GroupColumn = "g"
			o.Items.EmbFlags = []string{"group-column"}
		}, 2, "--group-column names a header column, and"},
		{"--embeddings g.csv --group-column g", func(o *ScoreOptions) {
			o.Items.Embeddings = testutil.WriteFile(t, dir, "g.csv", "g,x\na,1\n,2\n")
			o.Items.Emb.GroupColumn = "g"
			o.Items.EmbFlags = []string{"group-column"}
		}, 1, `line 3: the group column "g" is empty`},
	} {
		code, out, stderr := exitOf(t, RunScore, scoreOpts(tc.set))
		if code != tc.code || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", tc.name, code, out, stderr, tc.code, tc.want)
		}
	}
}

// lastVS is the vs of the last row of `score --format csv` output (q,vs).
func lastVS(out string) float64 {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	f := strings.Split(lines[len(lines)-1], ",")
	v, _ := strconv.ParseFloat(f[1], 64)
	return v
}
