package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// loadPool loads the pool of cfg with its steps (reading, the graph
// build's phases, ...) and the lines of describeGraph on e.Err (unless
// quiet). The pool's notes and warnings are the caller's to print, once
// (printPoolNotes).
func loadPool(e *Env, cfg datasets.Config) (*datasets.Pool, error) {
	t0 := time.Now()
	steps := newStepLog(e.Err, e.Quiet)
	pool, err := datasets.LoadWith(cfg, e.DataDir, e.CacheDir, knn.GraphOptions{Workers: e.Workers, Progress: steps.Progress(), Name: e.KeyName})
	steps.End()
	if err != nil {
		return nil, err
	}
	if !e.Quiet && pool.Graph.Method != "" {
		describeGraph(e.Err, pool, time.Since(t0).Seconds())
	}
	return pool, nil
}

// loadSearchPool loads the pool of cfg and prepares it for active search
// (search.NewPool), saying so on e.Err unless quiet: what is loaded, the
// pool's notes (once, "qvs: " first), its size and positives; its
// warnings even under quiet (printPoolNotes).
func loadSearchPool(e *Env, cfg datasets.Config) (*search.Pool, error) {
	if !e.Quiet {
		// A user's pool is named by its file: kind "csv" also reads .npy.
		what := cfg.Kind
		if cfg.Kind == datasets.KindCSV && cfg.CSV.File != "" {
			what = cfg.CSV.File
		} else if cfg.Kind == datasets.KindGraph && cfg.Graph.File != "" {
			what = cfg.Graph.File
		}
		fmt.Fprintf(e.Err, "loading pool %s ...\n", what)
	}
	pool, err := loadPool(e, cfg)
	if err != nil {
		return nil, err
	}
	steps := newStepLog(e.Err, e.Quiet)
	steps.Step("kNN model (reverse lists, the diversity kernel's rows)")
	sp, err := search.NewPool(pool)
	steps.End()
	if err != nil {
		return nil, err
	}
	printPoolNotes(e, "qvs: ", pool)
	if !e.Quiet {
		if pool.Unlabeled {
			fmt.Fprintf(e.Err, "pool %s: %d items, no labels\n", pool.Name, pool.Len())
		} else {
			fmt.Fprintf(e.Err, "pool %s: %d items, %d positives\n", pool.Name, pool.Len(), pool.PositiveCount())
		}
	}
	return sp, nil
}

// printPoolNotes writes each of the pool's notes on its line after
// prefix unless quiet, then each of its warnings, quiet or not: --quiet
// silences what informs, never what says the result may be wrong.
func printPoolNotes(e *Env, prefix string, p *datasets.Pool) {
	for _, note := range p.Notes {
		fmt.Fprintln(e.Chatter(), prefix+note)
	}
	if e.Err == nil {
		return
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(e.Err, prefix+w)
	}
}

// describeGraph says on stderr how the pool's graph was made (method,
// recall, time) and, after a build stored in the cache, how long the
// cached path will take (Pool.CachedLoadSeconds).
func describeGraph(w io.Writer, p *datasets.Pool, loadSeconds float64) {
	info := p.Graph
	k := 0
	if len(p.Neighbors) > 0 {
		k = len(p.Neighbors[0])
	}
	how := "exact"
	if info.Method == knn.KNNApprox {
		how = fmt.Sprintf("approximate (random-projection trees + NN-descent, %d rounds)", info.Stats.Rounds)
		if info.Stats.Recall >= 0 {
			how += fmt.Sprintf(", recall@%d %.4f measured against brute force on %d rows", k, info.Stats.Recall, info.Stats.RecallRows)
		}
	}
	switch info.Status {
	case knn.CacheHit:
		fmt.Fprintf(w, "kNN graph: %s; read from the cache in %.1f s (%s); features and graph loaded in %.1f s\n", how, info.Seconds, info.CacheFile, loadSeconds)
	default:
		fmt.Fprintf(w, "kNN graph: %s; built in %.1f s\n", how, info.Seconds)
		if info.CacheFile != "" && info.CacheBytes > 0 {
			fmt.Fprintf(w, "kNN graph cached in %s (%.0f MB): the next load of these features takes about %.1f s\n", info.CacheFile, float64(info.CacheBytes)/1e6, p.CachedLoadSeconds(loadSeconds))
		}
	}
}

// describePrior says on w which prior a1 the kNN model uses and why; fit
// is what FitPrior read (nil: a campaign, which re-estimates before every
// batch).
func describePrior(w io.Writer, prior search.Prior, a1 float64, fit *search.PriorFit) {
	switch {
	case prior.Rule == search.PriorEstimate && fit == nil:
		fmt.Fprintf(w, "prior a1 = %.4g at the start (one positive): re-estimated before every batch from the run's labels (empirical Bayes, the a1 maximising the leave-one-out likelihood of the labels under the kNN model; see 'qvs as suggest --help')\n", a1)
	case prior.Rule == search.PriorEstimate:
		fmt.Fprintf(w, "prior a1 = %.4g: empirical Bayes from %d observed label(s), %d positive (%d with no labelled neighbour, %d positive): the a1 maximising the leave-one-out likelihood of the labels under the kNN model, plus one pseudo-label of each class (see 'qvs as suggest --help'; set --prior to override)\n",
			a1, fit.Labels, fit.Positives, fit.Isolated, fit.IsolatedPositives)
	case prior.Rule == search.PriorPrevalence:
		fmt.Fprintf(w, "prior a1 = %g: the pool's true prevalence rounded to 3 decimals (the authors' rule; prior: prevalence)\n", a1)
	default:
		fmt.Fprintf(w, "prior a1 = %g (given)\n", a1)
	}
}

// describeColdStart says on w which prior a suggestion without labels
// used and what picked its batch (search.Suggest's cold-start rule).
func describeColdStart(w io.Writer, prior search.Prior, s *search.Suggestion, method string, q vendi.Order) {
	if prior.Rule == search.PriorEstimate {
		fmt.Fprintf(w, "prior a1 = %.4g: no labels to estimate it from, so the estimate's pseudo-labels alone (one of each class; set --prior to override)\n", s.A1)
	} else {
		describePrior(w, prior, s.A1, &s.Fit)
	}
	const same = "cold start (no labels): every item has Pr(y = 1) = a1, which scales the probability and qvs columns but not the batch; "
	switch {
	case s.PickedBy == "random":
		fmt.Fprintln(w, same+"random draws it as always")
	case q == 0:
		fmt.Fprintln(w, same+"VS_0 counts items, so every batch ties and the tie order picks it (--seed; config key ties: index, the lowest indices)")
	case method == s.PickedBy:
		fmt.Fprintf(w, "%sqVS-AS's eq. 7 is a1 x VS_%s, so the batch is the most diverse under the kNN kernel (greedy on VS_%s)\n", same, q, q)
	default:
		fmt.Fprintf(w, "%s%s's scores all tie, so the batch is qVS-AS's (as --method qvs): the most diverse under the kNN kernel (greedy on VS_%s); %s ranks once labels are observed\n", same, method, q, method)
	}
}
