package cmd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// writeScoredLibrary writes a CSV library of n 64-bit fingerprints
// (columns id, fp) and its scores file (id,value): the score is minus the
// bits shared with a motif, rounded to halves (ties), lower is better.
func writeScoredLibrary(t *testing.T, dir string, n int) (pool, scores string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	motif := rng.Uint64() & rng.Uint64()
	var pb, sb strings.Builder
	pb.WriteString("id,fp\n")
	sb.WriteString("id,value\n")
	for i := range n {
		core := uint64(0xff) << (8 * (i % 6))
		fp := core | (rng.Uint64() & rng.Uint64() & rng.Uint64())
		bits := make([]byte, 64)
		shared := 0
		for b := range 64 {
			bits[b] = '0'
			if fp>>b&1 == 1 {
				bits[b] = '1'
				if motif>>b&1 == 1 {
					shared++
				}
			}
		}
		fmt.Fprintf(&pb, "m%03d,%s\n", i, bits)
		fmt.Fprintf(&sb, "m%03d,%g\n", i, float64(-shared)+float64(rng.IntN(3))/2)
	}
	return asWriteFile(t, dir, "lib.csv", pb.String()), asWriteFile(t, dir, "lib.scores.csv", sb.String())
}

// qvs as replay runs a small replay end to end: the table on stdout, the
// campaign files, a rerun that resumes (nothing new, the same table), a
// config that says the same, qvs eval's table and curve, and bad input
// refused with the right exit code and an empty stdout.
func TestASReplay(t *testing.T) {
	dir := t.TempDir()
	pool, scores := writeScoredLibrary(t, dir, 240)
	out := filepath.Join(dir, "res")
	args := []string{"as", "replay", "--pool", pool, "--id-column", "id", "--fingerprint-column", "fp", "--scores", scores,
		"--minimize", "--init", "12", "--batch", "0.05", "--budget", "0.15", "--top", "0.05", "--repeats", "2", "--out", out, "--seed", "3"}
	code, table, stderr := runQVS(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| random |", "| GP greedy (top mean) |", "| GP + qVS, q = 2 |", "hits, round 3", "VS_1 of hits", "over 2 repeats"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(stderr, "lib: 240 items, ") || !strings.Contains(stderr, "initial batch 12, 3 rounds of 12; 6 runs") {
		t.Errorf("stderr %q", stderr)
	}
	for _, f := range []string{"config.yaml", "summary.csv", "runs/qvs-q2-r00.csv", "runs/random-r01.curve.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	cfgText, _ := os.ReadFile(filepath.Join(out, "config.yaml"))
	for _, want := range []string{"kind: replay", "minimize: true", "init: 12", "batch: 0.05", "scores: " + scores} {
		if !strings.Contains(string(cfgText), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfgText)
		}
	}
	code, again, stderr := runQVS(t, args...)
	if code != 0 || again != table || !strings.Contains(stderr, "0 new") && !strings.Contains(stderr, "already") {
		t.Errorf("rerun: exit %d, stderr %q, table changed: %v", code, stderr, again != table)
	}
	// A config saying the same resumes the campaign (config.yaml itself
	// records input fingerprints and is no --config file).
	cfg := asWriteFile(t, dir, "replay.yaml", "task: lib\nscores: "+scores+"\npool:\n  kind: csv\n  csv:\n    file: "+pool+
		"\n    id_column: id\n    fingerprint_column: fp\nminimize: true\ninit: 12\nbatch: 0.05\nbudget: 0.15\ntop: 0.05\nrepeats: 2\nseed: 3\n")
	code, again, stderr = runQVS(t, "as", "replay", "--config", cfg, "--out", out)
	if code != 0 || again != table {
		t.Errorf("--config: exit %d %s\n%s", code, stderr, again)
	}
	// The scores as a column of the (gzip-compressed) pool: the same table.
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, pool))), "\n")
	sc := strings.Split(strings.TrimSpace(string(mustRead(t, scores))), "\n")
	var both strings.Builder
	for k, l := range lines {
		both.WriteString(l + "," + strings.SplitN(sc[k], ",", 2)[1] + "\n")
	}
	gz := testutil.WriteGzip(t, dir, "both.csv.gz", strings.Replace(both.String(), "id,fp,value", "id,fp,score", 1))
	colArgs := []string{"as", "replay", "--pool", gz, "--id-column", "id", "--fingerprint-column", "fp", "--score-column", "score", "--task", "lib",
		"--minimize", "--init", "12", "--batch", "0.05", "--budget", "0.15", "--top", "0.05", "--repeats", "2", "--out", filepath.Join(dir, "res2"), "--seed", "3"}
	if code, again, stderr := runQVS(t, colArgs...); code != 0 || untimedTable(again) != untimedTable(table) {
		t.Errorf("--score-column: exit %d %s\n%s\nwant\n%s", code, stderr, again, table)
	}

	// qvs eval: the replay's table and the hits curve.
	evalOut := filepath.Join(dir, "eval")
	code, _, stderr = runQVS(t, "eval", out, "--out", evalOut, "--figures", "svg")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(evalOut, "tables", "lib-replay-table.md"))
	if err != nil || !strings.Contains(string(md), "| GP + qVS, q = 2 |") {
		t.Errorf("eval table: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(evalOut, "figures", "lib-hits-curve.svg")); err != nil {
		t.Errorf("eval figure: %v", err)
	}

	for name, c := range map[string]struct {
		args []string
		code int
		want string
	}{
		"no scores":   {[]string{"as", "replay", "--pool", pool, "--id-column", "id", "--fingerprint-column", "fp"}, 2, "--scores"},
		"bad amount":  {[]string{"as", "replay", "--pool", pool, "--scores", scores, "--init", "1.5"}, 2, "--init"},
		"bad method":  {[]string{"as", "replay", "--pool", pool, "--scores", scores, "--methods", "qvs,ens"}, 2, `"ens"`},
		"budget":      {append(append([]string{}, args[:len(args)-4]...), "--budget", "400", "--out", filepath.Join(dir, "x")), 2, "budget"},
		"both scores": {[]string{"as", "replay", "--pool", pool, "--scores", scores, "--score-column", "x"}, 2, "give one"},
		"npy column":  {[]string{"as", "replay", "--pool", filepath.Join(dir, "p.npy"), "--score-column", "x"}, 2, "a .npy pool takes --scores"},
		"scores file": {append(append([]string{}, args[:8]...), "--scores", pool, "--out", filepath.Join(dir, "y")), 1, "or id,value"},
		"ucb-beta":    {append(append([]string{}, args...), "--ucb-beta", "0"), 2, `invalid argument "0" for "--ucb-beta" flag: expected a finite number > 0`},
		"acquisition": {append(append([]string{}, args...), "--acquisition", "pi"), 2, `"--acquisition" flag: expected ucb, ei, phit, mean or thompson`},
		"history q 1": {append(append([]string{}, args[:len(args)-4]...), "--q", "1,2", "--history", "gain", "--out", filepath.Join(dir, "z")), 2, "--history gain: needs --q 2 and --diversity dense"},
		"settings":    {append(append([]string{}, args...), "--hit-power", "2"), 1, "hit_power: (absent) recorded, 2 now"},
	} {
		code, stdout, stderr := runQVS(t, c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q (want %q)", name, code, c.code, stdout, stderr, c.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// untimedTable is a replay's Markdown table without its last two columns
// (wall and CPU seconds a round).
func untimedTable(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "|") {
			cells := strings.Split(l, "|")
			l = strings.Join(cells[:max(0, len(cells)-3)], "|")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// as replay's help states each protocol flag's default (the flags have
// none of their own: a config may set them), from replay.DefaultProtocol;
// the usage line's --q is the default order (it said 1; the default is 2).
func TestReplayHelpDefaults(t *testing.T) {
	code, out, _ := runQVS(t, "as", "replay", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"[--q 2]", "orders of the qvs runs (default 2)", "repeats per method (default 3)",
		"fraction of the library; default 0.01)", "after the initial batch (default 0.01)", "after the initial batch (default 0.05)",
		"ties included; default 0.01)", "(default qvs,greedy,random)",
		// the scored settings of as suggest, listed from their bindings
		"(the model's hits; the benchmark's hits are --top)", "exploration weight of ucb, mean + sqrt(beta) sd (default 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if want := "with scores: --hit-threshold, --hit-top-fraction, --acquisition, --ucb-beta, --gp-kernel, --diversity, --history, --hit-power, --candidates. They apply"; !strings.Contains(strings.ReplaceAll(out, "\n", " "), want) {
		t.Errorf("help lacks %q", want)
	}
}
