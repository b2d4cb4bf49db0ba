package cmd

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// textTanimoto is the Tanimoto similarity of two '0'/'1' strings by its
// definition (1 for two empty fingerprints).
func textTanimoto(a, b string) float64 {
	and, or := 0, 0
	for i := range a {
		if a[i] == '1' && b[i] == '1' {
			and++
		}
		if a[i] == '1' || b[i] == '1' {
			or++
		}
	}
	if or == 0 {
		return 1
	}
	return float64(and) / float64(or)
}

// chemPool writes n random fingerprints of nbits bits (density 1/3) as
// id,fp rows and returns them.
func chemPool(rng *rand.Rand, n, nbits int) []string {
	fps := make([]string, n)
	for i := range fps {
		var b strings.Builder
		for range nbits {
			if rng.IntN(3) == 0 {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		fps[i] = b.String()
	}
	return fps
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
	fps := chemPool(rng, n, nbits)
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
		fmt.Fprintf(&obs, "mol%d,%d\n", i, b2i(observed[i]))
	}
	fpPath := writeFile(t, dir, "fp.csv", pool.String())
	obsPath := writeFile(t, dir, "obs.csv", obs.String())

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
		slices.SortStableFunc(js, func(x, y int) int { return cmp.Compare(textTanimoto(fps[i], fps[y]), textTanimoto(fps[i], fps[x])) })
		for _, j := range js[:k] {
			if s := textTanimoto(fps[i], fps[j]); s > 0 {
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

	code, out, stderr := runQVS(t, "as", "suggest", "--cache-dir", t.TempDir(), "--pool", fpPath, "--id-column", "id", "--fingerprint-column", "fp",
		"--metric", "tanimoto", "--k", "20", "--prior", "0.37", "--observed", obsPath, "--batch", "5", "--method", "qvs", "--q", "1", "--format", "csv")
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
	for _, args := range [][]string{
		{"--pool", writeFile(t, dir, "hex.csv", hexPool.String()), "--fingerprint-column", "fp", "--fingerprint-format", "hex"},
		{"--pool", writeFile(t, dir, "cols.csv", colPool.String())},
	} {
		code, out2, stderr := runQVS(t, append([]string{"as", "suggest", "--cache-dir", t.TempDir(), "--id-column", "id", "--metric", "tanimoto", "--k", "20", "--prior", "0.37",
			"--observed", obsPath, "--batch", "5", "--format", "csv"}, args...)...)
		if code != 0 || out2 != out {
			t.Errorf("%v: exit %d, output\n%s\nwant\n%s\nstderr %s", args, code, out2, out, stderr)
		}
	}
}

// TestASSuggestFingerprintErrors: bad fingerprint input exits non-zero
// with stdout empty and a message naming the file, line, column or flag.
func TestASSuggestFingerprintErrors(t *testing.T) {
	dir := t.TempDir()
	pool := writeFile(t, dir, "fp.csv", "id,fp\na,0101\nb,0111\nc,01x1\nd,0000\n")
	short := writeFile(t, dir, "short.csv", "id,fp\na,0101\nb,011\nc,0011\n")
	obs := writeFile(t, dir, "obs.csv", "id,label\na,1\n")
	base := []string{"as", "suggest", "--cache-dir", t.TempDir(), "--id-column", "id", "--observed", obs, "--k", "1"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--pool", pool, "--fingerprint-column", "fp", "--metric", "tanimoto"}, 1, pool + `: line 4, column "fp" (--fingerprint-column (key pool.csv.fingerprint_column)), format bits: character 3 is "x"`},
		{[]string{"--pool", short, "--fingerprint-column", "fp", "--metric", "tanimoto"}, 1, short + `: line 3, column "fp" (--fingerprint-column (key pool.csv.fingerprint_column)): fingerprint of 3 bits, expected 4 like line 2`},
		{[]string{"--pool", pool, "--fingerprint-column", "fp"}, 2, "--fingerprint-column: fingerprints are compared by Tanimoto similarity: add --metric tanimoto"},
		{[]string{"--pool", pool, "--fingerprint-column", "fp", "--metric", "tanimoto", "--fingerprint-format", "b64"}, 2, `invalid argument "b64" for "--fingerprint-format" flag: expected bits or hex`},
		{[]string{"--pool", pool, "--fingerprint-column", "smiles", "--metric", "tanimoto"}, 1, `--fingerprint-column (key pool.csv.fingerprint_column) = "smiles": no such column`},
		{[]string{"--pool", pool, "--metric", "jaccard"}, 2, `invalid argument "jaccard" for "--metric" flag: expected euclidean, cosine or tanimoto`},
	} {
		code, out, stderr := runQVS(t, append(base, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, stderr, c.code, c.want)
		}
	}
}

// TestASSuggestOwnGraph: the fingerprint pool's Tanimoto kNN graph, built
// by brute force here and given as W.npz (the CSR writer scipy's reader
// reads), as edge lists by index and by id (--ids), and the dense Tanimoto
// matrix given as --kernel K.csv with --k 20, all suggest exactly the batch
// of the --pool call (itself checked against brute force in
// TestASSuggestTanimotoExact). The same graph with labels runs a campaign
// (pool.kind: graph).
func TestASSuggestOwnGraph(t *testing.T) {
	const n, nbits, k = 60, 48, 20
	fps := chemPool(rand.New(rand.NewPCG(20, 1)), n, nbits)
	dir := t.TempDir()
	var pool, edges, idEdges, kern, ids, labels strings.Builder
	pool.WriteString("id,fp\n")
	edges.WriteString("i,j,w\n")
	idEdges.WriteString("id_i,id_j,w\n")
	ids.WriteString("id\n")
	labels.WriteString("index,label\n")
	m := &fileio.CSR{Rows: n, Cols: n, Indptr: []int{0}}
	for i, fp := range fps {
		fmt.Fprintf(&pool, "mol%d,%s\n", i, fp)
		fmt.Fprintf(&ids, "mol%d\n", i)
		fmt.Fprintf(&labels, "%d,%d\n", i, b2i(strings.Count(fp, "1") > nbits/3))
		var js []int
		for j := range n {
			if j != i {
				js = append(js, j)
			}
			if j > 0 {
				kern.WriteString(",")
			}
			fmt.Fprintf(&kern, "%.17g", textTanimoto(fp, fps[j]))
		}
		kern.WriteString("\n")
		slices.SortStableFunc(js, func(x, y int) int { return cmp.Compare(textTanimoto(fp, fps[y]), textTanimoto(fp, fps[x])) })
		row := slices.Clone(js[:k])
		slices.Sort(row) // CSR rows in column order, as scipy stores them
		for _, j := range row {
			s := textTanimoto(fp, fps[j])
			m.Indices, m.Data = append(m.Indices, j), append(m.Data, s)
			fmt.Fprintf(&edges, "%d,%d,%.17g\n", i, j, s)
			fmt.Fprintf(&idEdges, "mol%d,mol%d,%.17g\n", i, j, s)
		}
		m.Indptr = append(m.Indptr, len(m.Data))
	}
	npz := filepath.Join(dir, "W.npz")
	if err := fileio.WriteCSRNPZ(npz, m); err != nil {
		t.Fatal(err)
	}
	obs := writeFile(t, dir, "obs.csv", "id,label\nmol3,1\nmol17,0\nmol25,1\nmol40,0\nmol41,0\nmol52,0\n")
	common := []string{"as", "suggest", "--cache-dir", t.TempDir(), "--prior", "0.37", "--observed", obs, "--batch", "5", "--format", "csv"}
	code, want, stderr := runQVS(t, append(common, "--pool", writeFile(t, dir, "fp.csv", pool.String()), "--id-column", "id", "--fingerprint-column", "fp", "--metric", "tanimoto", "--k", "20")...)
	if code != 0 {
		t.Fatalf("pool: exit %d, %s", code, stderr)
	}
	idsPath := writeFile(t, dir, "ids.csv", ids.String())
	for _, args := range [][]string{
		{"--graph", npz, "--ids", idsPath},
		{"--graph", writeFile(t, dir, "edges.csv", edges.String()), "--ids", idsPath},
		{"--graph", writeFile(t, dir, "id-edges.csv", idEdges.String()), "--ids", idsPath},
		{"--kernel", writeFile(t, dir, "K.csv", kern.String()), "--k", "20", "--ids", idsPath},
	} {
		code, out, stderr := runQVS(t, append(common, args...)...)
		if code != 0 || out != want {
			t.Errorf("%v: exit %d, output\n%s\nwant\n%s\nstderr %s", args, code, out, want, stderr)
		}
	}
	// A campaign on the same graph with labels.
	res := filepath.Join(dir, "res")
	cfg := writeFile(t, dir, "graph.yaml", "task: own-graph\nrepeats: 1\nbudget: 6\nbatch: 3\nmethods: [qvs, random]\nq: [\"1\"]\nprior: prevalence\npool:\n  kind: graph\n  graph:\n    file: "+npz+"\n    labels: "+writeFile(t, dir, "labels.csv", labels.String())+"\n")
	code, out, stderr := runQVS(t, "as", "--config", cfg, "--out", res, "--quiet")
	if code != 0 || !strings.Contains(out, "qVS-AS") {
		t.Errorf("campaign: exit %d, %q, %s", code, out, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--graph", npz, "--kernel", npz}, 2, "give --graph or --kernel, not both"},
		{[]string{"--graph", npz, "--k", "5"}, 2, "--k applies to --kernel and --pool"},
		{[]string{"--graph", npz, "--metric", "cosine"}, 2, "--metric describes a CSV pool"},
		{[]string{"--pool", npz, "--ids", idsPath}, 2, "--ids applies to --graph and --kernel"},
		{[]string{"--graph", writeFile(t, dir, "bad.csv", "i,j,w\n0,1,1.5\n1,0,1\n")}, 1, `bad.csv: line 2, column "w": weight 1.5, expected a similarity in [0, 1]`},
		{[]string{"--graph", npz, "--ids", writeFile(t, dir, "short.csv", "a\nb\n")}, 1, "--ids (key pool.graph.ids): " + filepath.Join(dir, "short.csv") + " has 2 ids for the 60 items"},
	} {
		code, out, stderr := runQVS(t, append(common, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q", c.args, code, out, stderr, c.code, c.want)
		}
	}
}

// TestREADMEChemists runs the README's "Chemists: your own library" block
// as written, with sh and awk, in a copy of its example files (../qvs is
// this test binary): 8 rounds of 5 suggestions measured by assay.awk, then
// the score of the actives found. Checked independently: no molecule is
// suggested twice, every label is the assay's rule applied to the
// library, the hits file holds exactly the actives, the VS_0/VS_1 printed
// equal vendi.Score of their Tanimoto matrix built from the strings, and
// examples/library.csv is what make-library.awk writes.
func TestREADMEChemists(t *testing.T) {
	sh, err1 := exec.LookPath("sh")
	_, err2 := exec.LookPath("awk")
	if err1 != nil || err2 != nil {
		t.Skip("needs sh and awk")
	}
	section := readmeSection(t, "## Chemists: your own library")
	_, block, ok := strings.Cut(section, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("no sh block in the README section")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := testutil.RepoRoot()
	dir := t.TempDir()
	ex := filepath.Join(dir, "examples")
	if err := os.Mkdir(ex, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"make-library.awk", "assay.awk"} {
		b, err := os.ReadFile(filepath.Join(root, "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, ex, name, string(b))
	}
	qvs := writeFile(t, dir, "qvs", "#!/bin/sh\nQVS_TEST_MAIN=1 exec '"+self+"' \"$@\"\n")
	if err := os.Chmod(qvs, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-ec", block)
	cmd.Dir = ex
	cmd.Env = append(os.Environ(), "QVS_TEST_MAIN=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("README block: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	read := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(ex, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	lib := read("library.csv")
	if want, _ := os.ReadFile(filepath.Join(root, "examples", "library.csv")); string(want) != func() string { b, _ := os.ReadFile(filepath.Join(ex, "library.csv")); return string(b) }() {
		t.Errorf("make-library.awk does not reproduce examples/library.csv")
	}
	fp := map[string]string{}
	for _, r := range lib[1:] {
		fp[r[0]] = r[1]
	}
	labels := read("my-labels.csv")
	if len(labels) != 41 {
		t.Fatalf("my-labels.csv has %d rows, want a header and 40 labels", len(labels))
	}
	seen := map[string]bool{}
	var hits []string
	for _, r := range labels[1:] {
		want := b2i(strings.HasPrefix(fp[r[0]], "1111"))
		if seen[r[0]] || fp[r[0]] == "" || r[1] != strconv.Itoa(want) {
			t.Errorf("label row %v (seen %v, fingerprint %q)", r, seen[r[0]], fp[r[0]])
		}
		seen[r[0]] = true
		if want == 1 {
			hits = append(hits, r[0])
		}
	}
	hitRows := read("my-hits.csv")
	if len(hitRows) != len(hits)+1 || len(hits) < 2 {
		t.Fatalf("my-hits.csv has %d rows for %d actives", len(hitRows), len(hits))
	}
	K := mat.NewSymDense(len(hitRows)-1, nil)
	for a, r := range hitRows[1:] {
		if !slices.Contains(hits, r[0]) {
			t.Errorf("my-hits.csv holds %s, not an active found", r[0])
		}
		for b := a; b < len(hitRows)-1; b++ {
			K.SetSym(a, b, textTanimoto(r[1], hitRows[b+1][1]))
		}
	}
	got := scoreCSV(t, stdout.String())
	for _, q := range []string{"0", "1", "inf"} {
		qv, _ := vendi.ParseOrder(q)
		vs, _ := vendi.Score(K, qv)
		if len(got[q]) != 1 || math.Abs(got[q][0]-vs) > 1e-9*vs {
			t.Errorf("q = %s: printed %v, brute force %v", q, got[q], vs)
		}
	}
}

// TestASCampaignCSVTanimoto: a campaign (qvs as) on a CSV pool of
// fingerprints with a label column (pool.csv.metric: tanimoto) runs, and its
// records hold only pool items; and score reads 0/1 fingerprints from a
// float32 .npy under --embedding-kernel tanimoto as from the CSV.
func TestASCampaignCSVTanimoto(t *testing.T) {
	fps := chemPool(rand.New(rand.NewPCG(5, 6)), 50, 32)
	dir := t.TempDir()
	var pool strings.Builder
	pool.WriteString("id,fp,label\n")
	x := make([]float32, 0, 50*32)
	for i, fp := range fps {
		fmt.Fprintf(&pool, "m%d,%s,%d\n", i, fp, b2i(fp[0] == '1'))
		for _, c := range fp {
			x = append(x, float32(c-'0'))
		}
	}
	csvPath := writeFile(t, dir, "fp.csv", pool.String())
	cfg := writeFile(t, dir, "c.yaml", "task: fp\nrepeats: 1\nbudget: 8\nbatch: 2\nmethods: [qvs]\nq: [\"1\"]\nprior: prevalence\npool:\n  kind: csv\n  csv: {file: "+csvPath+", id_column: id, fingerprint_column: fp, metric: tanimoto, k: 5}\n")
	code, out, stderr := runQVS(t, "as", "--config", cfg, "--out", filepath.Join(dir, "res"), "--cache-dir", t.TempDir(), "--quiet")
	if code != 0 || !strings.Contains(out, "qVS-AS") {
		t.Fatalf("campaign: exit %d, %q, %s", code, out, stderr)
	}
	var npy strings.Builder
	if err := fileio.WriteNPYFloat32(&npy, 50, 32, x); err != nil {
		t.Fatal(err)
	}
	npyPath := writeFile(t, dir, "fp.npy", npy.String())
	_, want, _ := runQVS(t, "score", "--embeddings", csvPath, "--id-column", "id", "--fingerprint-column", "fp", "--exclude-columns", "label", "--embedding-kernel", "tanimoto", "--format", "csv")
	code, got, stderr := runQVS(t, "score", "--embeddings", npyPath, "--embedding-kernel", "tanimoto", "--format", "csv")
	if code != 0 || got != want || want == "" {
		t.Errorf(".npy: exit %d, %q, want %q (%s)", code, got, want, stderr)
	}
}
