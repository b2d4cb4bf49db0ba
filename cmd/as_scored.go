package cmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/surrogate"
)

// maxScoredBatch bounds `qvs as suggest --batch` with scores: 1 % of a
// library of a million.
const maxScoredBatch = 10000

// scoredOptions are the flags of `qvs as suggest` that apply to scored
// input only.
type scoredOptions struct {
	minimize       bool
	hitThreshold   float64
	hitTopFraction float64
	acquisition    string
	ucbBeta        float64
	gpKernel       string
	diversity      string
	candidates     int
}

// scoredFlags are the flags that apply only to scored input; labelFlags
// those that apply only to 0/1 labels.
var (
	scoredFlags = []string{"minimize", "hit-threshold", "hit-top-fraction", "acquisition", "ucb-beta", "gp-kernel", "diversity", "candidates"}
	labelFlags  = []string{"prior", "threshold", "beta", "lambda", "fantasy", "remaining"}
)

func (o *scoredOptions) register(c *cobra.Command) {
	f := c.Flags()
	f.BoolVar(&o.minimize, "minimize", false, "scores: lower is better (docking scores, IC50)")
	f.Float64Var(&o.hitThreshold, "hit-threshold", 0, "scores: a hit scores at least T (at most T with --minimize); used by --acquisition phit and reported")
	f.Float64Var(&o.hitTopFraction, "hit-top-fraction", surrogate.DefaultHitTopFraction, "scores: without --hit-threshold, a hit is in the best fraction f of the scored items")
	f.StringVar(&o.acquisition, "acquisition", surrogate.DefaultAcquisition, "scores: quality of qvs and ranking of top: "+strings.Join(surrogate.Acquisitions, "|"))
	f.Float64Var(&o.ucbBeta, "ucb-beta", surrogate.DefaultBeta, "scores: exploration weight of ucb, mean + sqrt(beta) sd")
	f.StringVar(&o.gpKernel, "gp-kernel", "auto", "scores: GP kernel on the pool's features: auto|"+strings.Join(surrogate.Kernels, "|")+" (auto: tanimoto for fingerprints, minmax for counts with --metric tanimoto, else matern52)")
	f.StringVar(&o.diversity, "diversity", surrogate.DefaultDiversity, "scores: diversity kernel of qvs over the candidates: dense (the GP kernel; with q = 2 a closed-form greedy) or knn (symmetrised 20-nearest-neighbour graph of the GP kernel)")
	f.IntVar(&o.candidates, "candidates", 0, "scores: items of highest acquisition the qvs greedy chooses among (default "+strconv.Itoa(surrogate.DefaultCandidateFactor)+" x batch, "+strconv.Itoa(surrogate.MinCandidates)+" to "+strconv.Itoa(surrogate.MaxCandidates)+")")
}

// check refuses bad values of the scored flags (usage errors).
func (o *scoredOptions) check(c *cobra.Command, method string, batch int, format string) error {
	fl := c.Flags()
	if err := flagsOnlyFor(c, "0/1 labels (a label column in --observed)", labelFlags); err != nil {
		return err
	}
	switch {
	case batch < 1 || batch > maxScoredBatch:
		return usageErrorf("--batch %d: expected 1 to %d", batch, maxScoredBatch)
	case format != "table" && format != "csv" && format != formatJSON:
		return usageErrorf("--format %q: expected table, csv or json", format)
	case !slices.Contains(surrogate.Methods, method):
		return usageErrorf("--method %q: with scores (a value column in --observed) expected one of %s", method, strings.Join(surrogate.Methods, ", "))
	case !slices.Contains(surrogate.Acquisitions, o.acquisition):
		return usageErrorf("--acquisition %q: expected one of %s", o.acquisition, strings.Join(surrogate.Acquisitions, ", "))
	case o.gpKernel != "auto" && !slices.Contains(surrogate.Kernels, o.gpKernel):
		return usageErrorf("--gp-kernel %q: expected auto or one of %s", o.gpKernel, strings.Join(surrogate.Kernels, ", "))
	case !slices.Contains(surrogate.Diversities, o.diversity):
		return usageErrorf("--diversity %q: expected one of %s", o.diversity, strings.Join(surrogate.Diversities, ", "))
	case !(o.ucbBeta > 0) || math.IsInf(o.ucbBeta, 0):
		return usageErrorf("--ucb-beta %v: expected a finite number > 0", o.ucbBeta)
	case !(o.hitTopFraction > 0 && o.hitTopFraction <= 1):
		return usageErrorf("--hit-top-fraction %v: expected a fraction in (0, 1]", o.hitTopFraction)
	case fl.Changed("hit-threshold") && fl.Changed("hit-top-fraction"):
		return usageErrorf("give --hit-threshold or --hit-top-fraction, not both")
	case fl.Changed("hit-threshold") && (math.IsNaN(o.hitThreshold) || math.IsInf(o.hitThreshold, 0)):
		return usageErrorf("--hit-threshold %v: expected a finite number", o.hitThreshold)
	case o.candidates < 0 || (fl.Changed("candidates") && o.candidates < batch):
		return usageErrorf("--candidates %d: expected at least --batch %d", o.candidates, batch)
	}
	return nil
}

// runASSuggestScored is `qvs as suggest` with scores in --observed: a GP
// on the pool's features and a qVS batch (internal/surrogate).
func runASSuggestScored(c *cobra.Command, g *GlobalOptions, o *asSuggestOptions) error {
	s := &o.scored
	if err := s.check(c, o.method, o.batch, o.format); err != nil {
		return err
	}
	fl := c.Flags()
	if g.Config == "" && !fl.Changed("pool-dir") && !fl.Changed("pool") && !fl.Changed("graph") && !fl.Changed("kernel") {
		return usageErrorf("give the pool with --pool FILE.csv|X.npy, --config FILE or --pool-dir DIR")
	}
	if fl.Changed("graph") || fl.Changed("kernel") {
		return usageErrorf("scores are fitted by a GP on the pool's features: give --pool FILE.csv|X.npy (or a config's pool) instead of --graph or --kernel")
	}
	cfg, err := resolveASConfig(c, g, &o.as, search.PriorEstimate)
	if err != nil {
		return err
	}
	// Every file, and every cell of --observed and --pending, before the
	// pool is read.
	if err := checkASSuggestInputs(cfg.Pool, o.observed, o.pending); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	if !g.Quiet {
		fmt.Fprintf(stderr, "loading pool %s ...\n", poolWhat(cfg.Pool))
	}
	steps := newStepLog(stderr, g.Quiet)
	pool, err := datasets.LoadWith(cfg.Pool, g.DataDir, g.CacheDir, knn.GraphOptions{Workers: g.Workers, Progress: steps.progress(), Name: g.keyName, FeaturesOnly: true})
	steps.end()
	if err != nil {
		return err
	}
	if !g.Quiet {
		for _, note := range pool.Notes {
			fmt.Fprintln(stderr, "qvs: "+note)
		}
	}
	scores, err := search.ParseScores(o.observed, pool)
	if err != nil {
		return err
	}
	var pending []int
	if o.pending != "" {
		if pending, err = search.ParsePendingScored(o.pending, pool, scores, o.observed); err != nil {
			return err
		}
	}
	if free := pool.Len() - len(scores) - len(pending); o.batch > free {
		return fmt.Errorf("--batch %d: pool %s has %s, %d scored and %d pending: ask for at most %d", o.batch, pool.Name, nItems(pool.Len(), "item"), len(scores), len(pending), free)
	}
	req := surrogate.Request{
		Minimize: s.minimize, Pending: pending, Batch: o.batch, Method: o.method,
		Acquisition: s.acquisition, Beta: s.ucbBeta, Q: o.q, Seed: cfg.Seed,
		HitThreshold: s.hitThreshold, HasHitThreshold: fl.Changed("hit-threshold"), HitTopFraction: s.hitTopFraction,
		Kernel: s.gpKernel, Diversity: s.diversity, Candidates: s.candidates, Workers: g.Workers,
	}
	if !fl.Changed("q") {
		req.Q = surrogate.DefaultQ
	}
	if req.Q == 0 {
		return usageErrorf("--q 0 with scores: use --method top (the top acquisitions, diversity-blind)")
	}
	for _, sc := range scores {
		req.Observed = append(req.Observed, sc.Index)
		req.Values = append(req.Values, sc.Value)
	}
	ctx, cancel := interruptContext(c)
	defer cancel()
	steps = newStepLog(stderr, g.Quiet)
	steps.step(fmt.Sprintf("fitting the GP to %d scores and picking a batch of %d (%s)", len(scores), o.batch, o.method))
	res, err := surrogate.Suggest(ctx, pool, req)
	steps.end()
	if err != nil {
		return err
	}
	if !g.Quiet {
		describeScored(stderr, res, s.minimize)
	}
	return writeScored(c, o, pool, res)
}

// poolWhat names the pool being loaded on stderr.
func poolWhat(cfg datasets.Config) string {
	if cfg.Kind == datasets.KindCSV && cfg.CSV.File != "" {
		return cfg.CSV.File
	}
	return cfg.Kind
}

// describeScored says on stderr what the GP is and what counts as a hit.
func describeScored(w interface{ Write([]byte) (int, error) }, r *surrogate.Result, minimize bool) {
	if r.ColdStart {
		fmt.Fprintf(w, "no successful score yet (%d failed): the most diverse batch among random candidates (cold start)\n", r.Failed)
		return
	}
	h := r.Hyper
	ell := ""
	if h.LengthScale > 0 {
		ell = fmt.Sprintf(", length scale %.4g", h.LengthScale)
	}
	fmt.Fprintf(w, "GP: %s kernel, %s posterior on %d of %d scores (%d failed, left out); standardised mean %.4g, signal variance %.4g, noise variance %.4g%s\n",
		r.Kernel, r.Form, r.Active, r.Scored, r.Failed, h.Mean, h.SignalVar, h.NoiseVar, ell)
	dir := ">="
	if minimize {
		dir = "<="
	}
	fmt.Fprintf(w, "hits: score %s %.6g: %d of the %d scores\n", dir, r.HitThreshold, r.Hits, r.Scored)
}

// writeScored prints the batch: rank, index, id, the acquisition, the
// quality (qvs), posterior mean and sd (the scores' units) and the qvs
// column (qvs).
func writeScored(c *cobra.Command, o *asSuggestOptions, pool *datasets.Pool, r *surrogate.Result) error {
	id := func(i int) string {
		if pool.IDs != nil {
			return pool.IDs[i]
		}
		return strconv.Itoa(i)
	}
	withQ := len(r.Quality) == len(r.Picks) && len(r.Values) == len(r.Picks) && len(r.Picks) > 0
	acqName := r.AcquisitionName
	head := []string{"rank", "index", "id", acqName, "mean", "sd"}
	if r.ColdStart {
		head = []string{"rank", "index", "id"}
	}
	if withQ {
		head = append(head, "quality", "qvs")
	}
	rows := make([][]string, len(r.Picks))
	for t, x := range r.Picks {
		row := []string{strconv.Itoa(t + 1), strconv.Itoa(x), id(x)}
		if !r.ColdStart {
			row = append(row, fullPrecision(r.Acquisition[t]), fullPrecision(r.Mean[t]), fullPrecision(r.SD[t]))
		}
		if withQ {
			row = append(row, fullPrecision(r.Quality[t]), fullPrecision(r.Values[t]))
		}
		rows[t] = row
	}
	switch o.format {
	case formatJSON:
		thr := any(nil)
		if !math.IsNaN(r.HitThreshold) {
			thr = r.HitThreshold
		}
		return writeJSONTable(c.OutOrStdout(), "as suggest", head, rows,
			jsonField{"method", r.Method}, jsonField{"acquisition", r.AcquisitionName}, jsonField{"q", jsonNumber(float64(r.Q))},
			jsonField{"minimize", o.scored.minimize}, jsonField{"scored", r.Scored}, jsonField{"failed", r.Failed},
			jsonField{"pending", r.Pending}, jsonField{"hit_threshold", thr}, jsonField{"hits", r.Hits},
			jsonField{"cold_start", r.ColdStart}, jsonField{"gp", gpJSON(r)})
	case "csv":
		for _, row := range rows {
			row[2] = csvID(row[2], o.rawIDs)
		}
		return writeSuggestions(c.OutOrStdout(), "csv", head, rows, nil)
	}
	// The table rounds the numbers; writeSuggestions quotes unprintable ids.
	th := append([]string(nil), head...)
	if withQ {
		th[len(th)-1] = "qVS_" + r.Q.String()
	}
	for t := range rows {
		row := rows[t][:3]
		if !r.ColdStart {
			row = append(row, fmt.Sprintf("%.4g", r.Acquisition[t]), fmt.Sprintf("%.4g", r.Mean[t]), fmt.Sprintf("%.4g", r.SD[t]))
		}
		if withQ {
			row = append(row, fmt.Sprintf("%.4f", r.Quality[t]), fmt.Sprintf("%.4f", r.Values[t]))
		}
		rows[t] = row
	}
	return writeSuggestions(c.OutOrStdout(), "table", th, rows, nil)
}

// gpJSON is the fitted GP of a result for --format json.
func gpJSON(r *surrogate.Result) any {
	if r.ColdStart {
		return nil
	}
	return map[string]any{
		"kernel": r.Kernel, "form": r.Form, "active": r.Active,
		"mean": r.Hyper.Mean, "signal_variance": r.Hyper.SignalVar, "noise_variance": r.Hyper.NoiseVar,
		"length_scale": r.Hyper.LengthScale, "log_marginal_likelihood": r.Hyper.LogML,
	}
}
