package cli

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestASSuggestPending on a CSV pool: with the first two
// items of a batch of 5 pending, `as suggest` prints the batch's other
// three items with the same index, id, probability and qvs, for every
// method; bad pending files exit 1 with stdout empty and a message naming
// the file and line.
func TestASSuggestPending(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\nm20,1\n")
	cache := filepath.Join(dir, "cache")
	// --cache-dir DIR --pool pool.csv --id-column id --feature-prefix x --k 3
	// --observed obs.csv --format csv --prior 0.1 --quiet, set's flags.
	suggest := func(set func(*ASSuggestOptions)) (int, string, string) {
		t.Helper()
		return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) { c.IDColumn, c.FeaturePrefix, c.K = "id", "x", 3 }),
			func(o *ASSuggestOptions, p *search.Protocol) {
				o.Observed, o.Format.Value = obs, FormatCSV
				o.Labels.Prior, o.Labels.PriorGiven, p.Prior = "0.1", true, "0.1"
				set(o)
				o.LabelFlags = append([]string{"prior"}, o.LabelFlags...)
			}), func(e *Env) { e.CacheDir, e.Quiet = cache, true })
	}
	for _, method := range []string{"qvs", "one-step", "eci", "select", "ens", "random"} {
		code, out, stderr := suggest(func(o *ASSuggestOptions) {
			o.Method, o.Batch, o.Labels.Remaining, o.Labels.RemainingGiven, o.LabelFlags = method, 5, 20, true, []string{"remaining"}
		})
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		full := testutil.SuggestRows(t, out)
		pending := testutil.WriteFile(t, dir, "pending.csv", "id,note\n"+full[0][2]+",sent\n"+full[1][2]+",sent\n")
		code, out, stderr = suggest(func(o *ASSuggestOptions) {
			o.Method, o.Batch, o.Labels.Remaining, o.Labels.RemainingGiven, o.LabelFlags = method, 3, 18, true, []string{"remaining"}
			o.Pending = pending
		})
		if code != 0 {
			t.Fatalf("%s --pending: exit %d: %s", method, code, stderr)
		}
		rest := testutil.SuggestRows(t, out)
		for r, row := range rest {
			// rank restarts at 1; index, id, probability and qvs are the
			// batch's (here to the last printed digit).
			if !slices.Equal(row[1:], full[r+2][1:]) || row[0] != full[r][0] {
				t.Errorf("%s --pending: row %v, want the batch's row %v", method, row, full[r+2])
			}
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"unknown id": {"id\nm99\n", `pending.csv: line 2, column 1 (id): id "m99" is not in pool pool`},
		"twice":      {"id\nm01\nm01\n", "pending.csv: line 3, column 1 (id): item 1 (m01) is listed twice"},
		"observed":   {"index\n5\n30\n", "pending.csv: line 3: item 30 (30) is also labelled in " + obs},
		"header":     {"item\nm01\n", `pending.csv: header "item": expected columns index or id`},
	} {
		pending := testutil.WriteFile(t, dir, "pending.csv", tc.body)
		code, out, stderr := suggest(func(o *ASSuggestOptions) { o.Pending = pending })
		if code != 1 || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, no output, %q", name, code, out, stderr, tc.want)
		}
	}
}

// TestASSuggestTanimotoExact is a user's command from a bug report,
// verbatim but for the file paths:
//
//	qvs as suggest --pool fp.csv --id-column id --fingerprint-column fp --metric tanimoto --k 20 --prior 0.37 --observed obs.csv --batch 5 --method qvs --q 1 --format csv
//
// Its batch, probabilities and qvs values must equal an independent
// computation: the brute-force Tanimoto kNN graph (k = 20, weight =
// similarity, ties to the lower index) from the strings, the kNN model's
// probabilities (a1 = 0.37, a0 = 0.63, sums over each item's own row), and
// the brute-force greedy of eq. 7 (mean quality x VS_1 by vendi.Score on the
// submatrix of (W + Wᵀ)/2 with unit diagonal; positives quality 1). The
// pool is drawn so that no greedy step has a near tie (checked), so the
// command's random tie-breaking cannot matter.
func TestASSuggestTanimotoExact(t *testing.T) {
	const n, nbits, k, a1, batch = 60, 48, 20, 0.37, 5
	rng := rand.New(rand.NewPCG(20, 1))
	fps := testutil.ChemPool(rng, n, nbits)
	dir := t.TempDir()
	var pool strings.Builder
	pool.WriteString("id,fp\n")
	for i, fp := range fps {
		fmt.Fprintf(&pool, "mol%d,%s\n", i, fp)
	}
	observed := map[int]bool{3: true, 17: false, 25: true, 40: false, 41: false, 52: false}
	var obs strings.Builder
	obs.WriteString("id,label\n")
	for _, i := range slices.Sorted(maps.Keys(observed)) {
		fmt.Fprintf(&obs, "mol%d,%d\n", i, testutil.B2I(observed[i]))
	}
	fpPath := testutil.WriteFile(t, dir, "fp.csv", pool.String())
	obsPath := testutil.WriteFile(t, dir, "obs.csv", obs.String())

	// Brute force: graph, model, kernel, greedy.
	W := mat.NewDense(n, n, nil)
	rows := make([][]int, n)
	for i := range n {
		var js []int
		for j := range n {
			if j != i {
				js = append(js, j)
			}
		}
		slices.SortStableFunc(js, func(x, y int) int {
			return cmp.Compare(testutil.TextTanimoto(fps[i], fps[y]), testutil.TextTanimoto(fps[i], fps[x]))
		})
		for _, j := range js[:k] {
			if s := testutil.TextTanimoto(fps[i], fps[j]); s > 0 {
				W.Set(i, j, s)
				rows[i] = append(rows[i], j)
			}
		}
	}
	prob := make([]float64, n)
	for i := range n {
		pos, neg := 0.0, 0.0
		for _, j := range rows[i] {
			if l, ok := observed[j]; ok && l {
				pos += W.At(i, j)
			} else if ok {
				neg += W.At(i, j)
			}
		}
		prob[i] = (a1 + pos) / ((1 - a1 + neg) + (a1 + pos))
	}
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := 1.0
			if i != j {
				v = (W.At(i, j) + W.At(j, i)) / 2
			}
			K.SetSym(i, j, v)
		}
	}
	qvs := func(items []int) float64 {
		sub := mat.NewSymDense(len(items), nil)
		s := 0.0
		for a, i := range items {
			if l, ok := observed[i]; ok && l {
				s++
			} else {
				s += prob[i]
			}
			for b := a; b < len(items); b++ {
				sub.SetSym(a, b, K.At(i, items[b]))
			}
		}
		vs, err := vendi.Score(sub, 1)
		if err != nil {
			t.Fatal(err)
		}
		return s / float64(len(items)) * vs
	}
	var set []int
	for i, l := range observed {
		if l {
			set = append(set, i)
		}
	}
	var want []int
	var wantVals []float64
	for range batch {
		best, second, bestV := -1, math.Inf(-1), math.Inf(-1)
		for c := range n {
			if _, ok := observed[c]; ok || slices.Contains(want, c) {
				continue
			}
			v := qvs(append(slices.Clone(set), c))
			if v > bestV {
				second, best, bestV = bestV, c, v
			} else if v > second {
				second = v
			}
		}
		if bestV-second < 1e-9*bestV {
			t.Fatalf("the test pool has a near tie at pick %d (%v vs %v): draw another", len(want)+1, bestV, second)
		}
		want, wantVals, set = append(want, best), append(wantVals, bestV), append(set, best)
	}

	code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool(fpPath, func(c *datasets.CSVConfig) {
		c.IDColumn = "id"
		c.FingerprintColumn = "fp"
		c.Metric = "tanimoto"
		c.Similarity = knn.SimilarityNative
		c.K = 20
	}), func(o *ASSuggestOptions, p *search.Protocol) {
		o.Labels.Prior, o.Labels.PriorGiven = "0.37", true
		o.Observed = obsPath
		o.Batch = 5
		o.Method = "qvs"
		o.Q, o.QGiven = 1, true
		o.Format.Value = FormatCSV
		o.LabelFlags = []string{"prior"}
		p.Prior = "0.37"
	}), func(e *Env) { e.CacheDir = t.TempDir() })
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != batch+1 || strings.Join(recs[0], ",") != "rank,index,id,probability,qvs" {
		t.Fatalf("output %q: %v", out, err)
	}
	for r, rec := range recs[1:] {
		x := want[r]
		p, _ := strconv.ParseFloat(rec[3], 64)
		v, _ := strconv.ParseFloat(rec[4], 64)
		if rec[1] != strconv.Itoa(x) || rec[2] != fmt.Sprintf("mol%d", x) || math.Abs(p-prob[x]) > 1e-12 || math.Abs(v-wantVals[r]) > 1e-9*wantVals[r] {
			t.Errorf("rank %d: %v, want index %d (mol%d), probability %v, qvs %v", r+1, rec, x, x, prob[x], wantVals[r])
		}
	}
	// The same pool as hex (FPS) fingerprints and as 0/1 columns gives the
	// same batch.
	var hexPool, colPool strings.Builder
	hexPool.WriteString("id,fp\n")
	colPool.WriteString("id")
	for f := range nbits {
		fmt.Fprintf(&colPool, ",bit%d", f)
	}
	colPool.WriteString("\n")
	for i, fp := range fps {
		fmt.Fprintf(&hexPool, "mol%d,", i)
		for b := 0; b < nbits; b += 8 {
			v := 0
			for s := range 8 {
				if fp[b+s] == '1' {
					v |= 1 << s
				}
			}
			fmt.Fprintf(&hexPool, "%02x", v)
		}
		hexPool.WriteString("\n")
		fmt.Fprintf(&colPool, "mol%d,%s\n", i, strings.Join(strings.Split(fp, ""), ","))
	}
	for _, c := range []struct {
		name, file, fpColumn, fpFormat string
	}{
		{"hex fingerprints", testutil.WriteFile(t, dir, "hex.csv", hexPool.String()), "fp", "hex"},
		{"0/1 columns", testutil.WriteFile(t, dir, "cols.csv", colPool.String()), "", ""},
	} {
		// --cache-dir DIR --id-column id --metric tanimoto --k 20 --prior 0.37
		// --observed obs.csv --batch 5 --format csv --pool FILE [--fingerprint-column fp --fingerprint-format hex]
		pool := csvPool(c.file, func(cs *datasets.CSVConfig) {
			cs.IDColumn, cs.Metric, cs.Similarity, cs.K = "id", knn.MetricTanimoto, knn.SimilarityNative, 20
			cs.FingerprintColumn, cs.FingerprintFormat = c.fpColumn, c.fpFormat
		})
		code, out2, stderr := exitOf(t, RunASSuggest, suggestOn(pool, func(o *ASSuggestOptions, p *search.Protocol) {
			o.Labels.Prior, o.Labels.PriorGiven, o.LabelFlags, p.Prior = "0.37", true, []string{"prior"}, "0.37"
			o.Observed, o.Batch, o.Format.Value = obsPath, 5, FormatCSV
		}), func(e *Env) { e.CacheDir = t.TempDir() })
		if code != 0 || out2 != out {
			t.Errorf("%s: exit %d, output\n%s\nwant\n%s\nstderr %s", c.name, code, out2, out, stderr)
		}
	}
}

// TestASCampaignCSVTanimoto: a campaign (qvs as) on a CSV pool of
// fingerprints with a label column (pool.csv.metric: tanimoto) runs, and its
// records hold only pool items; and score reads 0/1 fingerprints from a
// float32 .npy under --embedding-kernel tanimoto as from the CSV.
func TestASCampaignCSVTanimoto(t *testing.T) {
	fps := testutil.ChemPool(rand.New(rand.NewPCG(5, 6)), 50, 32)
	dir := t.TempDir()
	var pool strings.Builder
	pool.WriteString("id,fp,label\n")
	x := make([]float32, 0, 50*32)
	for i, fp := range fps {
		fmt.Fprintf(&pool, "m%d,%s,%d\n", i, fp, testutil.B2I(fp[0] == '1'))
		for _, c := range fp {
			x = append(x, float32(c-'0'))
		}
	}
	csvPath := testutil.WriteFile(t, dir, "fp.csv", pool.String())
	cfg := "task: fp\nrepeats: 1\nbudget: 8\nbatch: 2\nmethods: [qvs]\nq: [\"1\"]\nprior: prevalence\npool:\n  kind: csv\n  csv: {file: " + csvPath + ", id_column: id, fingerprint_column: fp, metric: tanimoto, k: 5}\n"
	code, out, stderr := asConfigRun(t, cfg, filepath.Join(dir, "res"), t.TempDir(), true)
	if code != 0 || !strings.Contains(out, "qVS-AS") {
		t.Fatalf("campaign: exit %d, %q, %s", code, out, stderr)
	}
	var npy strings.Builder
	if err := fileio.WriteNPYFloat32(&npy, 50, 32, x); err != nil {
		t.Fatal(err)
	}
	npyPath := testutil.WriteFile(t, dir, "fp.npy", npy.String())
	_, want, _ := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = csvPath
		o.Items.IDColumn = "id"
		o.Items.Emb.FingerprintColumn = "fp"
		o.Items.Emb.ExcludeColumns = "label"
		o.Items.Emb.Kernel = "tanimoto"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"fingerprint-column", "exclude-columns", "embedding-kernel"}
	}))
	code, got, stderr := exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
		o.Items.Embeddings = npyPath
		o.Items.Emb.Kernel = "tanimoto"
		o.Format.Value = FormatCSV
		o.Items.EmbFlags = []string{"embedding-kernel"}
	}))
	if code != 0 || got != want || want == "" {
		t.Errorf(".npy: exit %d, %q, want %q (%s)", code, got, want, stderr)
	}
}
