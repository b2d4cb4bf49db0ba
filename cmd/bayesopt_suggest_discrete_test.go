package cmd

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// runSuggest runs `qvs bayesopt suggest ARGS` in process.
func runSuggest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runQVS(t, append([]string{"bayesopt", "suggest"}, args...)...)
}

// kernelCampaignConfig is a `task: kernel` campaign on the toy set of
// writeToyMOF: no name (random streams of suggest), no metric columns.
const kernelCampaignConfig = `task: kernel
seed: 5
methods: [random, ucb, qvs]
q: [1, inf]
repeats: 1
init: 2
budget: 14
batch: 4
beta: 2
good_threshold: 15
data:
  kernel: mof/kernel.csv
  table: mof/mofs.csv
  objective_column: storage
`

// TestSuggestDiscreteReplaysCampaign: a `task: kernel` campaign run's first
// N evaluations fed to `suggest --kernel` (same seed, init, batch, beta and
// method) give the batch the campaign evaluated next, for every method and
// every N at a batch boundary, by index and by id; before any evaluation
// suggest gives the campaign's initial design.
func TestSuggestDiscreteReplaysCampaign(t *testing.T) {
	dir := t.TempDir()
	writeToyMOF(t, dir, 30)
	cfg := writeFile(t, dir, "k.yaml", kernelCampaignConfig)
	out := filepath.Join(dir, "out")
	if _, err, _, stderr := runDiscreteCLI(t, "--config", cfg, "--data-dir", dir, "--cache-dir", filepath.Join(dir, "cache"), "--out", out, "--quiet"); err != nil {
		t.Fatalf("campaign: %v\n%s", err, stderr)
	}
	table := readCSVFile(t, filepath.Join(dir, "mof", "mofs.csv"))
	var ids strings.Builder
	for _, r := range table[1:] {
		ids.WriteString(r[0] + "\n")
	}
	idsPath := writeFile(t, dir, "ids.txt", ids.String())
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	for _, run := range []struct{ key, method, q string }{{"random-r00", "random", "1"}, {"ucb-r00", "ucb", "1"}, {"qvs-q1-r00", "qvs", "1"}, {"qvs-qinf-r00", "qvs", "inf"}} {
		recs := readCSVFile(t, filepath.Join(out, "runs", run.key+".csv"))[1:] // iteration,pick,index,id,value
		for n := 0; n < len(recs); {
			it := recs[n][0]
			var batch []string
			for _, r := range recs[n:] {
				if r[0] == it {
					batch = append(batch, r[2])
				}
			}
			// History of the first n evaluations, by index for even n and by id for odd n.
			var h strings.Builder
			if n%2 == 0 {
				h.WriteString("index,value\n")
			} else {
				h.WriteString("value,id\n")
			}
			for _, r := range recs[:n] {
				if n%2 == 0 {
					fmt.Fprintf(&h, "%s,%s\n", r[2], r[4])
				} else {
					fmt.Fprintf(&h, "%s,%q\n", r[4], r[3])
				}
			}
			evals := writeFile(t, dir, "evals.csv", h.String())
			b := 4 // the last batch of the campaign is smaller: suggest's batch starts with it
			if n == 0 {
				b = 2
			}
			code, stdout, stderr := runSuggest(t, "--kernel", kernel, "--ids", idsPath, "--observed", evals, "--batch", strconv.Itoa(b),
				"--method", run.method, "--q", run.q, "--seed", "5", "--init", "2", "--beta", "2", "--quiet")
			if code != 0 {
				t.Fatalf("%s after %d: exit %d: %s", run.key, n, code, stderr)
			}
			var got []string
			for _, r := range parseCSV(t, stdout)[1:] {
				got = append(got, r[1])
			}
			if !slices.Equal(got[:len(batch)], batch) {
				t.Errorf("%s after %d evaluations: suggest %v, campaign %v", run.key, n, got, batch)
			}
			n += len(batch)
		}
	}
}

func parseCSV(t *testing.T, s string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		rows = append(rows, strings.Split(line, ","))
	}
	return rows
}

// TestSuggestDiscreteProperties: suggestions are distinct, unevaluated and
// deterministic; ucb = mean + sqrt(beta) sd with sd >= 0; the ucb method's
// batch is in decreasing UCB order and, asked for every free item, ranks
// them all; qvs with q = 0 is the ucb batch; the qvs batch differs from it
// on this kernel (diversity acts).
func TestSuggestDiscreteProperties(t *testing.T) {
	dir := t.TempDir()
	writeToyMOF(t, dir, 30)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	table := readCSVFile(t, filepath.Join(dir, "mof", "mofs.csv"))
	obs := []int{3, 8, 14, 21, 27, 0}
	var h strings.Builder
	h.WriteString("index,value\n")
	for _, i := range obs {
		fmt.Fprintf(&h, "%d,%s\n", i, table[i+1][1])
	}
	evals := writeFile(t, dir, "evals.csv", h.String())
	suggest := func(args ...string) [][]string {
		t.Helper()
		code, stdout, stderr := runSuggest(t, append([]string{"--kernel", kernel, "--observed", evals, "--quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		rows := parseCSV(t, stdout)
		if strings.Join(rows[0], ",") != "rank,index,id,ucb,mean,sd" {
			t.Fatalf("header %v", rows[0])
		}
		return rows[1:]
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	batches := map[string][]string{}
	for _, m := range []struct{ method, q, beta string }{{"qvs", "1", "2"}, {"qvs", "0", "2"}, {"ucb", "1", "2"}, {"random", "1", "2"}, {"qvs", "inf", "0.5"}} {
		rows := suggest("--method", m.method, "--q", m.q, "--beta", m.beta, "--batch", "5")
		again := suggest("--method", m.method, "--q", m.q, "--beta", m.beta, "--batch", "5")
		if fmt.Sprint(rows) != fmt.Sprint(again) {
			t.Errorf("%v: not deterministic: %v then %v", m, rows, again)
		}
		seen := map[string]bool{}
		for r, row := range rows {
			i := int(num(row[1]))
			if row[0] != strconv.Itoa(r+1) || row[2] != row[1] || i < 0 || i >= 30 || slices.Contains(obs, i) || seen[row[1]] {
				t.Errorf("%v: bad row %v", m, row)
			}
			seen[row[1]] = true
			u, mu, sd := num(row[3]), num(row[4]), num(row[5])
			if sd < 0 || math.Abs(u-(mu+math.Sqrt(num(m.beta))*sd)) > 1e-9*math.Max(1, math.Abs(u)) {
				t.Errorf("%v: ucb %v != mean %v + sqrt(beta) sd %v", m, u, mu, sd)
			}
		}
		batches[m.method+m.q] = append([]string(nil), fmt.Sprint(rows))
	}
	if batches["qvs0"][0] != batches["ucb1"][0] {
		t.Errorf("qvs q=0 %v differs from ucb %v", batches["qvs0"], batches["ucb1"])
	}
	if batches["qvs1"][0] == batches["ucb1"][0] {
		t.Errorf("qvs q=1 equals ucb on this kernel: the test does not exercise diversity")
	}
	all := suggest("--method", "ucb", "--batch", "24")
	for r := 1; r < len(all); r++ {
		if num(all[r][3]) > num(all[r-1][3]) {
			t.Errorf("ucb batch not in decreasing UCB order at rank %d: %v > %v", r+1, all[r][3], all[r-1][3])
		}
	}
}

// TestSuggestDiscreteBadInput: every bad input gives the documented exit
// code, a message naming the file, line or key, and empty stdout.
func TestSuggestDiscreteBadInput(t *testing.T) {
	dir := t.TempDir()
	writeToyMOF(t, dir, 6)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	good := writeFile(t, dir, "good.csv", "index,value\n1,2.5\n")
	p := func(name, body string) string { return writeFile(t, dir, name, body) }
	ids := p("ids.txt", "a\nb\nc\nd\ne\nf\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no pool", []string{"--observed", good}, 2, "exactly one of --space (continuous parameters) or --kernel"},
		{"both pools", []string{"--space", "s.yaml", "--kernel", kernel, "--observed", good}, 2, "exactly one of --space"},
		{"continuous flag", []string{"--kernel", kernel, "--observed", good, "--regions", "2"}, 2, "--regions applies only with --space"},
		{"discrete flag", []string{"--space", "s.yaml", "--observed", good, "--ids", "ids.txt"}, 2, "--ids applies only with --kernel"},
		{"batch", []string{"--kernel", kernel, "--observed", good, "--batch", "0"}, 2, "--batch 0: expected 1 to 300"},
		{"method", []string{"--kernel", kernel, "--observed", good, "--method", "turbo"}, 2, `--method "turbo"`},
		{"q", []string{"--kernel", kernel, "--observed", good, "--q", "-1"}, 2, "--q"},
		{"format", []string{"--kernel", kernel, "--observed", good, "--format", "xml"}, 2, `--format "xml"`},
		{"beta", []string{"--kernel", kernel, "--observed", good, "--beta", "-1"}, 2, "--beta"},
		{"init 0", []string{"--kernel", kernel, "--observed", good, "--init", "0"}, 2, "--init must be at least 1"},
		{"init > n", []string{"--kernel", kernel, "--observed", good, "--init", "7"}, 2, "--init 7 exceeds the 6 candidates"},
		{"ignored global", []string{"--kernel", kernel, "--observed", good, "--config", "x.yaml"}, 2, "--config has no effect"},
		{"unknown flag", []string{"--kernel", kernel, "--observed", good, "--bacth", "3"}, 2, "bacth"},
		{"kernel missing", []string{"--kernel", filepath.Join(dir, "nope.csv"), "--observed", good}, 1, "nope.csv"},
		{"kernel not square", []string{"--kernel", p("k23.csv", "1,0,0\n0,1,0\n"), "--observed", good}, 1, "k23.csv: expected a square n x n kernel matrix, got 2 x 3"},
		{"kernel asymmetric", []string{"--kernel", p("kas.csv", "1,0.5\n0.2,1\n"), "--observed", good}, 1, "kas.csv: not symmetric: entry (1, 2)"},
		{"kernel not PSD", []string{"--kernel", p("kneg.csv", "1,0.9,-0.9\n0.9,1,0.9\n-0.9,0.9,1\n"), "--observed", good}, 1, "kneg.csv: kernel is not positive semidefinite"},
		{"kernel NaN", []string{"--kernel", p("knan.csv", "1,nan\nnan,1\n"), "--observed", good}, 1, "knan.csv"},
		{"observed missing", []string{"--kernel", kernel, "--observed", filepath.Join(dir, "none.csv")}, 1, "none.csv"},
		{"observed empty", []string{"--kernel", kernel, "--observed", p("e0.csv", "")}, 1, "e0.csv: empty file"},
		{"no value column", []string{"--kernel", kernel, "--observed", p("e1.csv", "index,y\n1,2\n")}, 1, `e1.csv: line 1: header "index,y"`},
		{"index out of range", []string{"--kernel", kernel, "--observed", p("e2.csv", "index,value\n1,2\n6,3\n")}, 1, `e2.csv: line 3, column "index": "6" is not an item index in [0, 6)`},
		{"unknown id", []string{"--kernel", kernel, "--ids", ids, "--observed", p("e3.csv", "id,value\nb,2\nz,3\n")}, 1, `e3.csv: line 3, column "id": "z"`},
		{"id without --ids", []string{"--kernel", kernel, "--observed", p("e4.csv", "id,value\nb,2\n")}, 1, `e4.csv: line 2, column "id": "b"`},
		{"value not a number", []string{"--kernel", kernel, "--observed", p("e5.csv", "index,value\n1,2\n2,abc\n")}, 1, `e5.csv: line 3, column "value": "abc" is not a finite number`},
		{"value infinite", []string{"--kernel", kernel, "--observed", p("e6.csv", "index,value\n1,inf\n")}, 1, `e6.csv: line 2, column "value": "inf"`},
		{"failure after success", []string{"--kernel", kernel, "--observed", p("e9.csv", "index,value\n1,2\n1,failed\n")}, 1, "e9.csv: line 3: item 1"},
		{"batch > free with failures", []string{"--kernel", kernel, "--observed", p("e10.csv", "index,value\n1,2\n2,failed\n"), "--batch", "5"}, 1, "--batch 5: only 4 of the 6 candidates of " + kernel + " are neither evaluated nor failed"},
		{"duplicate", []string{"--kernel", kernel, "--observed", p("e7.csv", "index,value\n1,2\n2,2\n1,3\n")}, 1, "e7.csv: line 4: item 1"},
		{"ragged", []string{"--kernel", kernel, "--observed", p("e8.csv", "index,value\n1,2,3\n")}, 1, "e8.csv: line 2: 3 cells"},
		{"ids count", []string{"--kernel", kernel, "--ids", p("ids5.txt", "a\nb\nc\nd\ne\n"), "--observed", good}, 1, "ids5.txt: 5 ids but the kernel"},
		{"ids duplicate", []string{"--kernel", kernel, "--ids", p("idsd.txt", "a\nb\nc\nd\nb\nf\n"), "--observed", good}, 1, `idsd.txt: id "b" is given for rows 2 and 5`},
		{"batch > free", []string{"--kernel", kernel, "--observed", good, "--batch", "6"}, 1, "--batch 6: only 5 of the 6 candidates"},
	} {
		code, stdout, stderr := runSuggest(t, append(c.args, "--quiet")...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d and a message containing %q", c.name, code, stderr, stdout, c.code, c.want)
		}
	}
}

// TestREADMEOwnKernel runs the commands of the README's "Discrete BayesOpt
// on your own kernel" section from examples/ (results and the history in a
// temporary folder), then follows the suggest loop it describes with the
// campaign's name and method qvs: measuring exactly the suggestions
// (values looked up in own-kernel-items.csv) reproduces the campaign's run
// qvs-q1-r00 evaluation for evaluation.
func TestREADMEOwnKernel(t *testing.T) {
	root := testutil.RepoRoot()
	section, cmds := readmeCommands(t, "## Discrete BayesOpt on your own kernel")
	if len(cmds) != 2 || !strings.Contains(section, "printf 'id,value\\n' > my-kernel-evals.csv") {
		t.Fatalf("README commands %v, want a campaign, the empty history and a suggest", cmds)
	}
	t.Chdir(filepath.Join(root, "examples"))
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runQVS(t, append(cmds[0], "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--quiet")...)
	if code != 0 || !strings.Contains(stdout, "| qVS-BayesOpt, q = 1 |") {
		t.Fatalf("%v: exit %d\n%s\n%s", cmds[0], code, stdout, stderr)
	}
	value := map[string]string{}
	for _, r := range readCSVFile(t, "own-kernel-items.csv")[1:] {
		value[r[0]] = r[1]
	}
	history := filepath.Join(dir, "my-kernel-evals.csv")
	rows := "id,value\n"
	var loop []string
	for round := 0; round < 4; round++ {
		if err := os.WriteFile(history, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		args := slices.Clone(cmds[1])
		args[slices.Index(args, "my-kernel-evals.csv")] = history
		code, stdout, stderr := runQVS(t, append(args, "--name", "own-kernel", "--method", "qvs", "--q", "1", "--quiet")...)
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, stderr)
		}
		for _, r := range parseCSV(t, stdout)[1:] {
			rows += r[2] + "," + value[r[2]] + "\n"
			loop = append(loop, r[2])
		}
	}
	var campaign []string
	for _, r := range readCSVFile(t, filepath.Join(out, "runs", "qvs-q1-r00.csv"))[1:] {
		campaign = append(campaign, r[3])
	}
	if !slices.Equal(loop, campaign) {
		t.Errorf("suggest loop measured %v, campaign %v", loop, campaign)
	}
	// The example files are what their awk script writes.
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk to regenerate the own-kernel files")
	}
	gen := filepath.Join(dir, "gen")
	os.Mkdir(gen, 0o755)
	cmd := exec.Command(awk, "-F,", "-f", filepath.Join(root, "examples", "make-own-kernel.awk"), filepath.Join(root, "examples", "own-pool.csv"))
	cmd.Dir = gen
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("awk: %v\n%s", err, b)
	}
	for _, f := range []string{"own-kernel.csv", "own-kernel-items.csv"} {
		if readFileString(t, filepath.Join(gen, f)) != readFileString(t, f) {
			t.Errorf("make-own-kernel.awk does not reproduce examples/%s", f)
		}
	}
}
