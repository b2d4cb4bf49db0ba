package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// geometricPrior is the former default prior (before FitPrior): the geometric mean
// of (positives+1)/(n+2) and (positives+1)/(labelled+2). Kept here to
// measure it against FitPrior.
func geometricPrior(m *Model) float64 {
	pos := 0
	for l := range m.Len() {
		if m.Observed(l) && m.Positive(l) {
			pos++
		}
	}
	lo := float64(pos+1) / float64(m.Len()+2)
	hi := float64(pos+1) / float64(m.NumObserved()+2)
	return math.Sqrt(lo * hi)
}

// priorTablePools are the pools of the prior table (docs/results.md,
// "The default prior"): the built-in synthetic pool, the photoswitch and
// BMG (Landolt) pools, and CSV pools named by QVS_PRIOR_CSV
// (name=file.csv[:z],...; a label column, an id column, features x...; :z
// z-scores them), e.g. scikit-learn's digits (positives = the digit 3) and
// breast-cancer (positives = malignant, :z) tables.
func priorTablePools(t *testing.T) map[string]datasets.Config {
	cfgs := map[string]datasets.Config{
		"synthetic":   datasets.DefaultConfig(datasets.KindSynthetic),
		"photoswitch": datasets.DefaultConfig(datasets.KindPhotoswitch),
		"bmg":         datasets.DefaultConfig(datasets.KindBMG),
	}
	if os.Getenv("QVS_PRIOR_FASHION") != "" {
		cfgs["fashion"] = datasets.DefaultConfig(datasets.KindFashion)
	}
	for _, kv := range strings.Split(os.Getenv("QVS_PRIOR_CSV"), ",") {
		name, file, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		c := datasets.DefaultConfig(datasets.KindCSV)
		if f, ok := strings.CutSuffix(file, ":z"); ok {
			file, c.CSV.Standardize = f, true
		}
		c.CSV.File, c.CSV.IDColumn, c.CSV.FeaturePrefix = file, "id", "x"
		cfgs[name] = c
	}
	return cfgs
}

// TestPriorEstimateTable is the harness behind docs/results.md's prior
// table. It runs only with QVS_PRIOR_TABLE=1 (minutes):
//
//	QVS_PRIOR_TABLE=1 QVS_PRIOR_CSV=digits=/tmp/digits.csv,cancer=/tmp/cancer.csv:z \
//	  go test ./internal/search -run TestPriorEstimateTable -v -timeout 2h
//
// For each pool and QVS_PRIOR_REPEATS repeats (default 5) it prints the
// estimates (FitPrior, the old geometricPrior) against the true prevalence
// on (a) 50 and 200 uniformly random labels and (b) the 201 labels of a
// qVS-AS (q = 1) run with the true prior, budget 200, batch 5, from one
// random positive; then the positives found by qVS-AS and one-step runs of
// that protocol whose a1 is re-estimated before every batch (as a user's
// suggest loop) against runs with the true prevalence.
func TestPriorEstimateTable(t *testing.T) {
	if os.Getenv("QVS_PRIOR_TABLE") == "" {
		t.Skip("set QVS_PRIOR_TABLE=1 to run the prior table (minutes)")
	}
	repeats := 5
	if r := os.Getenv("QVS_PRIOR_REPEATS"); r != "" {
		fmt.Sscan(r, &repeats)
	}
	const budget, batch = 200, 5
	dataDir := testutil.DataRoot()
	cache := filepath.Join(testutil.RepoRoot(), ".cache")
	estimators := []struct {
		name string
		f    func(*Model) float64
	}{
		{"fit", func(m *Model) float64 { return FitPrior(m).A1 }},
		// Laplace's rule on the labels with no labelled neighbour only.
		{"isolated", func(m *Model) float64 {
			f := FitPrior(m)
			return float64(f.IsolatedPositives+1) / float64(f.Isolated+2)
		}},
		// Laplace's rule on every label: inflated by a search.
		{"rate", func(m *Model) float64 {
			f := FitPrior(m)
			return float64(f.Positives+1) / float64(f.Labels+2)
		}},
		{"geometric", geometricPrior},
	}
	var estimatorFuncs []func(*Model) float64
	foundHead := "| pool | method | true prior |"
	for _, e := range estimators {
		estimatorFuncs = append(estimatorFuncs, e.f)
		foundHead += " " + e.name + ", re-estimated |"
	}
	pools := priorTablePools(t)
	names := make([]string, 0, len(pools))
	for n := range pools {
		names = append(names, n)
	}
	slices.Sort(names)
	head := "| pool | n | prevalence | labels |"
	for _, e := range estimators {
		head += " " + e.name + " |"
	}
	fmt.Println(head)
	fmt.Println(strings.Repeat("|---", len(estimators)+4) + "|")
	var found []string
	for _, name := range names {
		t0 := time.Now()
		dp, err := datasets.Load(pools[name], dataDir, cache, 2)
		if err != nil {
			t.Logf("%s: %v (skipped)", name, err)
			continue
		}
		pool, err := NewPool(dp)
		if err != nil {
			t.Fatal(err)
		}
		prev := pool.Prevalence()
		a0, a1 := priorFromPrevalence(prev)
		// mean and standard error over repeats
		type acc struct{ s, s2, k float64 }
		add := func(a *acc, v float64) { a.s += v; a.s2 += v * v; a.k++ }
		ms := func(a acc) string {
			mean := a.s / a.k
			se := math.Sqrt(max(a.s2/a.k-mean*mean, 0) / max(a.k-1, 1))
			return fmt.Sprintf("%.3f (%.3f)", mean, se)
		}
		est := map[string]*[3]acc{}
		for _, e := range estimators {
			est[e.name] = &[3]acc{}
		}
		runOnce := func(r int, policy func(*Space) Policy, priorA1 func(*Model) float64) ([]query, *Space) {
			sp, err := pool.Space(randomOrder(pool.Len(), rng.New(9, "order", r)), a0, a1)
			if err != nil {
				t.Fatal(err)
			}
			start, err := startPositive(pool.Labels, 9, r)
			if err != nil {
				t.Fatal(err)
			}
			qs, err := Run(context.Background(), runConfig{Space: sp, Policy: policy(sp), Start: start, Budget: budget, Batch: batch, Seed: 9, Key: "prior", Workers: 2, PriorA1: priorA1}, nil, func([]query) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			return qs, sp
		}
		positives := func(qs []query) float64 {
			c := 0.0
			for _, q := range qs {
				if q.Positive {
					c++
				}
			}
			return c
		}
		qvs := func(sp *Space) Policy { return QVS{Q: 1, Kernel: sp.Kernel} }
		for r := range repeats {
			rng := rng.New(9, "labels", r)
			for reg, size := range []int{50, 200} {
				sp, err := pool.Space(nil, a0, a1)
				if err != nil {
					t.Fatal(err)
				}
				m := sp.Prior.Clone()
				for _, i := range rng.Perm(pool.Len())[:size] {
					m.Observe(i, sp.Labels[i])
				}
				for _, e := range estimators {
					add(&est[e.name][reg], e.f(m))
				}
			}
			qs, sp := runOnce(r, qvs, nil)
			m := sp.Prior.Clone()
			for _, q := range qs {
				m.Observe(sp.View(q.Index), q.Positive)
			}
			for _, e := range estimators {
				add(&est[e.name][2], e.f(m))
			}
		}
		for reg, label := range []string{"50 random", "200 random", "qVS-AS run (201)"} {
			row := fmt.Sprintf("| %s | %d | %.3f | %s |", name, pool.Len(), prev, label)
			for _, e := range estimators {
				row += " " + ms(est[e.name][reg]) + " |"
			}
			fmt.Println(row)
		}
		// Positives found: true prior vs re-estimated before every batch.
		for _, method := range []string{"qvs", "one-step"} {
			row := fmt.Sprintf("| %s | %s |", name, method)
			for _, pa := range append([]func(*Model) float64{nil}, estimatorFuncs...) {
				var a acc
				for r := range repeats {
					pol := func(*Space) Policy { return oneStep{} }
					if method == "qvs" {
						pol = qvs
					}
					qs, _ := runOnce(r, pol, pa)
					add(&a, positives(qs))
				}
				row += " " + ms(a) + " |"
			}
			found = append(found, row)
		}
		t.Logf("%s: %v", name, time.Since(t0).Round(time.Second))
	}
	fmt.Println()
	fmt.Println(foundHead)
	fmt.Println(strings.Repeat("|---", len(estimators)+3) + "|")
	for _, r := range found {
		fmt.Println(r)
	}
}
