package cmd

import (
	"cmp"
	"encoding/csv"
	"fmt"
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

// TestASSuggestFingerprintErrors: bad fingerprint input exits non-zero
// with stdout empty and a message naming the file, line, column or flag.
func TestASSuggestFingerprintErrors(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "fp.csv", "id,fp\na,0101\nb,0111\nc,01x1\nd,0000\n")
	short := testutil.WriteFile(t, dir, "short.csv", "id,fp\na,0101\nb,011\nc,0011\n")
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\na,1\n")
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
	fps := testutil.ChemPool(rand.New(rand.NewPCG(20, 1)), n, nbits)
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
		fmt.Fprintf(&labels, "%d,%d\n", i, testutil.B2I(strings.Count(fp, "1") > nbits/3))
		var js []int
		for j := range n {
			if j != i {
				js = append(js, j)
			}
			if j > 0 {
				kern.WriteString(",")
			}
			fmt.Fprintf(&kern, "%.17g", testutil.TextTanimoto(fp, fps[j]))
		}
		kern.WriteString("\n")
		slices.SortStableFunc(js, func(x, y int) int {
			return cmp.Compare(testutil.TextTanimoto(fp, fps[y]), testutil.TextTanimoto(fp, fps[x]))
		})
		row := slices.Clone(js[:k])
		slices.Sort(row) // CSR rows in column order, as scipy stores them
		for _, j := range row {
			s := testutil.TextTanimoto(fp, fps[j])
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
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nmol3,1\nmol17,0\nmol25,1\nmol40,0\nmol41,0\nmol52,0\n")
	common := []string{"as", "suggest", "--cache-dir", t.TempDir(), "--prior", "0.37", "--observed", obs, "--batch", "5", "--format", "csv"}
	code, want, stderr := runQVS(t, append(common, "--pool", testutil.WriteFile(t, dir, "fp.csv", pool.String()), "--id-column", "id", "--fingerprint-column", "fp", "--metric", "tanimoto", "--k", "20")...)
	if code != 0 {
		t.Fatalf("pool: exit %d, %s", code, stderr)
	}
	idsPath := testutil.WriteFile(t, dir, "ids.csv", ids.String())
	for _, args := range [][]string{
		{"--graph", npz, "--ids", idsPath},
		{"--graph", testutil.WriteFile(t, dir, "edges.csv", edges.String()), "--ids", idsPath},
		{"--graph", testutil.WriteFile(t, dir, "id-edges.csv", idEdges.String()), "--ids", idsPath},
		{"--kernel", testutil.WriteFile(t, dir, "K.csv", kern.String()), "--k", "20", "--ids", idsPath},
	} {
		code, out, stderr := runQVS(t, append(common, args...)...)
		if code != 0 || out != want {
			t.Errorf("%v: exit %d, output\n%s\nwant\n%s\nstderr %s", args, code, out, want, stderr)
		}
	}
	// A campaign on the same graph with labels.
	res := filepath.Join(dir, "res")
	cfg := testutil.WriteFile(t, dir, "graph.yaml", "task: own-graph\nrepeats: 1\nbudget: 6\nbatch: 3\nmethods: [qvs, random]\nq: [\"1\"]\nprior: prevalence\npool:\n  kind: graph\n  graph:\n    file: "+npz+"\n    labels: "+testutil.WriteFile(t, dir, "labels.csv", labels.String())+"\n")
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
		{[]string{"--graph", testutil.WriteFile(t, dir, "bad.csv", "i,j,w\n0,1,1.5\n1,0,1\n")}, 1, `bad.csv: line 2, column "w": weight 1.5, expected a similarity in [0, 1]`},
		{[]string{"--graph", npz, "--ids", testutil.WriteFile(t, dir, "short.csv", "a\nb\n")}, 1, "--ids (key pool.graph.ids): " + filepath.Join(dir, "short.csv") + " has 2 ids for the 60 items"},
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
		testutil.WriteFile(t, ex, name, string(b))
	}
	qvs := testutil.WriteFile(t, dir, "qvs", "#!/bin/sh\nQVS_TEST_MAIN=1 exec '"+self+"' \"$@\"\n")
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
		want := testutil.B2I(strings.HasPrefix(fp[r[0]], "1111"))
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
			K.SetSym(a, b, testutil.TextTanimoto(r[1], hitRows[b+1][1]))
		}
	}
	got := testutil.ScoreCSV(t, stdout.String())
	for _, q := range []string{"0", "1", "inf"} {
		qv, _ := vendi.ParseOrder(q)
		vs, _ := vendi.Score(K, qv)
		if len(got[q]) != 1 || math.Abs(got[q][0]-vs) > 1e-9*vs {
			t.Errorf("q = %s: printed %v, brute force %v", q, got[q], vs)
		}
	}
}
