package cli

import (
	"encoding/csv"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

func TestASSuggest(t *testing.T) {
	dir := t.TempDir()
	// ties: index, so the picks can be compared with the policy run in
	// pool order; no prior key, so the default estimate applies.
	cfgPath := testutil.WriteFile(t, dir, "tiny.yaml", testutil.TinyASConfig+"ties: index\n")
	cache := filepath.Join(dir, "cache")
	poolCfg := datasets.DefaultConfig("synthetic")
	poolCfg.Synthetic.N, poolCfg.Synthetic.Clusters, poolCfg.Synthetic.PositiveClusters, poolCfg.Synthetic.K = 300, 6, 2, 8
	pool, err := datasets.Load(poolCfg, "", cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Observe two positives and three negatives.
	var obs []int
	var lines []string
	for i, y := range pool.Labels {
		if y && len(obs) < 2 || !y && len(obs) >= 2 && len(obs) < 5 {
			obs = append(obs, i)
			lines = append(lines, strconv.Itoa(i)+","+map[bool]string{true: "1", false: "0"}[y])
		}
	}
	observed := testutil.WriteFile(t, dir, "obs.csv", "index,label\n"+strings.Join(lines, "\n")+"\n")
	code, stdout, stderr := exitOf(t, RunASSuggest, suggestConfig(t, cfgPath, func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Observed = observed
		o.Batch = 4
		o.Method = "qvs"
		o.Q, o.QGiven = 1, true
		o.Format.Value = FormatCSV
	}), func(e *Env) {
		e.Config = cfgPath
		e.CacheDir = cache
		e.Quiet = true
	})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 5 || strings.Join(recs[0], ",") != "rank,index,id,probability,qvs" {
		t.Fatalf("output %q (%v)", stdout, err)
	}
	// Independent expectation: the model on the observed labels and the
	// brute-force eq. 7 value of positives + picks so far. The prior is the
	// default estimate of the 5 labels, search.FitPrior (tested there
	// against a brute-force maximum likelihood).
	m, err := search.NewModel(pool.Neighbors, pool.Weights, 0.5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range obs {
		m.Observe(i, pool.Labels[i])
	}
	m.Alpha1 = search.FitPrior(m).A1
	m.Alpha0 = 1 - m.Alpha1
	kernel, _ := vendi.SymmetrizeKNN(pool.Len(), pool.Neighbors, pool.Weights)
	items := []int{obs[0], obs[1]}
	quality := []float64{1, 1}
	const tol = 1e-9 // printed with full precision; eigenvalue rounding
	for r, rec := range recs[1:] {
		idx, _ := strconv.Atoi(rec[1])
		if rec[0] != strconv.Itoa(r+1) || rec[2] != rec[1] || slices.Contains(obs, idx) {
			t.Fatalf("row %v", rec)
		}
		p, _ := strconv.ParseFloat(rec[3], 64)
		if math.Abs(p-m.Probability(idx)) > tol {
			t.Errorf("pick %d: probability %g, model %g", idx, p, m.Probability(idx))
		}
		items = append(items, idx)
		quality = append(quality, m.Probability(idx))
		want, err := vendi.QualityWeighted(vendi.Submatrix(kernel, items), quality, 1)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := strconv.ParseFloat(rec[4], 64); math.Abs(v-want) > tol*max(1, want) {
			t.Errorf("rank %d: qvs %g, eq. 7 %g", r+1, v, want)
		}
	}
	picks, err := search.QVS{Q: 1, Kernel: kernel}.Batch(&search.State{Model: m, Workers: 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	for r, x := range picks {
		if recs[r+1][1] != strconv.Itoa(x) {
			t.Errorf("rank %d: item %s, qVS-AS picks %v", r+1, recs[r+1][1], picks)
		}
	}

	// id,label works the same (ids default to the index); table format too.
	byID := testutil.WriteFile(t, dir, "ids.csv", "id,label\n"+strings.Join(lines, "\n")+"\n")
	for _, method := range []string{"one-step", "eci", "select", "ens", "random"} {
		code, out, stderr := exitOf(t, RunASSuggest, suggestConfig(t, cfgPath, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed = byID
			o.Batch = 3
			o.Method = method
		}), func(e *Env) {
			e.Config = cfgPath
			e.CacheDir = cache
			e.Quiet = true
		})
		if code != 0 || !strings.HasPrefix(out, "rank") || strings.Count(out, "\n") != 4 {
			t.Errorf("%s: exit %d, %s\n%s", method, code, stderr, out)
		}
	}

	for name, tc := range map[string]struct {
		body, want string
	}{
		"bad label": {"index,label\n3,maybe\n", "line 2, column 2 (label): label"},
		"twice":     {"index,label\n3,1\n3,0\n", "line 3, column 1 (index): item 3"},
		"range":     {"index,label\n300,1\n", "line 2, column 1 (index): index"},
		"unknown":   {"id,label\nnone,1\n", `id "none"`},
		"header":    {"item,label\n3,1\n", "header"},
	} {
		bad := testutil.WriteFile(t, dir, "bad.csv", tc.body)
		code, _, stderr := exitOf(t, RunASSuggest, suggestConfig(t, cfgPath, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed = bad
			o.Batch = 2
		}), func(e *Env) {
			e.Config = cfgPath
			e.CacheDir = cache
			e.Quiet = true
		})
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "bad.csv") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and a message naming bad.csv and %q", name, code, stderr, tc.want)
		}
	}
	for _, c := range []struct {
		name   string
		method string
		batch  int
	}{
		{"--method best", "best", 5},
		{"--batch 0", "qvs", 0},
		{"--batch 501", "qvs", 501}, // the cost grows faster than the batch: 3997 once ran for minutes
	} {
		code, _, stderr := exitOf(t, RunASSuggest, suggestConfig(t, cfgPath, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed, o.Method, o.Batch = observed, c.method, c.batch
		}), func(e *Env) { e.Config, e.CacheDir, e.Quiet = cfgPath, cache, true })
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, stderr)
		}
	}
}

// TestASSuggestENSWarningOnlyForENS: a batch above the budget shortens
// nothing but ENS's horizon, so only --method ens warns about it (it used
// to warn about ENS and "the config's budget" for every method, config or
// not).
func TestASSuggestENSWarningOnlyForENS(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\n")
	cfg := testutil.WriteFile(t, dir, "own.yaml", "budget: 2\npool:\n  kind: csv\n  csv: {file: "+pool+", id_column: id, feature_prefix: x, k: 2}\n")
	for _, method := range []string{"qvs", "ens"} {
		code, out, stderr := exitOf(t, RunASSuggest, suggestConfig(t, cfg, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed = obs
			o.Batch = 3
			o.Method = method
			o.Format.Value = FormatCSV
		}), func(e *Env) {
			e.CacheDir = filepath.Join(dir, "cache")
			e.Config = cfg
		})
		warned := strings.Contains(stderr, "warning: budget 2 is less than --batch 3; ENS looks ahead over 3 queries")
		if code != 0 || strings.Count(out, "\n") != 4 || warned != (method == "ens") {
			t.Errorf("--method %s: exit %d, warned %v\n%s%s", method, code, warned, out, stderr)
		}
	}
}

// TestASSuggestRefusesConfigPrevalence: a config's prior:
// prevalence reads the pool's true labels, a leak for a real user: suggest
// refuses it (exit 2, stdout empty, naming the config and the key) unless
// --prior prevalence is passed explicitly on a pool labelled throughout.
func TestASSuggestRefusesConfigPrevalence(t *testing.T) {
	dir := t.TempDir()
	labelled := testutil.WriteFile(t, dir, "labelled.csv", testutil.LinePoolCSV(true))
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	cfg := testutil.WriteFile(t, dir, "prev.yaml", "prior: prevalence\npool:\n  kind: csv\n  csv: {file: "+labelled+", id_column: id, feature_prefix: x, k: 2}\n")
	// --cache-dir DIR --config prev.yaml --observed obs.csv --batch 2 --format csv [--prior PRIOR]
	suggest := func(prior string) (int, string, string) {
		return exitOf(t, RunASSuggest, suggestConfig(t, cfg, func(o *ASSuggestOptions, p *search.Protocol) {
			o.Observed, o.Batch, o.Format.Value = obs, 2, FormatCSV
			if prior != "" {
				o.Labels.Prior, o.Labels.PriorGiven, o.LabelFlags, p.Prior = prior, true, []string{"prior"}, prior
			}
		}), func(e *Env) { e.CacheDir, e.Config = filepath.Join(dir, "cache"), cfg })
	}
	code, out, stderr := suggest("")
	if code != 2 || out != "" || !strings.Contains(stderr, "config "+cfg+": prior: prevalence reads every label of the pool") || !strings.Contains(stderr, "--prior prevalence") {
		t.Errorf("config prior: prevalence: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = suggest("prevalence")
	if code != 0 || !strings.Contains(stderr, "prior a1 = 0.2: the pool's true prevalence") || len(testutil.SuggestRows(t, out)) != 2 {
		t.Errorf("--prior prevalence: exit %d, stderr %q", code, stderr)
	}
	// A config with a number or estimate is taken as it is.
	for _, p := range []string{"0.05", "estimate"} {
		c := testutil.WriteFile(t, dir, "p.yaml", "prior: "+p+"\npool:\n  kind: csv\n  csv: {file: "+labelled+", id_column: id, feature_prefix: x, k: 2}\n")
		if code, _, stderr := exitOf(t, RunASSuggest, suggestConfig(t, c, func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Observed = obs
			o.Batch = 2
		}), func(e *Env) {
			e.CacheDir = filepath.Join(dir, "cache")
			e.Config = c
		}); code != 0 {
			t.Errorf("prior: %s: exit %d, %s", p, code, stderr)
		}
	}
}
